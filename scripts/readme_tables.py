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
            (scripts/prose.py: measured numbers, process words, word limit, glossary terms)
  --file F  only these READMEs (paths from the repository's root; repeatable)
"""
import glob
import importlib
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
import ladder
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
    shared, steps = all_tables(results)
    results_ = prose.Results(results)
    exempt = prose.read_exempt(ladder.ROOT)
    anchors = prose.glossary_anchors(ladder.ROOT)
    terms = prose.read_terms(os.path.join(ladder.ROOT, "tests", "glossary_terms.txt"))
    problems = []
    for path in only or pages:
        problems += rewrite(path, tables_for(path, shared, steps), "--check" in rest, results_, exempt, anchors, terms)
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} problems in the READMEs")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
