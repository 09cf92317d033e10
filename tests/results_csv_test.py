"""The results CSV: schema, replace-by-key rule (a build variant's column in the key), and make
compare and a step's sweep without a GPU. No GPU needed. TAP output (tests/05-results-csv.t)."""
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "scripts"))
import experiment
import ladder
from tap import done, ok, skip


def row(program, n, device, kernel_ms, date="2026-01-01T00:00Z"):
    r = {c: "0" for c in ladder.PROGRAM_COLUMNS}
    r.update(program=program, n=str(n), device=device, kernel_ms=str(kernel_ms), gflops=str(2 * n ** 3 / kernel_ms / 1e6),
             status="pass", check="full", date=date, command=f"{program} -n {n} --csv", dist="uniform",
             precision="fp32")
    return r


def csv_header(source):
    """A program's CSV header as its source defines it (#define CSV_HEADER, its string literals and
    the conditions' columns it names: common/conditions.h's CONDITIONS_CSV_HEADER)."""
    with open(os.path.join(ladder.ROOT, source)) as f:
        text = re.search(r"#define CSV_HEADER((?:[^\n]*\\\n)*[^\n]*)", f.read()).group(1)  # with its continued lines
    with open(os.path.join(ladder.ROOT, "common", "conditions.h")) as f:
        conditions = re.search(r'#define CONDITIONS_CSV_HEADER "([^"]*)"', f.read()).group(1)
    return "".join(m.group(1) if m.group(1) is not None else conditions
                   for m in re.finditer(r'"([^"]*)"|\bCONDITIONS_CSV_HEADER\b', text)).split(",")


header = csv_header(os.path.join("common", "step_main.c"))
ok(header == ladder.PROGRAM_COLUMNS, "scripts/ladder.py knows the programs' CSV columns", header)
ok(ladder.RESULT_COLUMNS[:2] == ["date", "command"] and ladder.RESULT_COLUMNS[2:] == ladder.PROGRAM_COLUMNS,
   "results rows are the programs' columns plus date and command")
# Every row of a GPU carries the conditions it was measured under, last, so that a reader of the
# older columns finds them where they were: the device's UUID (the multi-GPU chapter's rows: uuids),
# the SM clock over the timed launches, the power limit, the driver, the CUDA runtime and cuBLAS.
conditions = ["sm_clock_mhz", "power_limit_w", "driver_version", "cuda_runtime_version", "cublas_version"]
ok(ladder.CONDITION_COLUMNS == ["device_uuid"] + conditions and header[-6:] == ladder.CONDITION_COLUMNS,
   "the programs' rows end with the device's UUID and the conditions", header[-6:])
transpose_header = csv_header(os.path.join("transpose", "transpose.c"))
multigpu_header = csv_header(os.path.join("multigpu", "multigpu.c"))
ok(transpose_header[-6:] == ["device_uuid"] + conditions and multigpu_header[-6:] == ["uuids"] + conditions,
   "... the transpose's and the multi-GPU chapter's rows too", (transpose_header, multigpu_header))

