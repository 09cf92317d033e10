"""The tables every chapter shares, and the reading of results/ they start from: the ladder's
CSVs (one per device, and one per shared-memory cap) and the article's figures; the
formatting (Markdown tables, numbers); the ladder's table, each step's table, the development
versions' table, each program's configurations ("<program>-configs", from make config-sweep), and
each step's table under the caps of smaller GPUs ("<step>-caps", where it declares a sweep with
"caps"). A chapter's own tables are in scripts/tables_<chapter>.py, a step's in its folder
(experiments.json's "tables"); scripts/readme_tables.py gathers them all. Standard library only.
"""
import glob
import os
import re

import ladder

ARTICLE = "article_8800gt.csv"
# Which programs each table shows follows from what the programs say of themselves
# (results/programs.csv: scripts/ladder.py), by chapter and precision class.
ARTICLE_STEPS = [s for s in ladder.STEPS if ladder.chapter_of(s) == "article"]
REFERENCES = [p for p in ladder.PROGRAMS if ladder.chapter_of(p) == "reference"]
LADDER_SIZES = (1000, 4096, 8192)
FIRST = ladder.STEPS[0] if ladder.STEPS else None  # the step speedups are measured against


# The results files beside the ladder's (results/<device>.csv and its capped twins): the
# chapters' and the experiments' own (<device>-<name>.csv), those the steps' sweeps record
# (their experiments.json's "sweeps": <device>-<sweep>.csv), and a step's own experiment script's
# (<device>-stepNN-<experiment>.csv).
OTHER_RESULTS = ["cpu", "transpose", "multigpu", "multigpu-cublasmp", "multigpu-two-buffers", "multigpu-trace",
                 "multigpu-copy-engines", "multigpu-panels", "multigpu-blocks", "tile-sweep", "warptile-sweep", "config-sweep",
                 "versions", "reproduce", "cublas-unpitched", "gemmul8", "fp64-baselines"]
STEP_EXPERIMENT = r"-step\d\d-[a-z0-9-]+\.csv$"
TEST_TIMES = "test-times.csv"  # how long the test suite took (scripts/test_times.py): no device's ladder


def not_ladder():
    """The pattern of the results files that are not the ladder's."""
    names = OTHER_RESULTS + [name for _, sweeps in ladder.experiments("sweeps") for name, e in sweeps.items()
                             if e.get("results") != "ladder"]
    return r"-(" + "|".join(map(re.escape, names)) + r")\.csv$|" + STEP_EXPERIMENT


def ladder_files(results_dir):
    """The ladder CSVs in results/ (one per device, and one per shared-memory cap)."""
    other = not_ladder()
    return [p for p in sorted(glob.glob(os.path.join(results_dir, "*.csv")))
            if os.path.basename(p) not in (ARTICLE, os.path.basename(ladder.CATALOGUE), TEST_TIMES)
            and not re.search(other, os.path.basename(p))]


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


def sweep_cells(rows, programs, dists=ladder.DISTS, complete=True):
    """A sweep's rows (results/<device>-<sweep>.csv) as its tables read them: (dist, n, one row per
    program or None where it did not run) for each input family and size, in order; complete:
    only the sizes every program ran at."""
    get = {(r["program"], int(r["n"]), r["dist"]): r for r in rows}
    for dist in dists:
        for n in sorted({int(r["n"]) for r in rows if r["dist"] == dist}):
            at = [get.get((p, n, dist)) for p in programs]
            if all(at) or not complete:
                yield dist, n, at


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
    # A step that declares a sweep into the comparison's files at more sizes shows them too.
    extra = [n for e in dict(ladder.experiments("sweeps")).get(step, {}).values()
             if e.get("results") == "ladder" and not e.get("caps") for spec in e["runs"] for n in spec["sizes"]]
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


def versions_table(results_dir):
    """The development versions and the steps they became (scripts/experiment.py versions),
    per device: TFLOPS and mean relative error at each size measured, and the verdict of the
    version's precision class, a FAIL included."""
    parts = []
    for path in sorted(glob.glob(os.path.join(results_dir, "*-versions.csv"))):
        rows = ladder.read_results(path)
        sizes = sorted({int(r["n"]) for r in rows})
        get = {(r["program"], int(r["n"])): r for r in rows}
        body = []
        for prog, (_, change, may_fail) in ladder.versions().items():
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


def configured_programs(results_dir):
    """The programs make config-sweep measured (results/<device>-config-sweep.csv), in order."""
    return list(dict.fromkeys(r["program"] for path in sorted(glob.glob(os.path.join(results_dir, "*-config-sweep.csv")))
                              for r in ladder.read_results(path)))


def tables(results_dir):
    """{name: Markdown}: the ladder's table, each step's, the versions', each program's
    configurations ("<program>-configs"), and a step's under the caps ("<step>-caps": the sweep it
    declares with "caps", against the first program beside it)."""
    devices, art = device_results(results_dir), article(results_dir)
    out = {"ladder": ladder_table(devices, art, results_dir), "versions": versions_table(results_dir)}
    out.update({s: step_table(s, devices, art) for s in ladder.STEPS})
    out.update({f"{p}-caps": caps_table(results_dir, p, e["beside"][0]) for p, sweeps in ladder.experiments("sweeps")
                for e in sweeps.values() if e.get("caps")})
    out.update({f"{p}-configs": config_sweep_table(results_dir, p) for p in configured_programs(results_dir)})
    return out
