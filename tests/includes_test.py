#!/usr/bin/env python3
"""A step builds on its parents' code, not on a copy, and takes nothing from a step it does not
build on: every `#include "..."` in a step's folder (its program, headers, versions, variants and
tests) resolves to common/ (the harness and the one-instruction wrappers), to tests/ (the test
helpers' own), to the step's own folder, or to the folder of a step on its builds_on chain (the
steps its --describe names, else the step before it, and theirs in turn). common/ includes from no
step. Every header in common/device/ is listed in its README. The check is run on a made-up tree
first, where it must find the violations planted there. TAP output (tests/30-includes.t)."""
import glob
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from tap import done, ok  # noqa: E402

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
SOURCES = ("*.cu", "*.h", "*.c", "*.cpp")


def step_folders(root):
    return sorted(d for d in os.listdir(root) if re.fullmatch(r"step\d\d_\w+", d) and os.path.isdir(os.path.join(root, d)))


def parents_of(root, folders, declared):
    """{folder: [folders it builds on]}: the steps its builds_on names (declared: {program: "step16 step17"}),
    else the step before it on the ladder."""
    by_program = {f.split("_")[0]: f for f in folders}
    parents = {}
    for i, f in enumerate(folders):
        named = declared.get(f.split("_")[0], "").split()
        parents[f] = [by_program[p] for p in named if p in by_program] if named else folders[i - 1:i]
    return parents


def ancestors(parents, folder):
    seen, todo = set(), list(parents[folder])
    while todo:
        f = todo.pop()
        if f not in seen:
            seen.add(f)
            todo.extend(parents[f])
    return seen


def sources(root, top):
    return sorted(p for pattern in SOURCES for p in glob.glob(os.path.join(root, top, "**", pattern), recursive=True))


def resolve(root, path, name):
    """Where the compiler finds a quoted include: beside the file, else on the build's -I paths
    (common/, tests/, the step's folder for its test helpers)."""
    step = os.path.relpath(path, root).split(os.sep)[0]
    for base in (os.path.dirname(path), os.path.join(root, "common"), os.path.join(root, "tests"),
                 os.path.join(root, step)):
        candidate = os.path.normpath(os.path.join(base, name))
        if os.path.exists(candidate):
            return os.path.relpath(candidate, root)
    return None


def violations(root, declared):
    """'file: includes X, from ...' for each include the rule refuses."""
    folders = step_folders(root)
    parents = parents_of(root, folders, declared)
    found = []
    for folder in folders:
        allowed = {folder} | ancestors(parents, folder)
        for path in sources(root, folder):
            for name in INCLUDE.findall(open(path, errors="replace").read()):
                where = resolve(root, path, name)
                if where is None:
                    continue  # a system or toolkit header
                top = where.split(os.sep)[0]
                if top in ("common", "tests") or top in allowed:
                    continue
                found.append(f"{os.path.relpath(path, root)}: includes {where}, from {top}, which is not on "
                             f"{folder}'s builds_on chain ({', '.join(sorted(allowed - {folder})) or 'none'})")
    for path in sources(root, "common"):
        for name in INCLUDE.findall(open(path, errors="replace").read()):
            where = resolve(root, path, name)
            if where and re.match(r"step\d\d_", where):
                found.append(f"{os.path.relpath(path, root)}: the harness includes {where}, a step's")
    return found


def describe_builds_on(folder):
    """The steps a built program names in its --describe (builds_on=), or None when it is not built."""
    program = os.path.join(ROOT, folder, folder.split("_")[0])
    try:
        out = subprocess.run([program, "--describe"], capture_output=True, text=True).stdout
    except OSError:
        return None
    return dict(line.split("=", 1) for line in out.splitlines() if "=" in line).get("builds_on", "")


# The check on a made-up tree: step 03 may include step 01's header through step 02, which
# builds on it; step 02 may not include step 03's, nor step 04 (which builds on step 01 alone)
# step 02's; the harness may include no step's.
with tempfile.TemporaryDirectory() as tree:
    files = {
        "common/step.h": "", "common/device/tma.h": "",
        "common/harness.c": '#include "step.h"\n#include "../step01_a/lesson.h"\n',
        "step01_a/lesson.h": '#include "device/tma.h"\n', "step01_a/step01.cu": '#include "lesson.h"\n',
        "step02_b/step02.cu": '#include "step.h"\n#include "../step01_a/lesson.h"\n#include "../step03_c/later.h"\n',
        "step02_b/versions/step02_v1.cu": '#include "../../step01_a/lesson.h"\n',
        "step03_c/later.h": "", "step03_c/step03.cu": '#include "../step01_a/lesson.h"\n#include "later.h"\n',
        "step04_d/step04.cu": '#include "../step01_a/lesson.h"\n#include "../step02_b/step02.cu"\n',
    }
    for name, text in files.items():
        os.makedirs(os.path.dirname(os.path.join(tree, name)), exist_ok=True)
        open(os.path.join(tree, name), "w").write(text)
    hits = violations(tree, {"step04": "step01"})
    ok(len(hits) == 3 and any(h.startswith("step02_b/step02.cu: includes step03_c/later.h") for h in hits)
       and any(h.startswith("step04_d/step04.cu: includes step02_b/step02.cu") for h in hits)
       and any(h.startswith("common/harness.c: the harness includes step01_a/lesson.h") for h in hits),
       "the check finds a step including a later step, a step including one off its builds_on chain, and the "
       "harness including a step; it passes includes along the chain (a version's too)", "\n".join(hits))

folders = step_folders(ROOT)
declared = {}
for folder in folders:
    named = describe_builds_on(folder)
    ok(named is not None, f"{folder}: its program says what it builds on (--describe)", "not built: run make")
    declared[folder.split("_")[0]] = named or ""
hits = violations(ROOT, declared)
ok(not hits, f"every include of the {len(folders)} step folders is from common/, its own folder or a step it "
   "builds on; common/ includes no step", "\n".join(hits))

readme = open(os.path.join(ROOT, "common", "device", "README.md")).read()
headers = sorted(os.path.basename(h) for h in glob.glob(os.path.join(ROOT, "common", "device", "*.h")))
unlisted = [h for h in headers if f"[{h}]({h})" not in readme]
ok(headers and not unlisted, f"common/device/README.md lists each of its {len(headers)} headers", unlisted)
done()
