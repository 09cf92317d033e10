"""One way in: what a step declares is read the same way by every consumer, and a step's Python is
a plug-in (tests/30-one-way-in.t). Checked here:
- nothing in a step's folder edits sys.path, and a step's own Python imports only the standard
  library and matplotlib (what it needs of the repository is handed to it: scripts/for_steps.py);
- the build and the scripts read no step_info field out of a source (no sed, grep or regex over
  the .cu files: they ask the program, --describe, or read what it said, results/programs.csv);
- --describe carries every field of step_info that a consumer reads, and the record of it
  (results/programs.csv) carries what the pages read where nothing is built, the same as the
  built programs say;
- make diff's pair follows the program's own builds_on (a stand-in says another), not its source;
- experiments.json holds only the generic kinds, each sweep of a known form.
TAP output. The programs must be built (make test builds them)."""
import ast
import csv
import glob
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import ladder  # noqa: E402
from tap import done, ok  # noqa: E402

STEP_FOLDERS = sorted(d for d in os.listdir(ROOT) if re.fullmatch(r"step\d\d_\w+", d))


def text(path):
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read()
    except (UnicodeDecodeError, OSError):
        return ""  # a built binary


def imports(path):
    """The top-level modules a Python file imports."""
    tree = ast.parse(text(path))
    return {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names} | \
        {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}


# ---- a step's Python: a plug-in ----

step_files = [os.path.join(dp, f) for d in STEP_FOLDERS for dp, _, fs in os.walk(os.path.join(ROOT, d)) for f in fs]
edits = [os.path.relpath(p, ROOT) for p in step_files if "sys.path" in text(p)]
ok(step_files and not edits, f"no file in a step folder edits sys.path ({len(step_files)} files)", " ".join(edits))

own_python = sorted(glob.glob(os.path.join(ROOT, "step[0-9][0-9]_*", "*.py")))
foreign = {os.path.relpath(p, ROOT): sorted(m for m in imports(p) if m != "matplotlib" and m not in sys.stdlib_module_names)
           for p in own_python}
ok(own_python and not any(foreign.values()), "a step's own Python imports only the standard library and matplotlib: "
   + " ".join(os.path.relpath(p, ROOT) for p in own_python), {p: m for p, m in foreign.items() if m})
mains = [os.path.relpath(p, ROOT) for p in own_python if re.search(r'^if __name__ == "__main__":', text(p), re.M)]
ok(not mains, "none of it is a script of its own (the machinery loads it: scripts/step_plugins.py)", " ".join(mains))

# ---- no step_info field read out of a source ----

step_h = text(os.path.join(ROOT, "common", "step.h"))
struct = re.search(r"struct step_info \{(.*?)\n\};", step_h, re.S).group(1)
fields = re.findall(r"^\s+(?:const\s+)?[\w ]+?[\s*(]+(\w+)\)?(?:\([^)]*\))?;", re.sub(r"/\*.*?\*/", "", struct, flags=re.S),
                    re.M)
ok({"program", "lesson", "builds_on", "change", "fails_on_purpose", "min_cc"} <= set(fields)
   and "exact_cc" not in fields, f"step_info's fields, from common/step.h: {' '.join(fields)} (no exact_cc: the build "
   "holds the architecture)")


def shell_calls(makefile):
    """The $(shell ...) calls of a makefile, their parentheses balanced."""
    out, s = [], text(makefile)
    for m in re.finditer(r"\$\(shell ", s):
        depth, i = 1, m.end()
        while depth and i < len(s):
            depth += {"(": 1, ")": -1}.get(s[i], 0)
            i += 1
        out.append(s[m.start():i])
    return out


makefiles = [os.path.join(ROOT, "Makefile")] + glob.glob(os.path.join(ROOT, "*.mk")) + \
    glob.glob(os.path.join(ROOT, "*", "*.mk")) + [os.path.join(ROOT, d, "Makefile") for d in STEP_FOLDERS]
field_words = re.compile(r"\b(step_info|" + "|".join(map(re.escape, fields)) + r")\b")
read_in_make = [c for m in makefiles for c in shell_calls(m) if field_words.search(c) or re.search(r"\bsed\b.*\.cu", c)]
ok(not read_in_make, f"the build reads no step_info field with $(shell ...) ({len(makefiles)} makefiles)",
   "\n".join(read_in_make))
ok(field_words.search("$(shell sed -n 's/.exact_cc = //p' x.cu)".replace("exact_cc", "builds_on")),
   "... (the check sees such a read where there is one)")


def reads_a_field(literal):
    """A string that reads a step_info field out of C text: a regex of '.field' or of the struct."""
    return "step_info = " in literal or any(re.search(r"\\\.\(?" + f + r"\b", literal) for f in fields)


literals = {}
for path in glob.glob(os.path.join(ROOT, "scripts", "*.py")) + glob.glob(os.path.join(ROOT, "plots", "*.py")) + own_python:
    found = [n.value for n in ast.walk(ast.parse(text(path))) if isinstance(n, ast.Constant) and isinstance(n.value, str)
             and reads_a_field(n.value)]
    if found:
        literals[os.path.relpath(path, ROOT)] = found
ok(not literals, "the scripts, charts and steps' Python hold no pattern that reads a step_info field from a source",
   literals)
ok(reads_a_field(r'^\s*\.builds_on\s*=\s*"(\w+)"') and reads_a_field(r"const struct step_info step_info = \{(.*?)\n\};")
   and not reads_a_field("builds_on"), "... (the check sees such a pattern where there is one, not the plain word)")

# ---- --describe carries what the consumers read; the record says the same ----

