"""The multi-GPU chapter's chart (make plots): multigpu_<device>.png, TFLOPS against the GPU count
per algorithm and size beside perfect scaling of one GPU's SGEMM, weak scaling (parallel
efficiency as n grows with the GPU count, the work or the memory per GPU held), and where the
time goes (communication alone, local products alone, both) at the largest run.
"""
import glob
import os

from drawing import save  # first: matplotlib set up to write the same bytes every run
import matplotlib.pyplot as plt
import ladder
import multigpu_sweep


def squarest(gpus):
    """The program's default grid of gpus GPUs, prow <= pcol: "1x2", "2x2", "2x4"."""
    prow = max(r for r in range(1, gpus + 1) if gpus % r == 0 and r * r <= gpus)
    return f"{prow}x{gpus // prow}"


def multigpu_charts(results_dir, out):
    """The multi-GPU chapter: strong scaling in TFLOPS, and the time split, from the runs of
    the default panel width (the largest recorded)."""
    for path in sorted(glob.glob(os.path.join(results_dir, "*-multigpu.csv"))):
        # NCCL's runs on the squarest grid (the program's default), as the row split's
        rows = [r for r in ladder.read_results(path) if r["dist"] == "uniform" and r["local"] == "sgemm"
                and r.get("comm", "nccl") in ("nccl", "") and r["grid"] == squarest(int(r["gpus"]))]
        if not rows:
            continue
        panel = max(int(r["panel"]) for r in rows)
        rows = [r for r in rows if int(r["panel"]) == panel]
        strong = sorted({int(r["n"]) for r in rows if r["gpus"] == "1"})
        algos = [a for a in ("rows", "summa", "cublasmp") if any(r["algo"] == a for r in rows)]
        fig, (ax, wx, bx) = plt.subplots(1, 3, figsize=(17, 4.8), gridspec_kw={"width_ratios": [1.2, 0.9, 1]})
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
        weak_chart(wx, rows, algos, styles, min(strong))
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
        bx.set_ylabel("ms (median of the run's repetitions)")
        bx.set_title(f"Where the time goes: n = {n_max} on {g_max} GPUs", fontsize=10)
        bx.legend(fontsize=7)
        bx.grid(axis="y", alpha=0.3)
        dates = ", ".join(sorted({r["date"][:10] for r in rows}))
        fig.suptitle(f"C = A B over the GPUs of one host, {rows[0]['device']}, panel {panel} (measured {dates})",
                     fontsize=10)
        save(fig, out, "multigpu_" + os.path.basename(path)[:-len("-multigpu.csv")])


def weak_chart(ax, rows, algos, styles, base):
    """Parallel efficiency against the GPU count at the weak-scaling sizes grown from n = base,
    as scripts/multigpu_sweep.py chooses them: the work per GPU held (solid) or its memory
    (dashed). Only the counts that ran at each size are drawn."""
    counts = sorted({int(r["gpus"]) for r in rows})
    for rule, dash in (("work", "-"), ("memory", "--")):
        for a in algos:
            pts = []
            for g in counts:
                n = multigpu_sweep.weak_size(base, g, rule)
                found = [r for r in rows if r["algo"] == a and int(r["gpus"]) == g and int(r["n"]) == n]
                eff = multigpu_sweep.efficiency(found[0], rows) if found else None
                if eff is not None:
                    pts.append((g, 100 * eff))
            if len(pts) > 1:
                what = "work" if rule == "work" else "memory"
                ax.plot(*zip(*pts), linestyle=dash, label=f"{a}, {what} per GPU held", **styles[a])
    ax.axhline(100, color="#999999", linewidth=1)
    ax.set_xlabel("GPUs")
    ax.set_xticks(counts)
    ax.set_ylabel("parallel efficiency, %")
    ax.set_title(f"Weak scaling from n = {base} on one GPU", fontsize=10)
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)


