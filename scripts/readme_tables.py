#!/usr/bin/env python3
"""Rewrite the result tables in the READMEs from results/*.csv.

Tables sit between marker comments, e.g.
    <!-- BEGIN table:ladder -->  ...  <!-- END table:ladder -->
    <!-- BEGIN table:stepNN -->  ...  <!-- END table:stepNN -->
and are regenerated here, never typed. Each comes from where it belongs: the tables every
chapter shares from scripts/tables_shared.py, a chapter's from its scripts/tables_<chapter>.py
(each module's tables()), a step's from its folder (its experiments.json's "tables": a name and
the function in the step's Python that gives it). Standard library only; `make plots` runs it.
Usage: scripts/readme_tables.py [--check] [--file README.md ...]
  --check   change nothing; exit 1 if a README is stale or breaks a page check
            (scripts/prose.py: measured numbers, process words, word limit, glossary terms;
            a generated table without the line that names its card and clock)
  --file F  only these READMEs (paths from the repository's root; repeatable)

The pages' value markers (<!--= expr | fmt -->value<!--/=-->) take scripts/prose.py's functions,
scripts/page_lists.py's, and one more, for the line under a generated table that says what its
figures were measured on:
  conditions(name, **match): the card and the conditions of the rows of results/<name> (a file's
  name, a glob, "*-crossover.csv", or "ladder": the comparison's files of every device, as the
  ladder's and the steps' tables read them), of those whose columns equal match
  (program="step18") where given, rows a GPU could not run and the CPU's left out:
    "NVIDIA H200, SM clock 1.42-1.97 GHz (mean over the timed launches), power limit 700 W,
    driver 580.65.06, CUDA 13.0, cuBLAS 13.1.0"
  (the clock: the range of the rows' means, in GHz, an en dash between; every other value once,
  several joined by "and"; cuBLAS's version from the rows of programs that link it; "(4 cards)"
  after the name where the rows came from several). Rows recorded before these columns give their
  dates: "NVIDIA H100 80GB HBM3, 2026-11-20 to 2026-11-26 (clock not recorded)", or with the
  clock ncu measured where they were measured under it (sm_ghz). Several devices: one such part
  each, "; " between; a device's runs under shared-memory caps are its own ("capped to 64, 99
  and 163 KB"). A page writes it under the table, after a word (a marker must not start a
  line):
    Measured on <!--= conditions("*-fp64.csv") | s -->...<!--/=-->.
  Every generated table has one within two lines under it (--check says where one is missing):
  one between BEGIN and END markers, and a typed one whose cells are value markers reading
  recorded rows (UNRECORDED_FUNCTIONS says which do not); but those no GPU measured:
  UNMEASURED_TABLES and the CPU chapter's page.
"""
import functools
import glob
import importlib
import keyword
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
import ladder
import page_lists
import tables_shared
import prose
import step_plugins


def all_tables(results_dir):
    """({name: Markdown} of the shared and chapter modules (tables_*.py here), [(step folder, name,
    Markdown)] of the steps' declarations); a name two modules give, or a step's that one gives,
    is an error."""
    shared, owner = {}, {}
    for path in sorted(glob.glob(os.path.join(HERE, "tables_*.py"))):
        module = os.path.basename(path)[:-3]
        for name, text in importlib.import_module(module).tables(results_dir).items():
            if name in shared:
                raise SystemExit(f"readme_tables.py: table '{name}' comes from both {owner[name]} and {module}")
            shared[name], owner[name] = text, module
    steps = [(ladder.step_folder(program), name, function(results_dir))
             for program, name, function in step_plugins.step_functions("tables")]
    for folder, name, _ in steps:
        if name in shared:
            raise SystemExit(f"readme_tables.py: {folder}'s table '{name}' is {owner[name]}'s already")
    return shared, steps


