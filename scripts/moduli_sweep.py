#!/usr/bin/env python3
"""make moduli-sweep: step 16's accuracy knob, the number of moduli, against its speed. Step 16
built with each count (make moduli builds obj/moduli/step16_mN, N = 5 ... 14), and in the same
run the programs it is measured against: cuBLAS SGEMM and TF32, the 3xTF32 steps (14, 15) and
step 16 as built (its default counts), at the sizes given, on uniform and wide inputs, and on the short
sums (n = 1 ... 33) where 3xTF32 has its floor. Rows into results/<device-slug>-moduli.csv.
Last, cuBLAS's INT8 GEMM (cublas/int8_gemm) at the same sizes, the ceiling of step 16's residue
products: rows into results/<device-slug>-int8-gemm.csv.

A count whose errors leave the fp32 bound FAILs, as the program says: that is the knob's lower
end, recorded, not an error of this script.

Usage: scripts/moduli_sweep.py [--sizes "1000 8192"] [--short "1 2 3 8 17 33"] [--reps R] [--counts "5 8"]
                              [--results DIR] [--int8-only]
"""
import argparse
import csv
import glob
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ladder  # noqa: E402

REFERENCES = ["cublas", "cublas_tf32", "step14", "step15", "step16"]


def variants():
    """[(count, binary)] of the builds found in obj/moduli/, by count."""
    found = []
    for b in glob.glob(os.path.join(ladder.ROOT, "obj", "moduli", "step16_m*")):
        m = re.search(r"step16_m(\d+)$", b)
        if m:
            found.append((int(m.group(1)), os.path.relpath(b, ladder.ROOT)))
    return sorted(found)


def main(argv):
    ap = argparse.ArgumentParser(prog="moduli_sweep.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=ladder.sizes_arg, default="1000 8192", help="matrix sizes (default: 1000 8192)")
    ap.add_argument("--short", type=lambda t: [ladder.positive_int(s) for s in t.split()], default="1 2 3 8 17 33",
                    help="short sums, uniform and wide, with every row checked (default: 1 2 3 8 17 33; \"\": none)")
    ap.add_argument("--reps", type=ladder.positive_int, default=10, help="timed kernel launches per run (default 10)")
    ap.add_argument("--counts", help="the counts of moduli to run (default: every build in obj/moduli/; \"\": "
                    "the programs it is measured against alone)")
    ap.add_argument("--results", default=os.path.join(ladder.ROOT, "results"), help="results folder")
    ap.add_argument("--int8-only", action="store_true", help="cuBLAS's INT8 GEMM alone, at --sizes")
    a = ap.parse_args(argv)
    builds = variants()
    if a.counts is not None:
        builds = [(c, b) for c, b in builds if str(c) in a.counts.split()]
    if not builds and a.counts is None and not a.int8_only:
        print("moduli_sweep.py: no obj/moduli/step16_mN: run make moduli first", file=sys.stderr)
        return ladder.EXIT_USAGE
    device = ladder.require_gpu("moduli-sweep")
    if device is None:
        return ladder.EXIT_NO_GPU
    ladder.discover()
    commands = [(p, ladder.program_command(p)) for p in REFERENCES if p in ladder.PROGRAMS]
    commands += [(f"step16_m{count}", [binary]) for count, binary in builds]
    runs = [(n, d, ["--reps", str(a.reps)]) for n in a.sizes for d in ladder.DISTS]
    runs += [(n, d, ["--reps", "1", "--check", "full"]) for n in a.short for d in ladder.DISTS]
    if a.int8_only:
        runs = []
    rows, failed = [], []
    for n, dist, extra in runs:
        for name, cmd in commands:
            full = cmd + ["-n", str(n), "--dist", dist, "--csv"] + extra
            r, code, err = ladder.run_csv(full)
            why = ladder.skip_reason(code, err)
            if why:
                print(f"{name} n={n} {dist}: skipped: {why}")
                continue
            if r is None:
                print(f"{name} n={n} {dist}: exit {code}: {err}")
                failed.append(" ".join(full))
                continue
            rows.append(ladder.result_row(full, r))
            print(f"{r['program']:12s} n={n:5d} {dist:7s} {float(r['kernel_ms']):9.3f} ms  "
                  f"comp err {float(r['max_comp_err']):.2e}  avg rel {float(r['avg_rel_err']):.2e}  "
                  f"{r['precision']} {r['status']}", flush=True)
    if rows:
        print(ladder.record(os.path.join(a.results, ladder.slug(device) + "-moduli.csv"), rows))
    int8 = [n for n in a.sizes if n % 4 == 0]
    if int8 and os.path.exists(os.path.join(ladder.ROOT, "cublas", "int8_gemm")):
        cmd = ["cublas/int8_gemm", "--sizes", " ".join(map(str, int8)), "--reps", str(a.reps), "--csv"]
        p = subprocess.run(cmd, cwd=ladder.ROOT, capture_output=True, text=True)
        lines = p.stdout.splitlines()
        if p.returncode != 0 or len(lines) < 2:
            print(f"{' '.join(cmd)}: exit {p.returncode}: {p.stderr.strip()}", file=sys.stderr)
            failed.append(" ".join(cmd))
        else:
            int8_rows = list(csv.DictReader(lines))
            for r in int8_rows:
                print(f"cublas_int8  n={int(r['n']):5d}         {float(r['kernel_ms']):9.3f} ms  {r['tops']} TOPS  "
                      f"{r['status']}")
            print(ladder.record(os.path.join(a.results, ladder.slug(device) + "-int8-gemm.csv"), int8_rows,
                                columns=list(int8_rows[0]), key=("program", "n", "device")))
    if failed:
        print("FAILED to run: " + "; ".join(failed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
