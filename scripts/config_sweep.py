#!/usr/bin/env python3
"""make config-sweep: every configuration of each program that has several (its tile
shapes and pipeline depths, as --describe lists them), run through --config at the given sizes on this GPU, into
results/<device-slug>-config-sweep.csv. It shows what each configuration costs, and so
what a GPU with less shared memory per block gives up (the harness runs the first
configuration of the step's list that fits).

Usage: scripts/config_sweep.py [--sizes "1000 2048 4096 8192"] [--reps R] [--programs "PROGRAM ..."]
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ladder  # noqa: E402

COLUMNS = ["date", "command", "program", "config", "smem_bytes", "n", "device", "kernel_ms", "gflops",
           "max_rel_err", "status", "max_comp_err"]
KEY = ("program", "config", "n", "device")


def main(argv):
    ap = argparse.ArgumentParser(prog="config_sweep.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=ladder.sizes_arg, default="1000 2048 4096 8192")
    ap.add_argument("--reps", type=ladder.positive_int, default=10)
    ap.add_argument("--programs", help="default: every program built here that has several configurations")
    a = ap.parse_args(argv)
    device = ladder.require_gpu("config-sweep")
    if device is None:
        return ladder.EXIT_NO_GPU
    found = ladder.discover()
    programs = a.programs.split() if a.programs else [p for p, d in found.items() if d["configs"]]
    rows, failed = [], 0
    stamp = ladder.now_stamp()
    for prog in programs:
        if prog not in found:
            ap.error(f"unknown program '{prog}' (built here: {' '.join(found)})")
        for config in found[prog]["configs"]:
            for n in a.sizes:
                cmd = ladder.program_command(prog) + ["-n", str(n), "--reps", str(a.reps), "--csv", "--config", config]
                r, code, err = ladder.run_csv(cmd)
                why = ladder.skip_reason(code, err, too_big=True)  # too big: the configuration does not fit
                if why:
                    print(f"{prog} {config:14s} n={n:5d}: skipped: {why}")
                    continue
                if r is None:
                    print(f"{prog} {config} n={n}: exit {code}: {err}", file=sys.stderr)
                    failed += 1
                    continue
                failed += code
                rows.append(ladder.result_row(cmd, {
                    "program": prog, "config": config, "smem_bytes": r["smem_bytes"], "n": n, "device": r["device"],
                    "kernel_ms": r["kernel_ms"], "gflops": r["gflops"], "max_rel_err": r["max_rel_err"],
                    "status": r["status"], "max_comp_err": r["max_comp_err"]}, stamp))
                print(f"{prog} {config:22s} {int(r['smem_bytes']):7d} bytes n={n:5d} {float(r['kernel_ms']):9.3f} ms "
                      f"{float(r['gflops']):8.0f} GFLOPS {r['status']}", flush=True)
    if rows:
        print(ladder.record(os.path.join(ladder.ROOT, "results", ladder.slug(device) + "-config-sweep.csv"), rows,
                            COLUMNS, KEY))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
