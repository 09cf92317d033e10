#!/usr/bin/env python3
"""The lists the top README and common/README.md show, generated from what the programs declare and
from the files that exist, so that a new step cannot leave them stale; and the checks of what a
page cannot generate. scripts/readme_tables.py uses both (Results, problems). Standard library only.

The functions the pages' markers may call, beside scripts/prose.py's (same marker syntax):
  number_of_steps()           how many steps the ladder has (the record: results/programs.csv)
  in_words(n)                 "twenty": a count as prose writes it
  steps_where(**fields)       the steps whose --describe says so, as prose writes them:
                              steps_where(exact_cc="9.0") -> "13-20" (the sm_90a steps)
  steps_from(program)         the step and every step built on it (builds_on): "16, 18-20"
  family_names()              the input families --dist takes, in its order (the table of what each
                              holds, families_table(), is scripts/tables_lists.py's "families")
  latest(p, n, column="gflops", dist="uniform", device=None)
                              a column of p's row at n in its latest recorded run beside its ceiling:
                              the comparison (results/<device>.csv) or a step's sweep of the programs
                              as they are (results/<device>-<sweep>.csv); the main device's run
                              (scripts/prose.py's DEVICE) where it has one, or device's
  latest_ceiling(p, n, column="gflops", ceiling=None, dist="uniform", device=None)
                              the same column of the ceiling's row in that run
  latest_x(p, n, ceiling=None, dist="uniform", device=None)
                              p's speed over its ceiling's in that same run (cuBLAS SGEMM, or DGEMM
                              for an FP64 step; ceiling="cublas_tf32" another)
  latest_run(p, n, dist="uniform")
                              that run as a link: "[2026-11-27](results/...csv)", the card named when
                              it is not the main device
  fastest_x(precision, n)     the best latest_x of a precision class's steps at n
  steps_measured_elsewhere(n=4096)
                              the steps whose latest run at n is on another card: "19-20"

Usage: scripts/page_lists.py [--help]: print the problems problems() finds; exit 1 if any.
"""
import fnmatch
import functools
import glob
import os
import re
import subprocess
import sys

import ladder
import prose

ROOT = ladder.ROOT
TOP_README_LINES = 250  # the top README is an entry point: the detail lives in the chapters' pages
CEILINGS = {"fp64": "cublas_dgemm"}  # a step's ceiling by its class; every other class: cuBLAS SGEMM
WORDS = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
         "sixteen seventeen eighteen nineteen").split()
TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()


