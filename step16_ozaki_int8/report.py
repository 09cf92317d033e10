"""What step 16 reports from results/ (its experiments.json names each function): the knob's
chart (make plots) and the rows its README's numbers come from (scripts/readme_tables.py).
The moduli sweep's rows are results/<device>-moduli.csv, a variant's count of moduli in the
column moduli (empty for the step as built, which picks its count by n); cuBLAS's INT8 GEMM's
are results/<device>-int8-gemm.csv. The step is this folder's: a copy reports on itself.
Each function gets the repository's shared helpers first (shared: scripts/for_steps.py).
"""
import glob
import os

HERE = os.path.dirname(os.path.abspath(__file__))
STEP = os.path.basename(HERE).split("_")[0]  # its program, and its rows' name
SHORT_MAX_N = 33  # the short sums the sweep runs: n = 1 ... 33


def moduli(shared, results, program, n, column="kernel_ms", dist="uniform", count=""):
    """moduli(program, n, column="kernel_ms", dist="uniform", count=N): a row of the moduli sweep;
    count=N for the step built with N moduli, none for the step as built and the programs beside."""
    return float(results.find(f"{results.slug}-moduli.csv", "the moduli sweep", program=program, n=n, dist=dist,
                              moduli=count)[column])


# The span check's recording (results/<device>-step16-span-check.csv): step 16's rows by name, as
# the moduli sweep's are, so a copy of the step reads the same recording.
SPAN_RESULTS = "step16-span-check.csv"


def span(shared, results, program, n, dist, column="kernel_ms"):
    """span(program, n, dist, column="kernel_ms"): a row of the span check's families run: the
    step, step 14 and cuBLAS SGEMM on one family at n, in one run."""
    return float(results.find(f"{results.slug}-{SPAN_RESULTS}", "the span check's families", program=program, n=n,
                              family=dist, run="families")[column])


def span_cost(shared, results, n, dist, program="step16"):
    """span_cost(n, dist): the step's time over its time before the span check (rows program and
    program_unchecked), less 1: the mean of the rounds run side by side."""
    rows = [r for r in results.csv(f"{results.slug}-{SPAN_RESULTS}")
            if r["run"].startswith("cost") and r["n"] == str(n) and r["family"] == dist]
    mean = {p: [float(r["kernel_ms"]) for r in rows if r["program"] == p] for p in (program, f"{program}_unchecked")}
    if not all(mean.values()):
        raise KeyError(f"no cost rounds at n = {n} on {dist}")
    return sum(mean[program]) / len(mean[program]) / (sum(mean[f"{program}_unchecked"]) /
                                                      len(mean[f"{program}_unchecked"])) - 1


def int8(shared, results, n, column="tops"):
    """int8(n, column="tops"): cuBLAS's INT8 GEMM at n (the sweep int8-gemm)."""
    return float(results.find(f"{results.slug}-int8-gemm.csv", "cuBLAS's INT8 GEMM", program="cublas_int8",
                              n=n)[column])


def moduli_chart(shared, results_dir, out):
    """The knob (the sweep moduli): for each number of moduli, its time and its componentwise
    error at the largest n measured, beside SGEMM, cuBLAS TF32 and the 3xTF32 steps of the same
    run; and the worst error on short sums (n = 1 ... 33), where 3xTF32 has its floor, in units of
    the fp32 bound (1: the bound). One chart per device: moduli_<device>.png."""
    save = shared.drawing.save  # first: it sets matplotlib up to write the same bytes every run
    import matplotlib.pyplot as plt  # here: the README's numbers need no matplotlib
    for path in sorted(glob.glob(os.path.join(results_dir, "*-moduli.csv"))):
        rows = [r for r in shared.read_results(path) if r.get("kernel_ms")]
        knob_rows = [r for r in rows if r["program"] == STEP and r.get("moduli")]
        if not knob_rows:
            continue
        big = max(int(r["n"]) for r in knob_rows)  # the largest n the knob ran at
        short = sorted({int(r["n"]) for r in rows if int(r["n"]) <= SHORT_MAX_N})
        counts = sorted({int(r["moduli"]) for r in knob_rows})
        fig, (ax, bx) = plt.subplots(1, 2, figsize=(13, 5))
        for dist, marker in (("uniform", "o"), ("wide", "s")):
            at = [r for r in rows if int(r["n"]) == big and r["dist"] == dist]
            knob = sorted(((int(r["moduli"]), r) for r in at if r["program"] == STEP and r.get("moduli")),
                          key=lambda cr: cr[0])
            plain = {r["program"]: r for r in at if not r.get("moduli")}
            ax.plot([float(r["kernel_ms"]) for _, r in knob], [float(r["max_comp_err"]) for _, r in knob],
                    marker=marker, color="#2171b5",
                    label=f"{shared.label(STEP)}, {counts[0]} ... {counts[-1]} moduli ({dist})")
            for c, r in knob:
                ax.annotate(str(c), (float(r["kernel_ms"]), float(r["max_comp_err"])), fontsize=7,
                            xytext=(3, 3), textcoords="offset points")
            for p, color in (("cublas", "#cb181d"), ("cublas_tf32", "#fd8d3c"), ("step14", "#238b45"),
                             ("step15", "#74c476"), (STEP, "#08306b")):
                if p in plain:
                    ax.scatter([float(plain[p]["kernel_ms"])], [float(plain[p]["max_comp_err"])], marker=marker,
                               color=color, zorder=3, label=f"{p} ({dist})")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel(f"kernel time at n = {big}, ms (log)")
        ax.set_ylabel("largest componentwise error |c - ref| / (|A| |B|) (log)")
        ax.set_title(f"n = {big}: error against time, each count of moduli", fontsize=10)
        ax.legend(fontsize=7, ncol=2, loc="lower left")
        ax.grid(alpha=0.3, which="both")
        worst = {}  # (program, moduli): the largest error over the short sums, in bounds
        for r in rows:
            if int(r["n"]) in short:
                key = (r["program"], r.get("moduli") or "")
                worst[key] = max(worst.get(key, 0.0), float(r["max_comp_err"]) / float(r["tolerance"]))
        knob = sorted((int(m), e) for (p, m), e in worst.items() if p == STEP and m)
        bx.plot([c for c, _ in knob], [e for _, e in knob], marker="o", color="#2171b5", label=shared.label(STEP))
        for p, color in (("cublas", "#cb181d"), ("step14", "#238b45"), ("step15", "#74c476"),
                         ("cublas_tf32", "#fd8d3c")):
            if (p, "") in worst:
                bx.axhline(worst[(p, "")], color=color, linestyle="--", linewidth=1, label=p)
        bx.set_yscale("log")
        bx.set_xlabel("moduli")
        bx.axhline(1.0, color="black", linewidth=1)
        bx.set_ylabel("largest componentwise error / the fp32 bound (log)")
        bx.set_title(f"short sums, n = {', '.join(map(str, short))}, uniform and wide: the worst", fontsize=10)
        bx.legend(fontsize=7)
        bx.grid(alpha=0.3, which="both")
        dates = ", ".join(sorted({r["date"][:10] for r in rows}))
        fig.suptitle(f"Step {STEP[4:]}'s knob, the number of moduli, on {rows[0]['device']} (measured {dates})",
                     fontsize=11)
        fig.tight_layout()
        save(fig, out, "moduli_" + os.path.basename(path)[:-len("-moduli.csv")])
