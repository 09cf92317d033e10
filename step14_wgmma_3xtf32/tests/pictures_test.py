"""Step 14's picture (its pictures.py; run by pictures.t beside this file): the shared memory and
registers each tile shape takes, from the sources' own macros (step 13's and step 14's), and a
wrong budget told apart; drawn twice, the same bytes. TAP output.
"""
import re

from pictures_lib import c_macros, check_drawn, folder_of, step_pictures, step_source
from tap import done, ok

FOLDER = folder_of(__file__)
p14 = step_pictures(FOLDER)
s13 = step_source("step13_")
# ---- step 14's budget (tc_budget): the sources' own macros give the bytes drawn ----
s14 = step_source(FOLDER)


m14, m13 = c_macros(s14), c_macros(s13)
rows = {(r["step"], r["bn"]): r for r in p14.budget_rows()}
configs14 = re.findall(r'\{\w+, "128x(\d+)x32/(\d+)", SMEM\((\d+), (\d+)\)\}', s14)
ok(m14["BM"] == p14.BM14 and m14["BK"] == p14.BK14 and len(configs14) == 4
   and all(rows[(14, int(bn))]["stages"] == int(st) and rows[(14, int(bn))]["smem"] == m14["SMEM"](int(bn), int(st))
           and rows[(14, int(bn))]["stage"] == m14["STAGE_BYTES"](int(bn)) for bn, st, _, _ in configs14),
   "tc_budget: step14.cu's configurations (128x128x32/3, 128x64x32/4) take the shared memory its SMEM() gives",
   configs14)
ok(rows[(13, 256)]["stage"] == m13["STAGE_BYTES"](256) and rows[(13, 256)]["smem"] == m13["SMEM"](256, 4)
   and rows[(14, 256)]["stage"] == m14["STAGE_BYTES"](256),
   "tc_budget: step 13's 128x256x32/4 and step 14's 128 x 256 stage are their sources' STAGE_BYTES")
ok(s14.count(f"setmaxnreg_inc<{p14.REGS_LIMIT}>") == 1 and s13.count(f"setmaxnreg_inc<{p14.REGS_LIMIT}>") == 1
   and "float acc[BN / 2], sum[BN / 2];" in s14 and "float acc[BN / 2];" in s13,
   f"tc_budget: both consumers get {p14.REGS_LIMIT} registers; step 14 holds BN / 2 accumulators and as many sums")
ok(rows[(14, 256)]["stages"] == 2 and rows[(14, 256)]["acc"] + rows[(14, 256)]["sums"] > p14.REGS_LIMIT
   and all(r["smem"] <= p14.SMEM_LIMIT for r in rows.values())
   and all(rows[(14, bn)]["acc"] + rows[(14, bn)]["sums"] <= p14.REGS_LIMIT for bn in (64, 128)),
   "tc_budget: a 128 x 256 tile of step 14 fits two stages and needs 256 floats per thread, more than 232; "
   "its two configurations fit")
wrong = p14.budget(13, 128, 3)  # one copy of each operand: step 13's stage, not step 14's
ok(wrong["stage"] != m14["STAGE_BYTES"](128), "tc_budget: a stage without the small copies is told apart")

# ---- the pictures: drawn, and the same bytes twice ----
svg = check_drawn(ok, FOLDER, ['tc_budget'])
ok("256 of 232: does not fit" in svg["tc_budget"] and svg["tc_budget"].count("192 KB") == 4,
   "tc_budget marks the 128 x 256 tile's registers as not fitting and each row's 192 KB")
done()
