"""Step 11's pictures (its pictures.py; run by pictures.t beside this file): the rules they are drawn
from agree with the kernels' sources (steps 11 and 12 share them) and give the facts the chapter
states (fragment owners, what ldmatrix delivers, bank conflicts with and without the swizzles),
and a wrong rule is told apart; drawn twice, every file is the same byte for byte. TAP output.
"""
import re

from pictures_lib import check_drawn, folder_of, macro, source, step_pictures, step_source
from tap import done, ok

FOLDER = folder_of(__file__)
p11 = step_pictures(FOLDER)
s11, s12 = step_source(FOLDER), step_source("step12_")
# ---- mma.sync.m16n8k8 fragments ----
try:
    own = {name: p11.owners(name) for name in ("A", "B", "C")}
    ok(True, "each operand's rule gives every element to exactly one lane and register")
except ValueError as err:
    own = None
    ok(False, "each operand's rule gives every element to exactly one lane and register", err)
ok(own is not None and own["A"][(1, 1)] == (5, 0) and own["A"][(9, 1)] == (5, 1) and own["A"][(9, 5)] == (5, 3)
   and own["B"][(5, 1)] == (5, 1)
   and own["C"][(1, 2)] == (5, 0) and own["C"][(9, 3)] == (5, 3),
   "lane 5 holds A(1, 1) in a0, A(9, 1) in a1, A(9, 5) in a3, B(5, 1) in b1, C(1, 2) in c0 and C(9, 3) in c3")
# The layout documented in common/device/tf32_mma.h is the one drawn.
doc = re.search(r"Lane l holds.*?\n \*\s+a: (.*?)\s+b: (.*?)\n \*\s+d: (.*?)\s*\*/", source("common/device/tf32_mma.h"))
differ = []
if doc:
    for (name, regs), text in zip((("A", 4), ("B", 2), ("C", 4)), doc.groups()):
        places = re.findall(r"\(([^)]*)\)", re.sub(r"(\d)([gt])", r"\1*\2", text))
        rule = p11.FRAGMENTS[name][3]
        differ += [f"{name}{reg} lane {lane}" for lane in range(32) for reg in range(regs)
                   if len(places) != regs or eval(f"({places[reg]})", {"g": lane // 4, "t": lane % 4})
                   != rule(lane, reg)]
ok(doc and not differ, "common/device/tf32_mma.h's documented fragments are the pictures' rules", " ".join(differ[:8]))

# ---- ldmatrix.x4 on A ----
got = p11.ldmatrix_x4()
ok(all(got[lane][j][:2] == p11.a_element(lane, j) for lane in range(32) for j in range(4)),
   "ldmatrix.x4 with step 11/12's row addresses delivers the mma's a0..a3 to every lane")
ok(got[5][0] == (1, 1, 1) and got[5][1] == (9, 1, 9) and got[5][3] == (9, 5, 25),
   "lane 5's a0 is A(1, 1), from the row whose address lane 1 gives; its a3 A(9, 5), via lane 25", got[5])
swapped = p11.ldmatrix_x4(lambda lane: ((lane >> 4) * 8 + (lane & 7), (lane >> 3 & 1) * 4))
ok(any(swapped[lane][j][:2] != p11.a_element(lane, j) for lane in range(32) for j in range(4)),
   "... and addresses with matrices 1 and 2 swapped do not (the check can fail)")
ok("a_row = wrow + (lane >> 3 & 1) * 8 + (lane & 7)" in s11 and "8 * q + (lane >> 4) * 4" in s11
   and "lrow = wrow + i * 16 + (lane >> 3 & 1) * 8 + (lane & 7)" in s12 and "k8 + (lane >> 4) * 4" in s12,
   "steps 11 and 12 compute the ldmatrix row addresses the picture uses")


# ---- the swizzles and the banks ----
ok(all(re.search(r"#define BK (\d+)", s).group(1) == str(p11.BK) for s in (s11, s12)), "BK is the sources' BK")
mismatch = []
for path, text in (("step11", s11), ("step12", s12)):
    a, b = macro(text, "SWZ_A", BK=p11.BK), macro(text, "SWZ_B", BK=p11.BK)
    if a is None or b is None:
        mismatch.append(f"{path}: no SWZ_A or SWZ_B")
        continue
    mismatch += [f"{path} SWZ_A({r}, {k})" for r in range(64) for k in range(p11.BK) if a(r, k) != p11.swz_a(r, k)]
    mismatch += [f"{path} SWZ_B({k}, {c}, {bn})" for bn in (128, 256) for k in range(p11.BK) for c in range(bn)
                 if b(k, c, bn) != p11.swz_b(k, c, bn)]
ok(not mismatch, "swz_a and swz_b are steps 11 and 12's SWZ_A and SWZ_B", " ".join(mismatch[:8]))
ok(p11.conflict_degree(p11.a_read(False)) == 8 and p11.conflict_degree(p11.a_read(True)) == 1,
   "A's fragment read: 8-way conflict row-major, none with SWZ_A",
   (p11.conflict_degree(p11.a_read(False)), p11.conflict_degree(p11.a_read(True))))
ok(all(p11.conflict_degree(p11.a_read(True, reg, k8, i)) == 1 for reg in range(4) for k8 in (0, 8, 16, 24)
       for i in range(4)), "... and none for any register, k8 or mma tile of the warp")
ok(p11.conflict_degree(p11.b_read(False)) == 4 and p11.conflict_degree(p11.b_read(True)) == 1,
   "B's fragment read: 4-way conflict row-major, none with SWZ_B",
   (p11.conflict_degree(p11.b_read(False)), p11.conflict_degree(p11.b_read(True))))
ok(all(p11.conflict_degree(p11.b_read(True, reg, k8, j, wcol, bn)) == 1 for reg in range(2) for k8 in (0, 8, 16, 24)
       for j in range(8) for wcol in (0, 64) for bn in (128, 256)),
   "... and none for any register, k8, mma column, warp column or BN = 256")
ok(p11.conflict_degree([0, 32, 32, 1]) == 2 and p11.conflict_degree([5] * 32) == 1,
   "a bank holding two words takes two wavefronts; one word read by all lanes, one")

# ---- the pictures: drawn, and the same bytes twice ----
svg = check_drawn(ok, FOLDER, ['tc_fragments', 'tc_ldmatrix', 'tc_swizzle'])
ok("8-way conflict" in svg["tc_swizzle"] and "4-way conflict" in svg["tc_swizzle"]
   and svg["tc_swizzle"].count("no conflict") == 2, "tc_swizzle states each read's conflict")
ok("address from lane 1" in svg["tc_ldmatrix"], "tc_ldmatrix follows lane 5's a0 to lane 1's address")
done()
