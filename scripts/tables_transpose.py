"""The transpose chapter's table (make transpose: scripts/transpose_compare.py).
"""
import glob
import os

import ladder
from tables_shared import f, table


def gpu_iters(rows):
    """The timed launches of the GPU variants (the CPU ones stop early on a time budget)."""
    return ", ".join(sorted({r["iters"] for r in rows if not r["program"].startswith("cpu")})) or "?"


def transpose_table(results_dir):
    """Every transpose variant per shape: ms, GB/s, % of the device-to-device copy,
    speedup over the naive kernel and over the CPU loop."""
    parts = []
    for path in sorted(glob.glob(os.path.join(results_dir, "*-transpose.csv"))):
        rows = ladder.read_results(path)
        order = ["cpu", "cpu_blocked", "naive", "shared", "shared_padded", "tiled32x8", "copy", "copy_kernel"]
        for shape in sorted({(int(r["rows"]), int(r["cols"])) for r in rows}):
            at = sorted([r for r in rows if (int(r["rows"]), int(r["cols"])) == shape],
                        key=lambda r: order.index(r["program"]))
            by = {r["program"]: r for r in at}
            copy = float(by["copy"]["gbps"]) if "copy" in by else None
            naive = float(by["naive"]["kernel_ms"]) if "naive" in by else None
            cpu = float(by["cpu"]["kernel_ms"]) if "cpu" in by else None
            body = [[r["program"], f(r["kernel_ms"], 4), f(r["gbps"], 1),
                     f(100 * float(r["gbps"]) / copy, 1) + "%" if copy else "",
                     f(naive / float(r["kernel_ms"])) + "x" if naive else "",
                     f(cpu / float(r["kernel_ms"]), 1) + "x" if cpu else "", r["status"]] for r in at]
            dates = ", ".join(sorted({r["date"][:10] for r in at}))
            parts.append(f"**{at[0]['device']}, {shape[0]} x {shape[1]} floats (rows x cols)** (measured {dates}; "
                         f"GPU rows the median of {gpu_iters(at)}; CPU rows on the same machine's CPU, as many runs "
                         "as fit in their time budget)\n\n"
                         + table(["variant", "ms per transpose", "GB/s (read + write)", "% of copy", "x naive",
                                  "x CPU", "result"], body, 1))
    return "\n\n".join(parts)


def tables(results_dir):
    return {"transpose": transpose_table(results_dir)}
