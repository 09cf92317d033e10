"""What step 13 reports from results/ (its experiments.json names each function): the table of
TF32 truncated against rounded to nearest (the sweep tf32-rounding, results/<device>-tf32-rounding.csv)
and its rows, for the README's numbers. The step is this folder's: a copy reports on itself.
"""
import glob
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "scripts"))
import ladder  # noqa: E402
from tables_shared import e, f, sweep_cells, table  # noqa: E402

STEP = os.path.basename(HERE).split("_")[0]


def rounding(results, program, n, dist, column="max_comp_err"):
    """rounding(program, n, dist, column="max_comp_err"): a row of the sweep tf32-rounding."""
    return float(results.find(f"{results.slug}-tf32-rounding.csv", "TF32 truncated against rounded", program=program,
                              n=n, dist=dist)[column])


def rounding_table(results_dir):
    """TF32 truncated beside TF32 rounded to nearest (the sweep tf32-rounding): per device, input
    family and n, the truncating version, the step and cuBLAS TF32 in one run: TFLOPS, the
    componentwise error's maximum and mean, the verdicts of the tf32 class."""
    beside = ladder.experiments()[STEP]["sweeps"]["tf32-rounding"]["beside"]
    parts, progs = [], beside[:1] + [STEP] + beside[1:]  # the truncating version, the step, cuBLAS TF32
    for path in sorted(glob.glob(os.path.join(results_dir, "*-tf32-rounding.csv"))):
        rows = ladder.read_results(path)
        body = []
        for dist, n, at in sweep_cells(rows, progs, list(ladder.DISTS) + list(ladder.RANGE_DISTS), complete=False):
            body.append([dist, str(n)] + [f(float(r["gflops"]) / 1e3, 1) if r else "" for r in at]
                        + [f"{e(r['max_comp_err'])} / {e(r['avg_comp_err'])}" if r else "" for r in at]
                        + [", ".join(r["status"] if r else "-" for r in at)])
        if not body:
            continue
        names = [ladder.label(p) if p in ladder.REFERENCE_NAMES else f"`{p}`" for p in progs]
        dates = ", ".join(sorted({r["date"][:10] for r in rows}))
        parts.append(f"**{rows[0]['device']}** (measured {dates}, one run: the programs one after the other at "
                     f"each size; kernel TFLOPS, median of {rows[0]['command'].split('--reps ')[1].split()[0]})\n\n"
                     + table(["inputs", "n"] + [f"TFLOPS {x}" for x in names]
                             + [f"componentwise error max / mean, {x}" for x in names]
                             + ["tf32 verdicts"], body))
    if not parts:
        return ("No run of TF32 truncated against rounded is recorded yet: `make reproduce ONLY=rounding` on a "
                "GPU measures it.")
    return "\n\n".join(parts)
