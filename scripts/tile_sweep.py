#!/usr/bin/env python3
"""make tile-sweep: the lab's table on our GPU. Kernel time of the naive kernel
(step 02: one thread per element, Kahan, TILE x TILE threads per block) and of the
tiled kernel (step 05 with TILE x TILE tiles) for TILE = 4, 8, 16, 32 and
n = 512 ... 8192 (the naive kernel up to 4096, as in the lab). Rows go to
results/<device-slug>-tile-sweep.csv.

Usage: scripts/tile_sweep.py [--sizes "512 1024 2048 4096 8192"] [--tiles "4 8 16 32"]
                             [--naive-max 4096] [--reps R]
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ladder  # noqa: E402

COLUMNS = ["date", "command", "kernel", "tile", "threads_per_block", "n", "device", "kernel_ms", "gflops",
           "max_rel_err", "status"]
KEY = ("kernel", "tile", "n", "device")


def main(argv):
    p = argparse.ArgumentParser(prog="tile_sweep.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", type=ladder.sizes_arg, default="512 1024 2048 4096 8192")
    p.add_argument("--tiles", type=ladder.sizes_arg, default="4 8 16 32")
    p.add_argument("--naive-max", type=int, default=4096)
    p.add_argument("--reps", type=ladder.positive_int, default=5)
    a = p.parse_args(argv)
    device = ladder.require_gpu("tile-sweep")
    if device is None:
        return ladder.EXIT_NO_GPU
    rows, failed = [], 0
    for n in a.sizes:
        for tile in a.tiles:
            for kernel, exe in (("naive", f"obj/tile/step02_threads{tile}"), ("tiled", f"obj/tile/step05_tile{tile}")):
                if kernel == "naive" and n > a.naive_max:
                    continue
                cmd = [exe, "-n", str(n), "--reps", str(a.reps), "--csv"]
                row, code, err = ladder.run_csv(cmd)
                if row is None:
                    print(f"{' '.join(cmd)}: exit {code}: {err}", file=sys.stderr)
                    failed += 1
                    continue
                failed += code
                rows.append(ladder.result_row(cmd, {
                    "kernel": kernel, "tile": tile, "threads_per_block": tile * tile, "n": n, "device": row["device"],
                    "kernel_ms": row["kernel_ms"], "gflops": row["gflops"], "max_rel_err": row["max_rel_err"],
                    "status": row["status"]}))
                print(f"{kernel:5s} tile {tile:2d} n={n:5d}: {float(row['kernel_ms']):9.3f} ms "
                      f"{float(row['gflops']):7.0f} GFLOPS {row['status']}", flush=True)
    recorded = ladder.record(os.path.join(ladder.ROOT, "results", ladder.slug(device) + "-tile-sweep.csv"), rows,
                             COLUMNS, KEY)
    print(f"\n{device}: kernel ms (median of {a.reps}), the lab's layout")
    print(f"{'n':>6} {'tile':>5} {'naive kernel':>13} {'tiled kernel':>13}")
    get = {(r["kernel"], r["tile"], r["n"]): float(r["kernel_ms"]) for r in rows}
    for n in a.sizes:
        for tile in a.tiles:
            nv, tv = get.get(("naive", tile, n)), get.get(("tiled", tile, n))
            print(f"{n:6d} {tile:5d} {nv if nv is not None else float('nan'):13.3f} "
                  f"{tv if tv is not None else float('nan'):13.3f}")
    print(recorded)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
