"""The lists the top README and common/README.md show are generated from what the programs declare
(scripts/page_lists.py), and the checks around them can fail (tests/33-page-lists.t):
- as the tree stands, no list is stale and nothing is missing;
- in a scratch copy of the repository, a step whose declared precision class changes (in the record
  that make plots writes, or in the program's own --describe) makes the pages' check fail until
  the pages are generated again, and then they list the step in its new class; a new step, a new
  input family and a newer recorded run of a step make it fail too, and a results file that cannot
  be read (not UTF-8) makes it stop with one line naming the file, exit 2, not a traceback;
- the README's install line names every package .ci/run installs, its Layout names every file of
  the harness, the chapters and the scripts and no file that is not there, it is at most 250 lines
  (one limit, said once),
  and each Then-and-now row takes its speed from the step's latest recorded run (each check fails
  on the README before these pages were generated, and on a README broken on purpose).
TAP output. Needs git (the scratch copy is the checkout's files); the programs need not be built."""
import csv
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import ladder  # noqa: E402
import page_lists  # noqa: E402
import prose  # noqa: E402
from tap import done, ok, skip  # noqa: E402

PAGES = ["--file", "README.md", "--file", "common/README.md"]


def run(cmd, cwd):
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def read(path):
    with open(path, encoding="utf-8") as fh:
        return fh.read()


def write(path, text):
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)


# ---- as the tree stands ----

found = page_lists.problems()
ok(not found, "the README's and common/README.md's lists, install line, Layout and length pass", "\n".join(found))

readme, common = read(os.path.join(ROOT, "README.md")), read(os.path.join(ROOT, "common", "README.md"))
packages = page_lists.ci_packages()
ok({"pkg-config", "libopenblas-dev", "perl"} <= set(packages), f".ci/run's packages are read: {' '.join(packages)}")
ok(page_lists.install_problems(readme.replace(" pkg-config", "")) ==
   ["README.md: the install line lacks pkg-config, which .ci/run installs"],
   "an install line without pkg-config fails, naming it")
header = page_lists.layout_files()[-1]  # the last step's header that later steps include
name = os.path.basename(header)
ok(page_lists.layout_problems(readme.replace(name, "no_such_" + name), common) ==
   [f"README.md: the Layout (common/README.md's Files for common/) does not name {header}",
    f"README.md or common/README.md: the Layout names no_such_{name}, which no file of the repository is"],
   f"a Layout that names no_such_{name} for {header} fails, naming both")
ok(any("does not name common/matrix.h" in p
       for p in page_lists.layout_problems(readme, common.replace("matrix.h", "m.h"))),
   "... and so does common/README.md's Files without a harness file")
broken = re.sub(r'latest\("step16", 4096\) / 1e3', 'tflops("step16", 4096)', readme)
broken = re.sub(r'latest_x\("step16", 4096\)', 'x_cublas("step16", 4096)', broken)
ok(any("row of step16 does not take its speed from its latest" in p for p in page_lists.ladder_problems(broken)),
   "a Then-and-now row that reads the first comparison instead of the step's latest run fails")
last_folder = ladder.step_folder(ladder.STEPS[-1])
without = re.sub(r"^\| \[\d\d\]\(%s/\).*\n" % last_folder, "", readme, flags=re.M)
ok(sum(f"no row for {last_folder}" in p for p in page_lists.ladder_problems(without)) == 2,
   f"{last_folder} missing from the Ladder and Then-and-now tables fails, once for each")
ok(page_lists.class_problems(common.replace('steps_in_class(None, "fp64")', 'steps_in_class(None, "xx")'))
   == ['common/README.md: the fp64 class\'s steps are not listed (steps_in_class(None, "fp64"))'],
   "common/README.md without a declared class's generated members fails")

git = subprocess.run(["git", "rev-parse", "--git-dir"], cwd=ROOT, capture_output=True, text=True)
if git.returncode != 0:
    skip("the README before these pages, and a scratch copy", "not a git checkout (the copy is git ls-files')")
    done()

# The README before its lists were generated: each check fails on it.
old = subprocess.run(["git", "log", "--format=%H", "-1", "4088ecc"], cwd=ROOT, capture_output=True, text=True)
if old.returncode == 0 and old.stdout.strip():
    before = subprocess.run(["git", "show", "4088ecc:README.md"], cwd=ROOT, capture_output=True, text=True).stdout
    old_problems = page_lists.install_problems(before) + page_lists.layout_problems(before, common) + \
        page_lists.ladder_problems(before)
    ok(any("lacks pkg-config" in p for p in old_problems) and any("ozaki64.h" in p for p in old_problems)
       and any("no row for step20" in p for p in old_problems) and before.count("\n") > page_lists.TOP_README_LINES,
       f"the README of 4088ecc fails: no pkg-config, a Layout without ozaki64.h, no Then-and-now row for step 20, "
       f"{before.count(chr(10))} lines", "\n".join(old_problems[:8]))
else:
    skip("the README of 4088ecc, before these pages", "this clone's history does not reach it")

