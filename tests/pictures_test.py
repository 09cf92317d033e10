"""The tensor-core pictures (plots/tensor_pictures.py): the rules they are drawn from agree
with the kernels' sources and give the facts the chapter states (fragment owners, what
ldmatrix delivers, bank conflicts with and without the swizzles, the 3xTF32 split), and a
wrong rule is told apart; drawn twice, every file is the same byte for byte. TAP output
(tests/13-pictures.t)."""
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "plots"))
from tap import done, ok, skip_all  # noqa: E402

try:
    import matplotlib  # noqa: F401
except ImportError as err:
    skip_all(f"matplotlib cannot be imported by {sys.executable} ({err}); make plots-env installs it")
import tensor_pictures as tp  # noqa: E402

NAMES = ("tc_fragments", "tc_ldmatrix", "tc_swizzle", "tc_split")


def source(path):
    return open(os.path.join(ROOT, path)).read()


def macro(text, name):
    """A C macro of the sources as a Python function: its body is only ( ) * + >> << ^ &,
    which Python reads with C's meaning and precedence."""
    m = re.search(rf"#define {name}\(([^)]*)\) (.*)", text)
    return eval(f"lambda {m.group(1)}: {m.group(2)}", {"BK": tp.BK}) if m else None


# ---- mma.sync.m16n8k8 fragments ----
try:
    own = {name: tp.owners(name) for name in ("A", "B", "C")}
    ok(True, "each operand's rule gives every element to exactly one lane and register")
except ValueError as err:
    own = None
    ok(False, "each operand's rule gives every element to exactly one lane and register", err)
ok(own is not None and own["A"][(1, 1)] == (5, 0) and own["A"][(9, 1)] == (5, 1) and own["A"][(9, 5)] == (5, 3)
   and own["B"][(5, 1)] == (5, 1)
   and own["C"][(1, 2)] == (5, 0) and own["C"][(9, 3)] == (5, 3),
   "lane 5 holds A(1, 1) in a0, A(9, 1) in a1, A(9, 5) in a3, B(5, 1) in b1, C(1, 2) in c0 and C(9, 3) in c3")