def tables_for(page, shared, steps):
    """The tables a page is written with: the shared ones and the steps'; a name two steps declare
    (a copy keeps its tables' names) is the page's own step's on its page, elsewhere the first's."""
    where = os.path.relpath(page, ladder.ROOT)
    own = [t for t in steps if where.startswith(t[0] + os.sep)]
    found = dict(shared)
    for _, name, text in own + [t for t in steps if t not in own]:
        found.setdefault(name, text)
    return found


def _span(values, spec):
    """'1.42-1.97' (an en dash) from the values' least and greatest, or one value where the two
    read alike."""
    low, high = format(min(values), spec), format(max(values), spec)
    return low if low == high else f"{low}\u2013{high}"


def _version_key(version):
    """'580.65.06' in numeric order: 570.x before 580.x, 13.0 before 13.10."""
    return [(0, int(p), "") if p.isdigit() else (1, 0, p) for p in version.split(".")]


CAPPED = re.compile(r"^(.*) capped to (\S+) KB$")  # a device's name under MATMUL_SMEM_LIMIT (common/gpu.c)


def _device_name(rows):
    """The device of rows, its runs under shared-memory caps named once: "NVIDIA H100 80GB HBM3
    capped to 64, 99 and 163 KB"."""
    caps = sorted({m.group(2) for m in map(CAPPED.match, (r["device"] for r in rows)) if m}, key=float)
    base = CAPPED.sub(r"\1", rows[0]["device"])
    if not caps:
        return base
    listed = caps[0] if len(caps) == 1 else f"{', '.join(caps[:-1])} and {caps[-1]}"
    uncapped = any(not CAPPED.match(r["device"]) for r in rows)
    return f"{base}, uncapped and capped to {listed} KB" if uncapped else f"{base} capped to {listed} KB"


def _described(rows):
    """One device's part of conditions(): its name, then its rows' conditions."""
    # A row the programs wrote with its conditions always has the runtime's version; an older one
    # has no such column, or the column empty (a file recorded again keeps its older rows).
    recorded = [r for r in rows if r.get("cuda_runtime_version")]
    older = [r for r in rows if not r.get("cuda_runtime_version")]
    cards = {u for r in recorded for u in ((r.get("device_uuid") or r.get("uuids") or "").split())}
    name = _device_name(rows) + (f" ({len(cards)} cards)" if len(cards) > 1 else "")
    dates = sorted({r["date"][:10] for r in older if r.get("date")})
    when = (dates[0] if len(dates) == 1 else f"{dates[0]} to {dates[-1]}") if dates else "dates not recorded"
    if not recorded:
        # Rows measured under ncu carry the clock ncu measured over each kernel (sm_ghz).
        ncu = [float(r["sm_ghz"]) for r in older if r.get("sm_ghz")]
        return f"{name}, {when}, SM clock {_span(ncu, '.2f')} GHz (as ncu measured each kernel)" if ncu \
            else f"{name}, {when} (clock not recorded)"
    parts = [name]
    clocks = [float(r["sm_clock_mhz"]) / 1e3 for r in recorded if r.get("sm_clock_mhz")]
    parts.append(f"SM clock {_span(clocks, '.2f')} GHz (mean over the timed launches)" if clocks
                 else "SM clock not recorded")
    limits = [float(w) for r in recorded for w in (r.get("power_limit_w") or "").split()]
    if limits:
        parts.append(f"power limit {_span(limits, '.0f')} W")
    for label, column in (("driver", "driver_version"), ("CUDA", "cuda_runtime_version"), ("cuBLAS", "cublas_version")):
        values = sorted({r[column] for r in recorded if r.get(column)}, key=_version_key)
        if values:
            parts.append(f"{label} {' and '.join(values)}")
    if older:
        parts.append(f"clock not recorded for the rows of {when}")
    return ", ".join(parts)


