#!/usr/bin/env python3
"""The ladder's charts, from results/*.csv (make plots):

  speedup.png     each step's speedup over step 01: the GPU measured here beside the
                  article's 8800GT, log scale, cuBLAS marked as the ceiling (the headline)
  gflops_vs_n.png kernel GFLOPS against n for every step and cuBLAS
  accuracy.png    max relative error per step, log scale: what Kahan summation buys
  time_split.png  where the end-to-end time goes (allocate, copy in, kernel, copy out,
                  free) per step at n = 1000 and 4096
  cpu_<host>.png  the CPU chapter: GFLOPS against n per variant, OpenBLAS as the ceiling
  transpose_<device>.png  the transpose chapter: GB/s per variant against the copy

Each is written as PNG and SVG. Usage: plots/charts.py [--results DIR] [--out DIR] [--device NAME]
"""
import argparse
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

# The same results give the same files: SVG element ids from a fixed salt instead of a
# random one (the dates are left out in save()), so `make plots` on unchanged results
# leaves the tree clean.
plt.rcParams["svg.hashsalt"] = "matmul-step-by-step"

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "scripts"))
import ladder  # noqa: E402
import readme_tables  # noqa: E402

STEP_LABELS = [s.replace("step", "step ") for s in ladder.STEPS]
PHASES = [("alloc_ms", "allocate"), ("h2d_ms", "copy in"), ("kernel_e2e_ms", "kernel"), ("d2h_ms", "copy out"),
          ("free_ms", "free")]


def save(fig, out, name):
    for ext in ("png", "svg"):
        fig.savefig(os.path.join(out, f"{name}.{ext}"), dpi=130, bbox_inches="tight",
                    metadata={"Date": None} if ext == "svg" else None)
    plt.close(fig)
    print(f"wrote {os.path.join(os.path.relpath(out), name)}.png and .svg")


def measured_on(res, sizes=None):
    dates = sorted({r["date"][:10] for (p, n), r in res.items() if sizes is None or n in sizes})
    return ", ".join(dates) if dates else "no date"


def short(device):
    """'NVIDIA H100 80GB HBM3' -> 'H100'."""
    return device.replace("NVIDIA ", "").split(" ")[0]


def skipped_note(fig, skipped):
    """Under a chart: the programs this GPU could not run, and why (make compare recorded it)."""
    if skipped:
        fig.text(0.01, -0.02, "\n".join(f"{p}: not run on this GPU ({why})" for p, why in sorted(skipped.items())),
                 fontsize=7, va="top", color="#555555")


def speedup_chart(device, res, art, out, skipped=None):
    series = []  # (label, speedup per step (None: no figure), colour)
    a = [float(art[s]["e2e_gflops"]) if s in art else None for s in ladder.STEPS]
    if a[0]:
        series.append(("8800GT end-to-end, n = 1000 (the article's figures; it stops at step 06)",
                       [x / a[0] if x else None for x in a], "#999999"))
    for n, key, label, color in ((1000, "total_ms", "end-to-end", "#9ecae1"), (1000, "kernel_ms", "kernel", "#3182bd"),
                                 (4096, "kernel_ms", "kernel", "#08519c")):
        if ("step01", n) in res:  # a step this GPU cannot run has no bar (skipped_note says why)
            t = [float(res[(s, n)][key]) if (s, n) in res else None for s in ladder.STEPS]
            series.append((f"{short(device)} {label}, n = {n}", [t[0] / x if x else None for x in t], color))
    fig, ax = plt.subplots(figsize=(11, 5.5))
    width = 0.8 / max(len(series), 1)
    for i, (label, values, color) in enumerate(series):
        pts = [(j + (i - (len(series) - 1) / 2) * width, v) for j, v in enumerate(values) if v is not None]
        bars = ax.bar([x for x, _ in pts], [v for _, v in pts], width, label=label, color=color)
        ax.bar_label(bars, labels=[f"{v:.1f}" for _, v in pts], fontsize=6, padding=1)
    for n, style in ((1000, ":"), (4096, "--")):
        if ("cublas", n) in res and ("step01", n) in res:
            c = float(res[("step01", n)]["kernel_ms"]) / float(res[("cublas", n)]["kernel_ms"])
            ax.axhline(c, color="#d62728", linestyle=style, linewidth=1.2)
            ax.text(len(ladder.STEPS) - 0.5, c * 1.06, f"cuBLAS kernel, n = {n}: {c:.1f}x (the ceiling)",
                    color="#d62728", ha="right", fontsize=8)
    ax.set_yscale("log")
    ax.set_xticks(range(len(ladder.STEPS)), STEP_LABELS)
    ax.set_ylabel("speedup over step 01 (x, log scale)")
    ax.set_title(f"Speedup over step 01: {device} (measured {measured_on(res, (1000, 4096))})\n"
                 "beside the article's GeForce 8800GT (2008); steps 07-10 go past the article", fontsize=10)
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.07), ncol=2)
    ax.grid(axis="y", which="both", alpha=0.3)
    skipped_note(fig, skipped)
    save(fig, out, "speedup")