# Fields no consumer reads from --describe, each with why.
NOT_DESCRIBED = {"dynamic_smem_bytes": "a function of n: --describe -n N's configs, and the run, say what it needs",
                 "maths": "one --describe block per arithmetic (row, math) says them",
                 "scratch_matrices": "the harness's own memory check before it allocates"}
binaries = [b for b in ladder.step_binaries() if os.path.exists(os.path.join(ROOT, b))]
versions = [ladder.version_binary(s) for _, sources in ladder.version_sources() for s in sources]
built_versions = [v for v in versions if os.path.exists(os.path.join(ROOT, v))]
if len(binaries) != len(ladder.step_binaries()):
    print("Bail out! the steps are not built: make test builds them")
    sys.exit(1)
described = {b: ladder.describe(b)[0] for b in binaries + built_versions}
missing = {b: sorted(set(fields) - set(NOT_DESCRIBED) - set(d)) for b, d in described.items()}
ok(not any(missing.values()) and all({"archs", "exact_cc", "row", "math"} <= set(d) for d in described.values()),
   f"--describe carries every field of step_info a consumer reads, and the architectures the build holds "
   f"({len(binaries)} steps, {len(built_versions)} versions)", {b: m for b, m in missing.items() if m})
ok(set(NOT_DESCRIBED) <= set(fields), "... and the fields it leaves out are step_info's", sorted(NOT_DESCRIBED))

with open(ladder.CATALOGUE, newline="") as fh:
    header = next(csv.reader(fh))
ok(header == ladder.CATALOGUE_COLUMNS and {"builds_on", "change", "fails_on_purpose", "exact_cc"} <= set(header),
   "results/programs.csv records what the pages read where nothing is built (builds_on, change, fails_on_purpose, "
   "exact_cc)", header)
recorded = ladder.read_catalogue()
by_binary = {r["binary"]: r for r in recorded.values()}
stale = [f"{b}: {k} '{by_binary.get(b, {}).get(k)}', the program says '{d.get(k, '')}'" for b, d in described.items()
         for k in ("program", "builds_on", "change", "fails_on_purpose") if by_binary.get(b, {}).get(k) != d.get(k, "")]
ok(not stale, "the record says of each step and built version what the program says (make plots records it: "
   "scripts/ladder.py record)", "\n".join(stale))
measured = {r["program"] for p in glob.glob(os.path.join(ROOT, "results", "*-versions.csv"))
            for r in ladder.read_results(p)}
unrecorded = sorted(measured - set(recorded))
ok(measured and not unrecorded, f"every program of the versions' runs is described in the record ({len(measured)})",
   " ".join(unrecorded))

# ---- make diff follows the program's builds_on ----

last = ladder.step_binaries()[-1]
program = os.path.basename(last)
real = ladder.describe
try:  # a stand-in program that says it builds on the first step: the pair follows it, whatever its source says
    first = os.path.basename(ladder.step_binaries()[0])
    ladder.describe = lambda b, n=None: [dict(real(b, n)[0], builds_on=first)] if b == last else real(b, n)
    ladder.describe_built(program)
    pair = ladder.before(program)
finally:
    ladder.describe = real
ok(pair == (ladder.step_binaries()[0] + ".cu", last + ".cu"),
   f"make diff STEP={program[4:]}: the step its program names (a stand-in naming {first}), not what its source says",
   pair)
ladder.describe_built(program)  # its own description again
declared = (ladder.PROGRAMS[program].get("builds_on") or "").split()[:1]  # the first it names
expected = next(b for b in ladder.step_binaries() if [os.path.basename(b)] == declared) if declared else \
    ladder.step_binaries()[-2]
ok(ladder.before(program) == (expected + ".cu", last + ".cu"),
   f"... and as the program says: {expected}.cu against {last}.cu", ladder.before(program))

# ---- experiments.json: the generic kinds ----

KINDS = {"variants", "sweeps", "tables", "charts", "prose"}
OLD = {"tile_sweep", "warptile_sweep", "extra_sizes", "counters", "caps", "configs_table"}
declared = {p: json.load(open(p)) for p in sorted(glob.glob(os.path.join(ROOT, "step[0-9][0-9]_*", "experiments.json")))}
strays = {os.path.relpath(p, ROOT): sorted(set(e) - KINDS) for p, e in declared.items()}
ok(declared and not any(strays.values()), f"experiments.json holds only the generic kinds ({', '.join(sorted(KINDS))})",
   {p: s for p, s in strays.items() if s})
ok(not OLD & {k for e in declared.values() for k in e}, "... none of the six keys one or two early steps used to have")
forms = {f"{os.path.relpath(p, ROOT)} {n}": [k for k in ("runs", "program", "function") if k in s]
         for p, e in declared.items() for n, s in e.get("sweeps", {}).items()}
ok(forms and all(len(f) == 1 for f in forms.values()), "each sweep is one form: runs of programs, a program of the "
   "step's own, or the step's own Python", {k: f for k, f in forms.items() if len(f) != 1})
functions = [(p, e["function"]) for p, d in declared.items() for kind in KINDS - {"variants"}
             for e in d.get(kind, {}).values() if "function" in e]
lost = [f"{os.path.relpath(p, ROOT)}: {f}" for p, f in functions
        if not re.search(rf"^def {f.rsplit('.', 1)[1]}\(shared\b",
                         text(os.path.join(os.path.dirname(p), f.rsplit(".", 1)[0] + ".py")), re.M)]
ok(functions and not lost, f"each function a step declares is in its folder's Python and takes the shared helpers "
   f"first ({len(functions)})", "\n".join(lost))
done()
