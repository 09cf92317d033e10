#!/usr/bin/env python3
"""No hidden state in the programs: the harness owns buffers, setup and teardown (common/step.h's
struct step_ops; the multi-GPU chapter's struct algorithm, multigpu/cluster.h), so no step, version,
reference, peer, chapter program, test helper or harness source keeps mutable data between runs in a
static, a thread-local or a global (a file-scope variable, a __device__ one included; in C++ a
namespace-scope one or a static member too). Declaration by declaration, on the sources with
comments, strings and preprocessor lines removed: a static or thread-local anywhere, or a variable at
file or namespace scope, is reported unless it is a function, a type or const. TAP output
(tests/24-no-hidden-state.t)."""
import glob
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
from tap import done, ok

# Every program's source: the steps and their other programs, versions, headers and test helpers;
# the references and peers (cuBLAS, CUTLASS, GEMMul8: C++); the chapters (CPU, transpose, multi-GPU);
# the harness (common/); the shared test programs and headers.
PROGRAMS = ["step*/*.cu", "step*/*.c", "step*/*.h", "step*/versions/*.cu", "step*/tests/*.c", "step*/tests/*.h",
            "common/*.c", "common/*.h", "common/device/*.h", "cublas/*.cu", "cutlass/*.cu", "gemmul8/*.cu",
            "cpu/*.c", "cpu/*.h", "transpose/*.c", "transpose/*.cu", "transpose/*.h", "multigpu/*.c", "multigpu/*.h",
            "tests/*.c", "tests/*.cu", "tests/*.h"]
# What must stay, each with why: (file, the declaration as reported) -> the reason. Each must
# still be found, so that none outlives what it excuses.
EXEMPT = {
    ("tests/tap.h", "static int tap_count, tap_failed;"):
        "the tally of a C test program's TAP lines, which its done_testing() prints: the test's own count, "
        "no program's run state",
}


def blank_text(text):
    """text with comments, string and character literals and preprocessor lines blanked (strings
    become "", so extern "C" stays recognisable), newlines kept for the line numbers."""
    out, i, n = [], 0, len(text)
    line_start = True
    while i < n:
        c = text[i]
        if line_start and c in " \t":
            out.append(c)
            i += 1
            continue
        if line_start and c == "#":  # a preprocessor line, with its continuations
            while i < n and text[i] != "\n":
                if text[i] == "\\" and i + 1 < n and text[i + 1] == "\n":
                    out.append("\n")
                    i += 2
                    continue
                i += 1
            continue
        line_start = c == "\n"
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append(" " + "\n" * text.count("\n", i, end))
            i = end
        elif text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


# Parentheses that are not a function's: attributes, alignment, launch bounds, a type taken from an
# expression (__typeof__(f) *p is a pointer, not a function).
NOT_CALLS = re.compile(r"\b(?:__attribute__|__align__|alignas|__launch_bounds__|__typeof__|typeof|decltype)\s*"
                       r"\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\)")
SKIPPED = re.compile(r"(?:static_assert|_Static_assert|typedef|using|return|friend|namespace|goto|case|default|"
                     r"break|continue|throw|delete|else|do)\b")
STORAGE = r"(?:static|thread_local|_Thread_local|__thread)\b"
QUALIFIERS = r"(?:(?:__device__|__constant__|__managed__|__host__|inline|const|volatile|constexpr|extern)\s+)*"
TYPE_ONLY = re.compile(r"(?:(?:const|volatile)\s+)*(?:struct|union|enum|class)(?:\s+class)?(?:\s+\w+)?"
                       r"(?:\s*:[^{]*)?\s*(?:\{\})?")


def mutable(statement, scopes):
    """True when a declaration (one statement, type bodies and initializers shown as {}) keeps mutable
    state beyond a call: a static or thread-local anywhere, or any variable at file or namespace scope."""
    s = " ".join(NOT_CALLS.sub(" T ", statement).split())
    s = re.sub(r"^extern\s*\"\"\s*", "", s)                     # C linkage, not a declaration's storage
    s = re.sub(r"^template\s*<(?:[^<>]|<[^<>]*>)*>\s*", "", s)  # a template's parameters
    if not s or SKIPPED.match(s) or (s.startswith("extern") and "=" not in s):
        return False  # nothing, or a declaration whose definition is elsewhere
    head = s.split("=")[0].strip()
    at_file_scope = all(kind == "namespace" for kind in scopes)
    if not re.match(QUALIFIERS + STORAGE, head) and not at_file_scope:
        return False  # a local, a member, a parameter: gone with the call or the object
    if TYPE_ONLY.fullmatch(head):
        return False  # a type's declaration, no object
    paren = head.find("(")
    if paren >= 0 and not re.match(r"\(\s*\*", head[paren:]):
        return False  # a function (the first parentheses hold its parameters), not a function pointer
    star = head.rfind("*")
    return not re.search(r"\b(?:const|constexpr)\b", head[star + 1:] if star >= 0 else head)


