"""The ladder's charts, from results/<device>.csv (make plots: plots/charts.py draws them):

  speedup.png     each step's speedup over the first: the GPU measured here beside the
                  article's 8800GT, log scale, cuBLAS SGEMM marked as the ceiling and
                  cuBLAS on TF32 tensor cores as the tensor-core ceiling (the headline)
  gflops_vs_n.png kernel GFLOPS against n for every step, cuBLAS (SGEMM and TF32) and
                  the CUTLASS peers
  accuracy.png    max relative error per program, log scale: what Kahan summation buys,
                  what TF32 costs
  accuracy_speed.png  accuracy against speed: max componentwise error against kernel
                  TFLOPS per program, one panel per input distribution (uniform, wide),
                  with the fp32 and tf32 precision classes' bounds
  time_split.png  where the end-to-end time goes (allocate, copy in, kernel, copy out,
                  free) per program at n = 1000 and 4096

Programs without rows are left out (no empty bars: a program this GPU could not run keeps
its place, the reason beneath).
"""
import math
import os
import re

from drawing import save  # first: matplotlib set up to write the same bytes every run
import matplotlib.pyplot as plt
import matplotlib.text
import matplotlib.transforms
import ladder
import tables_shared

PHASES = [("alloc_ms", "allocate"), ("h2d_ms", "copy in"), ("kernel_e2e_ms", "kernel"), ("d2h_ms", "copy out"),
          ("free_ms", "free")]
# The ceilings and peers in every chart: red the FP32 class, purple the TF32 class.
STYLES = {"cublas": dict(color="#d62728", linewidth=2.2, linestyle="--"),
          "cublas_tf32": dict(color="#6a3d9a", linewidth=2.2, linestyle="--"),
          "cutlass_tf32": dict(color="#6a3d9a", linewidth=1.5, linestyle=":"),
          "cutlass_3xtf32": dict(color="#d62728", linewidth=1.5, linestyle=":")}
# The tensor-core steps, in order, each its own colour and marker (the CUDA-core steps take
# matplotlib's cycle).
TENSOR_STYLES = [dict(color="#000000", marker="s"), dict(color="#1b9e77", marker="D"), dict(color="#e7298a", marker="^"),
                 dict(color="#7570b3", marker="v"), dict(color="#66a61e", marker="P")]
STYLES.update({s: TENSOR_STYLES[i % len(TENSOR_STYLES)] for i, s in enumerate(ladder.TENSOR_STEPS)})
# lambda of the fp32 class bound, as the programs use it (common/matrix.h).
FP32_LAMBDA = float(re.search(r"#define FP32_LAMBDA\s+([0-9.eE+-]+)",
                              open(os.path.join(ladder.ROOT, "common", "matrix.h")).read()).group(1))
CLASSES = {"fp32": ("#3182bd", "o"), "tf32": ("#e6550d", "s")}  # precision class: colour, marker


label = ladder.label


def program_ticks(ax, progs):
    """The programs' names under their bars, slanted where they would not fit side by side
    (0.6 inch each); True if slanted."""
    room = ax.get_position().width * ax.figure.get_figwidth() / max(len(progs), 1)
    slant = dict(rotation=35, ha="right", rotation_mode="anchor") if room < 0.6 else {}
    ax.set_xticks(range(len(progs)), [label(p) for p in progs], fontsize=8, **slant)
    return bool(slant)


def precision_bound(precision, k):
    """common/check.c's precision_bound for an uncompensated sum of k products: the bound
    on the componentwise error |c - ref| / (|A||B|) of the fp32 or the tf32 class."""
    u = math.ldexp(1.0, -24)
    fp32 = math.expm1(FP32_LAMBDA * math.sqrt(k) * u + k * u * u / (1.0 - u))
    return 2.0 * math.ldexp(1.0, -10) + fp32 if precision == "tf32" else fp32


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


