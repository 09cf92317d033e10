"""What the step declares (its experiments.json) and reports (its report.py), on a fixture (made
up here, labelled as such, never a measurement): its build variants are a -D parameter its source
reads, within what ozaki.h allows; the sweep runs each variant's build, its count a column of the
rows; the README's function reads a row by that column, the step as built by none; the chart
draws every count from the column. The step is this folder's: a copy tests itself. TAP output
(report.t beside this file)."""
import json
import os
import re
import subprocess
import sys
import tempfile

import ladder
import prose
import step_plugins
from tap import done, ok, skip

FOLDER_PATH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FOLDER = os.path.basename(FOLDER_PATH)
STEP = FOLDER.split("_")[0]
ROOT = os.path.dirname(FOLDER_PATH)
declared = json.load(open(os.path.join(FOLDER_PATH, "experiments.json")))
variants = declared["variants"]
source = "".join(open(os.path.join(FOLDER_PATH, f)).read() for f in sorted(os.listdir(FOLDER_PATH))
                 if f.endswith((".cu", ".h")))  # the step's program and the headers it keeps beside it
most = int(re.search(r"#define OZAKI_MAX_MODULI (\d+)", open(os.path.join(FOLDER_PATH, "ozaki.h")).read()).group(1))
ok(f"#ifdef {variants['parameter']}" in source and all(2 <= v <= most for v in variants["values"]),
   f"the variants are -D{variants['parameter']}=N, which {STEP}.cu's sources read, N within 2 ... {most} (ozaki.h)")
counts = [str(v) for v in variants["values"][:2]]
p = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "experiment.py"), "sweep", "--step", STEP,
                    "--name", "moduli", "--sizes", "7", "--variants", " ".join(counts), "--plan"],
                   capture_output=True, text=True, cwd=ROOT)
binaries = [f"obj/variants/{FOLDER}/{variants['parameter']}/{c}/{STEP}" for c in counts]
ok(p.returncode == 0 and all(f"make {b}\n" in p.stdout and f"$ {b} -n 7 --dist wide --csv" in p.stdout for b in binaries)
   and f", {variants['column']}\n" in p.stdout and f"$ {FOLDER}/{STEP} -n 7 --dist uniform" in p.stdout,
   f"the sweep builds and runs each variant asked for beside the step as built, by the column {variants['column']}",
   p.stdout + p.stderr)

# A fixture of the sweep's rows, on the device the READMEs discuss (prose.DEVICE): the step as built
# (no count) and two counts, at a short sum and a long one, on both inputs; SGEMM beside them.
DATE = "2026-01-01T00:00Z"
rows = []
for n in (3, 1000):
    for dist in ladder.DISTS:
        for prog, count, ms in (("cublas", "", 9.0), (STEP, "", 5.0), (STEP, counts[0], 4.0), (STEP, counts[1], 6.0)):
            r = {c: "1e-8" for c in ladder.PROGRAM_COLUMNS}
            r.update(program=prog, n=str(n), device=prose.DEVICE, kernel_ms=str(ms + n / 1000), gflops="1000",
                     dist=dist, status="pass", precision="fp32", tolerance="1e-6", date=DATE,
                     command=f"fixture --reps 1 (test data, not a measurement)", max_comp_err=f"{ms * 1e-8:.1e}")
            r[variants["column"]] = count
            rows.append(r)
with tempfile.TemporaryDirectory() as tmp:
    results = os.path.join(tmp, "results")
    ladder.merge_results(os.path.join(results, ladder.slug(prose.DEVICE) + "-moduli.csv"), rows,
                         ladder.RESULT_COLUMNS + [variants["column"]], ladder.KEY + (variants["column"],))
    moduli = prose.Results(results).functions(f"{FOLDER}/README.md")["moduli"]
    ok(moduli(STEP, 1000, count=int(counts[0])) == 4.0 + 1 and moduli(STEP, 1000) == 5.0 + 1
       and moduli("cublas", 3, "kernel_ms", "wide") == 9.0 + 0.003,
       "moduli(program, n, column, dist, count=N) reads the row of N moduli; without a count, the step as built's")
    try:
        moduli(STEP, 1000, count=most + 1)
        ok(False, "a count the sweep never ran is an error, not a number")
    except KeyError:
        ok(True, "a count the sweep never ran is an error, not a number")
    try:
        import matplotlib  # noqa: F401
        out = os.path.join(tmp, "plots")
        os.makedirs(out)
        step_plugins.function(FOLDER, "report.moduli_chart")(results, out)
        name = "moduli_" + ladder.slug(prose.DEVICE)
        svg = open(os.path.join(out, name + ".svg")).read() if os.path.exists(os.path.join(out, name + ".svg")) else ""
        ok(os.path.getsize(os.path.join(out, name + ".png")) > 10000 if os.path.exists(os.path.join(out, name + ".png"))
           else False, f"the chart {name}.png is drawn")
        ok(f"Step {STEP[4:]}'s knob" in svg and f"{counts[0]} ... {counts[1]} moduli" in svg,
           f"its title names the step, its legend the counts from the column ({counts[0]} ... {counts[1]})")
    except ImportError as err:
        skip("the chart on the fixture", f"matplotlib cannot be imported by {sys.executable} ({err})")
        skip("its title and legend", "no matplotlib")
done()
