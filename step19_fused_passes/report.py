"""What step 19 reports from results/ (its experiments.json names each function): the sweep
crossover (every FP32-accurate program of the ladder, SGEMM and GEMMul8 where it is built, one after
the other at each size and input family: results/<device>-crossover.csv, each program's speed
counted over SGEMM's of the same size and family) as a table and a chart, its rows for the README's
numbers, and the kernels of one launch under ncu
(results/<device>-step19-passes.csv: step 18's and the step's, with the copy ceiling of the same
call), and the sweep epilogue (results/<device>-epilogue.csv: the step beside its build variant with the
remainder theorem in the products' epilogue, and SGEMM). The step is this folder's: a copy reports on itself. Each function gets the repository's
shared helpers first (shared: scripts/for_steps.py).
"""
import glob
import os

HERE = os.path.dirname(os.path.abspath(__file__))
STEP = os.path.basename(HERE).split("_")[0]
RECORDED = "nvidia-h200"  # the device the README discusses: its runs are recorded under this name
ACCURATE = ["step12", "step14", "step15", "step16", "step18", STEP]  # the FP32-accurate programs
PEERS = ["gemmul8_accurate8", "gemmul8_fast8", "gemmul8_fast7"]
PEER_NAMES = {"gemmul8_accurate8": "GEMMul8 accurate-8", "gemmul8_fast8": "GEMMul8 fast-8",
              "gemmul8_fast7": "GEMMul8 fast-7"}


def cross(shared, results, program, n, dist="uniform", column="speedup"):
    """cross(program, n, dist="uniform", column="speedup"): a row of the sweep crossover
    (results/<device>-crossover.csv); "speedup" is its speed over SGEMM's at the same n and family,
    two decimals, "status" its verdict."""
    row = results.find(f"{RECORDED}-crossover.csv", "the crossover sweep", program=program, n=n, dist=dist)
    if column == "speedup":
        sgemm = results.find(f"{RECORDED}-crossover.csv", "the crossover sweep", program="cublas", n=n, dist=dist)
        return round(float(row["gflops"]) / float(sgemm["gflops"]), 2)
    return row[column] if column == "status" else float(row[column])


def speedup(shared, results, program, n, dist="uniform"):
    """speedup(program, n, dist="uniform"): the program's speed over SGEMM's in the sweep crossover."""
    return cross(shared, results, program, n, dist)


def passes(shared, results, program, n, kernel, column="ms"):
    """passes(program, n, kernel, column="ms"): a kernel of one launch under ncu; column "bound_ms" is
    its bytes (DRAM read and written) at the copy ceiling measured on the same card beside them."""
    row = results.find(f"{RECORDED}-step19-passes.csv", "the passes under ncu", program=program, n=n, kernel=kernel)
    if column == "bound_ms":
        return (float(row["dram_read_gb"]) + float(row["dram_write_gb"])) / float(row["copy_gbs"]) * 1e3
    return float(row[column])


def crossover_files(shared, results_dir):
    """[(device slug, rows)]: each device's crossover sweep (<device>-crossover.csv), its rows with
    "speedup", the speed over SGEMM's at the same n and family (two decimals)."""
    found = []
    for path in sorted(glob.glob(os.path.join(results_dir, "*-crossover.csv"))):
        rows = shared.read_results(path)
        sgemm = {(r["n"], r["dist"]): float(r["gflops"]) for r in rows if r["program"] == "cublas"}
        found.append((os.path.basename(path)[:-len("-crossover.csv")], [
            dict(r, speedup=f"{float(r['gflops']) / sgemm[(r['n'], r['dist'])]:.2f}") for r in rows
            if r["program"] != "cublas" and (r["n"], r["dist"]) in sgemm]))
    return found


def fastest(rows_at):
    """The fastest row within the fp32 bound among rows_at, or None."""
    ok = [r for r in rows_at if r and r["status"] == "pass"]
    return max(ok, key=lambda r: float(r["speedup"])) if ok else None


