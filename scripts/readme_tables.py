#!/usr/bin/env python3
"""Rewrite the result tables in the READMEs from results/*.csv.

Tables sit between marker comments, e.g.
    <!-- BEGIN table:ladder -->  ...  <!-- END table:ladder -->
    <!-- BEGIN table:stepNN -->  ...  <!-- END table:stepNN -->
and are regenerated here, never typed. Standard library only; `make plots` runs it.
Usage: scripts/readme_tables.py [--check] [--file README.md ...]
  --check   change nothing; exit 1 if a README is stale or breaks a page check
            (scripts/prose.py: measured numbers, process words, word limit, glossary terms)
  --file F  only these READMEs (paths from the repository's root; repeatable)
"""
import glob
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ladder  # noqa: E402
import prose  # noqa: E402
import tf32_rounding  # noqa: E402
import versions  # noqa: E402

ARTICLE = "article_8800gt.csv"
# Which programs each table shows follows from what the programs say of themselves
# (results/programs.csv: scripts/ladder.py), by chapter and precision class.
ARTICLE_STEPS = [s for s in ladder.STEPS if ladder.chapter_of(s) == "article"]
REFERENCES = [p for p in ladder.PROGRAMS if ladder.chapter_of(p) == "reference"]
LADDER_SIZES = (1000, 4096, 8192)
FIRST = ladder.STEPS[0] if ladder.STEPS else None  # the step speedups are measured against


NOT_LADDER = r"-(cpu|transpose|multigpu|multigpu-cublasmp|tile-sweep|warptile-sweep|config-sweep|versions|moduli|reproduce|cublas-unpitched)\.csv$"
# A step's own experiment (step15_fused_split/time_split.py): <device>-stepNN-<experiment>.csv.
STEP_EXPERIMENT = r"-step\d\d-[a-z0-9-]+\.csv$"


def ladder_files(results_dir):
    """The ladder CSVs in results/ (one per device, and one per shared-memory cap)."""
    return [p for p in sorted(glob.glob(os.path.join(results_dir, "*.csv")))
            if os.path.basename(p) not in (ARTICLE, os.path.basename(ladder.CATALOGUE))
            and not re.search(NOT_LADDER, os.path.basename(p))
            and not re.search(STEP_EXPERIMENT, os.path.basename(p))]


def capped(device):
    return " capped to " in device


def device_results(results_dir, caps=False, dist="uniform"):
    """{device: {(program, n): row}} from the ladder CSVs: the devices as they are, or (caps)
    only the runs under a shared-memory cap; the runs on one input distribution (the
    article's uniform inputs unless dist says otherwise). Rows of programs the GPU could not
    run (status "skipped: why") are left out here; skipped_programs() tells why."""
    out = {}
    for path in ladder_files(results_dir):
        for row in ladder.read_results(path):
            if capped(row["device"]) == caps and not row["status"].startswith("skipped") and row["dist"] == dist:
                out.setdefault(row["device"], {})[(row["program"], int(row["n"]))] = row
    return out


def skipped_programs(results_dir):
    """{device: {program: why}}: what a GPU could not run (make compare records the reason)."""
    out = {}
    for path in ladder_files(results_dir):
        for row in ladder.read_results(path):
            if row["status"].startswith("skipped"):
                out.setdefault(row["device"], {})[row["program"]] = row["status"].split(":", 1)[-1].strip()
    return out


def fp32_peak_gflops(results_dir, device):
    """SMs x FP32 lanes x 2 FLOP x the SM clock, as gpu_info read them off the device
    (its CSV line is recorded in results/<device-slug>-device.txt); None if not recorded."""
    path = os.path.join(results_dir, ladder.slug(device) + "-device.txt")
    if not os.path.exists(path):
        return None
    for line in open(path):
        fields = dict(zip(ladder.GPU_INFO_FIELDS, line.strip().split(",")))
        if fields.get("name") == device and fields.get("sms", "").isdigit() and fields.get("clock_khz", "").isdigit():
            return ladder.fp32_peak_gflops(fields)
    return None


def article(results_dir):
    return {r["program"]: r for r in ladder.read_results(os.path.join(results_dir, ARTICLE))}


def f(x, digits=2):
    return "" if x in (None, "") else f"{float(x):.{digits}f}"


def e(x):
    return "" if x in (None, "") else f"{float(x):.2e}"


