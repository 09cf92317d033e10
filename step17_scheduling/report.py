"""What step 17 reports from results/ (its experiments.json names each function): the table of the
sweep scheduling (results/<device>-scheduling.csv: the step beside step 13, the cuBLAS ceilings and
the FP32-accurate steps, one run) and its rows, for the README's numbers. The step is this folder's:
a copy reports on itself.
Each function gets the repository's shared helpers first (shared: scripts/for_steps.py).
"""
import glob
import os

HERE = os.path.dirname(os.path.abspath(__file__))
STEP = os.path.basename(HERE).split("_")[0]


def sched(shared, results, program, n, dist="uniform", column="gflops"):
    """sched(program, n, dist="uniform", column="gflops"): a row of the sweep scheduling."""
    return float(results.find(f"{results.slug}-scheduling.csv", "the scheduling sweep", program=program, n=n,
                              dist=dist)[column])


def sched_version(shared, results, program, n, column="gflops"):
    """sched_version(program, n, column="gflops"): a row of the versions' run at every size."""
    return float(results.find(f"{results.slug}-{STEP}-chain.csv", "the development versions at every size",
                              program=program, n=n)[column])


def scheduling_table(shared, results_dir):
    """The sweep scheduling, per device and input family: for each n, kernel TFLOPS of cuBLAS TF32,
    step 13 and the step, the step over cuBLAS TF32 and over step 13, and the verdicts."""
    f, table = shared.f, shared.table
    parts, progs = [], ["cublas_tf32", "step13", STEP]
    for path in sorted(glob.glob(os.path.join(results_dir, "*-scheduling.csv"))):
        rows = shared.read_results(path)
        body = []
        for dist, n, at in shared.sweep_cells(rows, progs):
            tflops = [float(r["gflops"]) / 1e3 for r in at]
            body.append([dist, str(n)] + [f(t, 1) for t in tflops]
                        + [f(tflops[2] / tflops[0], 3), f(tflops[2] / tflops[1], 3), ", ".join(r["status"] for r in at)])
        if not body:
            continue
        dates = ", ".join(sorted({r["date"][:10] for r in rows}))
        parts.append(f"**{rows[0]['device']}** (measured {dates}, one run: the programs one after the other at "
                     f"each size; kernel TFLOPS, median of {rows[0]['command'].split('--reps ')[1].split()[0]})\n\n"
                     + table(["inputs", "n", "cuBLAS TF32", "step 13", "step 17", "step 17 / cuBLAS TF32",
                              "step 17 / step 13", "tf32 verdicts"], body))
    if not parts:
        return "No run of the scheduling sweep is recorded yet: `make sweep STEP=17` on a GPU measures it."
    return "\n\n".join(parts)