def margin_labels(fig, ax, lines):
    """Name horizontal lines (y, colour, text) in the right margin, each at its line's height
    or, where names would overlap, moved apart just enough (a leader line back to its line)."""
    ax.set_ylim(ax.get_ylim())  # the limits the names are placed by
    lo, hi = (math.log10(v) for v in ax.get_ylim())
    height = ax.get_position().height * fig.get_figheight() * 72  # the axes' height in points
    gap = 23 / height  # two lines of 8-point text, in axes fractions
    lines = sorted(lines)
    at = [(math.log10(y) - lo) / (hi - lo) for y, _, _ in lines]
    places = []
    for f in at:  # upwards, apart; then down from the top where that went past it
        places.append(max(f, places[-1] + gap) if places else f)
    for i in reversed(range(len(places))):
        places[i] = min(places[i], places[i + 1] - gap if i + 1 < len(places) else 1.0)
    for (y, color, text), f, place in zip(lines, at, places):
        ax.annotate(text, (1, f), xytext=(1.02, place), xycoords="axes fraction", textcoords="axes fraction",
                    ha="left", va="center", fontsize=8, color=color, annotation_clip=False,
                    arrowprops=dict(arrowstyle="-", color=color, linewidth=0.6) if abs(place - f) > 1e-9 else None)


def speedup_chart(device, res, art, out, skipped=None):
    skipped = skipped or {}
    # The steps with a figure to show (measured here, or the article's), and those this GPU
    # could not run (an empty place, skipped_note says why); steps not measured yet: no place.
    steps = [s for s in ladder.STEPS if s in skipped or s in art or any((s, n) in res for n in (1000, 4096))]
    series = []  # (label, speedup per step (None: no figure), colour)
    a = [float(art[s]["e2e_gflops"]) if s in art else None for s in steps]
    if a and a[0]:
        last = [s for s in steps if s in art][-1]  # the article's last step
        series.append((f"8800GT end-to-end, n = 1000 (the article's figures; it stops at {label(last)})",
                       [x / a[0] if x else None for x in a], "#999999"))
    for n, key, name, color in ((1000, "total_ms", "end-to-end", "#9ecae1"), (1000, "kernel_ms", "kernel", "#3182bd"),
                                (4096, "kernel_ms", "kernel", "#08519c")):
        if (ladder.STEPS[0], n) in res:  # a step this GPU cannot run has no bar (skipped_note says why)
            t = [float(res[(s, n)][key]) if (s, n) in res else None for s in steps]
            series.append((f"{short(device)} {name}, n = {n}", [t[0] / x if x else None for x in t], color))
    fig, ax = plt.subplots(figsize=(11 + 0.5 * max(len(steps) - 10, 0), 5.5))
    width = 0.8 / max(len(series), 1)
    for i, (name, values, color) in enumerate(series):
        pts = [(j + (i - (len(series) - 1) / 2) * width, v) for j, v in enumerate(values) if v is not None]
        bars = ax.bar([x for x, _ in pts], [v for _, v in pts], width, label=name, color=color)
        ax.bar_label(bars, labels=[f"{v:.1f}" for _, v in pts], fontsize=6, padding=1)
    # The ceilings: cuBLAS SGEMM (the FP32 ceiling), and cuBLAS on TF32 tensor cores (the
    # tensor-core ceiling) where measured; each line named in the margin at its right end.
    tf32 = any(("cublas_tf32", n) in res for n in (1000, 4096))
    ceilings = []  # (speedup, colour, name)
    for prog, color, what in (("cublas", "#d62728", "the FP32 ceiling" if tf32 else "the ceiling"),
                              ("cublas_tf32", "#6a3d9a", "the tensor-core ceiling")):
        for n, style in ((1000, ":"), (4096, "--")):
            if (prog, n) in res and (ladder.STEPS[0], n) in res:
                c = float(res[(ladder.STEPS[0], n)]["kernel_ms"]) / float(res[(prog, n)]["kernel_ms"])
                ax.axhline(c, color=color, linestyle=style, linewidth=1.2)
                ceilings.append((c, color, f"{label(prog)} kernel, n = {n}:\n{c:.1f}x ({what})"))
    ax.set_yscale("log")
    margin_labels(fig, ax, ceilings)
    ax.set_xlim(-0.6, len(steps) - 0.4)
    ax.set_xticks(range(len(steps)), [label(s) for s in steps])
    ax.set_ylabel(f"speedup over {label(ladder.STEPS[0])} (x, log scale)")
    past = [s for s in steps if s not in art]
    beyond = f"; steps {past[0][4:]}-{past[-1][4:]} go past the article" if len(past) > 1 else \
        f"; step {past[0][4:]} goes past the article" if past else ""
    ax.set_title(f"Speedup over {label(ladder.STEPS[0])}: {device} (measured {measured_on(res, (1000, 4096))})\n"
                 f"beside the article's GeForce 8800GT (2008){beyond}", fontsize=10)
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.07), ncol=2)
    ax.grid(axis="y", which="both", alpha=0.3)
    skipped_note(fig, skipped)
    save(fig, out, "speedup")