def gflops_chart(device, res, out, skipped=None):
    fig, ax = plt.subplots(figsize=(8, 5))
    # The sweep's sizes: those measured for step 01 and cuBLAS (not one-off experiments).
    sweep = {n for (_, n) in res if ("step01", n) in res and ("cublas", n) in res}
    for prog in ladder.LADDER:
        pts = sorted((n, float(r["gflops"])) for (p, n), r in res.items() if p == prog and n in sweep)
        if len(pts) < 2:
            continue
        style = dict(color="#d62728", linewidth=2.2, linestyle="--") if prog == "cublas" else {}
        ax.plot([n for n, _ in pts], [g for _, g in pts], marker="o", markersize=4,
                label=f"{prog}: {ladder.LADDER[prog][1]}", **style)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("matrix size n (log scale)")
    ax.set_ylabel("kernel GFLOPS = 2n³ / kernel time (log scale)")
    ax.set_title(f"Kernel GFLOPS against n, {device} (measured {measured_on(res)})", fontsize=10)
    ax.legend(fontsize=7)
    ax.grid(which="both", alpha=0.3)
    skipped_note(fig, skipped)
    save(fig, out, "gflops_vs_n")


def accuracy_chart(device, res, art, out):
    progs = list(ladder.LADDER)
    fig, ax = plt.subplots(figsize=(9, 4.5))
    groups = [(f"{short(device)}, n = {n}", n) for n in (1000, 4096) if any((p, n) in res for p in progs)]
    groups.append(("8800GT, n = 1000 (the article's figures)", None))
    width = 0.8 / len(groups)
    colors = ["#3182bd", "#08519c", "#999999"]
    for i, (label, n) in enumerate(groups):
        vals = [float(res[(p, n)]["max_rel_err"]) if n and (p, n) in res else
                (float(art[p]["max_rel_err"]) if n is None and p in art else 0) for p in progs]
        xs = [j + (i - (len(groups) - 1) / 2) * width for j in range(len(progs))]
        ax.bar(xs, vals, width, label=label, color=colors[i % len(colors)])
    ax.axhline(2.5e-7, color="#d62728", linestyle="--", linewidth=1)
    ax.text(len(progs) - 0.5, 2.7e-7, "Kahan steps' tolerance 2.5e-7", color="#d62728", ha="right", fontsize=8)
    ax.set_yscale("log")
    ax.set_xticks(range(len(progs)), STEP_LABELS + ["cuBLAS"])
    ax.set_ylabel("max relative error vs double reference (log)")
    ax.set_title("Accuracy: plain float sums (steps 01, 07-10, cuBLAS) vs Kahan summation (steps 02-06)\n"
                 f"{device}, measured {measured_on(res, (1000, 4096))}", fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(axis="y", which="both", alpha=0.3)
    save(fig, out, "accuracy")


def time_split_chart(device, res, out):
    sizes = [n for n in (1000, 4096) if any((p, n) in res for p in ladder.LADDER)]
    if not sizes:
        return
    fig, axes = plt.subplots(1, len(sizes), figsize=(6 * len(sizes), 4.5), squeeze=False)
    colors = ["#bdbdbd", "#6baed6", "#d62728", "#fd8d3c", "#969696"]
    for ax, n in zip(axes[0], sizes):
        progs = [p for p in ladder.LADDER if (p, n) in res]
        bottom = [0.0] * len(progs)
        for (col, label), color in zip(PHASES, colors):
            vals = [float(res[(p, n)][col]) for p in progs]
            ax.bar(range(len(progs)), vals, 0.7, bottom=bottom, label=label, color=color)
            bottom = [b + v for b, v in zip(bottom, vals)]
        ax.set_xticks(range(len(progs)), [p.replace("step", "step ") for p in progs], fontsize=8)
        ax.set_ylabel("end-to-end time (ms)")
        ax.set_title(f"n = {n}", fontsize=10)
        ax.grid(axis="y", alpha=0.3)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(PHASES), fontsize=8, bbox_to_anchor=(0.5, -0.06))
    fig.suptitle(f"Where the end-to-end time goes, {device} (measured {measured_on(res, tuple(sizes))})",
                 fontsize=10)
    save(fig, out, "time_split")


