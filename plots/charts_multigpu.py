"""The multi-GPU chapter's chart (make plots): multigpu_<device>.png, TFLOPS against the GPU count
per algorithm and size beside perfect scaling of one GPU's SGEMM, and where the time goes
(communication alone, local products alone, both) at the largest run.
"""
import glob
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "scripts"))
from drawing import save  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import ladder  # noqa: E402


def multigpu_charts(results_dir, out):
    """The multi-GPU chapter: strong scaling in TFLOPS, and the time split, from the runs of
    the default panel width (the largest recorded)."""
    for path in sorted(glob.glob(os.path.join(results_dir, "*-multigpu.csv"))):
        rows = [r for r in ladder.read_results(path) if r["dist"] == "uniform" and r["local"] == "sgemm"]
        if not rows:
            continue
        panel = max(int(r["panel"]) for r in rows)
        rows = [r for r in rows if int(r["panel"]) == panel]
        strong = sorted({int(r["n"]) for r in rows if r["gpus"] == "1"})
        algos = [a for a in ("rows", "summa", "cublasmp") if any(r["algo"] == a for r in rows)]
        fig, (ax, bx) = plt.subplots(1, 2, figsize=(12, 4.8), gridspec_kw={"width_ratios": [1.2, 1]})
        styles = {"rows": dict(color="#1f77b4", marker="o"), "summa": dict(color="#ff7f0e", marker="s"),
                  "cublasmp": dict(color="#d62728", marker="^")}
        for n, dash in zip(strong, ("-", "--", ":", "-.")):
            one = [r for r in rows if r["algo"] == "rows" and r["gpus"] == "1" and int(r["n"]) == n][0]
            counts = sorted({int(r["gpus"]) for r in rows if int(r["n"]) == n})
            ax.plot(counts, [float(one["tflops"]) * g for g in counts], color="#999999", linestyle=dash, linewidth=1,
                    label=f"perfect scaling of one GPU's SGEMM, n = {n}")
            for a in algos:
                pts = sorted((int(r["gpus"]), float(r["tflops"])) for r in rows if r["algo"] == a and int(r["n"]) == n)
                if pts:
                    ax.plot(*zip(*pts), linestyle=dash, label=f"{a}, n = {n}", **styles[a])
        ax.set_xlabel("GPUs")
        ax.set_xticks(sorted({int(r["gpus"]) for r in rows}))
        ax.set_ylabel("TFLOPS (FP32, 2n³ / time)")
        ax.set_title("Strong scaling", fontsize=10)
        ax.legend(fontsize=7)
        ax.grid(alpha=0.3)
        g_max = max(int(r["gpus"]) for r in rows)
        n_max = max(int(r["n"]) for r in rows if int(r["gpus"]) == g_max and int(r["n"]) in strong)
        at = {r["algo"]: r for r in rows if int(r["gpus"]) == g_max and int(r["n"]) == n_max}
        parts = [("comm_ms", "communication alone", "#9ecae1"), ("gemm_ms", "local products alone", "#fdae6b"),
                 ("ms", "the algorithm (both)", "#636363")]
        names = [a for a in algos if a in at]
        for i, (col, what, colour) in enumerate(parts):
            vals = [float(at[a][col]) if at[a][col] not in ("nan", "") else 0.0 for a in names]
            bars = bx.bar([j + (i - 1) * 0.27 for j in range(len(names))], vals, 0.27, color=colour, label=what)
            bx.bar_label(bars, labels=[f"{v:.0f}" if v else "" for v in vals], fontsize=7, padding=1)
        bx.set_xticks(range(len(names)), names)
        bx.set_ylabel("ms (median)")
        bx.set_title(f"Where the time goes: n = {n_max} on {g_max} GPUs", fontsize=10)
        bx.legend(fontsize=7)
        bx.grid(axis="y", alpha=0.3)
        dates = ", ".join(sorted({r["date"][:10] for r in rows}))
        fig.suptitle(f"C = A B over the GPUs of one host, {rows[0]['device']}, panel {panel} (measured {dates})",
                     fontsize=10)
        save(fig, out, "multigpu_" + os.path.basename(path)[:-len("-multigpu.csv")])


def charts(results_dir, out, device):
    """One chart per results file (device: the ladder's; every file here is drawn)."""
    multigpu_charts(results_dir, out)
