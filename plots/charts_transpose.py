"""The transpose chapter's chart (make plots): transpose_<device>.png, GB/s per variant against the
device-to-device copy.
"""
import glob
import os

from drawing import save  # first: matplotlib set up to write the same bytes every run
import matplotlib.pyplot as plt
import ladder


def transpose_charts(results_dir, out):
    """The transpose chapter: effective GB/s per variant and shape against the copy."""
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


def charts(results_dir, out, device):
    """One chart per results file (device: the ladder's; every file here is drawn)."""
    transpose_charts(results_dir, out)
