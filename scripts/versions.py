#!/usr/bin/env python3
"""make reproduce ONLY=versions: the development versions beside the steps they became, each
in its default configuration at the sizes given, into results/<device-slug>-versions.csv,
with a log in results/<device-slug>-versions.txt.

The versions (make versions builds them into obj/versions/) are found, not listed: every
step's versions/ folder, in its files' order (stepNN_v1_..., stepNN_v2_...), then the step,
each a whole program one change from the one before; each says that change in its own
step_info (.change). Each is judged by its own precision class, and its verdict is recorded
as the program gives it. A version kept to show a failure says so (.fails_on_purpose): its
FAIL is recorded and said, not an error of this script; a FAIL of any other is (exit 1).

Usage: scripts/versions.py [--sizes "4096 8192"] [--reps R] [--results DIR]
"""
import argparse
import datetime
import os
import shlex
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ladder  # noqa: E402

def versions():
    """{program (its CSV name): (binary, what changed from the one before, may FAIL its bound)},
    the chains one after the other, as the programs' own step_info say (ladder.version_chains)."""
    return {v["program"]: (v["binary"], v["change"], bool(v["fails_on_purpose"]))
            for chain in ladder.version_chains() for v in chain}


def main(argv):
    ap = argparse.ArgumentParser(prog="versions.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=ladder.sizes_arg, default="4096 8192", help="matrix sizes (default: 4096 8192)")
    ap.add_argument("--reps", type=ladder.positive_int, default=20, help="timed kernel launches per run (default 20)")
    ap.add_argument("--results", default=os.path.join(ladder.ROOT, "results"), help="results folder")
    a = ap.parse_args(argv)
    device = ladder.require_gpu("versions")
    if device is None:
        return ladder.EXIT_NO_GPU
    chains = versions()
    missing = [b for b, _, _ in chains.values() if not os.path.exists(os.path.join(ladder.ROOT, b))]
    if missing:
        print(f"versions: not built: {' '.join(missing)} (make all versions)", file=sys.stderr)
        return 1
    stamp = datetime.datetime.now(datetime.timezone.utc)
    log_path = os.path.join(a.results, ladder.slug(device) + "-versions.txt")
    os.makedirs(a.results, exist_ok=True)
    log = open(log_path, "w")
    log.write(f"# scripts/versions.py on {device}, {stamp:%Y-%m-%d %H:%M} UTC\n"
              f"# $ python3 scripts/versions.py {shlex.join(argv)}".rstrip() + "\n")

    def say(line):
        print(line, flush=True)
        log.write(line + "\n")
        log.flush()

    rows, failed = [], 0
    for prog, (binary, _, may_fail) in chains.items():
        for n in a.sizes:
            cmd = [binary, "-n", str(n), "--reps", str(a.reps), "--csv"]
            say("$ " + " ".join(cmd))
            r, code, err = ladder.run_csv(cmd)
            why = ladder.skip_reason(code, err, too_big=True)  # too big: no configuration fits this GPU
            if why:
                say(f"{prog} n={n}: skipped: {why}")
                continue
            if r is None:
                say(f"{prog} n={n}: exit {code}: {err}")
                failed += 1
                continue
            if r["program"] != prog:  # the binary's own name: a mix-up of files would show here
                say(f"{prog} n={n}: the program calls itself {r['program']}")
                failed += 1
                continue
            expected = code == 1 and may_fail
            failed += code == 1 and not may_fail
            rows.append(ladder.result_row(cmd, r, ladder.now_stamp(stamp)))
            say(f"{prog:10s} n={n:5d} {r['config']:14s} {float(r['kernel_ms']):9.3f} ms "
                f"{float(r['gflops']) / 1e3:6.1f} TFLOPS, avg rel err {float(r['avg_rel_err']):.2e}, "
                f"comp err {float(r['max_comp_err']):.2e} (the {r['precision']} bound {float(r['tolerance']):.2e}): "
                f"{r['status']}"
                + (" (expected: this version is kept to show it)" if expected else ""))
    if rows:
        say(ladder.record(os.path.join(a.results, ladder.slug(device) + "-versions.csv"), rows))
    log.close()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
