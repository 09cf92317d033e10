#!/usr/bin/env python3
"""make transpose: every transpose variant at the text's matrix (2048 wide, 1536 high)
and at 8192 x 8192; the table (ms per transpose, effective GB/s, % of the device-to-
device copy, speedup over the naive kernel and over the CPU); rows recorded in
results/<device-slug>-transpose.csv, replacing earlier rows of the same key.

Usage: scripts/transpose_compare.py [--shapes "1536x2048 8192x8192"] [--iters K]
"""
import os
import sys

import experiment
import ladder

EXE = os.path.join("transpose", "transpose")
PROGRAM_COLUMNS = ["program", "rows", "cols", "device", "kernel_ms", "gbps", "iters", "status"]
COLUMNS = ["date", "command"] + PROGRAM_COLUMNS
KEY = ("program", "rows", "cols", "device")


def table(rows):
    by = {r["program"]: r for r in rows}
    copy = float(by["copy"]["gbps"]) if "copy" in by else None
    naive = float(by["naive"]["kernel_ms"]) if "naive" in by else None
    cpu = float(by["cpu"]["kernel_ms"]) if "cpu" in by else None
    lines = [f"{'variant':14s} {'ms':>10s} {'GB/s':>9s} {'% of copy':>9s} {'x naive':>8s} {'x CPU':>8s}  result"]
    for r in rows:
        ms, gbps = float(r["kernel_ms"]), float(r["gbps"])
        lines.append(f"{r['program']:14s} {ms:10.4f} {gbps:9.1f} {100 * gbps / copy if copy else 0:9.1f} "
                     f"{naive / ms if naive else 0:8.2f} {cpu / ms if cpu else 0:8.1f}  {r['status']}")
    return "\n".join(lines)


def main(argv):
    ap = ladder.ArgumentParser(prog="transpose_compare.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--shapes", default="1536x2048 8192x8192", help="ROWSxCOLS, space-separated")
    ap.add_argument("--iters", type=ladder.positive_int, default=20)
    a = ap.parse_args(argv)
    results = ladder.measurements_dir()  # checked before anything is measured
    try:
        shapes = [tuple(int(x) for x in s.split("x")) for s in a.shapes.split()]
    except ValueError:
        shapes = []
    if not shapes or not all(len(s) == 2 and min(s) >= 1 for s in shapes):
        ap.error("--shapes: ROWSxCOLS with whole numbers >= 1")
    if not os.path.exists(os.path.join(ladder.ROOT, EXE)):
        print(f"transpose_compare.py: {EXE} is not built (make {EXE})", file=sys.stderr)
        return ladder.EXIT_USAGE
    device = ladder.require_gpu("transpose")
    if device is None:
        return ladder.EXIT_NO_GPU
    stamp = ladder.now_stamp()
    allrows, ok = [], True
    for rows_, cols_ in shapes:
        cmd = [EXE, "--rows", str(rows_), "--cols", str(cols_), "--iters", str(a.iters), "--csv-header"]
        print("$ " + " ".join(cmd), flush=True)
        found, code, err = experiment.run_table(cmd)
        if code not in (0, 1):
            print(err, file=sys.stderr)
            return code
        ok &= code == 0
        rows = [ladder.result_row(cmd[:-1] + ["--csv"], dict(r, device=device), stamp) for r in found]
        allrows += rows
        print(f"\n{device}: {rows_} x {cols_} floats (rows x cols), median of {a.iters}\n{table(rows)}\n")
    print(ladder.record(os.path.join(results, ladder.slug(device) + "-transpose.csv"), allrows,
                        COLUMNS, KEY))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