def cpu_charts(results_dir, out):
    """The CPU chapter: GFLOPS against n per variant, one chart per host (cpu_<host>.png)."""
    import glob
    for path in sorted(glob.glob(os.path.join(results_dir, "*-cpu.csv"))):
        rows = [r for r in ladder.read_results(path)
                if not (r["program"] == "avx_blocked" and r["block"] != "64")]
        if not rows:
            continue
        fig, ax = plt.subplots(figsize=(8, 5))
        series = sorted({(r["program"], r["threads"], r["isa"]) for r in rows},
                        key=lambda k: (int(k[1]) > 1, k[0] == "openblas", k[0], k[2]))
        for prog, threads, isa in series:
            pts = sorted((int(r["n"]), float(r["gflops"])) for r in rows
                         if (r["program"], r["threads"], r["isa"]) == (prog, threads, isa))
            if len(pts) < 2:
                continue
            label = f"{prog} ({isa}, {threads} thread{'s' if threads != '1' else ''})"
            style = dict(linestyle="--", linewidth=2.2) if prog == "openblas" else {}
            if threads != "1":
                style["marker"] = "s"
            ax.plot([n for n, _ in pts], [g for _, g in pts], marker=style.pop("marker", "o"), markersize=4,
                    label=label, **style)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("matrix size n (log scale)")
        ax.set_ylabel("GFLOPS = 2n³ / wall-clock time (log scale)")
        dates = ", ".join(sorted({r["date"][:10] for r in rows}))
        ax.set_title(f"CPU: every variant against OpenBLAS (dashed), {rows[0]['host']}, {rows[0]['cpus']} CPUs\n"
                     f"measured {dates}", fontsize=10)
        ax.legend(fontsize=7)
        ax.grid(which="both", alpha=0.3)
        save(fig, out, "cpu_" + os.path.basename(path)[:-len("-cpu.csv")])


def transpose_charts(results_dir, out):
    """The transpose chapter: effective GB/s per variant and shape against the copy."""
    import glob
    for path in sorted(glob.glob(os.path.join(results_dir, "*-transpose.csv"))):
        rows = [r for r in ladder.read_results(path) if not r["program"].startswith("cpu")]
        shapes = sorted({(int(r["rows"]), int(r["cols"])) for r in rows})
        progs = ["naive", "shared", "shared_padded", "tiled32x8", "copy_kernel", "copy"]
        if not rows or not shapes:
            continue
        fig, ax = plt.subplots(figsize=(9, 4.5))
        width = 0.8 / len(shapes)
        for i, shape in enumerate(shapes):
            by = {r["program"]: float(r["gbps"]) for r in rows if (int(r["rows"]), int(r["cols"])) == shape}
            xs = [j + (i - (len(shapes) - 1) / 2) * width for j in range(len(progs))]
            bars = ax.bar(xs, [by.get(p, 0) for p in progs], width, label=f"{shape[0]} x {shape[1]} floats")
            ax.bar_label(bars, labels=[f"{by.get(p, 0):.0f}" for p in progs], fontsize=7, padding=1)
        ax.set_xticks(range(len(progs)), progs)
        ax.set_ylabel("effective bandwidth, GB/s (bytes read + written)")
        dates = ", ".join(sorted({r["date"][:10] for r in rows}))
        ax.set_title(f"Transpose against the device-to-device copy, {rows[0]['device']} (measured {dates})",
                     fontsize=10)
        ax.legend(fontsize=8)
        ax.grid(axis="y", alpha=0.3)
        save(fig, out, "transpose_" + os.path.basename(path)[:-len("-transpose.csv")])


def main(argv):
    p = argparse.ArgumentParser(prog="charts.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--results", default=os.path.join(ladder.ROOT, "results"))
    p.add_argument("--out", default=HERE)
    p.add_argument("--device", help="which device's results (default: the one with the most rows)")
    a = p.parse_args(argv)
    devices = readme_tables.device_results(a.results)
    if not devices:
        print(f"charts.py: no results in {a.results}", file=sys.stderr)
        return 1
    device = a.device or max(devices, key=lambda d: len(devices[d]))
    if device not in devices:
        print(f"charts.py: no results for device '{device}'", file=sys.stderr)
        return 2
    res, art = devices[device], readme_tables.article(a.results)
    os.makedirs(a.out, exist_ok=True)
    skipped = readme_tables.skipped_programs(a.results).get(device, {})
    speedup_chart(device, res, art, a.out, skipped)
    gflops_chart(device, res, a.out, skipped)
    accuracy_chart(device, res, art, a.out)
    time_split_chart(device, res, a.out)
    cpu_charts(a.results, a.out)
    transpose_charts(a.results, a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