def crossover_table(shared, results_dir):
    """Per device and input family: each FP32-accurate program (and GEMMul8 where it ran) as a
    multiple of SGEMM at each n; the fastest within the fp32 bound in bold; a FAIL marked."""
    parts = []
    for _, rows in crossover_files(shared, results_dir):
        progs = [p for p in ACCURATE + PEERS if any(r["program"] == p for r in rows)]
        body = []
        for dist, n, at in shared.sweep_cells(rows, progs, complete=False):
            best = fastest(at)
            cells = []
            for r in at:
                x = "" if not r else shared.f(r["speedup"], 2) + ("" if r["status"] == "pass" else " FAIL")
                cells.append(f"**{x}**" if r and r is best else x)
            body.append([dist, str(n)] + cells)
        if not body:
            continue
        dates = ", ".join(sorted({r["date"][:10] for r in rows}))
        reps = rows[0]["command"].split("--reps ")[1].split(")")[0].split()[0] if "--reps " in rows[0]["command"] else "10"
        parts.append(f"**{rows[0]['device']}** (measured {dates}, one run: the programs one after the other at each "
                     f"size; kernel time, median of {reps}; each program's speed over cuBLAS SGEMM's; bold: the "
                     "fastest within the fp32 bound; FAIL: past it)\n\n"
                     + shared.table(["inputs", "n"] + [PEER_NAMES.get(p, shared.label(p)) for p in progs],
                                    body))
    if not parts:
        return f"No run of the crossover sweep is recorded yet: `make sweep STEP={STEP[4:]}` on a GPU measures it."
    return "\n\n".join(parts)


STYLE = {"step12": ("#9ecae1", "v"), "step14": ("#238b45", "s"), "step15": ("#74c476", "D"),
         "step16": ("#fd8d3c", "^"), "step18": ("#e6550d", "o"), STEP: ("#08306b", "o"),
         "gemmul8_accurate8": ("#756bb1", "x"), "gemmul8_fast8": ("#9e9ac8", "+"), "gemmul8_fast7": ("#bcbddc", "1")}


def crossover_chart(shared, results_dir, out):
    """Each FP32-accurate program's speed over SGEMM's against n, uniform and wide inputs side by
    side; GEMMul8 dashed, its runs past the fp32 bound as hollow red rings. One chart per device:
    crossover_<device>.png."""
    for slug, rows in crossover_files(shared, results_dir):
        if not any(r["program"] == STEP for r in rows):
            continue
        dates = ", ".join(sorted({r["date"][:10] for r in rows}))
        shared.drawing.speed_against_n(
            out, "crossover_" + slug, rows, ACCURATE + PEERS, STYLE, lambda p: PEER_NAMES.get(p, shared.label(p)),
            dashed=PEERS, thick=[STEP], ceiling="cuBLAS SGEMM", bound="fp32", legend_panel=1,
            title=f"Where each FP32-accurate method wins, on {rows[0]['device']} (measured {dates}, one run)")


def epilogue(shared, results, n, dist="uniform", fused=0, column="speedup"):
    """epilogue(n, dist="uniform", fused=0, column="speedup"): a row of the sweep epilogue
    (results/<device>-epilogue.csv): the step as built (fused=0) or its variant with the remainder
    theorem in the products' epilogue (fused=1); "speedup" is its speed over SGEMM's there, two
    decimals; any other column as recorded (a number, or the verdict for "status")."""
    name = f"{RECORDED}-epilogue.csv"
    row = results.find(name, "the epilogue sweep", program=STEP, n=n, dist=dist, epilogue="1" if fused else "")
    if column == "speedup":
        sgemm = results.find(name, "the epilogue sweep", program="cublas", n=n, dist=dist)
        return round(float(row["gflops"]) / float(sgemm["gflops"]), 2)
    return row[column] if column == "status" else float(row[column])


def epilogue_table(shared, results_dir):
    """Per device: the step with its remainder-theorem pass and with the remainder theorem in the
    products' epilogue, each as a multiple of SGEMM at each n and family, and the variant's time
    over the step's."""
    parts = []
    for path in sorted(glob.glob(os.path.join(results_dir, "*-epilogue.csv"))):
        rows = shared.read_results(path)
        get = {(r["program"], r.get("epilogue", ""), r["n"], r["dist"]): r for r in rows}
        body = []
        for dist in ("uniform", "wide"):
            for n in sorted({int(r["n"]) for r in rows if r["dist"] == dist}):
                sg, own, fused = (get.get((p, v, str(n), dist)) for p, v in
                                  (("cublas", ""), (STEP, ""), (STEP, "1")))
                if not (sg and own and fused):
                    continue
                x = [float(r["gflops"]) / float(sg["gflops"]) for r in (own, fused)]
                body.append([dist, str(n), shared.f(float(sg["gflops"]) / 1e3, 1)]
                            + [shared.f(v, 2) + ("" if r["status"] == "pass" else " FAIL")
                               for v, r in zip(x, (own, fused))]
                            + [shared.f(float(fused["kernel_ms"]) / float(own["kernel_ms"]), 2)])
        if not body:
            continue
        dates = ", ".join(sorted({r["date"][:10] for r in rows}))
        parts.append(f"**{rows[0]['device']}** (measured {dates}, one run: the three programs one after the other "
                     "at each size; kernel time, median of 10; speeds over cuBLAS SGEMM's)\n\n"
                     + shared.table(["inputs", "n", "SGEMM, TFLOPS", "step 19 (its own pass)",
                                     "the remainder theorem in the epilogue", "time, epilogue / own pass"], body))
    if not parts:
        return f"No run of the epilogue sweep is recorded yet: `make sweep STEP={STEP[4:]} NAME=epilogue` on a GPU measures it."
    return "\n\n".join(parts)


