#!/usr/bin/env python3
"""make reproduce ONLY=rounding: TF32 by truncation beside TF32 rounded to nearest, in one run.
The step that declares the experiment (its experiments.json's "rounding") as it was before
it rounded (its development version named there, which truncates), the step, and cuBLAS
TF32, one after the other at each size
and input distribution, so that every ratio comes from the same minutes: n = 1000, 4096 and
8192 on uniform and wide inputs, n = 1000 on the ends of FP32's range. Rows into
results/<device-slug>-tf32-rounding.csv, a log in results/<device-slug>-tf32-rounding.txt.
A FAIL is recorded as the program gives it (TF32 rounded to nearest overflows on inputs near
FLT_MAX, the huge family, as cuBLAS TF32 does): it is what the table shows.

Usage: scripts/tf32_rounding.py [--reps R] [--results DIR]
"""
import argparse
import datetime
import os
import shlex
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ladder  # noqa: E402
import versions  # noqa: E402

RUNS = [(n, d) for d in ladder.DISTS for n in (1000, 4096, 8192)] + [(1000, d) for d in ladder.RANGE_DISTS]


def programs():
    """[truncated, rounded, "cublas_tf32"]: each step's truncating version and the step, as
    the steps' experiments.json declare them."""
    out = []
    for step, entry in ladder.experiments("rounding"):
        out += [entry["truncated"], step]
    return out + ["cublas_tf32"]


def command(program):
    chains = versions.versions()  # a development version's binary, from its own source
    if program in chains:
        return [chains[program][0]]
    return ladder.program_command(program)


def main(argv):
    ap = argparse.ArgumentParser(prog="tf32_rounding.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=ladder.positive_int, default=20, help="timed kernel launches per run (default 20)")
    ap.add_argument("--results", default=os.path.join(ladder.ROOT, "results"), help="results folder")
    a = ap.parse_args(argv)
    device = ladder.require_gpu("tf32_rounding")
    if device is None:
        return ladder.EXIT_NO_GPU
    ladder.discover()  # cuBLAS's TF32 row: its binary and --math
    progs = programs()
    missing = [command(p)[0] for p in progs if not os.path.exists(os.path.join(ladder.ROOT, command(p)[0]))]
    if missing:
        print(f"tf32_rounding: not built: {' '.join(missing)} (make all versions)", file=sys.stderr)
        return 1
    stamp = datetime.datetime.now(datetime.timezone.utc)
    os.makedirs(a.results, exist_ok=True)
    base = os.path.join(a.results, ladder.slug(device) + "-tf32-rounding")
    log = open(base + ".txt", "w")
    log.write(f"# scripts/tf32_rounding.py on {device}, {stamp:%Y-%m-%d %H:%M} UTC\n"
              f"# $ python3 scripts/tf32_rounding.py {shlex.join(argv)}".rstrip() + "\n")
    rows, failed = [], 0
    for n, dist in RUNS:
        for prog in progs:
            cmd = command(prog) + ["-n", str(n), "--dist", dist, "--reps", str(a.reps), "--csv"]
            log.write("$ " + " ".join(cmd) + "\n")
            r, code, err = ladder.run_csv(cmd)
            why = ladder.skip_reason(code, err)
            if why:
                line = f"{prog} n={n} {dist}: skipped: {why}"
            elif r is None or r["program"] != prog:
                line = f"{prog} n={n} {dist}: exit {code}: {err}"
                failed += 1
            else:
                rows.append(ladder.result_row(cmd, r, ladder.now_stamp(stamp)))
                line = (f"{prog:12s} n={n:5d} {dist:9s} {float(r['gflops']) / 1e3:6.1f} TFLOPS, componentwise error "
                        f"max {float(r['max_comp_err']):.2e} mean {float(r['avg_comp_err']):.2e}: {r['status']}")
            print(line, flush=True)
            log.write(line + "\n")
    if rows:
        line = ladder.record(base + ".csv", rows)
        print(line)
        log.write(line + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
