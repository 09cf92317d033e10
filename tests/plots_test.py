"""The chart scripts on a small fixture (made up here, labelled as such, never a
measurement): every chart is written, as a non-empty PNG and an SVG. TAP output."""
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "scripts"))
sys.path.insert(0, HERE)
import ladder  # noqa: E402
from tap import done, ok, skip_all  # noqa: E402

try:
    import matplotlib  # noqa: F401
except ImportError as err:
    skip_all(f"matplotlib cannot be imported by {sys.executable} ({err}); make plots-env installs it")

DEVICE = "Fixture GPU (test data, not a measurement)"
with tempfile.TemporaryDirectory() as tmp:
    results, out = os.path.join(tmp, "results"), os.path.join(tmp, "plots")
    os.makedirs(results)
    shutil.copy(os.path.join(ROOT, "results", "article_8800gt.csv"), results)
    rows = []
    for n in (256, 1000, 4096):
        for i, prog in enumerate(ladder.LADDER):
            k = n ** 3 / 1e9 / (1 + i)
            r = {c: "0.1" for c in ladder.PROGRAM_COLUMNS}
            r.update(program=prog, n=str(n), device=DEVICE, kernel_ms=f"{k:.6f}", gflops=f"{2 * n**3 / k / 1e6:.2f}",
                     total_ms=f"{k + 1:.6f}", kernel_e2e_ms=f"{k:.6f}", max_rel_err="1e-7" if i else "2e-6",
                     status="pass", check="full", reps="1", date="2026-01-01T00:00Z", command="fixture")
            rows.append(r)
    ladder.merge_results(os.path.join(results, "fixture-gpu.csv"), rows)
    p = subprocess.run([sys.executable, os.path.join(ROOT, "plots", "charts.py"), "--results", results, "--out", out],
                       capture_output=True, text=True)
    ok(p.returncode == 0, "plots/charts.py runs on the fixture", p.stdout + p.stderr)
    for name in ("speedup", "gflops_vs_n", "accuracy", "time_split"):
        png = os.path.join(out, name + ".png")
        data = open(png, "rb").read() if os.path.exists(png) else b""
        ok(data.startswith(b"\x89PNG") and len(data) > 10000, f"{name}.png is a non-empty PNG ({len(data)} bytes)")
        svg = os.path.join(out, name + ".svg")
        ok(os.path.exists(svg) and os.path.getsize(svg) > 10000 and DEVICE.split(" (")[0] in open(svg).read(),
           f"{name}.svg written, naming the device")
    # Drawn twice from the same results, every file is the same byte for byte (no random
    # ids, no dates): `make plots` on unchanged results leaves the tree clean.
    out_again = os.path.join(tmp, "plots_again")
    subprocess.run([sys.executable, os.path.join(ROOT, "plots", "charts.py"), "--results", results, "--out", out_again],
                   capture_output=True, text=True)
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
    p = subprocess.run([sys.executable, os.path.join(ROOT, "plots", "charts.py"), "--results", results, "--out", out2,
                        "--device", small], capture_output=True, text=True)
    svg = os.path.join(out2, "speedup.svg")
    ok(p.returncode == 0 and os.path.exists(svg) and "needs compute capability 8.0" in open(svg).read(),
       "a GPU without step 10: the charts are drawn and say why step 10 is missing", p.stdout + p.stderr)
    p = subprocess.run([sys.executable, os.path.join(ROOT, "plots", "charts.py"), "--results", tmp + "/none"],
                       capture_output=True, text=True)
    ok(p.returncode != 0 and "no results" in p.stderr, "no results: a clear error", p.stderr)
done()
