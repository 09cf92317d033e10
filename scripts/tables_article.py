"""The article chapter's tables: the lab's tile sweep (make tile-sweep; the steps that declare
"tile_sweep" in their experiments.json).
"""
import glob
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ladder  # noqa: E402
from tables_shared import f, table  # noqa: E402


def tile_sweep_table(results_dir):
    """The lab's layout: n, tile, naive and tiled kernel ms, per device."""
    parts = []
    for path in sorted(glob.glob(os.path.join(results_dir, "*-tile-sweep.csv"))):
        if path.endswith("-warptile-sweep.csv"):
            continue
        rows = ladder.read_results(path)
        if not rows:
            continue
        get = {(r["kernel"], int(r["tile"]), int(r["n"])): r for r in rows}
        sizes = sorted({int(r["n"]) for r in rows})
        tiles = sorted({int(r["tile"]) for r in rows})
        body = []
        for n in sizes:
            for t in tiles:
                nv, tv = get.get(("naive", t, n)), get.get(("tiled", t, n))
                body.append([str(n), f"{t} x {t}", f(nv["kernel_ms"], 3) if nv else "", f(nv["gflops"], 0) if nv else "",
                             f(tv["kernel_ms"], 3) if tv else "", f(tv["gflops"], 0) if tv else ""])
        dates = sorted({r["date"][:10] for r in rows})
        parts.append(f"**{rows[0]['device']}** (measured {', '.join(dates)}; kernel time, median of "
                     f"{rows[0]['command'].split('--reps ')[1].split()[0]})\n\n"
                     + table(["n", "tile (threads per block)", "naive kernel ms", "naive GFLOPS", "tiled kernel ms",
                              "tiled GFLOPS"], body))
    return "\n\n".join(parts)


def tables(results_dir):
    return {"tile-sweep": tile_sweep_table(results_dir)}