def trace_charts(results_dir, out):
    """multigpu_trace_<device>.png from results/<device>-multigpu-trace.csv: each traced run
    (--trace) as a timeline, a lane per GPU and stream (its broadcasts, its products), the whole
    run on the left and its first milliseconds on the right, where the sending happens."""
    for path in sorted(glob.glob(os.path.join(results_dir, "*-multigpu-trace.csv"))):
        # The row split sends by NCCL whatever --comm says: its --comm copy runs repeat it.
        spans = [s for s in ladder.read_results(path) if not (s["algo"] != "summa" and s["comm"] == "copy")]
        runs = []
        for s in spans:
            key = (s["algo"], s["comm"], int(s["n"]), int(s["gpus"]), s["grid"])
            if key not in runs:
                runs.append(key)
        runs.sort(key=lambda k: (k[3], k[0] != "rows", k[1] != "nccl"))
        fig, axes = plt.subplots(len(runs), 2, figsize=(12, sum(0.6 + 0.28 * 2 * k[3] for k in runs)), squeeze=False,
                                 gridspec_kw={"width_ratios": [1.4, 1], "height_ratios": [2 * k[3] for k in runs]})
        colours = {"broadcast": "#9ecae1", "panel": "#9ecae1", "product": "#fdae6b"}
        for (ax_all, ax_start), key in zip(axes, runs):
            algo, comm, n, gpus, grid = key
            mine = [s for s in spans if (s["algo"], s["comm"], int(s["n"]), int(s["gpus"]), s["grid"]) == key]
            end = max(float(s["end_ms"]) for s in mine)
            first_product = min(float(s["start_ms"]) for s in mine if s["what"] == "product")
            last_send = max(float(s["end_ms"]) for s in mine if s["what"] != "product")
            zoom = 1.3 * max(last_send, first_product, 1.0)
            for ax, right in ((ax_all, end * 1.01), (ax_start, zoom)):
                for s in mine:
                    lane = 2 * int(s["gpu"]) + (1 if s["what"] == "product" else 0)
                    b, e = float(s["start_ms"]), float(s["end_ms"])
                    if e - b <= 0.01:
                        continue
                    ax.broken_barh([(b, e - b)], (lane - 0.4, 0.8), facecolor=colours[s["what"]], edgecolor="#444444",
                                   linewidth=0.4)
                    if ax is ax_start and s["what"] == "panel" and e < right:
                        ax.text((b + e) / 2, lane, f"{s['index']}", ha="center", va="center", fontsize=6)
                ax.set_xlim(0, right)
                ax.set_yticks(range(2 * gpus), [f"GPU {g} {w}" for g in range(gpus) for w in
                                                ("sends" if algo == "summa" else "broadcast", "products")], fontsize=6)
                ax.invert_yaxis()
                ax.grid(axis="x", alpha=0.3)
                ax.tick_params(axis="x", labelsize=7)
            by = "copy engines" if comm == "copy" else "NCCL"
            ax_all.set_title(f"{algo}, {gpus} GPUs ({grid}), n = {n}, {'panels' if algo == 'summa' else 'B'} by "
                             f"{by}: the whole run, {end:.0f} ms", fontsize=8)
            ax_start.set_title(f"its first {zoom:.1f} ms" + (" (panel numbers in the bars)" if algo == "summa" else ""),
                               fontsize=8)
        for ax in axes[-1]:
            ax.set_xlabel("ms from the run's start on each GPU", fontsize=8)
        fig.suptitle(f"What overlaps and what waits: traced runs on {spans[0]['device']} "
                     f"(measured {spans[0]['date'][:10]}; blue: sending, orange: products)", fontsize=10)
        fig.tight_layout(rect=(0, 0, 1, 0.985))
        save(fig, out, "multigpu_trace_" + os.path.basename(path)[:-len("-multigpu-trace.csv")])


def charts(results_dir, out, device):
    """One chart per results file (device: the ladder's; every file here is drawn)."""
    multigpu_charts(results_dir, out)
    trace_charts(results_dir, out)
