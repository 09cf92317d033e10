"""The tensor-core chapter's pictures (make plots): the drawing tools they share, and the
runner. Each step that has pictures draws them in its own folder's pictures.py (its draw(out)),
from the rules its kernel uses, written there as index formulas (nothing placed by hand); this
finds them (step*/pictures.py) and draws them all into plots/, as PNG and SVG, the same bytes
every run. No results are read.

Usage: plots/tensor_pictures.py [--out DIR]
"""
import argparse
import glob
import importlib.util
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402

# The same files every run: SVG ids from a fixed salt, no dates (see save()), as charts.py.
plt.rcParams["svg.hashsalt"] = "matmul-step-by-step"

HERE = os.path.dirname(os.path.abspath(__file__))
WARP = 32
BANKS = 32

# Eight lane groups (g = lane / 4) and the four 8 x 8 matrices of an ldmatrix.x4.
GROUP_COLORS = ["#a6cee3", "#b2df8a", "#fb9a99", "#fdbf6f", "#cab2d6", "#ffff99", "#8dd3c7", "#d9d9d9"]
MATRIX_COLORS = ["#9ecae1", "#a1d99b", "#fdae6b", "#bcbddc"]
EXAMPLE_LANE = 5  # the lane followed through the pictures (g = 1, t = 1: no coordinate is 0)


# ---- Drawing ----

def save(fig, out, name):
    for ext in ("png", "svg"):
        fig.savefig(os.path.join(out, f"{name}.{ext}"), dpi=130, bbox_inches="tight",
                    metadata={"Date": None} if ext == "svg" else None)
    plt.close(fig)
    print(f"wrote {os.path.join(os.path.relpath(out), name)}.png and .svg")


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



def step_pictures(root=os.path.dirname(HERE)):
    """Every step folder's pictures.py, loaded, in the ladder's order: [(folder, module)]."""
    found = []
    for path in sorted(glob.glob(os.path.join(root, "step[0-9][0-9]_*", "pictures.py"))):
        folder = os.path.basename(os.path.dirname(path))
        spec = importlib.util.spec_from_file_location(f"pictures_{folder.split('_')[0]}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        found.append((folder, module))
    return found


def main(argv):
    p = argparse.ArgumentParser(prog="tensor_pictures.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default=HERE)
    a = p.parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    for _, module in step_pictures():
        module.draw(a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