def table(header, rows, text_columns=2):
    """A Markdown table: the first text_columns left-aligned, numbers right-aligned."""
    lines = ["| " + " | ".join(header) + " |",
             "|" + "|".join("---" if i < text_columns else "---:" for i in range(len(header))) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def link(program):
    return f"[{program}]({ladder.LADDER[program][0]}/)"


def skipped_note(skipped, device):
    why = skipped.get(device, {})
    return "".join(f"\n\n{prog} did not run on this GPU: {reason}" for prog, reason in sorted(why.items()))


def ladder_table(devices, art, results_dir):
    parts = []
    skipped = skipped_programs(results_dir)
    for device, res in devices.items():
        peak = fp32_peak_gflops(results_dir, device)
        for n in LADDER_SIZES:
            if not all((s, n) in res for s in ARTICLE_STEPS):
                continue
            base = float(res[(FIRST, n)]["kernel_ms"])
            ceiling = float(res[("cublas", n)]["gflops"]) if ("cublas", n) in res else None
            rows = []
            for prog in ladder.LADDER:
                r = res.get((prog, n))
                if not r:
                    continue
                a = art.get(prog) if n == 1000 else None
                row = [link(prog), ladder.LADDER[prog][1], f(r["kernel_ms"], 3), f(r["gflops"], 0),
                       f(base / float(r["kernel_ms"])) + "x",
                       f(100 * float(r["gflops"]) / ceiling, 1) + "%" if ceiling else "",
                       f(100 * float(r["gflops"]) / peak, 1) + "%" if peak else "",
                       f(r["total_ms"], 2), f(r["e2e_gflops"], 0), e(r["max_rel_err"])]
                if n == 1000:
                    row += [f(a["total_ms"], 0), f(a["e2e_gflops"]), f(a["kernel_ms"], 0) or "n/a",
                            e(a["max_rel_err"])] if a else ["", "", "", ""]
                rows.append(row)
            header = ["program", "lesson", "kernel ms", "kernel GFLOPS", "speedup (kernel)", "% of cuBLAS",
                      "% of FP32 peak", "end-to-end ms", "end-to-end GFLOPS", "max rel. error"]
            if n == 1000:
                header += ["8800GT end-to-end ms", "8800GT end-to-end GFLOPS", "8800GT kernel ms",
                           "8800GT max rel. error"]
            # The dates of the rows shown (other CSVs of the device, such as the TF32 rounding
            # runs, hold programs that are not in the table).
            dates = sorted({res[(p, n)]["date"][:10] for p in ladder.LADDER if (p, n) in res})
            note = "; 8800GT columns: the article's own figures" if n == 1000 else ""
            parts.append(f"**{device}, n = {n}** (measured {', '.join(dates)}{note})\n\n" + table(header, rows)
                         + skipped_note(skipped, device))
    return "\n\n".join(parts)


def step_table(step, devices, art):
    # The step it builds on (its .builds_on, else the one before it), itself, and the ceilings
    # of its precision class: cuBLAS SGEMM always, cuBLAS TF32 beside it for a tf32-class step.
    try:
        prev = ladder.step_before(step)
    except ValueError:  # not a step folder here (a fixture): the one before it in the list
        i = ladder.STEPS.index(step)
        prev = ladder.STEPS[i - 1] if i > 0 else None
    # A step that declares more sizes (its experiments.json) shows them too.
    extra = dict(ladder.experiments("extra_sizes")).get(step, {}).get("sizes", [])
    sizes = sorted(set(LADDER_SIZES) | set(extra))
    ceilings = [] if step in ARTICLE_STEPS else ["cublas"] + (
        ["cublas_tf32"] if ladder.PROGRAMS.get(step, {}).get("precision") == "tf32" else [])
    programs = ([prev] if prev else []) + [step] + ceilings
    rows = []
    for device, res in devices.items():
        for n in sizes:
            for s in programs:
                r = res.get((s, n))
                if not r:
                    continue
                label = f"{s} (this step)" if s == step else "cublas (the ceiling)" if s == "cublas" else \
                    "cublas_tf32 (the TF32 ceiling)" if s == "cublas_tf32" else f"{s} (builds on)"
                blas = res.get(("cublas", n))
                rows.append([device, label, str(n), f(r["kernel_ms"], 3), f(r["gflops"], 0),
                             f(100 * float(r["gflops"]) / float(blas["gflops"]), 1) + "%" if blas else "",
                             f(r["total_ms"], 2), f(r["e2e_gflops"], 0), e(r["max_rel_err"]), e(r["avg_rel_err"])])
    for s in programs:
        a = art.get(s)
        if not a:
            continue
        label = f"{s} (this step)" if s == step else f"{s} (builds on)"
        rows.append(["8800GT, the article's figures", label, "1000", f(a["kernel_ms"], 0) or "n/a",
                     f(a["gflops"], 0) or "n/a", "", f(a["total_ms"], 0), f(a["e2e_gflops"]), e(a["max_rel_err"]),
                     e(a["avg_rel_err"])])
    return table(["device", "program", "n", "kernel ms", "kernel GFLOPS", "% of cuBLAS (same run)", "end-to-end ms",
                  "end-to-end GFLOPS", "max rel. error", "avg rel. error"], rows)


# The tensor-core chapter's steps beside every reference (cuBLAS FP32 and TF32, CUTLASS).
TENSOR_PROGRAMS = ladder.TENSOR_STEPS + REFERENCES


def tensor_table(results_dir):
    """The tensor-core chapter: per device, n and input distribution, each program's TFLOPS,
    its speed against cuBLAS SGEMM in the same run, its errors and its precision class."""
    rows = []
    for dist in ladder.DISTS:
        for device, res in device_results(results_dir, dist=dist).items():
            for n in LADDER_SIZES:
                blas = res.get(("cublas", n))
                for p in TENSOR_PROGRAMS:
                    r = res.get((p, n))
                    if not r or not r.get("max_comp_err"):
                        continue
                    rows.append([device, f"`{p}`", str(n), dist, f(float(r["gflops"]) / 1e3, 1),
                                 f(float(r["gflops"]) / float(blas["gflops"]), 2) + "x" if blas else "",
                                 e(r["max_rel_err"]), e(r["avg_rel_err"]), e(r["max_comp_err"]),
                                 f"{r['precision']}, {r['status']}"])
    if not rows:
        return ("No `make compare` rows of the tensor-core programs are recorded yet: `make reproduce "
                "ONLY=tensor` on a GPU measures them (the development runs are in "
                "[results/](../results/nvidia-h100-80gb-hbm3-tensor-dev-runs.txt)).")
    return table(["device", "program", "n", "inputs", "TFLOPS", "x cuBLAS SGEMM (same run)", "max rel. error",
                  "avg rel. error", "componentwise error", "class, verdict"], rows, text_columns=4)


# FP32's range: the tensor-core steps that claim FP32 accuracy, beside the FP32-class references.
RANGE_STEPS = [s for s in ladder.TENSOR_STEPS if ladder.PROGRAMS[s]["precision"] == "fp32"]
RANGE_PROGRAMS = RANGE_STEPS + [p for p in REFERENCES if ladder.PROGRAMS[p]["precision"] == "fp32"]


def range_table(results_dir):
    """FP32's whole range (make reproduce ONLY=range): per device, input family and n, the
    componentwise error of each FP32-class tensor-core step, cuBLAS SGEMM and CUTLASS's
    3xTF32, each with its verdict against the fp32 bound, and each step's error over SGEMM's."""
    rows = []
    for dist in ladder.RANGE_DISTS:
        for device, res in device_results(results_dir, dist=dist).items():
            for n in sorted({k[1] for k in res}):
                got = {p: res.get((p, n)) for p in RANGE_PROGRAMS}
                steps = [got[s] for s in RANGE_STEPS if got[s]]
                if not steps:
                    continue
                blas = got.get("cublas")
                ratios = [f(float(got[s]["max_comp_err"]) / float(blas["max_comp_err"]), 2)
                          if got[s] and blas and float(blas["max_comp_err"]) > 0 else "" for s in RANGE_STEPS]
                rows.append([device, dist, str(n)] + [f"{e(r['max_comp_err'])} {r['status']}" if r else "not run"
                                                      for r in got.values()] + ratios + [e(steps[0]["tolerance"])])
    if not rows:
        return "No rows on the ends of FP32's range are recorded yet: `make reproduce ONLY=range` on a GPU measures them."
    return table(["device", "inputs", "n"] + [ladder.label(p) for p in RANGE_PROGRAMS]
                 + [f"{ladder.label(s)} / SGEMM" for s in RANGE_STEPS] + ["fp32 bound"], rows, text_columns=3)


# The last CUDA-core step, then the tensor-core chapter and the references.
HEADLINE = [s for s in ladder.STEPS if ladder.chapter_of(s) == "cuda-cores"][-1:] + TENSOR_PROGRAMS


def tensor_headline(results_dir, n=4096):
    """The top README's opening of the tensor-core chapter: n = 4096, uniform inputs, TFLOPS,
    against cuBLAS SGEMM in the same run, and the mean relative error."""
    rows = []
    for device, res in device_results(results_dir).items():
        blas = res.get(("cublas", n))
        for p in HEADLINE:
            r = res.get((p, n))
            if r:
                rows.append([device, link(p), f(float(r["gflops"]) / 1e3, 1),
                             f(float(r["gflops"]) / float(blas["gflops"]), 2) + "x" if blas else "",
                             e(r["avg_rel_err"]), r.get("precision") or "fp32"])
    if not rows:
        return "No rows recorded yet: `make reproduce ONLY=tensor` on a GPU measures them."
    return table(["device", f"program (n = {n})", "TFLOPS", "x cuBLAS SGEMM", "avg rel. error", "class"], rows,
                 text_columns=2)


def versions_table(results_dir):
    """The tensor chapter's development versions and the steps they became (scripts/versions.py),
    per device: TFLOPS and mean relative error at each size measured, and the verdict of the
    version's precision class, a FAIL included."""
    parts = []
    for path in sorted(glob.glob(os.path.join(results_dir, "*-versions.csv"))):
        rows = ladder.read_results(path)
        sizes = sorted({int(r["n"]) for r in rows})
        get = {(r["program"], int(r["n"])): r for r in rows}
        body = []
        for prog, (_, change, may_fail) in versions.versions().items():
            at = [get.get((prog, n)) for n in sizes]
            if not any(at):
                continue
            verdicts = [r["status"] if r else "-" for r in at]
            verdict = f"{next(r for r in at if r)['precision']}: {', '.join(verdicts)}"
            body.append([f"`{prog}`", change] + [f(float(r["gflops"]) / 1e3, 1) if r else "" for r in at]
                        + [e(r["avg_rel_err"]) if r else "" for r in at]
                        + [verdict + (" (as expected)" if may_fail and "FAIL" in verdicts else "")])
        if not body:
            continue
        dates = ", ".join(sorted({r["date"][:10] for r in rows}))
        parts.append(f"**{rows[0]['device']}** (measured {dates}; kernel TFLOPS, median of "
                     f"{rows[0]['command'].split('--reps ')[1].split()[0]}; each program in its default configuration; "
                     "each row one change from the row before)\n\n"
                     + table(["version", "what changed"] + [f"TFLOPS n = {n}" for n in sizes]
                             + [f"mean rel. error n = {n}" for n in sizes] + ["class: verdict" + (
                                 f" (n = {', '.join(map(str, sizes))})" if len(sizes) > 1 else "")], body))
    if not parts:
        return ("No run of the development versions is recorded yet: `make reproduce ONLY=versions` on a GPU "
                "measures them (the development runs are in "
                "[results/](../results/nvidia-h100-80gb-hbm3-tensor-dev-runs.txt)).")
    return "\n\n".join(parts)


def rounding_table(results_dir):
    """TF32 truncated beside TF32 rounded to nearest (scripts/tf32_rounding.py): per device, input
    family and n, the truncating version, the step and cuBLAS TF32 in one run: TFLOPS, the
    componentwise error's maximum and mean, the verdicts of the tf32 class."""
    parts, progs = [], tf32_rounding.programs()
    for path in sorted(glob.glob(os.path.join(results_dir, "*-tf32-rounding.csv"))):
        rows = ladder.read_results(path)
        get = {(r["program"], int(r["n"]), r["dist"]): r for r in rows}
        body = []
        for dist in list(ladder.DISTS) + list(ladder.RANGE_DISTS):
            for n in sorted({int(r["n"]) for r in rows if r["dist"] == dist}):
                at = [get.get((p, n, dist)) for p in progs]
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


def tile_sweep_table(results_dir):
    """The lab's layout: n, tile, naive and tiled kernel ms, per device."""
    parts = []
    for path in sorted(glob.glob(os.path.join(results_dir, "*-tile-sweep.csv"))):
        if path.endswith("-warptile-sweep.csv"):
            continue
        rows = ladder.read_results(path)
        if not rows:
            continue
        get = {(r["kernel"], int(r["tile"]), int(r["n"])): r for r in rows}
        sizes = sorted({int(r["n"]) for r in rows})
        tiles = sorted({int(r["tile"]) for r in rows})
        body = []
        for n in sizes:
            for t in tiles:
                nv, tv = get.get(("naive", t, n)), get.get(("tiled", t, n))
                body.append([str(n), f"{t} x {t}", f(nv["kernel_ms"], 3) if nv else "", f(nv["gflops"], 0) if nv else "",
                             f(tv["kernel_ms"], 3) if tv else "", f(tv["gflops"], 0) if tv else ""])
        dates = sorted({r["date"][:10] for r in rows})
        parts.append(f"**{rows[0]['device']}** (measured {', '.join(dates)}; kernel time, median of "
                     f"{rows[0]['command'].split('--reps ')[1].split()[0]})\n\n"
                     + table(["n", "tile (threads per block)", "naive kernel ms", "naive GFLOPS", "tiled kernel ms",
                              "tiled GFLOPS"], body))
    return "\n\n".join(parts)


def cpu_tables(results_dir):
    """The CPU chapter: every variant at n = 1000 and 2048 per host, % of OpenBLAS on as
    many threads; and the lab's block-size sweep."""
    compare, sweep = [], []
    for path in sorted(glob.glob(os.path.join(results_dir, "*-cpu.csv"))):
        rows = ladder.read_results(path)
        if not rows:
            continue
        host = f"{rows[0]['host']}, {rows[0]['cpus']} CPUs"
        dates = ", ".join(sorted({r["date"][:10] for r in rows}))
        for n in (1000, 2048):
            at = [r for r in rows if int(r["n"]) == n and not (r["program"] == "avx_blocked" and r["block"] != "64")]
            if not at:
                continue
            ceiling = {r["threads"]: float(r["gflops"]) for r in at if r["program"] == "openblas"}
            order = ["baseline", "avx", "avx_blocked", "avx_blocked_bt", "packed", "packed_omp", "openblas"]
            at.sort(key=lambda r: (int(r["threads"]) > 1, order.index(r["program"]), r["isa"]))
            body = [[r["program"], r["threads"], r["isa"], f(r["ms"], 1), f(r["gflops"], 1),
                     f(100 * float(r["gflops"]) / ceiling[r["threads"]], 1) + "%" if r["threads"] in ceiling else "",
                     e(r["max_rel_err"])] for r in at]
            compare.append(f"**{host}, n = {n}** (measured {dates}; {rows[0]['compiler']}; "
                           f"{rows[0]['openblas'] or 'no OpenBLAS'})\n\n"
                           + table(["variant", "threads", "instructions", "ms", "GFLOPS", "% of OpenBLAS (same threads)",
                                    "max rel. error"], [b for b in body], 3))
        blocked = [r for r in rows if r["program"] == "avx_blocked"]
        sizes = sorted({int(r["n"]) for r in blocked if int(r["n"]) in (1024, 2048)})
        blocks = sorted({int(r["block"]) for r in blocked})
        if len(blocks) > 1 and sizes:
            get = {(int(r["n"]), int(r["block"])): r for r in blocked}
            body = [[str(b)] + [f(get[(n, b)]["ms"], 1) if (n, b) in get else "" for n in sizes] for b in blocks]
            sweep.append(f"**{host}** (avx_blocked, ms, measured {dates})\n\n"
                         + table(["block"] + [f"n = {n}" for n in sizes], body, 1))
    return "\n\n".join(compare), "\n\n".join(sweep)


def gpu_iters(rows):
    """The timed launches of the GPU variants (the CPU ones stop early on a time budget)."""
    return ", ".join(sorted({r["iters"] for r in rows if not r["program"].startswith("cpu")})) or "?"


def multigpu_table(results_dir):
    """The multi-GPU chapter: each algorithm per size and GPU count at the default panel width,
    with its communication and its local products timed alone and its parallel efficiency
    against one GPU's SGEMM of the same run (scripts/multigpu_sweep.py's); then the one-GPU run
    beside cuBLASMp."""
    import multigpu_sweep
    parts = []
    what = {"multigpu": "one host, 1 and 2 GPUs", "multigpu-cublasmp": "one GPU (a 1 x 1 grid), beside cuBLASMp"}
    for path in sorted(glob.glob(os.path.join(results_dir, "*-multigpu*.csv")), key=len):
        rows = [r for r in ladder.read_results(path) if r["dist"] == "uniform" and r["local"] == "sgemm"]
        run = re.search(r"-(multigpu[a-z-]*)\.csv$", path).group(1)
        if not rows:
            continue
        panel = max(int(r["panel"]) for r in rows)
        rows = sorted([r for r in rows if int(r["panel"]) == panel],
                      key=lambda r: (int(r["n"]) if r["gpus"] == "1" or any(
                          o["gpus"] == "1" and o["n"] == r["n"] for o in rows) else 10 ** 9 + int(r["n"]),
                          int(r["gpus"]), ["rows", "summa", "cublasmp"].index(r["algo"])))
        body = []
        for r in rows:
            eff = multigpu_sweep.efficiency(r, rows)
            ms = lambda c: "" if r[c] in ("nan", "") else f(r[c], 1)  # noqa: E731
            body.append([r["algo"], r["n"], r["gpus"], r["grid"], f(r["ms"], 1), f(r["tflops"], 1), ms("comm_ms"),
                         ms("gemm_ms"), "" if eff is None else f(100 * eff, 1) + "%", f"{float(r['max_comp_err']):.2e}",
                         r["status"]])
        dates = ", ".join(sorted({r["date"][:10] for r in rows}))
        parts.append(f"**{rows[0]['device']}, {what.get(run, run)}** (`results/{os.path.basename(path)}`, measured {dates}; median of "
                     f"{rows[0]['reps']}; panel {panel}; uniform inputs)\n\n"
                     + table(["algorithm", "n", "GPUs", "grid", "ms", "TFLOPS", "communication alone, ms",
                              "local products alone, ms", "efficiency", "componentwise error", "result"], body, 1))
    return "\n\n".join(parts)


def transpose_table(results_dir):
    """Every transpose variant per shape: ms, GB/s, % of the device-to-device copy,
    speedup over the naive kernel and over the CPU loop."""
    parts = []
    for path in sorted(glob.glob(os.path.join(results_dir, "*-transpose.csv"))):
        rows = ladder.read_results(path)
        order = ["cpu", "cpu_blocked", "naive", "shared", "shared_padded", "tiled32x8", "copy", "copy_kernel"]
        for shape in sorted({(int(r["rows"]), int(r["cols"])) for r in rows}):
            at = sorted([r for r in rows if (int(r["rows"]), int(r["cols"])) == shape],
                        key=lambda r: order.index(r["program"]))
            by = {r["program"]: r for r in at}
            copy = float(by["copy"]["gbps"]) if "copy" in by else None
            naive = float(by["naive"]["kernel_ms"]) if "naive" in by else None
            cpu = float(by["cpu"]["kernel_ms"]) if "cpu" in by else None
            body = [[r["program"], f(r["kernel_ms"], 4), f(r["gbps"], 1),
                     f(100 * float(r["gbps"]) / copy, 1) + "%" if copy else "",
                     f(naive / float(r["kernel_ms"])) + "x" if naive else "",
                     f(cpu / float(r["kernel_ms"]), 1) + "x" if cpu else "", r["status"]] for r in at]
            dates = ", ".join(sorted({r["date"][:10] for r in at}))
            parts.append(f"**{at[0]['device']}, {shape[0]} x {shape[1]} floats (rows x cols)** (measured {dates}; "
                         f"GPU rows the median of {gpu_iters(at)}; CPU rows on the same machine's CPU, as many runs "
                         "as fit in their time budget)\n\n"
                         + table(["variant", "ms per transpose", "GB/s (read + write)", "% of copy", "x naive",
                                  "x CPU", "result"], body, 1))
    return "\n\n".join(parts)


def warptile_sweep_table(results_dir):
    """Every tile shape tried for steps 09 and 10: GFLOPS at n = 1000 and 4096, best first."""
    parts = []
    for path in sorted(glob.glob(os.path.join(results_dir, "*-warptile-sweep.csv"))):
        rows = ladder.read_results(path)
        keys = sorted({(r["program"], r["config"], r["threads"], r["registers"]) for r in rows})
        get = {(r["program"], r["config"], int(r["n"])): r for r in rows}
        body = []
        for prog, cfg, threads, regs in keys:
            g = {n: get.get((prog, cfg, n)) for n in (1000, 4096)}
            body.append((float(g[4096]["gflops"]) if g[4096] else 0.0,
                         [prog, cfg.replace("_", " "), threads, regs,
                          f(g[1000]["gflops"], 0) if g[1000] else "", f(g[4096]["gflops"], 0) if g[4096] else ""]))
        body.sort(key=lambda x: -x[0])
        dates = ", ".join(sorted({r["date"][:10] for r in rows}))
        parts.append(f"**{rows[0]['device']}** (measured {dates}; kernel GFLOPS, median of 10; shape = "
                     "BM x BN x BK, warp tile WM x WN, blocks per SM asked of the compiler, pipeline stages; "
                     "+swizzle: after the swizzle of A's tile)\n\n"
                     + table(["step", "shape", "threads", "registers", "GFLOPS n = 1000", "GFLOPS n = 4096"],
                             [b for _, b in body], 2))
    return "\n\n".join(parts)


# The GPUs a limit of shared memory per block stands for (bytes): the caps of smaller GPUs
# (scripts/ladder.py), and the Hopper GPUs' own limit.
CAP_GPUS = {**{limit: ", ".join(gpus) for limit, gpus in ladder.SMEM_CAPS.items()}, 232448: "H100, H200, B200"}


def caps_table(results_dir, program, beside):
    """A step under each shared-memory cap beside the same GPU uncapped: the configuration
    the harness chose, its speed, and cuBLAS and the step beside it (its experiments.json's
    caps) measured in the same run."""
    plain, caps = device_results(results_dir), device_results(results_dir, caps=True)
    parts = []
    for base, res in plain.items():
        mine = sorted(((d, r) for d, r in caps.items() if d.startswith(base + " capped to ")),
                      key=lambda dr: -float(dr[0].rsplit(" ", 2)[1]))
        if not mine:
            continue
        body = []
        for n in (1000, 4096, 8192):
            for device, runs in [(base, res)] + mine:
                this, blas, other = runs.get((program, n)), runs.get(("cublas", n)), runs.get((beside, n))
                if not this:
                    continue
                limit = int(this["smem_limit"]) if this.get("smem_limit") else None
                label = device if capped(device) else f"{device} (uncapped)"
                body.append([label, CAP_GPUS.get(limit, ""), str(n), this.get("config", ""),
                             f(int(this["smem_bytes"]) / 1024, 0) if this.get("smem_bytes") else "",
                             f(this["kernel_ms"], 3), f(this["gflops"], 0), f(blas["gflops"], 0) if blas else "",
                             f(100 * float(this["gflops"]) / float(blas["gflops"]), 1) + "%" if blas else "",
                             f(float(this["gflops"]) / float(other["gflops"])) + "x" if other else ""])
        dates = sorted({r["date"][:10] for _, runs in mine for r in runs.values()})
        parts.append(f"**{base}, its shared memory per block capped (MATMUL_SMEM_LIMIT) to what smaller GPUs allow** "
                     f"(measured {', '.join(dates)}; cuBLAS and {ladder.label(beside)} in the same run; the cap limits a block's "
                     "shared memory only, not the SM's, its clocks or its bandwidth: these are the H100's figures with "
                     "less shared memory, not another GPU's)\n\n"
                     + table(["device", "a GPU with this limit", "n", f"{ladder.label(program)} ran", "KB per block",
                              "kernel ms", "GFLOPS", "cuBLAS GFLOPS", "% of cuBLAS", f"x {ladder.label(beside)}"],
                             body, 4))
    return "\n\n".join(parts)


def config_sweep_table(results_dir, program):
    """Every configuration of one program, forced with --config: shared memory and GFLOPS."""
    parts = []
    for path in sorted(glob.glob(os.path.join(results_dir, "*-config-sweep.csv"))):
        rows = [r for r in ladder.read_results(path) if r["program"] == program]
        if not rows:
            continue
        sizes = sorted({int(r["n"]) for r in rows})
        get = {(r["config"], int(r["n"])): r for r in rows}
        configs = list(dict.fromkeys(r["config"] for r in sorted(rows, key=lambda r: -int(r["smem_bytes"]))))
        body = []
        for c in configs:
            smem = int(next(r["smem_bytes"] for r in rows if r["config"] == c))
            fits = [limit for limit in sorted(CAP_GPUS) if smem <= limit]
            body.append([c, f(smem / 1024, 0), f"{fits[0] // 1024} KB and up" if fits else "none"]
                        + [f(get[(c, n)]["gflops"], 0) if (c, n) in get else "" for n in sizes])
        dates = ", ".join(sorted({r["date"][:10] for r in rows}))
        parts.append(f"**{rows[0]['device']}** (measured {dates}; kernel GFLOPS, median of "
                     f"{rows[0]['command'].split('--reps ')[1].split()[0]}; every configuration forced with --config)\n\n"
                     + table(["configuration (tile / stages)", "KB per block", "fits a limit of"]
                             + [f"GFLOPS n = {n}" for n in sizes], body, 3))
    return "\n\n".join(parts)


def cublas_table(results_dir):
    """cuBLAS per n: time, GFLOPS, % of the FP32 peak, end-to-end, error; and beside it the
    figures recorded before cuBLAS moved onto the steps' shared host function (unpitched
    rows), where results/<device>-cublas-unpitched.csv keeps them."""
    parts = []
    for device, res in device_results(results_dir).items():
        peak = fp32_peak_gflops(results_dir, device)
        before_path = os.path.join(results_dir, ladder.slug(device) + "-cublas-unpitched.csv")
        before = {int(r["n"]): r for r in ladder.read_results(before_path) if r["program"] == "cublas"}
        body = []
        for n in sorted(m for (p, m) in res if p == "cublas"):
            r, b = res[("cublas", n)], before.get(n)
            body.append([str(n), f(r["kernel_ms"], 3), f(r["gflops"], 0),
                         f(100 * float(r["gflops"]) / peak, 0) + "%" if peak else "", f(r["total_ms"], 2),
                         e(r["max_rel_err"]), f(b["kernel_ms"], 3) if b else "", f(b["gflops"], 0) if b else "",
                         f(100 * (float(r["kernel_ms"]) / float(b["kernel_ms"]) - 1), 1) + "%" if b else ""])
        if not body:
            continue
        dates = sorted({res[("cublas", n)]["date"][:10] for (p, n) in res if p == "cublas"})
        bdates = sorted({r["date"][:10] for r in before.values()})
        parts.append(f"**{device}** (measured {', '.join(dates)}"
                     + (f"; before: the unpitched host function, measured {', '.join(bdates)}" if before else "") + ")\n\n"
                     + table(["n", "kernel ms", "GFLOPS", "% of FP32 peak", "end-to-end ms", "max rel. error",
                              "before: kernel ms", "before: GFLOPS", "kernel time moved"], body, 1))
    return "\n\n".join(parts)


def rewrite(path, tables, check, results, exempt, anchors=frozenset(), terms=()):
    """Rewrite one README's tables and prose values; the problems found (stale text in
    --check mode, values that cannot be computed, false assertions, unmarked numbers)."""
    with open(path) as fh:
        text = fh.read()
    new = text
    # The tables' links are written from the repository's root: from a page in a folder, one up.
    depth = os.path.relpath(os.path.dirname(os.path.abspath(path)), ladder.ROOT).count(os.sep) + 1 \
        if os.path.dirname(os.path.abspath(path)) != ladder.ROOT else 0
    up = lambda body: re.sub(r"\]\((?!https?:|#|\.\./|/)", "](" + "../" * depth, body) if depth else body  # noqa: E731
    for name, body in tables.items():
        pat = re.compile(r"(<!-- BEGIN table:%s -->\n).*?(<!-- END table:%s -->)" % (name, name), re.S)
        new = pat.sub(lambda m: m.group(1) + up(body) + "\n" + m.group(2), new)
    where = os.path.relpath(path, ladder.ROOT)
    tables_stale = new != text
    new, problems = prose.render(new, results, where)
    if not check:  # stale prose values are rewritten, not reported
        problems = [p for p in problems if ": '" not in p or " is stale: " not in p]
    problems += prose.lint(new, where, exempt)
    problems += prose.page_problems(new, path, ladder.ROOT, anchors, terms)
    if new != text:
        if check:
            if tables_stale:
                problems.append(f"{where}: tables are stale (run scripts/readme_tables.py)")
        else:
            with open(path, "w") as fh:
                fh.write(new)
            print(f"rewrote the tables and values of {where}")
    return problems


def main(args):
    if "--help" in args or "-h" in args:
        print(__doc__.strip())
        return 0
    only, rest = [], list(args)
    while "--file" in rest:
        i = rest.index("--file")
        if i + 1 >= len(rest):
            print("readme_tables.py: --file needs a README's path (try --help)", file=sys.stderr)
            return 2
        only.append(os.path.normpath(os.path.join(ladder.ROOT, rest[i + 1])))
        del rest[i:i + 2]
    unknown = [a for a in rest if a != "--check"]
    if unknown:
        print(f"readme_tables.py: unknown argument '{unknown[0]}' (try --help)", file=sys.stderr)
        return 2
    pages = prose.readmes(ladder.ROOT)
    missing = [p for p in only if p not in pages]
    if missing:
        print(f"readme_tables.py: {os.path.relpath(missing[0], ladder.ROOT)} is none of the READMEs it checks",
              file=sys.stderr)
        return 2
    results = os.path.join(ladder.ROOT, "results")
    devices, art = device_results(results), article(results)
    tables = {"ladder": ladder_table(devices, art, results)}
    tables.update({s: step_table(s, devices, art) for s in ladder.STEPS})
    tables["tile-sweep"] = tile_sweep_table(results)
    tables["cpu"], tables["cpu-sweep"] = cpu_tables(results)
    tables["transpose"] = transpose_table(results)
    tables["multigpu"] = multigpu_table(results)
    tables["warptile-sweep"] = warptile_sweep_table(results)
    # The tables a step's own experiments give (its experiments.json): "<program>-caps", ...
    tables.update({f"{p}-caps": caps_table(results, p, e["beside"]) for p, e in ladder.experiments("caps")})
    tables.update({f"{p}-configs": config_sweep_table(results, p) for p, _ in ladder.experiments("configs_table")})
    tables["cublas"] = cublas_table(results)
    tables["tensor"] = tensor_table(results)
    tables["range"] = range_table(results)
    tables["tensor-headline"] = tensor_headline(results)
    tables["versions"] = versions_table(results)
    tables["tf32-rounding"] = rounding_table(results)
    results_ = prose.Results(results)
    exempt = prose.read_exempt(os.path.join(ladder.ROOT, "tests", "prose_exempt"))
    anchors = prose.glossary_anchors(ladder.ROOT)
    terms = prose.read_terms(os.path.join(ladder.ROOT, "tests", "glossary_terms.txt"))
    problems = []
    for path in only or pages:
        problems += rewrite(path, tables, "--check" in rest, results_, exempt, anchors, terms)
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} problems in the READMEs")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
