"""What step 18 reports from results/ (its experiments.json names each function): the table of the
sweep ozaki-scheduled (results/<device>-ozaki-scheduled.csv: the step beside step 16, SGEMM and the
other FP32-accurate and TF32 programs, one run), its rows and the peer GEMMul8's rows of the same
call (results/<device>-step18-gemmul8.csv), for the README's numbers. The step is this folder's: a
copy reports on itself. Each function gets the repository's shared helpers first (shared:
scripts/for_steps.py).
"""
import glob
import os

HERE = os.path.dirname(os.path.abspath(__file__))
STEP = os.path.basename(HERE).split("_")[0]


def oz(shared, results, program, n, dist="uniform", column="gflops"):
    """oz(program, n, dist="uniform", column="gflops"): a row of the sweep ozaki-scheduled."""
    return float(results.find(f"{results.slug}-ozaki-scheduled.csv", "the ozaki-scheduled sweep", program=program,
                              n=n, dist=dist)[column])


def peer(shared, results, program, n, dist="uniform", column="gflops"):
    """peer(program, n, dist="uniform", column="gflops"): a row of GEMMul8's run beside the sweep."""
    return float(results.find(f"{results.slug}-{STEP}-gemmul8.csv", "GEMMul8 beside the sweep", program=program,
                              n=n, dist=dist)[column])


def ozaki_scheduled_table(shared, results_dir):
    """The sweep ozaki-scheduled, per device and input family: for each n, kernel TFLOPS of SGEMM,
    step 14, step 16 and the step; each FP32-accurate program over SGEMM; the verdicts."""
    f, table = shared.f, shared.table
    parts, progs = [], ["cublas", "step14", "step16", STEP]
    for path in sorted(glob.glob(os.path.join(results_dir, "*-ozaki-scheduled.csv"))):
        rows = shared.read_results(path)
        body = []
        for dist, n, at in shared.sweep_cells(rows, progs):
            tflops = [float(r["gflops"]) / 1e3 for r in at]
            body.append([dist, str(n)] + [f(t, 1) for t in tflops] + [f(t / tflops[0], 2) for t in tflops[1:]]
                        + [", ".join(r["status"] for r in at)])
        if not body:
            continue
        dates = ", ".join(sorted({r["date"][:10] for r in rows}))
        parts.append(f"**{rows[0]['device']}** (measured {dates}, one run: the programs one after the other at "
                     f"each size; kernel TFLOPS, median of {rows[0]['command'].split('--reps ')[1].split()[0]})\n\n"
                     + table(["inputs", "n", "SGEMM", "step 14", "step 16", f"step {STEP[4:]}", "step 14 / SGEMM",
                              "step 16 / SGEMM", f"step {STEP[4:]} / SGEMM", "verdicts"], body))
    if not parts:
        return f"No run of the ozaki-scheduled sweep is recorded yet: `make sweep STEP={STEP[4:]}` on a GPU measures it."
    return "\n\n".join(parts)
