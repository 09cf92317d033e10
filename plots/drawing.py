"""The drawing library the charts and the steps' pictures share: matplotlib set up to write the
same bytes from the same input (no display, SVG ids from a fixed salt, no dates), save() into
PNG and SVG, and the pictures' primitives (a canvas in inches, boxes, outlines, a lane's cell)
and colours. It imports no step: a step's pictures.py and its charts import it.
"""
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402

# The same results give the same files: SVG element ids from a fixed salt instead of a
# random one (the dates are left out in save()), so `make plots` on unchanged inputs leaves
# the tree clean.
plt.rcParams["svg.hashsalt"] = "matmul-step-by-step"

WARP = 32
BANKS = 32

# Eight lane groups (g = lane / 4) and the four 8 x 8 matrices of an ldmatrix.x4.
GROUP_COLORS = ["#a6cee3", "#b2df8a", "#fb9a99", "#fdbf6f", "#cab2d6", "#ffff99", "#8dd3c7", "#d9d9d9"]
MATRIX_COLORS = ["#9ecae1", "#a1d99b", "#fdae6b", "#bcbddc"]
EXAMPLE_LANE = 5  # the lane followed through the pictures (g = 1, t = 1: no coordinate is 0)


def save(fig, out, name):
    """fig as out/name.png and out/name.svg, then closed."""
    for ext in ("png", "svg"):
        fig.savefig(os.path.join(out, f"{name}.{ext}"), dpi=130, bbox_inches="tight",
                    metadata={"Date": None} if ext == "svg" else None)
    plt.close(fig)
    print(f"wrote {os.path.join(os.path.relpath(out), name)}.png and .svg")


def speed_against_n(out, name, rows, programs, style, label, dashed, thick, ceiling, bound, title, legend_panel=0):
    """A sweep's chart: each program's speed over the ceiling against n (log), uniform and wide
    inputs side by side. rows: dicts with program, n, dist, speedup (a number) and status; style:
    program -> (colour, marker); label: program -> its legend's name; dashed, thick: programs drawn
    so; runs past the bound as hollow red rings. Saved as out/name (save)."""
    fig, axes = plt.subplots(1, 2, figsize=(13, 5), sharey=True)
    for ax, dist in zip(axes, ("uniform", "wide")):
        for p in programs:
            pts = sorted((int(r["n"]), float(r["speedup"]), r["status"]) for r in rows
                         if r["program"] == p and r["dist"] == dist)
            if not pts:
                continue
            color, marker = style[p]
            ax.plot([n for n, _, _ in pts], [x for _, x, _ in pts], marker=marker, color=color,
                    linestyle="--" if p in dashed else "-", linewidth=2.2 if p in thick else 1.2, label=label(p))
            bad = [(n, x) for n, x, s in pts if s != "pass"]
            if bad:
                ax.scatter([n for n, _ in bad], [x for _, x in bad], s=90, facecolors="none",
                           edgecolors="#cb181d", linewidths=1.5, zorder=4)
        ax.axhline(1.0, color="black", linewidth=1)
        ax.set_xscale("log", base=2)
        ax.set_xlabel("n (log)")
        ax.set_title(f"{dist} inputs", fontsize=10)
        ax.grid(alpha=0.3, which="both")
    axes[0].set_ylabel(f"speed over {ceiling} of the same run (1: {ceiling.split()[-1]})")
    handles, labels = axes[0].get_legend_handles_labels()
    handles.append(plt.Line2D([], [], marker="o", linestyle="none", markerfacecolor="none",
                              markeredgecolor="#cb181d", markersize=9))
    labels.append(f"past the {bound} bound (FAIL)")
    axes[legend_panel].legend(handles, labels, fontsize=7, loc="upper left")
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    save(fig, out, name)


def canvas(x0, x1, y0, y1, unit):
    """A figure whose data units are `unit` inches, y downwards, no axes drawn."""
    fig = plt.figure(figsize=((x1 - x0) * unit, (y1 - y0) * unit))
    ax = fig.add_axes([0, 0, 1, 1])
    ax.set_xlim(x0, x1)
    ax.set_ylim(y1, y0)
    ax.axis("off")
    return fig, ax


def box(ax, x, y, color="white", w=1.0, h=1.0, lw=0.5, edge="#555555", **kw):
    ax.add_patch(Rectangle((x, y), w, h, facecolor=color, edgecolor=edge, linewidth=lw, **kw))


def outline(ax, x, y, w=1.0, h=1.0, color="black", lw=2.2, style="-"):
    ax.add_patch(Rectangle((x, y), w, h, fill=False, edgecolor=color, linewidth=lw, linestyle=style, zorder=5))


def lane_cell(ax, x, y, lane, reg_name, color):
    """One element: the lane that holds it (bold), the register under it."""
    box(ax, x, y, color)
    ax.text(x + 0.5, y + 0.38, str(lane), ha="center", va="center", fontsize=9, fontweight="bold")
    ax.text(x + 0.5, y + 0.76, reg_name, ha="center", va="center", fontsize=6.5, color="#333333")