def conditions(results_dir, name, **match):
    """What the figures of results/<name> (a file's name, a glob of several, or "ladder": the
    comparison's files, tables_shared.ladder_files, without the capped runs) were measured on, for
    the line under a table (the module's docstring says how it reads), device by device: the rows
    whose columns equal match, without those a GPU could not run ("skipped: ...") and the CPU's
    (the transpose records its CPU variants as device "CPU"). A KeyError where no row is left."""
    every_ladder = name == "ladder"
    paths = tables_shared.ladder_files(results_dir) if every_ladder \
        else sorted(glob.glob(os.path.join(results_dir, name)))
    rows = [r for path in paths for r in ladder.read_results(path)
            if r.get("device") and r["device"] != "CPU" and not (r.get("status") or "").startswith("skipped")
            and not (every_ladder and tables_shared.capped(r["device"]))
            and all(str(r.get(k)) == str(v) for k, v in match.items())]
    if not rows:
        raise KeyError(f"no measured rows in results/{name}" + (f" with {match}" if match else ""))
    devices = sorted({CAPPED.sub(r"\1", r["device"]) for r in rows})
    return "; ".join(_described([r for r in rows if CAPPED.sub(r"\1", r["device"]) == d]) for d in devices)


# Generated tables whose rows no GPU measured, so no card or clock to name under them: the input
# families the programs declare (common/README.md), and the CPU chapter's (every table on cpu/'s page).
UNMEASURED_TABLES = {"families"}
UNMEASURED_PAGES = ("cpu" + os.sep,)
# The other kind of generated table: typed rows whose cells are value markers. One counts as measured
# when a marker calls any function but these, which read no recorded GPU rows: Python's, the lists
# the programs declare (scripts/prose.py, scripts/page_lists.py), the datasheet's peak, the article's
# 8800GT figures, and the logs conditions() does not read (ncu's text, the test suite's times).
# Any other name, a step's own included, reads recorded rows: a new one is checked.
UNRECORDED_FUNCTIONS = set("""all any len sorted range min max abs round steps steps_in_class
    references_in_class number_of_steps in_words steps_where steps_from family_names peak art ncu
    test_ratio test_time""".split())
CALLED = re.compile(r"\b([A-Za-z_]\w*)\s*\(")
STRING = re.compile(r"\"[^\"]*\"|'[^']*'")  # a marker's string arguments, whose words call nothing
CONDITIONS = re.compile(r"<!--=\s*conditions\(")


def _problem(where, line, what):
    return (f"{where}:{line}: {what} does not say what it was measured on: write 'Measured on "
            "<!--= conditions(\"FILE.csv\") | s --><!--/=-->.' under it (scripts/readme_tables.py --help)")


def _marked_tables(lines):
    """The typed tables of a page's lines whose markers read recorded rows (UNRECORDED_FUNCTIONS):
    (first line, last line), counted from 0; a list item's table, indented, too. Tables between
    BEGIN and END markers are the other check's."""
    found, inside, start = [], False, None
    for i, line in enumerate(lines + [""]):
        inside = (inside or line.startswith("<!-- BEGIN table:")) and not line.startswith("<!-- END table:")
        if line.lstrip().startswith("|") and not inside:
            start = i if start is None else start
            continue
        if start is not None:
            called = {name for row in lines[start:i] for m in prose.VALUE.finditer(row)
                      for name in CALLED.findall(STRING.sub('""', m.group(1))) if not keyword.iskeyword(name)}
            if called - UNRECORDED_FUNCTIONS:
                found.append((start, i - 1))
            start = None
    return found


def unconditioned_tables(text, where):
    """Generated tables of a page with no conditions() marker within two lines under them (the line
    that names the card and clock their figures came from): those between BEGIN and END markers, and
    typed ones whose cells are value markers reading recorded rows (_marked_tables)."""
    if where.startswith(UNMEASURED_PAGES):
        return []
    problems = []
    for m in re.finditer(r"^<!-- END table:(\S+) -->\n", text, re.M):
        after = "\n".join(text[m.end():].split("\n")[:2])
        if m.group(1) not in UNMEASURED_TABLES and not CONDITIONS.search(after):
            problems.append(_problem(where, text.count(chr(10), 0, m.start()) + 1, f"table '{m.group(1)}'"))
    lines = text.split("\n")
    for first, last in _marked_tables(lines):
        if not CONDITIONS.search("\n".join(lines[last + 1:last + 3])):
            problems.append(_problem(where, first + 1, "the table of value markers here"))
    return problems


