"""What the scripts check before anything runs, on stand-ins (no GPU, no tool needed): the GPU
counts of the multi-GPU sweep against the machine's, a sweep's variant values against those the
step declares and sizes against its program's rule, make reproduce's parts and its plan without
a GPU (and without a build), the results files read (one that cannot be read is named with its
line), and the line that names a missing tool. TAP output (run by tests/26-script-errors.t)."""
import contextlib
import io
import os
import re
import subprocess
import sys
import tempfile
import types

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "scripts"))
import experiment
import ladder
import multigpu_sweep
import reproduce
from tap import done, ok, skip

# Nothing here measures: the scripts run as subprocesses see no GPU, and write into a fresh folder.
_scratch = tempfile.TemporaryDirectory(prefix="script_checks_")  # removed when the test ends
SCRATCH = _scratch.name
ENV = dict(os.environ, CUDA_VISIBLE_DEVICES="", MATMUL_RESULTS=os.path.join(SCRATCH, "results"))


def script(*args, env=ENV):
    """Run one of the scripts: (exit code, stdout, stderr)."""
    p = subprocess.run([sys.executable] + list(args), cwd=ladder.ROOT, capture_output=True, text=True, env=env)
    return p.returncode, p.stdout, p.stderr


def one_line(err):
    return len(err.strip().splitlines()) == 1 and "Traceback" not in err


