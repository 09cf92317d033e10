"""Step 15's picture (its pictures.py; run by pictures.t beside this file): the budget drawn is
step15.cu's (its macros and setmaxnreg counts), and a budget that would not fit is told apart;
drawn twice, the same bytes. TAP output.
"""

from pictures_lib import c_macros, check_drawn, folder_of, step_pictures, step_source
from tap import done, ok

FOLDER = folder_of(__file__)
p15 = step_pictures(FOLDER)
# ---- step 15's budget (tc_fused): its macros and setmaxnreg counts are the ones drawn ----
s15 = step_source(FOLDER)
m15 = c_macros(s15)
ok(m15["BM"] == p15.BM and m15["BK"] == p15.BK and '{WIDE_3, "128x%dx32/%d", SMEM(%d, %d)}' % ((p15.BN, p15.STAGES) * 2)
   in s15 and m15["SMEM"](p15.BN, p15.STAGES) == p15.smem_bytes() <= p15.SMEM_LIMIT
   and m15["STAGE_BYTES"](p15.BN) == sum(b for _, b in p15.stage_parts()),
   f"tc_fused: step15.cu's wide configuration takes the {p15.smem_bytes()} bytes drawn, four tiles a stage")
counts = {"producer": f"setmaxnreg_dec<{p15.REGS['producer']}>", "transform": f"setmaxnreg_dec<{p15.REGS['transform']}>",
          "consumer": f"setmaxnreg_inc<{p15.REGS['consumer']}>"}
ok(all(s15.count(c) == 1 for c in counts.values()),
   "tc_fused: the registers drawn are step15.cu's setmaxnreg counts", counts)
ok(sum(p15.registers().values()) <= p15.REGISTER_FILE and sum(p15.THREADS.values()) == 512,
   f"tc_fused: 512 threads' registers fit the SM's {p15.REGISTER_FILE} ({sum(p15.registers().values())})")
wrong = dict(p15.REGS, consumer=p15.REGS["consumer"] + 8)
ok(sum(wrong[k] * p15.THREADS[k] for k in wrong) > p15.REGISTER_FILE,
   "tc_fused: 8 more registers per consumer thread would not fit (the budget is told apart)")

# ---- the pictures: drawn, and the same bytes twice ----
svg = check_drawn(ok, FOLDER, ['tc_fused'])
ok("not to scale" in svg["tc_fused"] and "split A1" in svg["tc_fused"],
   "tc_fused says its timeline is a schematic, not a measurement")
done()