class PageResults(page_lists.Results):
    """The results behind the pages' markers: scripts/prose.py's functions, scripts/page_lists.py's,
    and this module's (conditions)."""

    def shared_functions(self):
        return dict(super().shared_functions(), conditions=functools.partial(conditions, self.dir))


def rewrite(path, tables, check, results, exempt, anchors=frozenset(), terms=()):
    """Rewrite one README's tables and prose values; the problems found (stale text in
    --check mode, values that cannot be computed, false assertions, unmarked numbers)."""
    with open(path) as fh:
        text = fh.read()
    new = text
    # The tables' links are written from the repository's root: from a page in a folder, one up.
    depth = os.path.relpath(os.path.dirname(os.path.abspath(path)), ladder.ROOT).count(os.sep) + 1 \
        if os.path.dirname(os.path.abspath(path)) != ladder.ROOT else 0
    up = lambda body: re.sub(r"\]\((?!https?:|#|\.\./|/)", "](" + "../" * depth, body) if depth else body  # noqa: E731
    for name, body in tables.items():
        pat = re.compile(r"(<!-- BEGIN table:%s -->\n).*?(<!-- END table:%s -->)" % (name, name), re.S)
        new = pat.sub(lambda m: m.group(1) + up(body) + "\n" + m.group(2), new)
    where = os.path.relpath(path, ladder.ROOT)
    tables_stale = new != text
    new, problems = prose.render(new, results, where)
    if not check:  # stale prose values are rewritten, not reported
        problems = [p for p in problems if ": '" not in p or " is stale: " not in p]
    problems += prose.lint(new, where, exempt)
    problems += prose.page_problems(new, path, ladder.ROOT, anchors, terms)
    problems += unconditioned_tables(new, where)
    if new != text:
        if check:
            if tables_stale:
                problems.append(f"{where}: tables are stale (run scripts/readme_tables.py)")
        else:
            with open(path, "w") as fh:
                fh.write(new)
            print(f"rewrote the tables and values of {where}")
    return problems


def main(args):
    if "--help" in args or "-h" in args:
        print(__doc__.strip())
        return 0
    only, rest = [], list(args)
    while "--file" in rest:
        i = rest.index("--file")
        if i + 1 >= len(rest):
            print("readme_tables.py: --file needs a README's path (try --help)", file=sys.stderr)
            return 2
        only.append(os.path.normpath(os.path.join(ladder.ROOT, rest[i + 1])))
        del rest[i:i + 2]
    unknown = [a for a in rest if a != "--check"]
    if unknown:
        print(f"readme_tables.py: unknown argument '{unknown[0]}' (try --help)", file=sys.stderr)
        return 2
    pages = prose.readmes(ladder.ROOT)
    missing = [p for p in only if p not in pages]
    if missing:
        print(f"readme_tables.py: {os.path.relpath(missing[0], ladder.ROOT)} is none of the READMEs it checks",
              file=sys.stderr)
        return 2
    results = os.path.join(ladder.ROOT, "results")
    try:
        shared, steps = all_tables(results)
        results_ = PageResults(results)
        exempt = prose.read_exempt(ladder.ROOT)
        anchors = prose.glossary_anchors(ladder.ROOT)
        terms = prose.read_terms(os.path.join(ladder.ROOT, "tests", "glossary_terms.txt"))
        problems = []
        for path in only or pages:
            problems += rewrite(path, tables_for(path, shared, steps), "--check" in rest, results_, exempt, anchors,
                                terms)
        problems += page_lists.problems(only or pages)
    except ladder.ResultsError as err:  # a results file that cannot be read: its name and line, no traceback
        print(f"readme_tables.py: {err}", file=sys.stderr)
        return ladder.EXIT_USAGE
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} problems in the READMEs")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
