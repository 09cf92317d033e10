#!/usr/bin/env python3
"""No hidden state in the programs: the harness owns buffers, setup and teardown (common/step.h,
struct step_ops), so no step, version, reference or chapter program keeps mutable data in a
static or a __device__ global between runs. Line based, on the sources with comments removed:
a `static` (or file-scope `__device__`) declaration that is not a function, not constexpr and
not const is reported. TAP output (tests/24-no-hidden-state.t)."""
import glob
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
from tap import done, ok

PROGRAMS = ["step*/*.cu", "step*/versions/*.cu", "step*/*.c", "cublas/*.cu", "cutlass/*.cu", "transpose/*.c",
            "transpose/*.cu", "cpu/*.c"]


def mutable_statics(text, where):
    """'where:line: declaration' for each mutable static-storage declaration in a C/CUDA source."""
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    found, depth = [], 0
    for no, line in enumerate(text.split("\n"), 1):
        s = line.strip()
        is_static = re.match(r"(?:(?:__device__|__constant__|inline)\s+)*static\b", s) and not s.startswith(
            "static_assert")
        is_device_global = depth == 0 and re.match(r"__device__\b(?!\s+(?:static\s+)?(?:__forceinline__|inline))", s)
        if is_static or is_device_global:
            head = s.split("=")[0]
            function = "(" in head and not re.search(r"\(\s*\*", head)
            star = head.rfind("*")
            const = re.search(r"\b(?:const|constexpr)\b", head[star + 1:] if star >= 0 else head)
            if not function and not const:
                found.append(f"{where}:{no}: {s}")
        depth += line.count("{") - line.count("}")
    return found


fixture = ("static int opted_in;\nstatic const int table[2] = {1, 2};\nstatic void f(int x)\n{\n    static float *bt;\n}\n"
           "__device__ int flags[4];\n__device__ static int g(int a);\nstatic_assert(1, \"x\");\n"
           "template <int N> static void h(const float *a);\nstatic CUtensorMap maps[2];\n")
hits = mutable_statics(fixture, "fixture")
ok(len(hits) == 4 and all(w in " ".join(hits) for w in ("opted_in", "*bt", "flags[4]", "maps[2]")),
   "the check finds a file static, a function static, a __device__ global and a static tensor map, and passes "
   "constants, functions and static_assert", hits)
files = sorted(p for pat in PROGRAMS for p in glob.glob(os.path.join(ROOT, pat)))
hits = [h for f in files for h in mutable_statics(open(f, errors="replace").read(), os.path.relpath(f, ROOT))]
ok(len(files) > 20 and not hits, f"no mutable static state in the {len(files)} program sources", hits)
done()