# The layout documented in common/tf32_mma.h is the one drawn.
doc = re.search(r"Lane l holds.*?\n \*\s+a: (.*?)\s+b: (.*?)\n \*\s+d: (.*?)\s*\*/", source("common/tf32_mma.h"))
differ = []
if doc:
    for (name, regs), text in zip((("A", 4), ("B", 2), ("C", 4)), doc.groups()):
        places = re.findall(r"\(([^)]*)\)", re.sub(r"(\d)([gt])", r"\1*\2", text))
        rule = tp.FRAGMENTS[name][3]
        differ += [f"{name}{reg} lane {lane}" for lane in range(32) for reg in range(regs)
                   if len(places) != regs or eval(f"({places[reg]})", {"g": lane // 4, "t": lane % 4})
                   != rule(lane, reg)]
ok(doc and not differ, "common/tf32_mma.h's documented fragments are the pictures' rules", " ".join(differ[:8]))

# ---- ldmatrix.x4 on A ----
got = tp.ldmatrix_x4()
ok(all(got[lane][j][:2] == tp.a_element(lane, j) for lane in range(32) for j in range(4)),
   "ldmatrix.x4 with step 11/12's row addresses delivers the mma's a0..a3 to every lane")
ok(got[5][0] == (1, 1, 1) and got[5][1] == (9, 1, 9) and got[5][3] == (9, 5, 25),
   "lane 5's a0 is A(1, 1), from the row whose address lane 1 gives; its a3 A(9, 5), via lane 25", got[5])
swapped = tp.ldmatrix_x4(lambda lane: ((lane >> 4) * 8 + (lane & 7), (lane >> 3 & 1) * 4))
ok(any(swapped[lane][j][:2] != tp.a_element(lane, j) for lane in range(32) for j in range(4)),
   "... and addresses with matrices 1 and 2 swapped do not (the check can fail)")
s11, s12 = source("step11_tf32/step11.cu"), source("step12_3xtf32/step12.cu")
ok("a_row = wrow + (lane >> 3 & 1) * 8 + (lane & 7)" in s11 and "8 * q + (lane >> 4) * 4" in s11
   and "lrow = wrow + i * 16 + (lane >> 3 & 1) * 8 + (lane & 7)" in s12 and "k8 + (lane >> 4) * 4" in s12,
   "steps 11 and 12 compute the ldmatrix row addresses the picture uses")

# ---- the swizzles and the banks ----
ok(all(re.search(r"#define BK (\d+)", s).group(1) == str(tp.BK) for s in (s11, s12)), "BK is the sources' BK")
mismatch = []
for path, text in (("step11", s11), ("step12", s12)):
    a, b = macro(text, "SWZ_A"), macro(text, "SWZ_B")
    if a is None or b is None:
        mismatch.append(f"{path}: no SWZ_A or SWZ_B")
        continue
    mismatch += [f"{path} SWZ_A({r}, {k})" for r in range(64) for k in range(tp.BK) if a(r, k) != tp.swz_a(r, k)]
    mismatch += [f"{path} SWZ_B({k}, {c}, {bn})" for bn in (128, 256) for k in range(tp.BK) for c in range(bn)
                 if b(k, c, bn) != tp.swz_b(k, c, bn)]
ok(not mismatch, "swz_a and swz_b are steps 11 and 12's SWZ_A and SWZ_B", " ".join(mismatch[:8]))
ok(tp.conflict_degree(tp.a_read(False)) == 8 and tp.conflict_degree(tp.a_read(True)) == 1,
   "A's fragment read: 8-way conflict row-major, none with SWZ_A",
   (tp.conflict_degree(tp.a_read(False)), tp.conflict_degree(tp.a_read(True))))
ok(all(tp.conflict_degree(tp.a_read(True, reg, k8, i)) == 1 for reg in range(4) for k8 in (0, 8, 16, 24)
       for i in range(4)), "... and none for any register, k8 or mma tile of the warp")
ok(tp.conflict_degree(tp.b_read(False)) == 4 and tp.conflict_degree(tp.b_read(True)) == 1,
   "B's fragment read: 4-way conflict row-major, none with SWZ_B",
   (tp.conflict_degree(tp.b_read(False)), tp.conflict_degree(tp.b_read(True))))
ok(all(tp.conflict_degree(tp.b_read(True, reg, k8, j, wcol, bn)) == 1 for reg in range(2) for k8 in (0, 8, 16, 24)
       for j in range(8) for wcol in (0, 64) for bn in (128, 256)),
   "... and none for any register, k8, mma column, warp column or BN = 256")
ok(tp.conflict_degree([0, 32, 32, 1]) == 2 and tp.conflict_degree([5] * 32) == 1,
   "a bank holding two words takes two wavefronts; one word read by all lanes, one")

# ---- TF32 rounding and the 3xTF32 split ----
ok(tp.tf32_rn(0x3F801000) == 0x3F800000 and tp.tf32_rn(0x3F803000) == 0x3F804000
   and tp.tf32_rn(0x3F801001) == 0x3F802000 and tp.tf32_rn(0x3F800FFF) == 0x3F800000,
   "cvt.rn: ties to even, the rest to nearest")
ok(tp.tf32_rna(0x3F801000) == 0x3F802000, "cvt.rna: ties away from zero")
s = tp.split_3xtf32(1 + 2 ** -12 + 2 ** -23)
ok(s["big"] == 0x3F800000 and s["small"] == tp.f32_bits(2 ** -12) and s["lost"] == 2 ** -23,
   "1 + 2^-12 + 2^-23 splits into big = 1 and small = 2^-12: exactly 2^-23 is lost", s)
ok(tp.split_3xtf32(1 + 2 ** -12)["lost"] == 0 and tp.split_3xtf32(1 + 2 ** -11 + 2 ** -22)["lost"] == 0,
   "values whose bits big and small can hold split exactly (the check can fail)")
ok(tp.split_3xtf32(1 + 2 ** -12 + 2 ** -23, tp.tf32_rna)["lost"] == -2 ** -23,
   "with cvt.rna the same value comes out one ulp above instead")

# ---- the pictures: drawn, and the same bytes twice ----
with tempfile.TemporaryDirectory() as tmp:
    outs = [os.path.join(tmp, d) for d in ("one", "two")]
    runs = [subprocess.run([sys.executable, os.path.join(ROOT, "plots", "tensor_pictures.py"), "--out", out],
                           capture_output=True, text=True) for out in outs]
    ok(all(p.returncode == 0 for p in runs), "plots/tensor_pictures.py runs", "".join(p.stderr for p in runs))
    files = [f"{n}.{ext}" for n in NAMES for ext in ("png", "svg")]

    def read(out, f):
        path = os.path.join(out, f)
        return open(path, "rb").read() if os.path.exists(path) else b""
    ok(all(read(outs[0], f).startswith(b"\x89PNG") for f in files if f.endswith(".png"))
       and all(len(read(outs[0], f)) > 10000 for f in files),
       "every picture is written, as a non-empty PNG and an SVG")
    differ = [f for f in files if read(outs[0], f) != read(outs[1], f)]
    ok(not differ, "drawn twice, every file is the same byte for byte", " ".join(differ))
    svg = {n: read(outs[0], n + ".svg").decode(errors="replace") for n in NAMES}
    ok("8-way conflict" in svg["tc_swizzle"] and "4-way conflict" in svg["tc_swizzle"]
       and svg["tc_swizzle"].count("no conflict") == 2, "tc_swizzle states each read's conflict")
    ok("address from lane 1" in svg["tc_ldmatrix"] and "in neither, lost" in svg["tc_split"],
       "tc_ldmatrix follows lane 5's a0 to lane 1's address; tc_split marks the lost bit")
done()