with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "dev.csv")
    ladder.merge_results(path, [row("step01", 1000, "GPU A", 1.0), row("step01", 4096, "GPU A", 50.0),
                                row("step02", 1000, "GPU A", 2.0)])
    rows = ladder.read_results(path)
    with open(path) as f:
        first = f.readline().strip()
    ok(first == ",".join(ladder.RESULT_COLUMNS), "merge writes the header", first)
    ok(len(rows) == 3, "three rows written")
    ladder.merge_results(path, [row("step01", 1000, "GPU A", 0.5, date="2026-02-02T00:00Z"),
                                row("step01", 1000, "GPU B", 0.7)])
    rows = ladder.read_results(path)
    a1000 = [r for r in rows if r["program"] == "step01" and r["n"] == "1000" and r["device"] == "GPU A"]
    ok(len(rows) == 4, "same program, n and device replaced; a new device added", rows)
    ok(len(a1000) == 1 and a1000[0]["kernel_ms"] == "0.5" and a1000[0]["date"].startswith("2026-02-02"),
       "the newer row wins")
    ok([(r["program"], r["n"]) for r in rows][:3] == [("step01", "1000"), ("step01", "1000"), ("step01", "4096")],
       "rows sorted by program, then n (numerically)")
    ok(any(r["program"] == "step02" for r in rows), "rows of other keys are kept")

    table = experiment.compare_table([row(p, 1000, "GPU A", t) for p, t in (("step01", 4.0), ("step05", 2.0), ("cublas", 0.5))],
                              1000, "uniform")
    ok("% cuBLAS" in table and "x step01" in table, "the comparison table has speedup and % of cuBLAS", table)
    line5 = [l for l in table.splitlines() if l.startswith("step05")][0]
    ok(" 2.00 " in line5 and " 25.0 " in line5, "step05: 2x step01, 25% of cuBLAS", line5)

    # A build variant's parameter is a column of its rows and part of their key: the step as
    # built (the column empty) and each variant keep rows of their own at one n, in one file.
    columns, key = ladder.RESULT_COLUMNS + ["width"], ladder.KEY + ("width",)
    path = os.path.join(tmp, "sweep.csv")
    ladder.merge_results(path, [dict(row("step99", 8, "GPU A", 1.0), width=""), dict(row("step99", 8, "GPU A", 2.0),
                                width="5"), dict(row("step99", 8, "GPU A", 3.0), width="12")], columns, key)
    ladder.merge_results(path, [dict(row("step99", 8, "GPU A", 4.0), width="5")], columns, key)
    rows = ladder.read_results(path)
    with open(path) as f:
        first = f.readline().strip()
    ok(first == ",".join(columns), "a variant's column comes after the programs' columns", first)
    ok([(r["width"], r["kernel_ms"]) for r in rows] == [("5", "4.0"), ("12", "3.0"), ("", "1.0")],
       "each variant keeps its row, the newer replacing the older; sorted by count (numbers before words), the "
       "step as built last", rows)

# A step's sweep (the runner's kind "sweep"), the GPU and the programs stood in for: every sweep
# the step declares, each variant's rows carrying its value in the variant's column, the step as
# built and the programs beside it with the column empty; a program printing its own table
# recorded as it prints it; each sweep's log headed with the device and the command; a program
# that exits 4 skipped, saying why, and one that calls itself by another name not recorded.
import contextlib
import io

ladder.discover(built_only=True)
declared = [(p, e) for p, e in ladder.experiments().items() if e.get("variants") and e.get("sweeps")]
if declared:
    step, entry = declared[0]
    column, value = entry["variants"]["column"], str(entry["variants"]["values"][0])
    name = next(n for n, e in entry["sweeps"].items() if e.get("variants"))
    beside = entry["sweeps"][name].get("beside", [])

    def fake_run(cmd):
        known = sorted((p for p in beside if p in ladder.PROGRAMS), key=lambda p: -len(ladder.program_command(p)))
        prog = next((p for p in known if ladder.program_command(p) == cmd[:len(ladder.program_command(p))]), step)
        if beside and prog == beside[-1]:
            return None, 4, f"{prog} needs what this GPU lacks"
        r = {c: "1" for c in ladder.PROGRAM_COLUMNS}  # a whole number: valid in every number column
        r.update(program="someone_else" if beside and prog == beside[0] else prog, n=cmd[cmd.index("-n") + 1],
                 device="GPU F", dist=cmd[cmd.index("--dist") + 1], status="pass", precision="fp32", config="")
        return r, 0, ""
    saved = ladder.gpu_info, ladder.run_csv, experiment.build, experiment.run_table
    ladder.gpu_info, ladder.run_csv = (lambda: ("GPU F", {})), fake_run
    experiment.build = lambda targets: (0, "")
    experiment.run_table = lambda cmd: ([{"date": "2026-01-01T00:00Z", "command": " ".join(cmd), "program": "table_row",
                                          "n": "8", "device": "GPU F", "kernel_ms": "1.0"}], 0, "")
    try:
        with tempfile.TemporaryDirectory() as tmp, contextlib.redirect_stdout(io.StringIO()), \
                contextlib.redirect_stderr(io.StringIO()):
            code = experiment.sweep(["--step", step, "--sizes", "8", "--variants", value, "--results", tmp])
            rows = ladder.read_results(os.path.join(tmp, f"gpu-f-{name}.csv"))
            log = open(os.path.join(tmp, f"gpu-f-{name}.txt")).read()
            files = sorted(os.listdir(tmp))
    finally:
        ladder.gpu_info, ladder.run_csv, experiment.build, experiment.run_table = saved
    got = {(r["program"], r[column]) for r in rows}
    ok(code == 1 and (step, value) in got and (step, "") in got and all(r["date"] and r["command"] for r in rows)
       and any(r["command"].startswith(f"obj/variants/") and r[column] == value for r in rows),
       f"{step}'s sweep {name}: the variant's rows carry {column}={value}, the step as built's none; each with its "
       "date and command", rows)
    ok(not any(r["program"] == "someone_else" for r in rows) and (not beside or "needs what this GPU lacks" in log),
       "a program calling itself by another name is not recorded (the sweep exits 1); one that exits 4 is skipped, "
       "saying why", log)
    ok(log.startswith("# scripts/experiment.py sweep on GPU F, ") and f"# {step}'s {name}: " in log,
       "the sweep's log names the runner, the device, the moment and the sweep", log[:300])
    others = [n for n in entry["sweeps"] if n != name]
    ok(all(f"gpu-f-{n}.csv" in files for n in others), f"the step's other sweeps run too: {' '.join(others)}", files)
