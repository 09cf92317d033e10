"""The chart scripts on a small fixture (made up here, labelled as such, never a
measurement): every chart is written, as a non-empty PNG and an SVG, both from rows with
the tensor-core chapter's columns (both input distributions, componentwise errors,
precision classes) and from rows recorded before them. Then a property: every kind of results file
recorded (each alone in a folder), made bad three ways (bytes that are not UTF-8, a word in its
first number column, its device, n or program column gone), never ends plots/charts.py and the
chart modules it calls in a traceback: it is drawn, or refused in one line naming the file. TAP
output."""
import contextlib
import csv
import glob
import io
import os
import shutil
import subprocess
import sys
import tempfile
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import ladder
from tap import done, ok, skip_all

try:
    import matplotlib  # noqa: F401
except ImportError as err:
    skip_all(f"matplotlib cannot be imported by {sys.executable} ({err}); make plots-env installs it")

DEVICE = "Fixture GPU (test data, not a measurement)"
CHARTS = ("speedup", "gflops_vs_n", "accuracy", "accuracy_speed", "time_split")
TF32 = {"step11", "cublas_tf32", "cutlass_tf32"}  # the fixture's tf32 class
OLD_COLUMNS = [c for c in ladder.RESULT_COLUMNS if c not in ("dist", "precision", "max_comp_err", "avg_comp_err")]


def charts(results, out, *args):
    return subprocess.run([sys.executable, os.path.join(ROOT, "plots", "charts.py"), "--results", results,
                           "--out", out] + list(args), capture_output=True, text=True)


def svg_text(out, name):
    path = os.path.join(out, name + ".svg")
    return open(path).read() if os.path.exists(path) else ""


def written(out, name, what):
    png = os.path.join(out, name + ".png")
    data = open(png, "rb").read() if os.path.exists(png) else b""
    ok(data.startswith(b"\x89PNG") and len(data) > 10000, f"{what}: {name}.png is a non-empty PNG ({len(data)} bytes)")
    ok(len(svg_text(out, name)) > 10000 and DEVICE.split(" (")[0] in svg_text(out, name),
       f"{what}: {name}.svg written, naming the device")


