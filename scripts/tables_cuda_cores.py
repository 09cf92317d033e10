"""The CUDA-core chapter's tables: the warp-tiled kernels' tile shapes (make warptile-sweep; the
steps that declare "warptile_sweep" in their experiments.json).
"""
import glob
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ladder  # noqa: E402
from tables_shared import f, table  # noqa: E402


def warptile_sweep_table(results_dir):
    """Every tile shape tried for steps 09 and 10: GFLOPS at n = 1000 and 4096, best first."""
    parts = []
    for path in sorted(glob.glob(os.path.join(results_dir, "*-warptile-sweep.csv"))):
        rows = ladder.read_results(path)
        keys = sorted({(r["program"], r["config"], r["threads"], r["registers"]) for r in rows})
        get = {(r["program"], r["config"], int(r["n"])): r for r in rows}
        body = []
        for prog, cfg, threads, regs in keys:
            g = {n: get.get((prog, cfg, n)) for n in (1000, 4096)}
            body.append((float(g[4096]["gflops"]) if g[4096] else 0.0,
                         [prog, cfg.replace("_", " "), threads, regs,
                          f(g[1000]["gflops"], 0) if g[1000] else "", f(g[4096]["gflops"], 0) if g[4096] else ""]))
        body.sort(key=lambda x: -x[0])
        dates = ", ".join(sorted({r["date"][:10] for r in rows}))
        parts.append(f"**{rows[0]['device']}** (measured {dates}; kernel GFLOPS, median of 10; shape = "
                     "BM x BN x BK, warp tile WM x WN, blocks per SM asked of the compiler, pipeline stages; "
                     "+swizzle: after the swizzle of A's tile)\n\n"
                     + table(["step", "shape", "threads", "registers", "GFLOPS n = 1000", "GFLOPS n = 4096"],
                             [b for _, b in body], 2))
    return "\n\n".join(parts)


def tables(results_dir):
    return {"warptile-sweep": warptile_sweep_table(results_dir)}
