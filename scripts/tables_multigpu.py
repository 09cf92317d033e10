"""The multi-GPU chapter's table (make multigpu-sweep: scripts/multigpu_sweep.py).
"""
import glob
import os
import re

import ladder
from tables_shared import f, table


def multigpu_table(results_dir, runs=("multigpu",)):
    """The multi-GPU chapter: each algorithm per size and GPU count at the default panel width,
    with its communication and its local products timed alone and its parallel efficiency
    against one GPU's SGEMM of the same run (scripts/multigpu_sweep.py's), from the results files
    of the runs named (multigpu: the chapter's sweep; multigpu-two-buffers: SUMMA before its
    bands; multigpu-cublasmp: the one-GPU run beside cuBLASMp; multigpu-copy-engines: a run with
    SUMMA's panels sent both ways; multigpu-panels: SUMMA's panel width; multigpu-blocks: cuBLASMp's
    block size)."""
    import multigpu_sweep
    parts = []
    what = {"multigpu": "one host, 1 to 4 GPUs", "multigpu-cublasmp": "one GPU (a 1 x 1 grid), beside cuBLASMp; SUMMA then with two panel buffers",
            "multigpu-two-buffers": "one host, 1 and 2 GPUs, SUMMA with two panel buffers (before its bands)",
            "multigpu-copy-engines": "another host, 1 to 4 GPUs, SUMMA's panels by NCCL and by the copy engines",
            "multigpu-panels": "one host, 4 GPUs, SUMMA's panel width",
            "multigpu-blocks": "another host, 2 and 4 GPUs, cuBLASMp's block size beside SUMMA"}
    order = list(what)
    paths = [p for p in glob.glob(os.path.join(results_dir, "*-multigpu*.csv"))
             if re.search(r"-(multigpu[a-z-]*)\.csv$", p).group(1) in runs]
    for path in sorted(paths, key=lambda p: (order.index(re.search(r"-(multigpu[a-z-]*)\.csv$", p).group(1)), p)):
        # The row split sends by NCCL whatever --comm says: its rows of a --comm copy run repeat it.
        rows = [r for r in ladder.read_results(path) if r["dist"] == "uniform" and r["local"] == "sgemm"
                and not (r["algo"] != "summa" and r.get("comm") == "copy")]
        run = re.search(r"-(multigpu[a-z-]*)\.csv$", path).group(1)
        if not rows:
            continue
        panel = max(int(r["panel"]) for r in rows)
        rows = sorted([r for r in rows if int(r["panel"]) == panel],
                      key=lambda r: (int(r["n"]) if r["gpus"] == "1" or any(
                          o["gpus"] == "1" and o["n"] == r["n"] for o in rows) else 10 ** 9 + int(r["n"]),
                          int(r["gpus"]), ["rows", "summa", "cublasmp"].index(r["algo"]), r["grid"], r.get("comm", "")))
        body = []
        for r in rows:
            eff = multigpu_sweep.efficiency(r, rows)
            ms = lambda c: "" if r[c] in ("nan", "") else f(r[c], 1)  # noqa: E731
            algo = r["algo"] + (" (copy engines)" if r.get("comm") == "copy" else "")
            body.append([algo, r["n"], r["gpus"], r["grid"], f(r["ms"], 1), f(r["tflops"], 1), ms("comm_ms"),
                         ms("gemm_ms"), "" if eff is None else f(100 * eff, 1) + "%", f"{float(r['max_comp_err']):.2e}",
                         r["status"]])
        dates = ", ".join(sorted({r["date"][:10] for r in rows}))
        parts.append(f"**{rows[0]['device']}, {what.get(run, run)}** (`results/{os.path.basename(path)}`, measured {dates}; median of "
                     f"{' or '.join(sorted({r['reps'] for r in rows}, key=int, reverse=True))} runs, the CSV's reps; panel {panel}; uniform inputs)\n\n"
                     + table(["algorithm", "n", "GPUs", "grid", "ms", "TFLOPS", "communication alone, ms",
                              "local products alone, ms", "efficiency", "componentwise error", "result"], body, 1))
    return "\n\n".join(parts)


def tables(results_dir):
    return {"multigpu": multigpu_table(results_dir),
            "multigpu-before": multigpu_table(results_dir, ("multigpu-two-buffers", "multigpu-cublasmp"))}
