"""What step 13 reports from results/ (its experiments.json names each function): the table of
TF32 truncated against rounded to nearest (the sweep tf32-rounding, results/<device>-tf32-rounding.csv)
and its rows, for the README's numbers. The step is this folder's: a copy reports on itself.
Each function gets the repository's shared helpers first (shared: scripts/for_steps.py).
"""
import glob
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
STEP = os.path.basename(HERE).split("_")[0]


def rounding(shared, results, program, n, dist, column="max_comp_err"):
    """rounding(program, n, dist, column="max_comp_err"): a row of the sweep tf32-rounding."""
    return float(results.find(f"{results.slug}-tf32-rounding.csv", "TF32 truncated against rounded", program=program,
                              n=n, dist=dist)[column])


def rounding_table(shared, results_dir):
    """TF32 truncated beside TF32 rounded to nearest (the sweep tf32-rounding): per device, input
    family and n, the truncating version, the step and cuBLAS TF32 in one run: TFLOPS, the
    componentwise error's maximum and mean, the verdicts of the tf32 class."""
    e, f, table = shared.e, shared.f, shared.table
    with open(os.path.join(HERE, "experiments.json")) as fh:
        beside = json.load(fh)["sweeps"]["tf32-rounding"]["beside"]
    parts, progs = [], beside[:1] + [STEP] + beside[1:]  # the truncating version, the step, cuBLAS TF32
    for path in sorted(glob.glob(os.path.join(results_dir, "*-tf32-rounding.csv"))):
        rows = shared.read_results(path)
        body = []
        for dist, n, at in shared.sweep_cells(rows, progs, list(shared.DISTS) + list(shared.RANGE_DISTS), complete=False):
            body.append([dist, str(n)] + [f(float(r["gflops"]) / 1e3, 1) if r else "" for r in at]
                        + [f"{e(r['max_comp_err'])} / {e(r['avg_comp_err'])}" if r else "" for r in at]
                        + [", ".join(r["status"] if r else "-" for r in at)])
        if not body:
            continue
        names = [shared.label(p) if p in shared.REFERENCE_NAMES else f"`{p}`" for p in progs]
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