with tempfile.TemporaryDirectory() as tmp:
    results, out = os.path.join(tmp, "results"), os.path.join(tmp, "plots")
    os.makedirs(results)
    shutil.copy(os.path.join(ROOT, "results", "article_8800gt.csv"), results)
    # Every program of the ladder on both input distributions, with the componentwise errors
    # and precision classes that make compare records now (made-up values).
    rows = []
    for dist in ladder.DISTS:
        for n in (256, 1000, 4096):
            for i, prog in enumerate(ladder.LADDER):
                k = n ** 3 / 1e9 / (1 + i)
                comp = (5e-5 if prog in TF32 else 1e-6 if i else 4e-6) * (2 if dist == "wide" else 1)
                r = {c: "1" if c in ladder.WHOLE_COLUMNS else "0.1" for c in ladder.PROGRAM_COLUMNS}
                r.update(program=prog, n=str(n), device=DEVICE, kernel_ms=f"{k:.6f}",
                         gflops=f"{2 * n**3 / k / 1e6:.2f}", total_ms=f"{k + 1:.6f}", kernel_e2e_ms=f"{k:.6f}",
                         max_rel_err="1e-7" if i else "2e-6", status="pass", check="full", reps="1",
                         date="2026-01-01T00:00Z", command="fixture", dist=dist,
                         precision="tf32" if prog in TF32 else "fp32", max_comp_err=f"{comp:.3e}",
                         avg_comp_err=f"{comp / 5:.3e}")
                rows.append(r)
    ladder.merge_results(os.path.join(results, "fixture-gpu.csv"), rows)
    # The multi-GPU chapter: three algorithms on 1 and 2 GPUs (made-up values), at two panel
    # widths, of which the chart takes the larger.
    import multigpu_sweep  # scripts/, on the path since the top of this file
    mg = []
    for panel in (2048, 8192):
        for algo, slow in (("rows", 1.0), ("summa", 1.1), ("cublasmp", 1.05)):
            for n in (1024, 2048):
                for g in (1, 2):
                    ms = n ** 3 / 5e8 * slow / g * (1.5 if panel == 2048 else 1)
                    mg.append(dict(date="2026-01-01T00:00Z", command="fixture", algo=algo, local="sgemm", n=str(n),
                                   gpus=str(g), grid=f"1x{g}", panel=str(panel), device=DEVICE, ms=f"{ms:.4f}",
                                   tflops=f"{2 * n ** 3 / ms / 1e9:.2f}", comm_ms="nan" if algo == "cublasmp" else "1.5",
                                   gemm_ms="nan" if algo == "cublasmp" else f"{ms * 0.9:.4f}", max_rel_err="1e-6",
                                   max_comp_err="1e-6", bound="1e-5", status="pass", rows_checked="64", reps="3",
                                   dist="uniform"))
    ladder.merge_results(os.path.join(results, "fixture-gpu-multigpu.csv"), mg, multigpu_sweep.COLUMNS,
                         multigpu_sweep.KEY)
    p = charts(results, out)
    ok(p.returncode == 0, "plots/charts.py runs on the fixture", p.stdout + p.stderr)
    for name in CHARTS:
        written(out, name, "every program, both distributions")
    written(out, "multigpu_fixture-gpu", "the multi-GPU chapter")
    text = svg_text(out, "multigpu_fixture-gpu")
    ok(all(s in text for s in ("Strong scaling", "summa, n = 2048", "cublasmp", "perfect scaling", "panel 8192",
                                 "n = 2048 on 2 GPUs")) and "panel 2048" not in text,
       "multigpu: every algorithm, perfect scaling and the time split, at the larger panel only")
    text = svg_text(out, "speedup")
    ok("cuBLAS TF32 kernel, n = 4096" in text and "tensor-core ceiling" in text and "step 12" in text,
       "speedup: steps 11 and 12 shown, the TF32 ceiling marked beside cuBLAS's")
    text = svg_text(out, "accuracy_speed")
    ok(all(s in text for s in ("fp32 class bound", "tf32 class bound", "uniform inputs", "wide inputs", "step 11",
                                 "cuBLAS TF32", "CUTLASS 3xTF32", "n = 4096"))
       and "no componentwise errors" not in text,
       "accuracy_speed: both distributions at n = 4096, every program named, both bounds drawn")
    # Drawn twice from the same results, every file is the same byte for byte (no random
    # ids, no dates): `make plots` on unchanged results leaves the tree clean.
    out_again = os.path.join(tmp, "plots_again")
    charts(results, out_again)
    differ = [f for f in sorted(os.listdir(out)) if open(os.path.join(out, f), "rb").read()
              != open(os.path.join(out_again, f), "rb").read()] if os.path.isdir(out_again) else ["(not drawn)"]
    ok(not differ, "the same results draw the same files", " ".join(differ))
    # A GPU that could not run step 10 (exit 4): make compare records why; the charts leave
    # its bar out and say why beneath.
    small = "Fixture small GPU (test data)"
    skipped = [dict(r, device=small) for r in rows if r["program"] != "step10"]
    skipped += [{"program": "step10", "n": str(n), "device": small, "date": "2026-01-01T00:00Z", "command": "fixture",
                 "status": "skipped: step10 needs compute capability 8.0 (cp.async); this GPU is 7.5"}
                for n in (256, 1000, 4096)]
    ladder.merge_results(os.path.join(results, "fixture-small.csv"), skipped)
    out2 = os.path.join(tmp, "plots2")
    p = charts(results, out2, "--device", small)
    svg = os.path.join(out2, "speedup.svg")
    ok(p.returncode == 0 and os.path.exists(svg) and "needs compute capability 8.0" in open(svg).read(),
       "a GPU without step 10: the charts are drawn and say why step 10 is missing", p.stdout + p.stderr)
    p = subprocess.run([sys.executable, os.path.join(ROOT, "plots", "charts.py"), "--results", tmp + "/none"],
                       capture_output=True, text=True)
    ok(p.returncode != 0 and "no results" in p.stderr, "no results: a clear error", p.stderr)

    # Results recorded before the tensor-core chapter (today's): no dist, precision or
    # componentwise-error columns, only steps 01-10 and cuBLAS. Every chart is still drawn,
    # with no place for the programs not measured, and accuracy_speed says there is nothing
    # to show yet instead of inventing points.
    old = os.path.join(tmp, "old")
    os.makedirs(old)
    shutil.copy(os.path.join(ROOT, "results", "article_8800gt.csv"), old)
    with open(os.path.join(old, "fixture-gpu.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=OLD_COLUMNS, extrasaction="ignore")
        w.writeheader()
        w.writerows(r for r in rows if r["dist"] == "uniform" and r["program"] in ladder.STEPS[:10] + ["cublas"])
    out3 = os.path.join(tmp, "plots_old")
    p = charts(old, out3)
    ok(p.returncode == 0, "plots/charts.py runs on results without the new columns", p.stdout + p.stderr)
    for name in CHARTS:
        written(out3, name, "old-style rows")
    ok("no componentwise errors recorded yet" in svg_text(out3, "accuracy_speed")
       and "class bound" not in svg_text(out3, "accuracy_speed"),
       "accuracy_speed without componentwise errors: says so, draws no points or bounds")
    leaked = [f"{name}: {s}" for name in CHARTS for s in ("step 11", "step11", "step 12", "step12", "TF32", "CUTLASS")
              if s in svg_text(out3, name)]
    ok(not leaked, "programs without rows get no bar, tick or label", ", ".join(leaked))


def spoiled(path):
    """[(what, bytes)]: the file at path made bad: a byte that is not UTF-8 in its first row, a word
    in its first number column, and each of its device, n and program columns left out."""
    data = open(path, "rb").read()
    rows = list(csv.reader(io.StringIO(data.decode(), newline="")))
    header = rows[0]

    def text(table):
        f = io.StringIO()
        csv.writer(f, lineterminator="\n").writerows(table)
        return f.getvalue().encode()
    out = [("not UTF-8", data.replace(b"\n", b"\n\xff", 1))]
    number = next((i for i, c in enumerate(header) if ladder.number_problem(c, "x")), None)
    if number is not None and len(rows) > 1:
        out.append((f"{header[number]} = x", text([header, rows[1][:number] + ["x"] + rows[1][number + 1:]] + rows[2:])))
    out += [(f"no {c} column", text([r[:header.index(c)] + r[header.index(c) + 1:] for r in rows]))
            for c in ("device", "n", "program") if c in header]
    return out


sys.path.insert(0, os.path.join(ROOT, "plots"))
import charts  # noqa: E402  (in this process: matplotlib is imported once for every case)
raised, unclear = [], []
kinds = sorted(glob.glob(os.path.join(ROOT, "results", "*.csv")))
for path in kinds:
    for what, data in spoiled(path):
        with tempfile.TemporaryDirectory() as tmp:
            folder = os.path.join(tmp, "results")
            os.makedirs(folder)
            bad = os.path.join(folder, os.path.basename(path))
            open(bad, "wb").write(data)
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    code = charts.main(["--results", folder, "--out", os.path.join(tmp, "plots")])
                except SystemExit as e:
                    code = e.code
                except Exception as e:  # noqa: BLE001 (what would be a traceback: reported below)
                    raised.append(f"{os.path.basename(path)}, {what}: {type(e).__name__}: {e}")
                    continue
            lines = err.getvalue().strip().splitlines()
            if code != 0 and not (code == 2 and len(lines) == 1 and bad in lines[0]):
                unclear.append(f"{os.path.basename(path)}, {what}: exit {code}: {err.getvalue().strip()[:300]}")
ok(len(kinds) >= 10 and not raised, f"every kind of results file recorded ({len(kinds)}), made bad: no traceback",
   "\n".join(raised))
ok(not unclear, "... each drawn, or refused in one line naming the file, exit 2", "\n".join(unclear))
done()