def in_words(n):
    """0 ... 99 in words ("twenty-one"); larger counts as digits."""
    if n < 20:
        return WORDS[n]
    if n < 100:
        return TENS[n // 10] + ("" if n % 10 == 0 else "-" + WORDS[n % 10])
    return str(n)


def join_steps(numbers):
    """[12, 14, 15, 16] -> "12, 14-16": runs of consecutive steps joined, as scripts/prose.py writes them."""
    runs = []
    for x in sorted(numbers):
        if runs and x == runs[-1][1] + 1:
            runs[-1][1] = x
        else:
            runs.append([x, x])
    return ", ".join(f"{a:02d}" if a == b else f"{a:02d}-{b:02d}" for a, b in runs)


def steps_where(**fields):
    """The steps whose description (--describe, as recorded) has every field given, compared as text."""
    numbers = [int(s[4:]) for s in ladder.STEPS
               if all(str(ladder.PROGRAMS[s].get(k, "")) == str(v) for k, v in fields.items())]
    if not numbers:
        raise KeyError(f"no step has {fields}")
    return join_steps(numbers)


def steps_from(program):
    """The program and every step that builds on it, directly or through another (builds_on)."""
    found = {program}
    for s in ladder.STEPS:
        if set((ladder.PROGRAMS[s].get("builds_on") or "").split()) & found:
            found.add(s)
    if program not in ladder.STEPS:
        raise KeyError(f"no step {program}")
    return join_steps(int(s[4:]) for s in found)


# ---- the input families: the harness's one table (common/inputs.c), which --dist, the report's
# "Inputs:" line and the refusal of a wrong name all read ----

INPUTS_C = os.path.join(ROOT, "common", "inputs.c")


def family_table(path=INPUTS_C):
    """[(name, what it holds in FP32, what it holds in FP64)], in --dist's order."""
    with open(path) as fh:
        text = fh.read()
    fp32 = re.search(r"dist_names\[DIST_COUNT\]\[2\] = \{(.*?)\n\};", text, re.S)
    fp64 = re.search(r"dist_descriptions64\[DIST_COUNT\] = \{(.*?)\n\};", text, re.S)
    if not fp32 or not fp64:
        raise KeyError(f"{os.path.relpath(path, ROOT)}: no table of the input families")
    pairs = re.findall(r'\{"([^"]+)", "([^"]*)"\}', fp32.group(1))
    wide = re.findall(r'"([^"]*)"', fp64.group(1))
    if not pairs or len(pairs) != len(wide):
        raise KeyError(f"{os.path.relpath(path, ROOT)}: the FP32 and FP64 tables of the families differ in length")
    return [(name, d32, d64) for (name, d32), d64 in zip(pairs, wide)]


def family_names():
    return [name for name, _, _ in family_table()]


def families_table():
    """The families as a Markdown table: the name --dist takes, what A and B hold in FP32 and in
    FP64, in the words of the report's Inputs: line (scripts/tables_lists.py hands it to the pages)."""
    rows = [f"| `{name}` | `{d32}` | `{d64}` |" for name, d32, d64 in family_table()]
    return "\n".join(["| `--dist` | FP32 | FP64 |", "|---|---|---|"] + rows)


# ---- each step's latest recorded run ----

@functools.lru_cache(maxsize=None)
def sweep_files(results_dir):
    """The recorded runs of the programs as they are, each beside its ceiling: every device's
    comparison (results/<device>.csv) and the steps' sweeps without build variants
    (results/<device>-<sweep>.csv); capped runs are another device's name and never match."""
    sweeps = [name for _, declared in ladder.experiments("sweeps") for name, e in declared.items()
              if "runs" in e and "variants" not in e]
    found = []
    for path in sorted(glob.glob(os.path.join(results_dir, "*.csv"))):
        base = os.path.basename(path)[:-4]
        rows = ladder.read_results(path)
        if not rows or not {"date", "program", "n", "device", "gflops", "dist"} <= set(rows[0]):
            continue
        devices = {ladder.slug(r["device"]): r["device"] for r in rows}
        for slug, device in devices.items():
            if base == slug or any(base == f"{slug}-{s}" for s in sweeps):
                found.append((path, device, [r for r in rows if r["device"] == device]))
    return tuple(found)  # read once per run: every marker asks


def ceiling_of(program):
    return CEILINGS.get(ladder.PROGRAMS.get(program, {}).get("precision"), "cublas")


def latest_row(results_dir, program, n, dist="uniform", ceiling=None, device=None):
    """(file, device, p's row, the ceiling's row) of the latest run holding both at n on dist:
    on device if given, else the main device's (scripts/prose.py's DEVICE) if it has one, else
    any device's."""
    ceiling = ceiling or ceiling_of(program)
    best = {}
    for path, card, rows in sweep_files(results_dir):
        if device and card != device:
            continue
        at = lambda p: [r for r in rows if r["program"] == p and r["n"] == str(n) and r["dist"] == dist]  # noqa: E731
        mine, theirs = at(program), at(ceiling)
        if mine and theirs:
            row = max(mine, key=lambda r: r["date"])
            top = max(theirs, key=lambda r: r["date"])
            main = card == prose.DEVICE
            if main not in best or row["date"] > best[main][2]["date"]:
                best[main] = (path, card, row, top)
    if not best:
        raise KeyError(f"no recorded run has {program} and {ceiling} at n = {n} on {dist} inputs"
                       + (f" on {device}" if device else ""))
    return best.get(True) or best[False]


def short_device(device):
    """'NVIDIA H100 80GB HBM3' -> 'H100', as a table cell names a card."""
    return re.sub(r"^NVIDIA\s+", "", device).split()[0]


def value(text):
    """A CSV cell as a number where it is one ("pass" stays text)."""
    try:
        return float(text)
    except ValueError:
        return text


def list_functions(results):
    d = results.dir

    def latest(p, n, column="gflops", dist="uniform", device=None):
        return value(latest_row(d, p, n, dist, None, device)[2][column])

    def latest_ceiling(p, n, column="gflops", ceiling=None, dist="uniform", device=None):
        return value(latest_row(d, p, n, dist, ceiling, device)[3][column])

    def latest_x(p, n, ceiling=None, dist="uniform", device=None):
        _, _, mine, top = latest_row(d, p, n, dist, ceiling, device)
        return float(mine["gflops"]) / float(top["gflops"])

    def latest_run(p, n, dist="uniform"):
        path, card, row, _ = latest_row(d, p, n, dist)
        where = "" if card == prose.DEVICE else short_device(card) + ", "
        return f"[{where}{row['date'][:10]}](results/{os.path.basename(path)})"

    def fastest_x(precision, n):
        found = [_try(latest_x, s, n) for s in ladder.STEPS if ladder.PROGRAMS[s]["precision"] == precision]
        if not any(found):
            raise KeyError(f"no {precision} step is recorded beside its ceiling at n = {n}")
        return max(x for x in found if x)

    def steps_measured_elsewhere(n=4096):
        """The steps whose latest run at n is on another card than the main device."""
        runs = {s: _try(latest_row, d, s, n) for s in ladder.STEPS}
        found = [int(s[4:]) for s, run in runs.items() if run and run[1] != prose.DEVICE]
        if not found:
            raise KeyError(f"every step's latest run at n = {n} is on {prose.DEVICE}")
        return join_steps(found)

    return {"number_of_steps": lambda: len(ladder.STEPS), "in_words": in_words, "steps_where": steps_where,
            "steps_from": steps_from, "family_names": family_names, "latest": latest,
            "latest_ceiling": latest_ceiling, "latest_x": latest_x, "latest_run": latest_run, "fastest_x": fastest_x,
            "steps_measured_elsewhere": steps_measured_elsewhere}


def _try(function, *args):
    try:
        return function(*args)
    except KeyError:
        return None


class Results(prose.Results):
    """scripts/prose.py's results, with the lists' functions beside its own."""

    def shared_functions(self):
        return {**super().shared_functions(), **list_functions(self)}


# ---- what a page cannot generate, checked ----

def ci_packages(root=ROOT):
    """The packages .ci/run installs (its missing+=(...) lines)."""
    with open(os.path.join(root, ".ci", "run")) as fh:
        return re.findall(r"missing\+=\(([\w.+-]+)\)", fh.read())


# What a Debian package on the README's install line brings besides itself.
# (A package's names, not tools this script runs: it runs none.)
PROVIDES = {"build-essential": set("gcc g++ make libc6-dev".split())}


def install_problems(text, root=ROOT):
    """The README's apt-get install line names every package .ci/run installs."""
    m = re.search(r"apt-get install ([^\n`]*)", text)
    if not m:
        return ["README.md: no apt-get install line (Start here)"]
    named = set(m.group(1).split())
    named |= {p for n in named for p in PROVIDES.get(n, ())}
    return [f"README.md: the install line lacks {p}, which .ci/run installs" for p in ci_packages(root)
            if p not in named]


LAYOUT_FOLDERS = ("common", "common/device", "cublas", "cutlass", "gemmul8", "cpu", "transpose", "multigpu",
                  "scripts", "plots")
SOURCE = re.compile(r"\.(c|h|cu|py|mk)$")
NAMED = re.compile(r"[\w*.<>-]+\.(?:c|h|cu|py|mk|json|txt|csv|md|t)\b")


def layout_files(root=ROOT):
    """The files the Layout names: every source in the folders of LAYOUT_FOLDERS (not their
    subfolders) and every header a step keeps in its folder for the steps built on it."""
    found = [os.path.join(f, n) for f in LAYOUT_FOLDERS if os.path.isdir(os.path.join(root, f))
             for n in sorted(os.listdir(os.path.join(root, f))) if SOURCE.search(n)
             and os.path.isfile(os.path.join(root, f, n))]
    found += [os.path.relpath(p, root) for p in sorted(glob.glob(os.path.join(root, "step[0-9][0-9]_*", "*.h")))]
    return found


def named_in(text, heading, fenced=False):
    """The file names a section names (in its code block, with fenced), or None without the section."""
    m = re.search(r"^## " + re.escape(heading) + r"\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    if not m:
        return None
    body = m.group(1)
    if fenced:
        block = re.search(r"```\n(.*?)```", body, re.S)
        body = block.group(1) if block else ""
    return set(NAMED.findall(body))


def layout_problems(text, common_text, root=ROOT):
    """The top README's Layout, with common/README.md's Files for the harness's own files, names
    every file of layout_files() (by name, or by a pattern such as charts_*.py), and every file
    either names exists (a pattern: some file matches it)."""
    layout, files = named_in(text, "Layout", fenced=True), named_in(common_text, "Files")
    problems = [] if layout else ["README.md: no Layout section with the tree in a code block"]
    problems += [] if files else ["common/README.md: no Files section naming the harness's files"]
    names = (layout or set()) | (files or set())
    patterns = [n for n in names if "*" in n]
    problems += [f"README.md: the Layout (common/README.md's Files for common/) does not name {f}"
                 for f in layout_files(root) if os.path.basename(f) not in names
                 and not any(fnmatch.fnmatch(os.path.basename(f), p) for p in patterns)]
    everything = {n for dp, ds, fs in os.walk(root) for n in fs
                  if os.path.relpath(dp, root).split(os.sep)[0] not in (".git", "obj", "third_party", ".venv")}
    for name in sorted(names):
        if "NN" in name or "<" in name or name in everything:
            continue
        if "*" in name and any(fnmatch.fnmatch(n, name) for n in everything):
            continue
        problems.append(f"README.md or common/README.md: the Layout names {name}, which no file of the repository is")
    return problems


def table_rows(text, heading):
    """The rows of the first Markdown table under a heading: {step folder: the row's text}."""
    m = re.search(r"^## " + re.escape(heading) + r"\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    rows = {}
    for line in (m.group(1) if m else "").splitlines():
        link = re.match(r"\|\s*\[\d\d\]\((step\d\d_\w+)/\)", line)
        if link:
            rows[link.group(1)] = line
    return rows


def ladder_problems(text):
    """The Ladder and Then-and-now tables have a row for every step, no other, and each
    Then-and-now row takes its speed from the step's latest recorded run (latest, latest_x)."""
    problems = []
    steps = {ladder.step_folder(s): s for s in ladder.STEPS}
    for heading in ("The ladder", "Then and now"):
        rows = table_rows(text, heading)
        problems += [f"README.md: '{heading}' has no row for {f}" for f in steps if f not in rows]
        problems += [f"README.md: '{heading}' has a row for {f}, which is no step" for f in rows if f not in steps]
        if heading == "Then and now":
            for folder, row in rows.items():
                program = steps.get(folder)
                if program and not re.search(r'<!--= latest(?:_x)?\("%s", 4096' % program, row):
                    problems.append(f"README.md: the Then-and-now row of {program} does not take its speed from "
                                    "its latest recorded run at n = 4096 (latest, latest_x)")
    return problems


def class_problems(text):
    """common/README.md lists the members of every precision class a step declares, generated."""
    classes = sorted({ladder.PROGRAMS[s]["precision"] for s in ladder.STEPS})
    return [f"common/README.md: the {c} class's steps are not listed (steps_in_class(None, \"{c}\"))"
            for c in classes if not re.search(r'steps_in_class\(None, "%s"' % c, text)]


# The fields of a description the generated lists read from the record.
LISTED_FIELDS = ("chapter", "precision", "compensated", "min_cc", "exact_cc", "builds_on")


def record_problems(root=ROOT):
    """Each built step says of itself (--describe) what results/programs.csv records of it, in the
    fields the lists read: a step whose class changed is recorded again (make plots) before the
    pages can show it."""
    problems = []
    for binary in ladder.step_binaries():
        if not os.path.exists(os.path.join(root, binary)):
            continue
        try:
            said = ladder.describe(binary)[0]
        except (OSError, subprocess.SubprocessError) as err:
            problems.append(f"{binary}: {err}")
            continue
        recorded = ladder.PROGRAMS.get(said["row"])
        if recorded is None:
            problems.append(f"results/programs.csv: no record of {said['row']} (make plots records it)")
            continue
        for k in LISTED_FIELDS:
            if str(recorded.get(k, "")) != str(said.get(k, "")):
                problems.append(f"results/programs.csv: {said['row']}'s {k} is '{recorded.get(k, '')}', the "
                                f"program says '{said.get(k, '')}' (make plots records it)")
    return problems


def family_problems(root=ROOT):
    """The scripts' copy of the families (scripts/ladder.py's DISTS and RANGE_DISTS) is the
    harness's; a built program refuses a wrong --dist naming the same families."""
    names = family_names()
    problems = []
    if list(ladder.DISTS) + list(ladder.RANGE_DISTS) != names:
        problems.append(f"scripts/ladder.py: DISTS and RANGE_DISTS ({' '.join(ladder.DISTS + ladder.RANGE_DISTS)}) "
                        f"are not common/inputs.c's families ({' '.join(names)})")
    built = [b for b in ladder.step_binaries() if os.path.exists(os.path.join(root, b))][:1]
    for binary in built:
        p = subprocess.run([os.path.join(root, binary), "--dist", "no-such-family"], capture_output=True, text=True)
        if p.returncode != ladder.EXIT_USAGE or "expected" not in p.stderr:
            continue  # tests/02-cli.t asks that a wrong name be refused; here only the names it gives matter
        listed = re.findall(r"[a-z]+", p.stderr.split("expected", 1)[-1].split("(")[0].replace(" or ", " "))
        if listed != names:
            problems.append(f"{binary} --dist: its refusal names {' '.join(listed)}, the harness's families are "
                            f"{' '.join(names)}")
    return problems


def problems(pages=None, root=ROOT):
    """What the top README's and common/README.md's generated lists, install line, Layout and
    length lack, where pages (paths; None: every page) holds either."""
    pages = [os.path.relpath(p, root) for p in (pages or prose.readmes(root))]
    with open(os.path.join(root, "README.md")) as fh:
        text = fh.read()
    with open(os.path.join(root, "common", "README.md")) as fh:
        common_text = fh.read()
    found = []
    if "README.md" in pages:
        lines = text.count("\n")
        if lines > TOP_README_LINES:
            found.append(f"README.md: {lines} lines, over the entry point's {TOP_README_LINES}: move detail into "
                         "the chapters' pages or common/README.md")
        found += install_problems(text, root) + ladder_problems(text)
    if os.path.join("common", "README.md") in pages:
        found += class_problems(common_text)
    if "README.md" in pages or os.path.join("common", "README.md") in pages:
        found += layout_problems(text, common_text, root)
        found += record_problems(root)  # what these two pages' lists are read from
        try:
            found += family_problems(root)
        except KeyError as err:
            found.append(str(err).strip("'\""))
    return found


if __name__ == "__main__":
    if sys.argv[1:] in (["-h"], ["--help"]):
        print(__doc__.strip())
        sys.exit(0)
    if sys.argv[1:]:
        print(f"page_lists.py: unknown argument '{sys.argv[1]}' (try --help)", file=sys.stderr)
        sys.exit(2)
    found = problems()
    for line in found:
        print(line)
    sys.exit(1 if found else 0)
