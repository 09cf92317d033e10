"""The CPU chapter's chart (make plots): cpu_<host>.png, GFLOPS against n per variant, OpenBLAS as
the ceiling.
"""
import glob
import os

from drawing import save  # first: matplotlib set up to write the same bytes every run
import matplotlib.pyplot as plt
import ladder


def cpu_charts(results_dir, out):
    """The CPU chapter: GFLOPS against n per variant, one chart per host (cpu_<host>.png)."""
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


def charts(results_dir, out, device):
    """One chart per results file (device: the ladder's; every file here is drawn)."""
    cpu_charts(results_dir, out)