else:
    skip("a step's sweep with stand-ins", "no step declares variants and sweeps")

# A program the GPU could not run (exit 4): make compare records the reason, and the
# tables say it under the ladder.
import tables_shared
with tempfile.TemporaryDirectory() as tmp:
    small = [row(p, 1000, "GPU S", t) for p, t in (("step01", 4.0), ("step02", 4.0), ("step03", 4.0),
                                                    ("step04", 4.0), ("step05", 2.0), ("step06", 2.0))]
    small.append({"program": "step10", "n": "1000", "device": "GPU S", "date": "2026-01-01T00:00Z", "command": "x",
                  "status": "skipped: step10 needs compute capability 8.0 (cp.async); this GPU is 7.5"})
    ladder.merge_results(os.path.join(tmp, "gpu-s.csv"), small)
    devices = tables_shared.device_results(tmp)
    text = tables_shared.ladder_table(devices, {}, tmp)
    ok(("step10", 1000) not in devices["GPU S"] and "step10 did not run on this GPU: step10 needs compute capability 8.0"
       in text, "a skipped program: left out of the figures, its reason under the table", text)
    ladder.merge_results(os.path.join(tmp, "gpu-s-capped.csv"), [row("step10", 1000, "GPU S capped to 64 KB", 1.0)])
    ok("GPU S capped to 64 KB" not in tables_shared.device_results(tmp)
       and "GPU S capped to 64 KB" in tables_shared.device_results(tmp, caps=True),
       "runs under a shared-memory cap are kept apart from the GPU's own figures")

# Rows with the conditions' columns and rows recorded before them, in one file and apart: every
# reader takes both (a row without them is one whose conditions are unknown), and recording new rows
# into an older file keeps its rows, the new columns empty for them.
import csv
import multigpu_sweep
import tables_multigpu
import tables_transpose
import transpose_compare

MEASURED_ON = dict(device_uuid="GPU-00000000-1111-2222-3333-444444444444", sm_clock_mhz="1755", power_limit_w="700",
                   driver_version="580.65.06", cuda_runtime_version="13.0", cublas_version="13.1.0")


def write_old(path, columns, rows):
    """A results file as it was recorded before the conditions' columns existed."""
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=[c for c in columns if c not in ladder.CONDITION_COLUMNS],
                           extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)