def call(function, argv):
    """function(argv) in this process: (its exit code, stdout, stderr); a SystemExit is its code,
    an exception (what would be a traceback) the code "raised", its name and message on stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = function(argv)
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else 1
            if not isinstance(e.code, int):
                err.write(f"{e.code}\n")
        except Exception as e:  # noqa: BLE001 (the test reports it, and goes on)
            code = "raised"
            err.write(f"Traceback: {type(e).__name__}: {e}\n")
    return code, out.getvalue(), err.getvalue()


# ---- the multi-GPU sweep's GPU counts ----

counts, refusal = multigpu_sweep.counts_to_run(None, 4)
ok(counts == [1, 2, 3, 4] and refusal is None, "no --gpus: 1 ... every GPU the machine has", counts)
counts, refusal = multigpu_sweep.counts_to_run([1, 2], 2)
ok(counts == [1, 2] and refusal is None, "--gpus 1 2 on 2 GPUs: both", counts)
counts, refusal = multigpu_sweep.counts_to_run([1, 8], 2)
ok(counts is None and refusal and "8" in refusal and "this machine has 2" in refusal,
   "--gpus 1 8 on 2 GPUs: refused, naming the count asked and the count present (not run on the 2 it has)", refusal)
counts, refusal = multigpu_sweep.counts_to_run([2], 1)
ok(counts is None and "asks for 2 GPUs; this machine has 1" in refusal, "--gpus 2 on one GPU: refused", refusal)

# The whole script with the GPU and the program stood in for: a count the machine lacks ends it
# with exit 4 and one line before any run; one it has runs.
ran = []
with tempfile.TemporaryDirectory() as root:
    os.makedirs(os.path.join(root, "multigpu"))
    open(os.path.join(root, multigpu_sweep.EXE), "w").close()
    saved = (ladder.ROOT, ladder.gpu_info, multigpu_sweep.features, experiment.run_table,
             os.environ.get("MATMUL_RESULTS"))
    ladder.ROOT, ladder.gpu_info = root, lambda: ("GPU F", {})
    multigpu_sweep.features = lambda: {"gpus": "1", "nccl": "2.0.0", "cublasmp": "", "cublasmp_why": "stand-in"}
    experiment.run_table = lambda cmd: (ran.append(cmd), ([], 0, ""))[1]
    os.environ["MATMUL_RESULTS"] = os.path.join(root, "results")
    try:
        code, out, err = call(multigpu_sweep.main, ["--gpus", "8", "--sizes", "64"])
        ok(code == ladder.EXIT_NO_FEATURE and one_line(err) and "8" in err and "has 1" in err and not ran,
           "multigpu_sweep.py --gpus 8 on a machine of 1 GPU: exit 4, one line, nothing run", (code, err, ran))
        code, out, err = call(multigpu_sweep.main, ["--gpus", "1", "--sizes", "64"])
        ok(code == 0 and len(ran) == 1 and ran[0][ran[0].index("--gpus") + 1] == "1",
           "multigpu_sweep.py --gpus 1 on that machine: runs on one GPU", (code, err, ran))
    finally:
        ladder.ROOT, ladder.gpu_info, multigpu_sweep.features, experiment.run_table = saved[:4]
        if saved[4] is None:
            os.environ.pop("MATMUL_RESULTS", None)
        else:
            os.environ["MATMUL_RESULTS"] = saved[4]
code, out, err = script("scripts/multigpu_sweep.py", "--gpus", "0")
ok(code == ladder.EXIT_USAGE and one_line(err) and "--gpus" in err, "multigpu_sweep.py --gpus 0: exit 2, one line, "
   "before the GPU is looked for", (code, err))

# ---- a step's sweeps: variant values and sizes checked against what the step declares ----

ladder.discover(built_only=True)
declared = [(p, e) for p, e in ladder.experiments().items() if e.get("variants") and e.get("sweeps")]
if declared:
    step, entry = declared[0]
    values = [str(v) for v in entry["variants"]["values"]]
    name = next(n for n, e in entry["sweeps"].items() if e.get("variants"))
    stray = str(max(int(v) for v in values) + 1) if all(v.isdigit() for v in values) else values[0] + "x"
    chosen = experiment.step_sweeps([step], name)
    a = types.SimpleNamespace(variants=f"{values[0]} {stray}", sizes=None)
    why = experiment.sweep_refusal(chosen, a)
    ok(why and stray in why and " ".join(values) in why and values[0] + " " + stray not in why,
       f"{step}'s sweep {name}: a value it does not declare is refused, the declared ones listed", why)
    ok(experiment.sweep_refusal(chosen, types.SimpleNamespace(variants=" ".join(values[:2]), sizes=None)) is None,
       "declared values are taken")
    code, out, err = script("scripts/experiment.py", "sweep", "--step", step, "--name", name, "--sizes", "8",
                            "--variants", stray, "--plan")
    ok(code == ladder.EXIT_USAGE and one_line(err) and stray in err and not out,
       f"experiment.py sweep --step {step} --name {name} --variants {stray}: exit 2, one line, nothing planned",
       (code, out, err))
    others = [s for s in experiment.step_sweeps() if not s[2].get("variants")]
    if others:
        code, out, err = script("scripts/experiment.py", "sweep", "--step", others[0][0], "--name", others[0][1],
                                "--variants", values[0], "--plan")
        ok(code == ladder.EXIT_USAGE and one_line(err) and "no sweep chosen builds variants" in err,
           "--variants for a sweep that builds none: refused", (code, err))
else:
    skip("a sweep's variant values", "no step declares variants and sweeps")

table = [(s, n, e) for s, n, e in experiment.step_sweeps() if "program" in e and e.get("multiple_of", 1) > 1]
if table:
    step, name, entry = table[0]
    m = entry["multiple_of"]
    good, bad = 250 * m, 250 * m + 1
    why = experiment.sweep_refusal([table[0]], types.SimpleNamespace(variants=None, sizes=[bad, good]))
    ok(why and str(bad) in why and str(good) not in why.split(":")[0] and f"multiples of {m}" in why,
       f"{step}'s sweep {name}: a size that is not a multiple of {m} is refused, naming it and the rule", why)
    code, out, err = script("scripts/experiment.py", "sweep", "--step", step, "--name", name, "--sizes",
                            f"{bad} {good}", "--plan")
    ok(code == ladder.EXIT_USAGE and one_line(err) and str(bad) in err and not out,
       f"experiment.py sweep --step {step} --name {name} --sizes \"{bad} {good}\": exit 2, one line (not run at "
       f"{good} alone)", (code, out, err))
    code, out, err = script("scripts/experiment.py", "sweep", "--step", step, "--name", name, "--sizes", str(good),
                            "--plan")
    ok(code == 0 and f"--sizes {good} " in out, f"... and --sizes {good} is planned", (code, out, err))
else:
    skip("a sweep's sizes", "no step's own program declares multiple_of")
code, out, err = script("scripts/experiment.py", "sweep", "--name", "no-such-sweep")
ok(code == ladder.EXIT_USAGE and one_line(err) and "no sweep declared" in err,
   "a sweep no step declares: exit 2, one line (not 'nothing to do' and exit 0)", (code, err))

# ---- make reproduce: its parts, and its plan without a GPU ----

code, out, err = script("scripts/reproduce.py", "--only", "compare", "--skip", "compare")
ok(code == ladder.EXIT_USAGE and one_line(err) and "leave no part" in err and not out,
   "reproduce.py --only compare --skip compare: exit 2, one line", (code, out, err))
code, out, err = script("scripts/reproduce.py", "--skip", "no-such-part")
ok(code == ladder.EXIT_USAGE and one_line(err) and "unknown part 'no-such-part'" in err,
   "reproduce.py --skip with an unknown part: exit 2, one line", (code, err))
code, out, err = script("scripts/reproduce.py", "--dry-run")
gpu_parts = [p for p in reproduce.PARTS if p in reproduce.GPU_PARTS]
ok(code == 0 and not err and all(f"] {p} " in out for p in reproduce.PARTS)
   and out.count("needs a GPU") == len(gpu_parts) and "$ " in out,
   "reproduce.py --dry-run without a GPU: the whole plan, each command, the GPU's parts marked; exit 0",
   (code, out[-1500:], err))
code, out, err = script("scripts/reproduce.py", "--only", "compare")
ok(code == ladder.EXIT_NO_GPU and one_line(err) and "no GPU" in err and not out,
   "reproduce.py without --dry-run and without a GPU: exit 3, one line", (code, out, err))

# The plan's words: "1 command", not "1 commands"; a part never timed says so, not "about unknown";
# a part skipped here is given no time.
code, out, err = script("scripts/reproduce.py", "--dry-run")
part_lines = [line for line in out.splitlines() if line.startswith("  [")]
counted = [(int(m.group(1)), m.group(2)) for m in (re.search(r"\] \S+ +(\d+) (commands?)\b", line) for line in part_lines) if m]
ok(len(counted) == len(reproduce.PARTS) and all((n == 1) == (word == "command") for n, word in counted)
   and "unknown" not in out and not any(" 0 commands, about" in line for line in part_lines),
   "reproduce.py --dry-run: '1 command', never 'about unknown', no time for a part skipped", "\n".join(part_lines))
# make reproduce checks the parts (and the results folder) before it builds anything.
code, out, err = script("scripts/reproduce.py", "--only", "cpu", "--check")
ok(code == 0 and not out and not err, "reproduce.py --check with a part that exists: exit 0, nothing said", (code, out, err))
code, out, err = script("scripts/reproduce.py", "--only", "bogus", "--check")
ok(code == ladder.EXIT_USAGE and one_line(err) and "unknown part 'bogus'" in err, "reproduce.py --check --only bogus: "
   "exit 2, one line", (code, err))
# The plan before anything is built: the programs as results/programs.csv records them stand in.
saved_binaries = ladder.step_binaries
ladder.step_binaries = lambda: ["step99_not_built/step99"]
try:
    code, out, err = call(reproduce.main, ["--dry-run", "--only", "article"])
finally:
    ladder.step_binaries = saved_binaries
ok(code == 0 and "] article" in out and "$ " in out, "reproduce.py --dry-run with no program built: the plan, from "
   "the recorded descriptions", (code, out[-500:], err))

# A timings file of make reproduce's that cannot be read (a word for the seconds, the part column
# gone): named in one line, exit 2, no traceback.
for what, text in (("seconds = fast", "date,device,fp32_peak_gflops,part,seconds\n2026,x,1,cpu,fast\n"),
                   ("no part column", "date,device,fp32_peak_gflops,seconds\n2026,x,1,4\n")):
    bad = os.path.join(SCRATCH, "bad-timings")
    os.makedirs(bad, exist_ok=True)
    with open(os.path.join(bad, "x-reproduce.csv"), "w") as f:
        f.write(text)
    code, out, err = script("scripts/reproduce.py", "--dry-run", env=dict(ENV, MATMUL_RESULTS=bad))
    ok(code == ladder.EXIT_USAGE and one_line(err) and "x-reproduce.csv" in err,
       f"reproduce.py --dry-run beside a timings file with {what}: exit 2, one line naming it", (code, err))

# With a GPU stood in for, a tool the plan runs that is not on PATH ends it before any part runs.
saved = ladder.gpu_info, os.environ.get("PATH"), os.environ.get("MATMUL_RESULTS")
fields = {"name": "GPU F", "cc": "9.0", "sms": "1", "clock_khz": "1000", "smem_device_optin_bytes": "232448"}
with tempfile.TemporaryDirectory() as tmp:
    ladder.gpu_info = lambda: ("GPU F", fields)
    os.environ["PATH"], os.environ["MATMUL_RESULTS"] = tmp, os.path.join(tmp, "results")
    try:
        code, out, err = call(reproduce.main, ["--only", "device"])
        logs = os.listdir(os.path.join(tmp, "results"))
    finally:
        ladder.gpu_info = saved[0]
        for k, v in (("PATH", saved[1]), ("MATMUL_RESULTS", saved[2])):
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
ok(code == ladder.EXIT_USAGE and one_line(err) and err.startswith("date not found") and "part 'device'" in err
   and not logs, "reproduce.py with a tool of the plan missing: exit 2, one line naming it, before any part runs",
   (code, err, logs))

# ---- a results file that cannot be read: named with its line, never a traceback ----

COLUMNS = "date,command,program,n,device,kernel_ms,gflops,status,dist\n"
ROW = "2026-01-01T00:00Z,fixture,step01,1000,Fixture GPU,1.0,2000,pass,uniform\n"


def read_fixture(data):
    """ladder.read_results on a file holding data: (its rows, or None; the ResultsError's message)."""
    path = os.path.join(SCRATCH, "fixture.csv")
    with open(path, "wb") as f:
        f.write(data.encode() if isinstance(data, str) else data)
    try:
        return ladder.read_results(path), None
    except ladder.ResultsError as err:
        return None, str(err)


rows, why = read_fixture(COLUMNS + ROW + ROW.replace("1000", "4096").replace(",pass,", ",,").replace("2000", "nan"))
ok(why is None and len(rows) == 2 and rows[1]["status"] == "", "a good file, an empty cell and nan among its numbers: read",
   why)
for what, data, expect in (("not UTF-8", (COLUMNS + ROW + ROW).encode().replace(b"Fixture", b"Fix\xffture", 2)[:-5],
                            "line 2: not UTF-8 text (byte 0xff)"),
                           ("n = x", COLUMNS + ROW + ROW.replace(",1000,", ",x,"), "line 3: n is 'x', not a number"),
                           ("gflops = fast", COLUMNS + ROW.replace(",2000,", ",fast,"), "line 2: gflops is 'fast', not a number"),
                           ("a field short", COLUMNS + ROW.replace(",uniform", ""), "line 2: 8 fields, the header has 9")):
    rows, why = read_fixture(data)
    ok(why is not None and "fixture.csv, " + expect in why and "\n" not in why,
       f"a results file with {what}: ResultsError naming the file and the line", why)
rows, why = read_fixture(COLUMNS.replace("device,", "") + ROW.replace("Fixture GPU,", ""))
try:
    rows[0]["device"]
    missing = None
except KeyError as err:  # a MissingColumn is a KeyError too: whoever handles one still does
    missing = err
ok(isinstance(missing, ladder.MissingColumn) and str(missing).endswith("fixture.csv has no column 'device'"),
   "a column the file lacks, asked of a row: MissingColumn naming the file and the column", repr(missing))
# Recording beside a file that cannot be read: one line, exit 2, the file left as it was.
read_fixture(COLUMNS.encode() + b"\xff\n")
code, out, err = call(lambda argv: ladder.record(os.path.join(SCRATCH, "fixture.csv"), [{"program": "step01"}]), [])
ok(code == ladder.EXIT_USAGE and one_line(err) and "not UTF-8" in err
   and open(os.path.join(SCRATCH, "fixture.csv"), "rb").read().endswith(b"\xff\n"),
   "recording into a file that cannot be read: one line, exit 2, the file untouched", (code, err))

# ---- a missing tool, in one line ----

line = ladder.missing_tool("compute-sanitizer")
ok(line.startswith("compute-sanitizer not found: make sanitize runs the CUDA toolkit's compute-sanitizer: ")
   and "apt-get install cuda-sanitizer-" in line and line.endswith(", or put the toolkit's bin/ on PATH"),
   "the missing tool's line: what needs it and how to get it, in the Makefile's words", line)
ok(all("\n" not in ladder.missing_tool(t) and ladder.missing_tool(t).startswith(f"{t} not found: ")
       for t in ladder.TOOLS), "every tool's line is one line naming it")
code, out, err = call(lambda argv: ladder.require_tool("no-such-tool-here", "this test needs it"), [])
ok(code == ladder.EXIT_USAGE and err == "no-such-tool-here not found: this test needs it\n",
   "require_tool: exit 2, one line", (code, err))

done()
