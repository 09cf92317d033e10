"""The development versions' measurement (scripts/experiment.py versions) and README table
(tables_shared.versions_table) on a fixture (made up here, labelled as such, never a
measurement): a FAIL is recorded and shown, expected only where the version is marked so;
no rows give one sentence; the versions' rows stay out of the ladder's tables; make
reproduce runs them after the tensor part. No GPU needed: the GPU and the programs are
stood in for. TAP output (tests/15-versions-table.t)."""
import contextlib
import io
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "scripts"))
import experiment
import ladder
import reproduce
import tables_shared
from tap import done, ok

DEVICE = "Fixture GPU (test data, not a measurement)"
VERSIONS = ladder.versions()  # the real chains, found in the step folders
PROGRAM_OF = {binary: prog for prog, (binary, _, _) in VERSIONS.items()}
ORDER = list(VERSIONS)
# The version kept to show a failure (its step_info says so), and two that are not: the
# first version of all, and the step after it in its chain.
ON_PURPOSE = next(p for p, (_, _, may_fail) in VERSIONS.items() if may_fail)
FIRST = ORDER[0]
OTHER = next(p for p in ORDER[1:] if not VERSIONS[p][2] and p != ON_PURPOSE)


def fake_run(fails, name_of=PROGRAM_OF, tf32_rows=()):
    """A stand-in for ladder.run_csv: the row a program would print, FAIL (exit 1) for the
    programs in fails."""
    def run_csv(cmd):
        prog, n = name_of[cmd[0]], int(cmd[cmd.index("-n") + 1])
        bad = prog in fails
        r = {c: "1" for c in ladder.PROGRAM_COLUMNS}  # a whole number: valid in every number column
        r.update(program=prog, n=str(n), device=DEVICE, gflops=str(100000.0 + n), avg_rel_err="4.3e-05" if bad else "6e-07",
                 status="FAIL" if bad else "pass", config="64x128x32/3", dist="uniform",
                 precision="tf32" if prog == FIRST or prog in tf32_rows else "fp32", max_comp_err="5e-05", tolerance="3.4e-05")
        return r, 1 if bad else 0, ""
    return run_csv


def measure(tmp, fails=(), gpu=(DEVICE, {}), keep=False, **kw):
    """The runner's versions with the GPU and the programs stood in for: (exit code, rows, log);
    the CSV and the log removed after unless keep."""
    saved = ladder.ROOT, ladder.gpu_info, ladder.run_csv, ladder.versions
    # The chains stay the tree's (found before the root moves); their programs, the stand-ins'.
    ladder.ROOT, ladder.gpu_info, ladder.run_csv = tmp, lambda: gpu, fake_run(fails, **kw)
    ladder.versions = lambda **_: VERSIONS
    try:
        results = os.path.join(tmp, "results")
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            code = experiment.versions(["--results", results])
        csv_path = os.path.join(results, ladder.slug(DEVICE) + "-versions.csv")
        log_path = os.path.join(results, ladder.slug(DEVICE) + "-versions.txt")
        rows = ladder.read_results(csv_path)
        log = open(log_path).read() if os.path.exists(log_path) else ""
        for p in (csv_path, log_path):
            if os.path.exists(p) and not keep:
                os.remove(p)
        return code, rows, log
    finally:
        ladder.ROOT, ladder.gpu_info, ladder.run_csv, ladder.versions = saved