with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "gpu-c.csv")
    write_old(path, ladder.RESULT_COLUMNS, [row(p, 1000, "GPU C", t) for p, t in (("step01", 4.0), ("step05", 2.0))])
    old = ladder.read_results(path)
    ok(len(old) == 2 and all("sm_clock_mhz" not in r for r in old) and tables_shared.device_results(tmp)["GPU C"],
       "a ladder file recorded before the conditions' columns reads as it is")
    ladder.merge_results(path, [dict(row("cublas", 1000, "GPU C", 0.5), **MEASURED_ON)])
    rows = ladder.read_results(path)
    with open(path) as fh:
        first = fh.readline().strip()
    ok(first == ",".join(ladder.RESULT_COLUMNS) and [(r["program"], r["sm_clock_mhz"], r["cublas_version"])
                                                     for r in rows] == [("cublas", "1755", "13.1.0"), ("step01", "", ""),
                                                                        ("step05", "", "")],
       "a row with its conditions recorded into it: the header gains them, the older rows keep theirs empty", rows)
    table = experiment.compare_table(rows, 1000, "uniform")
    ok(set(tables_shared.device_results(tmp)["GPU C"]) == {("cublas", 1000), ("step01", 1000), ("step05", 1000)}
       and "step05" in table and "cublas" in table, "the tables read the rows with and without them alike", table)

    # The chapters' own files: their columns, then the conditions the rows carry.
    path = os.path.join(tmp, "gpu-c-transpose.csv")
    shape = dict(rows="64", cols="64", iters="20", status="exact", date="2026-01-01T00:00Z", command="x")
    write_old(path, transpose_compare.COLUMNS,
              [dict(shape, program=p, device="GPU C", kernel_ms="0.01", gbps="1.0") for p in ("naive", "copy")])
    ladder.merge_results(path, [dict(shape, program="tiled32x8", device="GPU C", kernel_ms="0.005", gbps="2.0",
                                     **MEASURED_ON),
                                dict(shape, program="cpu", device="CPU", kernel_ms="0.1", gbps="0.1",
                                     **{c: "" for c in ladder.CONDITION_COLUMNS})],
                         transpose_compare.COLUMNS, transpose_compare.KEY)
    with open(path) as fh:
        first = fh.readline().strip()
    text = tables_transpose.transpose_table(tmp)
    ok(first == ",".join(transpose_compare.COLUMNS + ladder.CONDITION_COLUMNS)
       and all(f"| {p} |" in text for p in ("cpu", "naive", "tiled32x8", "copy")),
       "the transpose's file keeps the conditions after its own columns, and its table reads old and new rows", first)
    path = os.path.join(tmp, "gpu-c-multigpu.csv")
    mg = dict(local="sgemm", n="8192", grid="1x1", panel="8192", device="GPU C", ms="10.0", tflops="100.0",
              comm_ms="nan", gemm_ms="nan", max_rel_err="1e-6", max_comp_err="1e-7", bound="1e-5", status="pass",
              rows_checked="64", reps="3", dist="uniform", comm="nccl", date="2026-01-01T00:00Z", command="x")
    write_old(path, multigpu_sweep.COLUMNS, [dict(mg, algo="rows", gpus="1", uuids="GPU-a")])
    ladder.merge_results(path, [dict(mg, algo="summa", gpus="2", grid="1x2", uuids="GPU-a GPU-b",
                                     **{c: v for c, v in MEASURED_ON.items() if c != "device_uuid"})],
                         multigpu_sweep.COLUMNS, multigpu_sweep.KEY)
    with open(path) as fh:
        first = fh.readline().strip()
    text = tables_multigpu.multigpu_table(tmp)
    ok(first == ",".join(multigpu_sweep.COLUMNS + ladder.CONDITION_COLUMNS[1:]) and "| rows |" in text
       and "| summa |" in text,
       "the multi-GPU chapter's file too (its GPUs in uuids, no device_uuid), and its table", first)

