"""The references' chapter (cublas/): cuBLAS SGEMM per n, beside the figures recorded before its
host code moved onto the steps' own.
"""
import os

import ladder
from tables_shared import device_results, e, f, fp32_peak_gflops, table


def cublas_table(results_dir):
    """cuBLAS per n: time, GFLOPS, % of the FP32 peak, end-to-end, error; and beside it the
    figures recorded before cuBLAS moved onto the steps' shared host function (unpitched
    rows), where results/<device>-cublas-unpitched.csv keeps them."""
    parts = []
    for device, res in device_results(results_dir).items():
        peak = fp32_peak_gflops(results_dir, device)
        before_path = os.path.join(results_dir, ladder.slug(device) + "-cublas-unpitched.csv")
        before = {int(r["n"]): r for r in ladder.read_results(before_path) if r["program"] == "cublas"}
        body = []
        for n in sorted(m for (p, m) in res if p == "cublas"):
            r, b = res[("cublas", n)], before.get(n)
            body.append([str(n), f(r["kernel_ms"], 3), f(r["gflops"], 0),
                         f(100 * float(r["gflops"]) / peak, 0) + "%" if peak else "", f(r["total_ms"], 2),
                         e(r["max_rel_err"]), f(b["kernel_ms"], 3) if b else "", f(b["gflops"], 0) if b else "",
                         f(100 * (float(r["kernel_ms"]) / float(b["kernel_ms"]) - 1), 1) + "%" if b else ""])
        if not body:
            continue
        dates = sorted({res[("cublas", n)]["date"][:10] for (p, n) in res if p == "cublas"})
        bdates = sorted({r["date"][:10] for r in before.values()})
        parts.append(f"**{device}** (measured {', '.join(dates)}"
                     + (f"; before: the unpitched host function, measured {', '.join(bdates)}" if before else "") + ")\n\n"
                     + table(["n", "kernel ms", "GFLOPS", "% of FP32 peak", "end-to-end ms", "max rel. error",
                              "before: kernel ms", "before: GFLOPS", "kernel time moved"], body, 1))
    return "\n\n".join(parts)


def tables(results_dir):
    return {"cublas": cublas_table(results_dir)}
