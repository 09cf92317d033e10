"""The results CSV: schema, replace-by-key rule, and make compare without a GPU.
No GPU needed. TAP output (tests/05-results-csv.t)."""
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "scripts"))
sys.path.insert(0, HERE)
import compare  # noqa: E402
import ladder  # noqa: E402
from tap import done, ok, skip  # noqa: E402


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

    table = compare.fmt_table([row(p, 1000, "GPU A", t) for p, t in (("step01", 4.0), ("step05", 2.0), ("cublas", 0.5))],
                              1000, "uniform")
    ok("% cuBLAS" in table and "x step01" in table, "the comparison table has speedup and % of cuBLAS", table)
    line5 = [l for l in table.splitlines() if l.startswith("step05")][0]
    ok(" 2.00 " in line5 and " 25.0 " in line5, "step05: 2x step01, 25% of cuBLAS", line5)

# A program the GPU could not run (exit 4): make compare records the reason, and the
# tables say it under the ladder.
import readme_tables  # noqa: E402
with tempfile.TemporaryDirectory() as tmp:
    small = [row(p, 1000, "GPU S", t) for p, t in (("step01", 4.0), ("step02", 4.0), ("step03", 4.0),
                                                    ("step04", 4.0), ("step05", 2.0), ("step06", 2.0))]
    small.append({"program": "step10", "n": "1000", "device": "GPU S", "date": "2026-01-01T00:00Z", "command": "x",
                  "status": "skipped: step10 needs compute capability 8.0 (cp.async); this GPU is 7.5"})
    ladder.merge_results(os.path.join(tmp, "gpu-s.csv"), small)
    devices = readme_tables.device_results(tmp)
    text = readme_tables.ladder_table(devices, {}, tmp)
    ok(("step10", 1000) not in devices["GPU S"] and "step10 did not run on this GPU: step10 needs compute capability 8.0"
       in text, "a skipped program: left out of the figures, its reason under the table", text)
    ladder.merge_results(os.path.join(tmp, "gpu-s-capped.csv"), [row("step10", 1000, "GPU S capped to 64 KB", 1.0)])
    ok("GPU S capped to 64 KB" not in readme_tables.device_results(tmp)
       and "GPU S capped to 64 KB" in readme_tables.device_results(tmp, caps=True),
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
        p = subprocess.run([sys.executable, os.path.join(ladder.ROOT, "scripts", "compare.py"), "--results", tmp],
                           capture_output=True, text=True)
        ok(p.returncode == 3, "make compare without a GPU exits non-zero (3)", p.stderr)
        ok(len(p.stderr.strip().splitlines()) == 1 and "no GPU" in p.stderr, "... with one line saying why", p.stderr)
        ok(os.listdir(tmp) == [], "... and writes nothing")
else:
    skip("make compare without a GPU", "a GPU is present: the no-GPU path cannot be seen")
done()
