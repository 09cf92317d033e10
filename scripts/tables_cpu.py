"""The CPU chapter's tables (make cpu, make cpu-sweep: scripts/cpu_compare.py).
"""
import glob
import os

import ladder
from tables_shared import e, f, table


def cpu_tables(results_dir):
    """The CPU chapter: every variant at n = 1000 and 2048 per host, % of OpenBLAS on as
    many threads; and the lab's block-size sweep."""
    compare, sweep = [], []
    for path in sorted(glob.glob(os.path.join(results_dir, "*-cpu.csv"))):
        rows = ladder.read_results(path)
        if not rows:
            continue
        host = f"{rows[0]['host']}, {rows[0]['cpus']} CPUs"
        dates = ", ".join(sorted({r["date"][:10] for r in rows}))
        for n in (1000, 2048):
            at = [r for r in rows if int(r["n"]) == n and not (r["program"] == "avx_blocked" and r["block"] != "64")]
            if not at:
                continue
            ceiling = {r["threads"]: float(r["gflops"]) for r in at if r["program"] == "openblas"}
            order = ["baseline", "avx", "avx_blocked", "avx_blocked_bt", "packed", "packed_omp", "openblas"]
            at.sort(key=lambda r: (int(r["threads"]) > 1, order.index(r["program"]), r["isa"]))
            body = [[r["program"], r["threads"], r["isa"], f(r["ms"], 1), f(r["gflops"], 1),
                     f(100 * float(r["gflops"]) / ceiling[r["threads"]], 1) + "%" if r["threads"] in ceiling else "",
                     e(r["max_rel_err"])] for r in at]
            compare.append(f"**{host}, n = {n}** (measured {dates}; {rows[0]['compiler']}; "
                           f"{rows[0]['openblas'] or 'no OpenBLAS'})\n\n"
                           + table(["variant", "threads", "instructions", "ms", "GFLOPS", "% of OpenBLAS (same threads)",
                                    "max rel. error"], [b for b in body], 3))
        blocked = [r for r in rows if r["program"] == "avx_blocked"]
        sizes = sorted({int(r["n"]) for r in blocked if int(r["n"]) in (1024, 2048)})
        blocks = sorted({int(r["block"]) for r in blocked})
        if len(blocks) > 1 and sizes:
            get = {(int(r["n"]), int(r["block"])): r for r in blocked}
            body = [[str(b)] + [f(get[(n, b)]["ms"], 1) if (n, b) in get else "" for n in sizes] for b in blocks]
            sweep.append(f"**{host}** (avx_blocked, ms, measured {dates})\n\n"
                         + table(["block"] + [f"n = {n}" for n in sizes], body, 1))
    return "\n\n".join(compare), "\n\n".join(sweep)


def tables(results_dir):
    compare, sweep = cpu_tables(results_dir)
    return {"cpu": compare, "cpu-sweep": sweep}
