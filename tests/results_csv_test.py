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


with open(os.path.join(ladder.ROOT, "common", "step_main.c")) as f:
    src = f.read()
header = "".join(re.findall(r'"([^"]*)"', re.search(r"#define CSV_HEADER(.*?)\n\n", src, re.S).group(1)))
ok(header.split(",") == ladder.PROGRAM_COLUMNS, "scripts/ladder.py knows the programs' CSV columns", header)
ok(ladder.RESULT_COLUMNS[:2] == ["date", "command"] and ladder.RESULT_COLUMNS[2:] == ladder.PROGRAM_COLUMNS,
   "results rows are the programs' columns plus date and command")

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
        r = {c: "1.0" for c in ladder.PROGRAM_COLUMNS}
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