# The passes of one launch, step 18's kernels beside the step's that replace them.
PASS_GROUPS = [("A: maxima, sums, residues", ["row_maxima", "residues_a"], ["a_pass<8>"]),
               ("B: maxima, sums", ["col_maxima"], ["col_maxima"]),
               ("span facts", ["span_check"], ["span_check"]),
               ("B: residues, transposed; the check's bytes", ["residues_bt", "check_bytes"], ["bt_pass<8>"]),
               ("remainder theorem", ["reconstruct"], ["reconstruct_fast"]),
               ("FP32 loop, NaN and Inf", ["refused_elements", "special_values"], ["refused_elements", "special_values"])]


def passes_table(shared, results_dir):
    """Per n: each pass around the products that moves bytes, step 18's time beside the step's, the
    bytes the step's kernel moved (DRAM, read and written), their time at the copy ceiling of the
    same card, and the measured time over it; their total; then the two INT8 products (the check's and
    the moduli's), bound by the tensor pipe, with how busy ncu found it."""
    f, table = shared.f, shared.table
    parts = []
    for path in sorted(glob.glob(os.path.join(results_dir, "*-step19-passes.csv"))):
        rows = shared.read_results(path)
        get = {(r["program"], int(r["n"]), r["kernel"]): r for r in rows}
        for n in sorted({int(r["n"]) for r in rows}):
            body, totals = [], [0.0, 0.0, 0.0]
            for name, old, new in PASS_GROUPS:
                before = sum(float(get[("step18", n, k)]["ms"]) for k in old)
                at = [get[(STEP, n, k)] for k in new]
                ms = sum(float(r["ms"]) for r in at)
                gb = sum(float(r["dram_read_gb"]) + float(r["dram_write_gb"]) for r in at)
                bound = gb / float(at[0]["copy_gbs"]) * 1e3
                totals = [totals[0] + before, totals[1] + ms, totals[2] + bound]
                body.append([name, f(before, 3), ", ".join(new).replace("<8>", ""), f(gb, 3), f(bound, 3), f(ms, 3),
                             f(ms / bound, 2) if bound > 0.001 else ""])
            body.append(["**the passes that move bytes**", f"**{f(totals[0], 3)}**", "", "", f(totals[2], 3),
                         f"**{f(totals[1], 3)}**", f(totals[1] / totals[2], 2)])
            # INT8 tensor work, not bytes: their bound is the tensor pipe's, which ncu reports busy
            for name, old, new in (("the check's product", "residue_products<1>", "check_products"),
                                   ("the moduli's products", "moduli_products", "moduli_products")):
                r = get[(STEP, n, new)]
                body.append([name, f(float(get[("step18", n, old)]["ms"]), 3),
                             f"{new}: tensor pipe {f(float(r['imma_active_pct']), 1)}% busy at {f(float(r['sm_ghz']), 2)} GHz",
                             "", "", f(float(r["ms"]), 3), ""])
            parts.append(f"**n = {n}**, {rows[0]['device']} ({rows[0]['date'][:10]}, one launch each under ncu at the "
                         f"card's own clock; copy ceiling {f(float(rows[0]['copy_gbs']), 0)} GB/s, measured on the same card beside them)\n\n"
                         + table(["pass", "step 18, ms", "step 19's kernel", "bytes, GB", "at the copy ceiling, ms",
                                  "step 19, ms", "step 19 / ceiling"], body, text_columns=3))
    if not parts:
        return "No ncu run of the passes is recorded yet."
    return "\n\n".join(parts)


def passes_total(shared, results, program, n, which="bytes", column="ms"):
    """passes_total(program, n, which="bytes", column="ms"): a sum over the kernels of one launch under
    ncu. which: "bytes", the passes that only move bytes (all but the two INT8 products); "passes",
    all but the moduli's products; "launch", every kernel. column "bound_ms": their bytes at the copy
    ceiling."""
    products = {"moduli_products"} | ({"residue_products<1>", "check_products"} if which == "bytes" else set())
    kernels = [r["kernel"] for r in results.csv(f"{RECORDED}-step19-passes.csv")
               if r["program"] == program and r["n"] == str(n) and (which == "launch" or r["kernel"] not in products)]
    return sum(passes(shared, results, program, n, k, column) for k in kernels)
