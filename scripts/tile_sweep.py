#!/usr/bin/env python3
"""make tile-sweep: the lab's table on our GPU. Kernel time of each kernel whose step
declares the experiment (its experiments.json's "tile_sweep": the naive kernel with TILE x
TILE threads per block, the tiled kernel with TILE x TILE tiles), built here with the -D
flag the step names, for TILE = 4, 8, 16, 32 and n = 512 ... 8192 (up to the step's max_n,
as in the lab). Rows go to results/<device-slug>-tile-sweep.csv.

Usage: scripts/tile_sweep.py [--sizes "512 1024 2048 4096 8192"] [--tiles "4 8 16 32"]
                             [--reps R]
"""
import argparse
import concurrent.futures
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ladder  # noqa: E402

COLUMNS = ["date", "command", "kernel", "tile", "threads_per_block", "n", "device", "kernel_ms", "gflops",
           "max_rel_err", "status"]
KEY = ("kernel", "tile", "n", "device")


def variants(tiles):
    """[(kernel, tile, exe, source, define, max_n)]: every declared kernel at every tile."""
    out = []
    for step, entry in ladder.experiments("tile_sweep"):
        source = next(b for b in ladder.step_binaries() if b.endswith("/" + step)) + ".cu"
        for tile in tiles:
            out.append((entry["kernel"], tile, f"obj/tile/{step}_{entry['kernel']}{tile}", source,
                        entry["define"].format(tile=tile), entry.get("max_n")))
    return out


def main(argv):
    p = argparse.ArgumentParser(prog="tile_sweep.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", type=ladder.sizes_arg, default="512 1024 2048 4096 8192")
    p.add_argument("--tiles", type=ladder.sizes_arg, default="4 8 16 32")
    p.add_argument("--reps", type=ladder.positive_int, default=5)
    a = p.parse_args(argv)
    device = ladder.require_gpu("tile-sweep")
    if device is None:
        return ladder.EXIT_NO_GPU
    todo, arch = variants(a.tiles), ladder.arch_flags()
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count()) as pool:
        builds = list(pool.map(lambda v: ladder.build_variant(v[3], [v[4]], v[2], arch), todo))
    for v, (code, err) in zip(todo, builds):
        if code != 0:
            print(f"{v[2]}: does not build: {err}", file=sys.stderr)
            return 1
    rows, failed = [], 0
    for n in a.sizes:
        for tile in a.tiles:
            for kernel, _, exe, _, _, max_n in (v for v in todo if v[1] == tile):
                if max_n and n > max_n:
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
    kernels = list(dict.fromkeys(v[0] for v in todo))
    print(f"{'n':>6} {'tile':>5} " + " ".join(f"{k + ' kernel':>13}" for k in kernels))
    get = {(r["kernel"], r["tile"], r["n"]): float(r["kernel_ms"]) for r in rows}
    for n in a.sizes:
        for tile in a.tiles:
            print(f"{n:6d} {tile:5d} " + " ".join(f"{get.get((k, tile, n), float('nan')):13.3f}" for k in kernels))
    print(recorded)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
