"""The pictures' runner and library (plots/tensor_pictures.py, plots/drawing.py): every step's
pictures.py is found and drawn, in its own folder's order, and each has its own test
(stepNN_*/tests/pictures.t: its rules against its sources, its facts, the same bytes twice);
a step's pictures import only the standard library and matplotlib (the drawing library is handed
to their draw(shared, out): no import goes round in a circle), and the library imports no step;
the runner draws one step alone on request and refuses a folder without pictures. TAP output
(tests/13-pictures.t)."""
import ast
import glob
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scripts"))
from pictures_lib import ROOT, step_plugins  # noqa: E402  (skips all without matplotlib)
from tap import done, ok  # noqa: E402


def imports(path):
    """The modules a Python file imports."""
    tree = ast.parse(open(path).read())
    return {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names} | \
        {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}


found = step_plugins.step_pictures()
folders = [folder for folder, _ in found]
on_disk = sorted(os.path.basename(os.path.dirname(p)) for p in glob.glob(os.path.join(ROOT, "step[0-9][0-9]_*",
                                                                                     "pictures.py")))
ok(folders == on_disk and len(folders) >= 1 and all(callable(getattr(m, "draw", None)) for _, m in found),
   f"the loader finds every step's pictures.py, in order, each with its draw(shared, out): {' '.join(folders)}")
untested = [f for f in folders if not os.path.exists(os.path.join(ROOT, f, "tests", "pictures.t"))]
ok(not untested, "each step with pictures tests them in its own folder (tests/pictures.t)", " ".join(untested))
own = {f: sorted(m for m in imports(os.path.join(ROOT, f, "pictures.py"))
                 if m != "matplotlib" and m not in sys.stdlib_module_names) for f in folders}
ok(not any(own.values()), "a step's pictures import only the standard library and matplotlib (the drawing library "
   "is handed to them), not the runner or the drawing library", {f: m for f, m in own.items() if m})
library = imports(os.path.join(ROOT, "plots", "drawing.py"))
ok(not [m for m in library if m.startswith(("step", "pictures", "tensor_pictures", "charts"))],
   "the drawing library imports no step, no picture and no chart", sorted(library))

with tempfile.TemporaryDirectory() as tmp:
    run = lambda *args: subprocess.run([sys.executable, os.path.join(ROOT, "plots", "tensor_pictures.py")] +  # noqa
                                       list(args), capture_output=True, text=True)
    p = run("--out", os.path.join(tmp, "all"))
    drawn = sorted(os.listdir(os.path.join(tmp, "all"))) if p.returncode == 0 else []
    stems = sorted({f.rsplit(".", 1)[0] for f in drawn})
    ok(p.returncode == 0 and stems and drawn == sorted(f"{s}.{e}" for s in stems for e in ("png", "svg")),
       f"plots/tensor_pictures.py draws every step's pictures, each as PNG and SVG ({len(stems)})", p.stderr)
    p = run("--out", os.path.join(tmp, "one"), "--step", folders[-1])
    one = sorted(os.listdir(os.path.join(tmp, "one"))) if p.returncode == 0 else []
    ok(p.returncode == 0 and one and set(one) < set(drawn), f"--step {folders[-1]}: its pictures alone", p.stderr)
    p = run("--out", os.path.join(tmp, "none"), "--step", "step00_none")
    ok(p.returncode == 2 and "no pictures.py" in p.stderr, "--step of a folder without pictures: exit 2, saying so",
       p.stderr)
done()