def gflops_chart(device, res, out, skipped=None):
    fig, ax = plt.subplots(figsize=(8, 5))
    # The sweep's sizes: those measured for the first step and cuBLAS (not one-off experiments).
    sweep = {n for (_, n) in res if (ladder.STEPS[0], n) in res and ("cublas", n) in res}
    for prog in ladder.LADDER:
        pts = sorted((n, float(r["gflops"])) for (p, n), r in res.items() if p == prog and n in sweep)
        if len(pts) < 2:
            continue
        style = dict(STYLES.get(prog, {}))
        ax.plot([n for n, _ in pts], [g for _, g in pts], marker=style.pop("marker", "o"), markersize=4,
                label=f"{prog}: {ladder.LADDER[prog][1]}", **style)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("matrix size n (log scale)")
    ax.set_ylabel("kernel GFLOPS = 2n³ / kernel time (log scale)")
    ax.set_title(f"Kernel GFLOPS against n, {device} (measured {measured_on(res)})", fontsize=10)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1))
    ax.grid(which="both", alpha=0.3)
    skipped_note(fig, skipped)
    save(fig, out, "gflops_vs_n")


def accuracy_chart(device, res, art, out):
    sizes = [n for n in (1000, 4096) if any((p, n) in res for p in ladder.LADDER)]
    progs = [p for p in ladder.LADDER if p in art or any((p, n) in res for n in sizes)]
    fig, ax = plt.subplots(figsize=(max(9, 0.6 * len(progs)), 4.5))
    groups = [(f"{short(device)}, n = {n}", n) for n in sizes]
    groups.append(("8800GT, n = 1000 (the article's figures)", None))
    width = 0.8 / len(groups)
    colors = ["#3182bd", "#08519c", "#999999"]
    for i, (name, n) in enumerate(groups):
        pts = [(j, float(res[(p, n)]["max_rel_err"]) if n else float(art[p]["max_rel_err"]))
               for j, p in enumerate(progs) if ((p, n) in res if n else p in art)]
        ax.bar([j + (i - (len(groups) - 1) / 2) * width for j, _ in pts], [v for _, v in pts], width, label=name,
               color=colors[i % len(colors)])
    ax.axhline(2.5e-7, color="#d62728", linestyle="--", linewidth=1)
    kahan = [j for j, p in enumerate(progs) if p in tables_shared.ARTICLE_STEPS[1:]]  # under the line
    ax.text(sum(kahan) / len(kahan) if kahan else len(progs) - 0.5, 2.7e-7, "Kahan steps' tolerance 2.5e-7",
            color="#d62728", ha="center" if kahan else "right", fontsize=8)
    ax.set_yscale("log")
    ax.set_xlim(-0.6, len(progs) - 0.4)
    program_ticks(ax, progs)
    ax.set_ylabel("max relative error vs double reference (log)")
    tensor = [p for p in progs if p in ladder.TENSOR_STEPS or p in ladder.MATH_ROWS]
    three = [p for p in tensor if ladder.PROGRAMS[p]["precision"] == "fp32" and p != "cublas"]  # 3xTF32: FP32 from TF32
    kinds = [f"{what} ({', '.join(label(p) for p in ps)})" for what, ps in
             (("TF32 tensor cores", [p for p in tensor if p not in three]), ("3xTF32", three)) if ps]
    ax.set_title("Accuracy: plain float sums (steps 01, 07-10, cuBLAS) vs Kahan summation (steps 02-06)"
                 + (",\n" + " and ".join(kinds) if kinds else "")
                 + f"\n{device}, measured {measured_on(res, tuple(sizes))}", fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(axis="y", which="both", alpha=0.3)
    save(fig, out, "accuracy")


def place_labels(fig, ax, points):
    """Name each point (x, y, text) beside it, trying places around it nearest first and
    taking the first that overlaps no other name, point, text or legend and stays inside
    the axes (a leader line to the names set further off)."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    inside = ax.get_window_extent(renderer)
    taken = [matplotlib.transforms.Bbox.from_extents(px - 5, py - 5, px + 5, py + 5)
             for px, py in (ax.transData.transform((x, y)) for x, y, _ in points)]
    taken += [t.get_window_extent(renderer) for t in ax.texts]
    taken += [ax.get_legend().get_window_extent(renderer)] if ax.get_legend() else []
    tries = []
    for d in (5, 14, 26, 40):
        tries += [(d, d / 2, "left", "bottom"), (d, -d / 2, "left", "top"), (-d, d / 2, "right", "bottom"),
                  (-d, -d / 2, "right", "top"), (0, d + 3, "center", "bottom"), (0, -d - 3, "center", "top")]
    for x, y, text in points:
        for dx, dy, ha, va in tries:
            lead = dict(arrowstyle="-", color="#999999", linewidth=0.5) if abs(dx) + abs(dy) > 12 else None
            t = ax.annotate(text, (x, y), xytext=(dx, dy), textcoords="offset points", ha=ha, va=va, fontsize=7,
                            arrowprops=lead)
            t.update_positions(renderer)
            box = matplotlib.text.Text.get_window_extent(t, renderer)  # the text, not its leader, a little apart
            box = matplotlib.transforms.Bbox.from_extents(box.x0 - 4, box.y0 - 1, box.x1 + 4, box.y1 + 1)
            if all(not box.overlaps(b) for b in taken) and inside.contains(box.x0, box.y0) \
                    and inside.contains(box.x1, box.y1):
                taken.append(box)
                break
            t.remove()
        else:  # nowhere free: beside the point all the same
            ax.annotate(text, (x, y), xytext=tries[0][:2], textcoords="offset points", ha="left", va="bottom",
                        fontsize=7)


def accuracy_speed_chart(device, by_dist, out):
    """Max componentwise error against kernel TFLOPS, one panel per input distribution, at
    n = 4096 where measured (else the largest n measured), with the classes' bounds. Rows
    without a componentwise error (recorded before it was) are left out."""
    panels = []  # (dist, n, [(program, row)])
    for dist in ladder.DISTS:
        rows = {k: r for k, r in by_dist.get(dist, {}).items() if r.get("max_comp_err") and r.get("gflops")}
        sizes = {n for (_, n) in rows}
        n = 4096 if 4096 in sizes else max(sizes) if sizes else None
        panels.append((dist, n, [(p, rows[(p, n)]) for p in ladder.LADDER if (p, n) in rows]))
    fig, axes = plt.subplots(1, len(panels), figsize=(7 * len(panels), 5.5), sharex=True, sharey=True,
                             squeeze=False)
    xs = [float(r["gflops"]) / 1e3 for _, _, pts in panels for _, r in pts]
    ys = [float(r["max_comp_err"]) for _, _, pts in panels for _, r in pts]
    bounds = {(prec, n): precision_bound(prec, n) for _, n, pts in panels if pts for prec in CLASSES}
    if xs:
        ylo = min([y for y in ys if y > 0] + list(bounds.values()))
        axes[0][0].set_xscale("log")
        axes[0][0].set_yscale("log")
        axes[0][0].set_xlim(min(xs) / 2.5, max(xs) * 2.5)
        axes[0][0].set_ylim(ylo / 10, max(ys + list(bounds.values())) * 10)
    seen, names = {}, []
    for ax, (dist, n, pts) in zip(axes[0], panels):
        what = "the article's inputs, uniform in [0, 1)" if dist == "uniform" else "signed, over 17 binades"
        ax.set_xlabel("kernel TFLOPS (log scale)")
        if not pts:
            ax.set_title(f"{dist} inputs ({what})", fontsize=9)
            ax.text(0.5, 0.5, f"no componentwise errors recorded yet\nfor the {dist} inputs (make compare)",
                    transform=ax.transAxes, ha="center", va="center", fontsize=10, color="#555555")
            ax.tick_params(which="both", labelleft=bool(xs) and ax is axes[0][0], labelbottom=bool(xs),
                           left=bool(xs), bottom=bool(xs))
            names.append([])
            continue
        for prec, (color, _) in CLASSES.items():
            b = bounds[(prec, n)]
            ax.axhline(b, color=color, linestyle="--", linewidth=1)
            ax.text(0.01, b * 1.15, f"{prec} class bound, n = {n}: {b:.2e}", transform=ax.get_yaxis_transform(),
                    color=color, fontsize=7, ha="left", va="bottom")
        names.append([])
        for p, r in pts:
            x, y = float(r["gflops"]) / 1e3, max(float(r["max_comp_err"]), ax.get_ylim()[0])  # 0: at the floor
            prec = r["precision"] if r.get("precision") in CLASSES else "fp32"
            color, marker = CLASSES[prec]
            status = r.get("status") or "pass"
            seen[prec] = ax.scatter([x], [y], color=color, marker=marker, s=30, zorder=3,
                                    edgecolor=color if status == "pass" else "black")
            names[-1].append((x, y, label(p) + ("" if status == "pass" else f" ({status})")))
        ax.set_title(f"{dist} inputs ({what}), n = {n}", fontsize=9)
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("max componentwise error |c - ref| / (|A||B|) (log scale)")
    if seen:
        axes[0][0].legend([seen[p] for p in CLASSES if p in seen],
                          [f"{p} class (judged by the {p} bound)" for p in CLASSES if p in seen],
                          fontsize=8, loc="lower right")
    dates = sorted({r["date"][:10] for _, _, pts in panels for _, r in pts})
    fig.suptitle(f"Accuracy against speed, {device} "
                 f"({'measured ' + ', '.join(dates) if dates else 'no componentwise errors recorded yet'})",
                 fontsize=10)
    fig.tight_layout()
    for ax, points in zip(axes[0], names):  # once the layout is fixed: names placed in pixels
        place_labels(fig, ax, points)
    save(fig, out, "accuracy_speed")


def time_split_chart(device, res, out):
    sizes = [n for n in (1000, 4096) if any((p, n) in res for p in ladder.LADDER)]
    if not sizes:
        return
    most = max(sum((p, n) in res for p in ladder.LADDER) for n in sizes)
    fig, axes = plt.subplots(1, len(sizes), figsize=(max(6, 0.5 * most) * len(sizes), 4.5), squeeze=False)
    colors = ["#bdbdbd", "#6baed6", "#d62728", "#fd8d3c", "#969696"]
    for ax, n in zip(axes[0], sizes):
        progs = [p for p in ladder.LADDER if (p, n) in res]
        bottom = [0.0] * len(progs)
        for (col, name), color in zip(PHASES, colors):
            vals = [float(res[(p, n)][col]) for p in progs]
            ax.bar(range(len(progs)), vals, 0.7, bottom=bottom, label=name, color=color)
            bottom = [b + v for b, v in zip(bottom, vals)]
        slanted = program_ticks(ax, progs)
        ax.set_ylabel("end-to-end time (ms)")
        ax.set_title(f"n = {n}", fontsize=10)
        ax.grid(axis="y", alpha=0.3)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(PHASES), fontsize=8,
               bbox_to_anchor=(0.5, -0.12 if slanted else -0.06))  # below the names, slanted or not
    fig.suptitle(f"Where the end-to-end time goes, {device} (measured {measured_on(res, tuple(sizes))})",
                 fontsize=10)
    save(fig, out, "time_split")


def charts(results_dir, out, device):
    """The ladder's charts of one device (charts.py picks it; None: no GPU's rows, no charts)."""
    if device is None:
        return
    devices = tables_shared.device_results(results_dir)
    res, art = devices[device], tables_shared.article(results_dir)
    skipped = tables_shared.skipped_programs(results_dir).get(device, {})
    speedup_chart(device, res, art, out, skipped)
    gflops_chart(device, res, out, skipped)
    accuracy_chart(device, res, art, out)
    accuracy_speed_chart(device, {dist: tables_shared.device_results(results_dir, dist=dist).get(device, {})
                                  for dist in ladder.DISTS}, out)
    time_split_chart(device, res, out)
