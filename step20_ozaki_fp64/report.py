"""What step 20 reports from results/ (its experiments.json names each function): the sweep fp64
(the step, cuBLAS DGEMM and its FP64 emulation, GEMMul8's DGEMM emulation where it is built, one
after the other at each size and input family: results/<device>-fp64.csv, each program's speed
counted over DGEMM's of the same size and family) as a table, a chart and rows for the README's
numbers; and the step's kernels of one launch under ncu (results/<device>-step20-passes.csv, with
the copy ceiling measured beside it). The step is this folder's: a copy reports on itself. Each
function gets the repository's shared helpers first (shared: scripts/for_steps.py).
"""
import glob
import os

HERE = os.path.dirname(os.path.abspath(__file__))
STEP = os.path.basename(HERE).split("_")[0]
RECORDED = "nvidia-h200"  # the device the README discusses: its runs are recorded under this name
CEILING = "cublas_dgemm"
PROGRAMS = [STEP, "cublas_dgemm_emulated", "gemmul8_fp64_fast14", "gemmul8_fp64_fast15",
            "gemmul8_fp64_accurate15", "gemmul8_fp64_accurate16"]
NAMES = {STEP: "step " + STEP[4:], "cublas_dgemm_emulated": "cuBLAS FP64 emulation",
         "gemmul8_fp64_fast14": "GEMMul8 fast-14", "gemmul8_fp64_fast15": "GEMMul8 fast-15",
         "gemmul8_fp64_accurate15": "GEMMul8 accurate-15", "gemmul8_fp64_accurate16": "GEMMul8 accurate-16"}


def fp64(shared, results, program, n, dist="uniform", column="speedup"):
    """fp64(program, n, dist="uniform", column="speedup"): a row of the sweep fp64
    (results/<device>-fp64.csv); "speedup" is its speed over DGEMM's at the same n and family (as
    the table rounds it); "status" its verdict; any other column as a number."""
    name = f"{RECORDED}-fp64.csv"
    row = results.find(name, "the fp64 sweep", program=program, n=n, dist=dist)
    if column == "speedup":
        dgemm = results.find(name, "the fp64 sweep", program=CEILING, n=n, dist=dist)
        return float(row["gflops"]) / float(dgemm["gflops"])
    return row[column] if column == "status" else float(row[column])


def speedup(shared, results, program, n, dist="uniform"):
    """speedup(program, n, dist="uniform"): the program's speed over DGEMM's in the sweep fp64."""
    return fp64(shared, results, program, n, dist)


def sweep_files(shared, results_dir):
    """[(device slug, rows)]: each device's sweep fp64, its rows (DGEMM's left out) with "speedup",
    the speed over DGEMM's at the same n and family."""
    found = []
    for path in sorted(glob.glob(os.path.join(results_dir, "*-fp64.csv"))):
        rows = shared.read_results(path)
        dgemm = {(r["n"], r["dist"]): float(r["gflops"]) for r in rows if r["program"] == CEILING}
        found.append((os.path.basename(path)[:-len("-fp64.csv")],
                      [dict(r, speedup=float(r["gflops"]) / dgemm[(r["n"], r["dist"])]) for r in rows
                       if r["program"] != CEILING and (r["n"], r["dist"]) in dgemm], dgemm))
    return found


def fp64_table(shared, results_dir):
    """Per device and input family: DGEMM's TFLOPS, and each program as a multiple of DGEMM at each
    n; the fastest within the fp64 bound in bold; a run past it marked FAIL."""
    f = shared.f
    parts = []
    for _, rows, dgemm in sweep_files(shared, results_dir):
        progs = [p for p in PROGRAMS if any(r["program"] == p for r in rows)]
        body = []
        for dist, n, at in shared.sweep_cells(rows, progs, complete=False):
            ok = [r for r in at if r and r["status"] == "pass"]
            best = max(ok, key=lambda r: r["speedup"]) if ok else None
            cells = []
            for r in at:
                x = "" if not r else f(r["speedup"], 2) + ("" if r["status"] == "pass" else " FAIL")
                cells.append(f"**{x}**" if r and r is best else x)
            body.append([dist, str(n), f(dgemm[(str(n), dist)] / 1e3, 1)] + cells)
        if not body:
            continue
        dates = ", ".join(sorted({r["date"][:10] for r in rows}))
        reps = rows[0]["reps"] or "5"
        runs = {}  # a run's start (its rows' date) -> its sizes: each size's programs come from one run
        for r in rows:
            runs.setdefault(r["date"], set()).add(int(r["n"]))
        how = "one run" if len(runs) == 1 else ("; ".join(
            "n = " + ", ".join(str(n) for n in sorted(sizes)) + f" in a run at {start[11:16]} UTC"
            for start, sizes in sorted(runs.items()))
            + f", on {len({r.get('device_uuid') for r in rows})} cards (the rows' device_uuid)")
        parts.append(f"**{rows[0]['device']}** (measured {dates}, {how}: the programs one after the other at each "
                     f"size; kernel time, median of {reps}; each program's speed over cuBLAS DGEMM's; bold: the "
                     "fastest within the fp64 bound; FAIL: past it)\n\n"
                     + shared.table(["inputs", "n", "DGEMM, TFLOPS"] + [NAMES[p] for p in progs], body))
    if not parts:
        return f"No run of the fp64 sweep is recorded yet: `make sweep STEP={STEP[4:]}` on a GPU measures it."
    return "\n\n".join(parts)


STYLE = {STEP: ("#08306b", "o"), "cublas_dgemm_emulated": ("#969696", "s"),
         "gemmul8_fp64_fast14": ("#bcbddc", "1"), "gemmul8_fp64_fast15": ("#9e9ac8", "+"),
         "gemmul8_fp64_accurate15": ("#756bb1", "x"), "gemmul8_fp64_accurate16": ("#54278f", "D")}