def block_kind(statement):
    """What a '{' opens, from the statement before it."""
    s = " ".join(NOT_CALLS.sub(" T ", statement).split())
    if re.fullmatch(r"(?:inline\s+)?namespace(?:\s+[\w:]+)?|extern\s*\"\"", s):
        return "namespace"
    if "=" in s.replace("==", "").replace("<=", "").replace(">=", "").replace("!=", "") and not s.endswith(")"):
        return "initializer"
    if re.search(r"\b(?:struct|union|enum|class)\b(?:\s+class)?(?:\s+\w+)?(?:\s*:[^(){}]*)?$", s) and "(" not in s:
        return "type"
    return "code"


def mutable_statics(text, where):
    """'where:line: declaration' for each declaration of mutable state between runs in a C, CUDA or
    C++ source: a static or thread-local (in a function, a class or a file), or a file-scope or
    namespace-scope variable, __device__ ones included."""
    text = blank_text(text)
    found = []
    scopes = []     # the open braces' kinds: namespace, type, initializer, code
    saved = []      # per open brace: the statement it interrupts, continued after it (type, initializer)
    statement, start = "", None
    line = 1
    for c in text:
        if c == "\n":
            line += 1
        if scopes and scopes[-1] == "initializer" and c not in "{}":
            continue  # an initializer's values are no declarations
        if c == "{":
            kind = "initializer" if scopes and scopes[-1] == "initializer" else block_kind(statement)
            scopes.append(kind)
            saved.append((statement, start) if kind in ("type", "initializer") else None)
            statement, start = "", None
        elif c == "}":
            if not scopes:
                continue
            scopes.pop()
            outer = saved.pop()
            statement, start = (outer[0] + "{}", outer[1]) if outer else ("", None)
        elif c == ";":
            if mutable(statement, scopes):
                found.append(f"{where}:{start}: {' '.join(statement.split())};")
            statement, start = "", None
        else:
            if start is None and not c.isspace():
                start = line
            statement += c
    return found


fixture = ("static int opted_in;\nstatic const int table[2] = {1, 2};\nstatic void f(int x)\n{\n    static float *bt;\n"
           "    int local = x;\n    static const struct { const char *name; int n; } cases[] = {{\"a\", 1}};\n}\n"
           "__device__ int flags[4];\n__device__ static int g(int a);\nstatic_assert(1, \"x\");\n"
           "template <int N> static void h(const float *a);\nstatic CUtensorMap maps[2];\n"
           "int calls;\nconst struct step_info step_info = {.program = \"x\"};\nextern int declared_elsewhere;\n"
           "extern \"C\" const char step_archs[] = \"sm_90\";\nstatic const char *names[] = {\"a\", \"b\"};\n"
           "static const char *const fixed_names[] = {\"a\"};\nvoid matmult_gpu(const float *a, int lda,\n"
           "                 int kernel_reps, struct gpu_run *run);\nstruct step_state {\n    int handle;\n};\n"
           "static const struct {\n    unsigned moduli;\n    bool fast;\n} settings[] = {{8, false}};\n"
           "void (*hook)(void);\nint qsort_like(int (*compare)(const void *, const void *));\n"
           "static __typeof__(qsort_like) *p_qsort_like;\ntypedef void (*launch_fn)(int);\n"
           "__global__ void __launch_bounds__(256) matmult_kernel(float *c) { __shared__ float tile[16]; }\n"
           "namespace {\nint cache;\n}\nstruct counter {\n    static int count;\n    static constexpr int most = 4;\n"
           "    static int next(int x);\n};\nthread_local int scratch;\nenum { R = 37, C = 53 };\n")
hits = mutable_statics(fixture, "fixture")
expected = ("opted_in", "*bt", "flags[4]", "maps[2]", "int calls", "*names[]", "(*hook)", "*p_qsort_like", "int cache",
            "int count", "int scratch")
ok(len(hits) == len(expected) and all(any(w in h for h in hits) for w in expected),
   "the check finds a file static, a function static, a __device__ global, a static tensor map, a global, an array of "
   "mutable pointers, a function pointer, a pointer typed by __typeof__, a C++ namespace-scope variable, a static "
   "member and a thread-local; and passes constants, locals, members, functions, prototypes over several lines, "
   "types, declarations of what is defined elsewhere and static_assert", hits)
files = sorted({os.path.relpath(p, ROOT) for pat in PROGRAMS for p in glob.glob(os.path.join(ROOT, pat))})
hits = [h for f in files for h in mutable_statics(open(os.path.join(ROOT, f), errors="replace").read(), f)]
unexcused = [h for h in hits if (h.split(":")[0], h.split(": ", 1)[1]) not in EXEMPT]
used = {(h.split(":")[0], h.split(": ", 1)[1]) for h in hits}
folders = {f.split("/")[0] for f in files}
everywhere = {"common", "cpu", "cublas", "cutlass", "gemmul8", "multigpu", "tests", "transpose"}
steps = sorted(f for f in folders if f.startswith("step"))
ok(everywhere <= folders and steps and not unexcused,
   f"no mutable static, thread-local or global in the {len(files)} sources of {', '.join(sorted(everywhere))} and "
   f"the {len(steps)} step folders ({len(EXEMPT)} exempt, each with its reason)", unexcused)
ok(used >= set(EXEMPT), "every exemption still excuses a declaration it names",
   "\n".join(f"{f}: {d}" for f, d in sorted(set(EXEMPT) - used)))
done()