# A program's row read back: with the conditions, and from a program built before them.
full = dict(row("step03", 17, "X", 1.0), **MEASURED_ON)
parsed = ladder.parse_program_csv(",".join(full[c] for c in ladder.PROGRAM_COLUMNS))
older = ladder.parse_program_csv(",".join(full[c] for c in ladder.PROGRAM_COLUMNS[:-len(ladder.CONDITION_COLUMNS)]))
ok(parsed["sm_clock_mhz"] == "1755" and parsed["device_uuid"] == MEASURED_ON["device_uuid"]
   and older["program"] == "step03" and "sm_clock_mhz" not in older,
   "parse_program_csv reads a row with the conditions and one without", (parsed, older))

# A real run that needs no GPU: the transpose's CPU variants write the GPU's columns empty.
exe = os.path.join(ladder.ROOT, "transpose", "transpose")
if os.path.exists(exe):
    p = subprocess.run([exe, "--variant", "cpu,cpu_blocked", "--rows", "8", "--cols", "8", "--iters", "1",
                        "--csv-header"], capture_output=True, text=True)
    lines = list(csv.reader(p.stdout.strip().splitlines()))
    ok(p.returncode == 0 and lines[0] == transpose_header and len(lines) == 3
       and all(len(r) == len(lines[0]) and r[3] == "CPU" and not any(r[-6:]) for r in lines[1:]),
       "the transpose's CPU rows: every column there, the GPU's conditions empty", p.stdout)
else:
    skip("the transpose's CPU rows", "transpose/transpose is not built (make)")

# cuBLAS's version is asked of cuBLAS where a program links it (a weak reference, bound by the
# linker): the cuBLAS peer's binary binds it to libcublas, a step's leaves it unbound (its column empty).
nm = subprocess.run(["sh", "-c", "command -v nm"], capture_output=True, text=True).stdout.strip()
binaries = [os.path.join(ladder.ROOT, b) for b in ("cublas/cublas", ladder.step_binaries()[0])]
symbols = [subprocess.run([nm, "-D", b], capture_output=True, text=True).stdout if nm and os.path.exists(b) else ""
           for b in binaries]
if re.search(r"\bcublasCreate_v2@libcublas", symbols[0]):  # an nm that names the library a symbol is bound to
    bound = [re.search(r"\bcublasGetProperty(@\S+)?$", s, re.M) for s in symbols]
    ok(bound[0] and (bound[0].group(1) or "").startswith("@libcublas") and bound[1] and not bound[1].group(1),
       "cuBLAS's version: bound to libcublas in cublas/cublas, left unbound in a step that does not link it",
       [b.group(0) if b else None for b in bound])
else:
    skip("cuBLAS's version bound where cuBLAS is linked", "nm (binutils 2.35 or newer), or the binaries, missing")

try:
    ladder.parse_program_csv("a,b,c")
    ok(False, "parse_program_csv rejects a short row")
except ValueError:
    ok(True, "parse_program_csv rejects a short row")
parsed = ladder.parse_program_csv(",".join(ladder.PROGRAM_COLUMNS) + "\n" + ",".join(row("step03", 17, "X", 1.0)[c]
                                                                                   for c in ladder.PROGRAM_COLUMNS))
ok(parsed["program"] == "step03" and parsed["n"] == "17", "parse_program_csv skips the header line")
ok(ladder.slug("NVIDIA H100 80GB HBM3") == "nvidia-h100-80gb-hbm3", "device slug")

device, info = ladder.gpu_info()
if device is None:
    with tempfile.TemporaryDirectory() as tmp:
        for kind, why in (("compare", "make compare"), ("configs", "make config-sweep"),
                          ("sweep", "a step's sweeps (with none of its variants)")):
            args = ["--variants", ""] if kind == "sweep" else []
            p = subprocess.run([sys.executable, os.path.join(ladder.ROOT, "scripts", "experiment.py"), kind,
                                "--results", tmp] + args, capture_output=True, text=True)
            ok(p.returncode == 3 and len(p.stderr.strip().splitlines()) == 1 and "no GPU" in p.stderr
               and os.listdir(tmp) == [], f"{why} without a GPU: exit 3, one line saying why, nothing written",
               (p.returncode, p.stderr))
else:
    skip("make compare without a GPU", "a GPU is present: the no-GPU path cannot be seen")
done()