# ---- a scratch copy: what the programs declare changes, and the pages follow ----

os.makedirs(os.path.join(ROOT, "obj"), exist_ok=True)
scratch = tempfile.mkdtemp(prefix="page_lists_", dir=os.path.join(ROOT, "obj"))
try:
    listed = subprocess.run(["git", "ls-files", "-z", "-co", "--exclude-standard"], cwd=ROOT, capture_output=True,
                            text=True).stdout.split("\0")
    files = [f for f in listed if f and os.path.isfile(os.path.join(ROOT, f)) and not f.startswith("obj/")]
    for f in files:
        os.makedirs(os.path.join(scratch, os.path.dirname(f)), exist_ok=True)
        shutil.copy2(os.path.join(ROOT, f), os.path.join(scratch, f))
    check = [sys.executable, "scripts/readme_tables.py", "--check"] + PAGES
    code, out = run(check, scratch)
    ok(code == 0, f"a scratch copy of the repository ({len(files)} files): its README and common/README.md pass", out)

    catalogue = os.path.join(scratch, "results", "programs.csv")
    recorded = read(catalogue)
    rows = list(csv.DictReader(open(catalogue, newline="")))

    def record(rows):
        with open(catalogue, "w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=ladder.CATALOGUE_COLUMNS, lineterminator="\n")
            w.writeheader()
            w.writerows(rows)

    # The step that changes class: the last FP32-accurate tensor-core step (step 19 as the ladder stands).
    fp32_steps = [r for r in ladder.STEPS if ladder.PROGRAMS[r]["precision"] == "fp32"
                  and ladder.PROGRAMS[r]["chapter"] == "tensor-cores"]
    victim = fp32_steps[-1]
    number = int(victim[4:])
    tf32_before = prose.steps_in_class(None, "tf32")
    fp32_before = prose.steps_in_class("tensor-cores", "fp32")
    tf32_after = page_lists.join_steps([int(r[4:]) for r in ladder.STEPS
                                        if ladder.PROGRAMS[r]["precision"] == "tf32"] + [number])
    fp32_after = page_lists.join_steps([int(r[4:]) for r in fp32_steps[:-1]])

    # The record says it is tf32 now (what make plots writes once the program says so).
    record([dict(r, precision="tf32") if r["row"] == victim else r for r in rows])
    code, out = run(check, scratch)
    ok(code == 1 and re.search(r"^README\.md:\d+: '%s' is stale" % re.escape(fp32_before), out, re.M)
       and re.search(r"^common/README\.md:\d+: '%s' is stale" % re.escape(tf32_before), out, re.M),
       f"{victim} recorded in the tf32 class: the lists of both pages are stale, the check fails", out)
    write(catalogue, recorded)

    # The program itself says tf32 (a stand-in for it built with .precision = PRECISION_TF32).
    binary = next(b for b in ladder.step_binaries() if b.endswith("/" + victim))
    real = os.path.join(ROOT, binary)
    if os.access(real, os.X_OK):
        said = subprocess.run([real, "--describe"], capture_output=True, text=True).stdout
    else:  # not built: what it said, as recorded
        r = next(r for r in rows if r["row"] == victim)
        said = "".join(f"{k}={r[k]}\n" for k in ladder.CATALOGUE_COLUMNS if k not in ("binary", "folder", "math_index"))
    said = re.sub(r"^precision=.*$", "precision=tf32", said, flags=re.M)
    stand_in = os.path.join(scratch, binary)
    write(stand_in, "#!/bin/sh\n[ \"$1\" = --describe ] || exit 2\ncat <<'DESCRIBED'\n" + said + "DESCRIBED\n")
    os.chmod(stand_in, os.stat(stand_in).st_mode | stat.S_IXUSR)
    code, out = run(check, scratch)
    ok(code == 1 and f"results/programs.csv: {victim}'s precision is 'fp32', the program says 'tf32'" in out,
       f"{victim}'s program says tf32 and the record says fp32: the check fails, saying to record it", out)
    code, out = run([sys.executable, "scripts/ladder.py", "record"], scratch)
    code, out = run(check, scratch)
    ok(code == 1 and "is stale" in out and "programs.csv" not in out,
       "recorded (scripts/ladder.py record, as make plots does): now the pages' lists are stale", out)
    code, out = run([sys.executable, "scripts/readme_tables.py"] + PAGES, scratch)
    code, out = run(check, scratch)
    new_common = read(os.path.join(scratch, "common", "README.md"))
    new_readme = read(os.path.join(scratch, "README.md"))
    ok(code == 0 and f'<!--= steps_in_class(None, "tf32") | s -->{tf32_after}<!--/=-->' in new_common
       and f'steps_in_class("tensor-cores", "fp32") | s -->{fp32_after}<!--/=-->' in new_readme,
       f"generated again, the pages list {victim} among the tf32 steps ({tf32_after}) and no longer among the "
       f"FP32-accurate ones ({fp32_after})", out)
    os.remove(stand_in)
    write(catalogue, recorded)
    for page in ("README.md", os.path.join("common", "README.md")):
        shutil.copy2(os.path.join(ROOT, page), os.path.join(scratch, page))

    # A new step after the last: its folder and its description. The count and the tables know it.
    last = next(r for r in rows if r["row"] == ladder.STEPS[-1])
    program = f"step{len(ladder.STEPS) + 1:02d}"
    folder = program + "_next"
    os.makedirs(os.path.join(scratch, folder))
    shutil.copy2(os.path.join(ROOT, last["binary"] + ".cu"), os.path.join(scratch, folder, program + ".cu"))
    record(rows + [dict(last, row=program, program=program, binary=f"{folder}/{program}", folder=folder,
                        builds_on=last["program"])])
    sm90a = page_lists.steps_where(exact_cc="9.0")
    code, out = run(check, scratch)
    ok(code == 1 and f"'{page_lists.in_words(len(ladder.STEPS))}' is stale" in out
       and f"'The ladder' has no row for {folder}" in out and f"'Then and now' has no row for {folder}" in out
       and (last["exact_cc"] != "9.0" or f"'{sm90a}' is stale" in out),
       f"a new step {program}: the count (and the sm_90a list, for one built for sm_90a) is stale, and both "
       "tables lack its row", out)
    shutil.rmtree(os.path.join(scratch, folder))
    write(catalogue, recorded)

    # One more input family in the harness's table: the lists of families are stale, and the
    # scripts' copy of the names (scripts/ladder.py) disagrees.
    inputs = os.path.join(scratch, "common", "inputs.c")
    source = read(inputs)
    fp32_table, fp64_table = "dist_names[DIST_COUNT][2] = {\n", "dist_descriptions64[DIST_COUNT] = {\n"
    write(inputs, source.replace(fp32_table, fp32_table + '    {"zero", "A = 0"},\n')
          .replace(fp64_table, fp64_table + '    "A = 0",\n'))
    code, out = run(check, scratch)
    ok(code == 1 and f"'{page_lists.in_words(len(page_lists.family_names()))}' is stale" in out
       and "scripts/ladder.py: DISTS and RANGE_DISTS" in out and "tables are stale" in out,
       "one more family in common/inputs.c: the pages' families and their table are stale, ladder.py's copy differs",
       out)
    write(inputs, source)

    # A newer recorded run of step 16 beside its ceiling: its Then-and-now row follows it.
    path, _, row, top = page_lists.latest_row(os.path.join(ROOT, "results"), "step16", 4096)
    link = page_lists.Results(os.path.join(ROOT, "results")).functions()["latest_run"]("step16", 4096)
    sweep = os.path.join(scratch, "results", os.path.basename(path))
    text = read(sweep)
    with open(sweep, newline="") as fh:
        columns = next(csv.reader(fh))
    with open(sweep, "a", newline="") as fh:
        csv.DictWriter(fh, fieldnames=columns, lineterminator="\n").writerows(
            [dict(r, date="2030-01-01T00:00Z", gflops=str(float(r["gflops"]) / 2)) for r in (row, top)])
    code, out = run(check, scratch)
    ok(code == 1 and re.search(r"README\.md:\d+: '[\d.]+' is stale: latest\(\"step16\", 4096\)", out)
       and f"'{link}' is stale" in out,
       f"a newer run of step 16 beside its ceiling: its row's TFLOPS and run ({link}) are stale", out)
    # A top README past its length: said once, against the one limit (page_lists.TOP_README_LINES).
    readme = os.path.join(scratch, "README.md")
    kept = read(readme)
    write(readme, kept + "\n" * (2 * page_lists.TOP_README_LINES))
    code, out = run(check, scratch)
    said = [line for line in out.splitlines() if "over the entry point's" in line]
    ok(code == 1 and len(said) == 1 and f"over the entry point's {page_lists.TOP_README_LINES}:" in said[0],
       f"a top README past {page_lists.TOP_README_LINES} lines is reported once, against that limit", out)
    write(readme, kept)

    # A results file that cannot be read (a byte that is not UTF-8): one line naming it, exit 2,
    # not a Python traceback.
    with open(sweep, "wb") as fh:
        fh.write(text.encode("utf-8").replace(b"step16", b"step\xff16", 1))
    p = subprocess.run(check, cwd=scratch, capture_output=True, text=True, errors="replace")
    ok(p.returncode == 2 and len(p.stderr.splitlines()) == 1 and "Traceback" not in p.stderr
       and re.match(r"readme_tables\.py: results/%s, line \d+: not UTF-8 text" % re.escape(os.path.basename(sweep)),
                    p.stderr),
       "a results file that is not UTF-8: scripts/readme_tables.py names it and its line, exit 2",
       f"exit {p.returncode}: {p.stderr[-2000:]}")
    write(sweep, text)
    code, out = run(check, scratch)
    ok(code == 0, "... and the scratch copy, restored, passes again", out)
finally:
    shutil.rmtree(scratch, ignore_errors=True)
done()