with tempfile.TemporaryDirectory() as tmp:
    code, rows, log = measure(tmp, gpu=(None, "no GPU here"))
    ok(code == ladder.EXIT_NO_GPU and not rows, "the versions without a GPU: exit 3, nothing recorded")
    code, rows, log = measure(tmp)
    ok(code == 1 and not rows, "the versions not built: exit 1, nothing recorded")
    for binary in PROGRAM_OF:
        os.makedirs(os.path.dirname(os.path.join(tmp, binary)), exist_ok=True)
        open(os.path.join(tmp, binary), "w").close()

    code, rows, log = measure(tmp, fails={ON_PURPOSE})
    got = {(r["program"], r["n"]): r["status"] for r in rows}
    ok(code == 0 and len(rows) == 2 * len(VERSIONS) and got[(ON_PURPOSE, "4096")] == "FAIL"
       and got[(ON_PURPOSE, "8192")] == "FAIL" and got[(FIRST, "4096")] == "pass",
       f"{ON_PURPOSE}'s FAIL (expected: its step_info says so) is recorded at both sizes; the script exits 0", rows)
    ok(all(r["command"].endswith(f"-n {r['n']} --reps 20 --csv") and r["date"] for r in rows),
       "each row holds its date and command (REPS 20, the default configuration)")
    ok(log.startswith(f"# scripts/experiment.py versions on {DEVICE}, ")
       and "\n# $ python3 scripts/experiment.py versions --results " in log and "(a FAIL this run expects)" in log,
       "the log is headed with the date and the command, and says the FAIL was expected", log)
    code, rows, log = measure(tmp, fails={OTHER})
    ok(code == 1 and [r["status"] for r in rows if r["program"] == OTHER] == ["FAIL", "FAIL"],
       f"an unexpected FAIL ({OTHER}) is recorded too, and the script exits 1")
    wrong = dict(PROGRAM_OF, **{VERSIONS[OTHER][0]: FIRST})
    code, rows, log = measure(tmp, name_of=wrong)
    ok(code == 1 and len(rows) == 2 * (len(VERSIONS) - 1),
       "a program that calls itself by another version's name is not recorded, and the script exits 1")

    # The table, from a fixture CSV: every version in order, TFLOPS and mean errors per size,
    # the class and verdict, a FAIL shown as it is.
    results = os.path.join(tmp, "results")
    ok(tables_shared.versions_table(results).startswith("No run of the development versions is recorded yet"),
       "no CSV: the table is one sentence saying so")
    measure(tmp, fails={ON_PURPOSE, OTHER}, keep=True)
    text = tables_shared.versions_table(results)
    lines = text.split("\n")
    body = [line for line in lines if line.startswith("| `")]
    ok(lines[0].startswith(f"**{DEVICE}** (measured ") and "median of 20" in lines[0], "the table names the device, "
       "the date and the kernel time's median", text)
    ok("| version | what changed | TFLOPS n = 4096 | TFLOPS n = 8192 | mean rel. error n = 4096 | mean rel. error "
       "n = 8192 | class: verdict (n = 4096, 8192) |" in text, "its columns: TFLOPS and mean relative error per size",
       text)
    ok([line.split("`")[1] for line in body] == ORDER, "one row per version, in order", text)
    ok(all(VERSIONS[line.split("`")[1]][1] in line for line in body), "each row says what changed (its .change)")
    ok("| 104.1 | 108.2 | 6.00e-07 | 6.00e-07 | tf32: pass, pass |" in body[0], "TFLOPS and errors formatted",
       body[0])
    on, other = ORDER.index(ON_PURPOSE), ORDER.index(OTHER)
    ok(body[on].endswith("| fp32: FAIL, FAIL (as expected) |"), f"{ON_PURPOSE}'s FAIL is shown, as expected", body[on])
    ok(body[other].endswith("| fp32: FAIL, FAIL |"), "an unexpected FAIL is shown, not marked as expected: the table "
       "can fail", body[other])
    measure(tmp, keep=True)  # the same programs measured again, all within their bounds
    body = [line for line in tables_shared.versions_table(results).split("\n") if line.startswith("| `")]
    ok(body[on].endswith("| fp32: pass, pass |") and len(body) == len(VERSIONS),
       f"measured again, {ON_PURPOSE}'s row replaced: a pass is not marked", body[on])
    ok(not any(p.endswith("-versions.csv") for p in tables_shared.ladder_files(results))
       and not tables_shared.device_results(results), "the versions' rows (steps among them) stay out of the "
       "ladder's tables")

# make reproduce: the part "versions" after "tensor", its one command, an estimate before it
# has ever run.
ok(reproduce.PARTS.index("versions") > reproduce.PARTS.index("tensor"), "reproduce: part 'versions' comes after 'tensor'")
cmds = reproduce.part_commands("versions", DEVICE, {}, False, False)
ok(len(cmds) == 1 and cmds[0][0][1].endswith("experiment.py")
   and cmds[0][0][2:] == ["versions", "--sizes", "1000 4096 8192", "--reps", "20"] and cmds[0][2] is None,
   "reproduce runs the versions at n = 1000, 4096 and 8192, REPS 20; the runner keeps their log", cmds)
ok(reproduce.estimate("versions", DEVICE, {}, []) == reproduce.FIRST_ESTIMATES["versions"],
   "reproduce estimates the part's time before it has been measured")
done()
