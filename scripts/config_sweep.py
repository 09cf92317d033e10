#!/usr/bin/env python3
"""make config-sweep: every configuration of the steps that have several (step 10's tile
shapes and pipeline depths), run through --config at the given sizes on this GPU, into
results/<device-slug>-config-sweep.csv. It shows what each configuration costs, and so
what a GPU with less shared memory per block gives up (the harness runs the first
configuration of the step's list that fits).

Usage: scripts/config_sweep.py [--sizes "1000 2048 4096 8192"] [--reps R] [--programs "step10 step11"]
"""
import argparse
import datetime
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ladder  # noqa: E402

COLUMNS = ["date", "command", "program", "config", "smem_bytes", "n", "device", "kernel_ms", "gflops",
           "max_rel_err", "status", "max_comp_err"]
KEY = ("program", "config", "n", "device")


def configs_of(program):
    """The configuration names a program lists when --config gets one it does not know."""
    p = subprocess.run(ladder.program_command(program) + ["--config", "?"], cwd=ladder.ROOT, capture_output=True,
                       text=True)
    m = re.search(r"expected one of (.*) \(try --help\)", p.stderr)
    return m.group(1).split(", ") if m else []


def main(argv):
    ap = argparse.ArgumentParser(prog="config_sweep.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1000 2048 4096 8192")
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--programs", default="step10 step11 step12 cutlass_tf32 cutlass_3xtf32")
    a = ap.parse_args(argv)
    try:
        sizes = [int(s) for s in a.sizes.split()]
    except ValueError:
        ap.error("--sizes: whole numbers")
    if a.reps < 1 or not sizes or min(sizes) < 1:
        ap.error("sizes and --reps must be >= 1")
    device, info = ladder.gpu_info()
    if device is None:
        print(f"config-sweep: no GPU to run on: {info}", file=sys.stderr)
        return ladder.EXIT_NO_GPU
    rows, failed = [], 0
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%MZ")
    for prog in a.programs.split():
        if prog not in ladder.LADDER:
            ap.error(f"unknown program '{prog}'")
        if not os.path.exists(os.path.join(ladder.ROOT, ladder.program_path(prog))):
            print(f"{prog}: skipped: {ladder.program_path(prog)} is not built")
            continue
        for config in configs_of(prog):
            for n in sizes:
                cmd = ladder.program_command(prog) + ["-n", str(n), "--reps", str(a.reps), "--csv", "--config", config]
                r, code, err = ladder.run_csv(cmd)
                if code in (ladder.EXIT_NO_FEATURE, 2):  # this GPU cannot run it, or it does not fit
                    print(f"{prog} {config:14s} n={n:5d}: skipped: {err}")
                    continue
                if r is None:
                    print(f"{prog} {config} n={n}: exit {code}: {err}", file=sys.stderr)
                    failed += 1
                    continue
                failed += code
                rows.append({"date": stamp, "command": " ".join(cmd), "program": prog, "config": config,
                             "smem_bytes": r["smem_bytes"], "n": n, "device": r["device"],
                             "kernel_ms": r["kernel_ms"], "gflops": r["gflops"], "max_rel_err": r["max_rel_err"],
                             "status": r["status"], "max_comp_err": r["max_comp_err"]})
                print(f"{prog} {config:22s} {int(r['smem_bytes']):7d} bytes n={n:5d} {float(r['kernel_ms']):9.3f} ms "
                      f"{float(r['gflops']):8.0f} GFLOPS {r['status']}", flush=True)
    path = os.path.join(ladder.ROOT, "results", ladder.slug(device) + "-config-sweep.csv")
    if rows:
        ladder.merge_results(path, rows, COLUMNS, KEY)
        print(f"rows recorded in {os.path.relpath(path, ladder.ROOT)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
