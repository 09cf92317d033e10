"""What the steps' picture tests share (each step's tests/pictures_test.py, run by its
tests/pictures.t through tests/step_python_test.py): the sources read as text, their C macros and
integer expressions evaluated in Python, a step's pictures.py loaded as plots/tensor_pictures.py
loads it (scripts/step_plugins.py), and its pictures drawn twice by plots/tensor_pictures.py (the
same bytes every run). With tests/tap.py. Imported with tests/ and scripts/ on the import path
(tests/step_python_test.py, tests/pictures_test.py put them there)."""
import os
import re
import subprocess
import sys
import tempfile

from tap import skip_all

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
try:
    import matplotlib  # noqa: F401
except ImportError as err:
    skip_all(f"matplotlib cannot be imported by {sys.executable} ({err}); make plots-env installs it")
import step_plugins  # noqa: E402  the loader, which finds each step's pictures.py


def folder_of(test_file):
    """The step folder a test file is in (stepNN_name/tests/...)."""
    return os.path.basename(os.path.dirname(os.path.dirname(os.path.abspath(test_file))))


def step_pictures(prefix):
    """The pictures.py of the step folder whose name starts with prefix ("step11_", or a whole
    folder's name), loaded."""
    found = [m for folder, m in step_plugins.step_pictures() if folder.startswith(prefix)]
    if len(found) != 1:
        raise SystemExit(f"pictures_lib: {len(found)} step folders with pictures.py match '{prefix}'")
    return found[0]


def step_source(prefix, name=None):
    """The text of a step's program source (its stepNN.cu), or of another file in its folder."""
    folder = next(d for d in sorted(os.listdir(ROOT)) if d.startswith(prefix) and re.fullmatch(r"step\d\d_\w+", d))
    return source(os.path.join(folder, name or folder.split("_")[0] + ".cu"))


def source(path):
    return open(os.path.join(ROOT, path)).read()


def macro(text, name, **names):
    """A C macro of the sources as a Python function: its body is only ( ) * + >> << ^ &,
    which Python reads with C's meaning and precedence."""
    m = re.search(rf"#define {name}\(([^)]*)\) (.*)", text)
    return eval(f"lambda {m.group(1)}: {m.group(2)}", names) if m else None


def c_int(expr, **names):
    """A C integer expression of the sources over non-negative ints ((size_t) casts, / and %,
    * + - & ^ >> and parentheses) evaluated in Python: / as //, which agrees for non-negative values."""
    return eval(re.sub(r"\(size_t\)", "", expr).replace("/", "//"), {}, names)


def define(name, text):
    m = re.search(rf"#define {name} (\d+)", text)
    return int(m.group(1)) if m else None


def c_macros(text):
    """The sources' size macros as Python functions of the names before them: TILE_A, TILE_B(BN),
    STAGE_BYTES(BN), SMEM(BN, STAGES), with BM and BK from the same file."""
    names = {"BM": define("BM", text), "BK": define("BK", text)}
    for name in ("TILE_A", "TILE_B", "STAGE_BYTES", "SMEM"):
        m = re.search(rf"#define {name}(\(([^)]*)\))? (.*)", text)
        if m:
            args = m.group(2) or ""
            names[name] = eval(f"lambda {args}: {m.group(3)}" if args else m.group(3), dict(names))
    return names


def drawn_twice(folder, names):
    """A step's pictures drawn twice by plots/tensor_pictures.py --step, each in a process of its
    own: (both runs exit 0, their stderr, {file: bytes} of the first, [files that differ], {name:
    the first's SVG text}) for each picture name, as PNG and SVG."""
    with tempfile.TemporaryDirectory() as tmp:
        outs = [os.path.join(tmp, d) for d in ("one", "two")]
        runs = [subprocess.run([sys.executable, os.path.join(ROOT, "plots", "tensor_pictures.py"), "--step", folder,
                                "--out", out], capture_output=True, text=True) for out in outs]
        files = [f"{n}.{ext}" for n in names for ext in ("png", "svg")]

        def read(out, f):
            path = os.path.join(out, f)
            return open(path, "rb").read() if os.path.exists(path) else b""
        first = {f: read(outs[0], f) for f in files}
        differ = [f for f in files if first[f] != read(outs[1], f)]
    svg = {n: first[n + ".svg"].decode(errors="replace") for n in names}
    return all(p.returncode == 0 for p in runs), "".join(p.stderr for p in runs), first, differ, svg


def check_drawn(ok, folder, names):
    """The TAP lines every step's pictures owe: drawn, non-empty PNG and SVG, the same bytes twice;
    the SVG texts, for the step's own checks."""
    ran, err, first, differ, svg = drawn_twice(folder, names)
    ok(ran, f"plots/tensor_pictures.py --step {folder} runs", err)
    ok(all(data.startswith(b"\x89PNG") for f, data in first.items() if f.endswith(".png"))
       and all(len(data) > 10000 for data in first.values()),
       f"{', '.join(names)}: written, as a non-empty PNG and an SVG each")
    ok(not differ, "drawn twice, every file is the same byte for byte", " ".join(differ))
    return svg