def fp64_chart(shared, results_dir, out):
    """Each program's speed over DGEMM's against n, uniform and wide inputs side by side; the peers
    dashed, runs past the fp64 bound as hollow red rings. One chart per device: fp64_<device>.png."""
    for slug, rows, _ in sweep_files(shared, results_dir):
        if not any(r["program"] == STEP for r in rows):
            continue
        dates = ", ".join(sorted({r["date"][:10] for r in rows}))
        shared.drawing.speed_against_n(
            out, "fp64_" + slug, rows, PROGRAMS, STYLE, NAMES.get, dashed=PROGRAMS[1:], thick=[STEP],
            ceiling="cuBLAS DGEMM", bound="fp64",
            title=f"FP64 products: speed over DGEMM on {rows[0]['device']} (measured {dates}, one run)")


# The step's kernels, in launch order, with what each does; the two INT8 products last. Names
# without a template's count of moduli: a row's kernel is found by its name before the "<".
KERNELS = [("row_facts", "A: rows' largest, smallest, NaN/Inf"),
           ("col_extremes", "B: columns' largest, smallest, NaN/Inf"),
           ("residues_a64", "A: residues, the check's bytes, the sums"),
           ("residues_bt64", "B: residues transposed, the check's bytes, the sums"),
           ("span_facts", "the lines' facts for the check"),
           ("reconstruct64", "the remainder theorem, one rounding"),
           ("fp64_loop", "the FP64 loop (refused, NaN/Inf)")]
PRODUCTS = [("residue_products", "the check's product"), ("moduli_products", "the moduli's products")]


def kernel_rows(rows):
    """The rows of a passes file by (n, kernel name without its template arguments)."""
    return {(int(r["n"]), r["kernel"].split("<")[0]): r for r in rows}


def passes(shared, results, kernel, column="ms", n=16384):
    """passes(kernel, column="ms", n=16384): a kernel of one launch under ncu
    (results/<device>-step20-passes.csv; kernel: its name without template arguments); column
    "bound_ms" is its bytes (DRAM read and written) at the copy ceiling measured on the same card
    beside it, "per_element" its thread instructions per element of C, "moduli" the count of moduli
    its template took (reconstruct64<14>: 14)."""
    name = f"{RECORDED}-step20-passes.csv"
    row = kernel_rows(results.csv(name)).get((n, kernel))
    if row is None:
        raise KeyError(f"{name} has no kernel {kernel} at n = {n}")
    if column == "bound_ms":
        return (float(row["dram_read_gb"]) + float(row["dram_write_gb"])) / float(row["copy_gbs"]) * 1e3
    if column == "per_element":
        return float(row["warp_instructions"]) * 32 / float(row["n"]) ** 2
    if column == "moduli":
        return int(row["kernel"].split("<")[1].rstrip(">"))
    return float(row[column])


def passes_total(shared, results, which="bytes", column="ms", n=16384):
    """passes_total(which="bytes", column="ms"): a sum over the kernels of the launch: "bytes", those
    that only move bytes (all but the two INT8 products); "launch", every kernel."""
    names = [k for k, _ in KERNELS] + ([k for k, _ in PRODUCTS] if which == "launch" else [])
    return sum(passes(shared, results, k, column, n) for k in names)


def passes_table(shared, results_dir):
    """Per device and n: each pass, the bytes it moved (DRAM, read and written), their time at the
    copy ceiling of the same card, its measured time, the ratio and its instructions per element of C;
    their total; then the two INT8 products, bound by the tensor pipe, with how busy ncu found it."""
    f, table = shared.f, shared.table
    parts = []
    for path in sorted(glob.glob(os.path.join(results_dir, "*-step20-passes.csv"))):
        rows = shared.read_results(path)
        get = kernel_rows(rows)
        for n in sorted({int(r["n"]) for r in rows}):
            body, total, total_bound = [], 0.0, 0.0
            for kernel, what in KERNELS:
                r = get[(n, kernel)]
                ms, gb = float(r["ms"]), float(r["dram_read_gb"]) + float(r["dram_write_gb"])
                bound = gb / float(r["copy_gbs"]) * 1e3
                total, total_bound = total + ms, total_bound + bound
                body.append([what, kernel, f(gb, 3), f(bound, 3), f(ms, 3),
                             f(ms / bound, 2) if bound > 0.01 else "",
                             f(float(r["warp_instructions"]) * 32 / n ** 2, 0)])
            body.append(["**the passes that move bytes**", "", "", f(total_bound, 2), f"**{f(total, 2)}**",
                         f(total / total_bound, 2), ""])
            for kernel, what in PRODUCTS:
                r = get[(n, kernel)]
                body.append([what, f"{kernel}: tensor pipe {f(float(r['imma_active_pct']), 1)}% busy at "
                             f"{f(float(r['sm_ghz']), 2)} GHz", "", "", f(float(r["ms"]), 2), "", ""])
            parts.append(f"**n = {n}**, {rows[0]['device']} ({rows[0]['date'][:10]}, one launch under ncu at the "
                         f"card's own clock, uniform inputs; copy ceiling {f(float(rows[0]['copy_gbs']), 0)} GB/s, "
                         "measured on the same card just before)\n\n"
                         + table(["pass", "kernel", "bytes, GB", "at the copy ceiling, ms", "measured, ms",
                                  "measured / ceiling", "instructions an element"], body, text_columns=2))
    if not parts:
        return "No ncu run of the step's kernels is recorded yet."
    return "\n\n".join(parts)
