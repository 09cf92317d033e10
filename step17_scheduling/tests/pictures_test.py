"""Step 17's picture (its pictures.py; run by pictures.t beside this file): the budgets drawn are
the sources' own (step17.cu, its version 3 and step13.cu): tile shapes, stages, shared memory,
accumulators and fragments; a wrong shape told apart; drawn twice, the same bytes. TAP output.
"""
import os
import re

from pictures_lib import check_drawn, define, folder_of, source, step_pictures, step_source
from tap import done, ok

FOLDER = folder_of(__file__)
pic = step_pictures(FOLDER)
s17 = step_source(FOLDER)
v3 = source(os.path.join(FOLDER, "versions", "step17_v3_registers.cu"))
s13 = step_source("step13_")
step13, version3, step = pic.feeds()


def smem_of(text):
    """SMEM as the source defines it: STAGES stages of STAGE_BYTES, the barriers, 1024 to align."""
    bm, bn, bk, stages = (define(x, text) for x in ("BM", "BN", "BK", "STAGES"))
    return bm, bn, bk, stages, stages * (bm + bn) * bk * 4 + 2 * stages * 8 + 1024


bm, bn, bk, stages, smem = smem_of(s17)
ok((bm, bn, bk, stages) == (step["bm"], step["bn"], pic.BK, pic.STAGES) and smem == step["smem"]
   and "#define STAGE_BYTES (A_BYTES + BN * BK * 4)" in s17 and "#define A_BYTES (BM * BK * 4)" in s17
   and "#define SMEM (STAGES * STAGE_BYTES + 2 * STAGES * 8 + 1024)" in s17,
   f"tc_schedule: step 17's {bm} x {bn} x {bk} tile, {stages} stages, {smem:,} bytes, as step17.cu defines them")
bm3, bn3, bk3, stages3, smem3 = smem_of(v3)
ok((bm3, bn3) == (version3["bm"], version3["bn"]) and smem3 == version3["smem"],
   f"tc_schedule: version 3's {bm3} x {bn3} tile and {smem3:,} bytes, as its source defines them")
ok(define("BM", s13) == step13["bm"] == 128 and step13["bn"] == 256 and define("BK", s13) == pic.BK,
   "tc_schedule: step 13's 128 x 256 x 32 tile")
ok("float acc[128];" in s17 and "wgmma_m64n256k8_tf32_rs(acc," in s17 and step["acc"] == 128
   and "uint32_t f[2][2][4];" in s17 and step["fragments"] == 2 * 2 * 4 and "int offset[4];" in s17,
   "tc_schedule: a step 17 consumer thread holds 128 accumulators (one 64 x 256 wgmma), 16 fragment registers, 4 offsets")
ok("float acc[128];" in v3 and "uint32_t f[2][2][2][4];" in v3 and version3["fragments"] == 32
   and "wgmma_m64n128k8_tf32_rs(acc + 64 * slice" in v3,
   "tc_schedule: a version 3 consumer thread holds two 64 x 128 accumulators and 32 fragment registers")
ok(all(s.count(f"setmaxnreg_inc<{pic.REGS_LIMIT}>") == 1 for s in (s17, v3, s13))
   and all(r["acc"] + r["fragments"] + r["offsets"] <= pic.REGS_LIMIT and r["smem"] <= pic.SMEM_LIMIT
           for r in pic.feeds()),
   f"tc_schedule: every consumer gets {pic.REGS_LIMIT} registers, and every budget fits")
ok((step13["operand_bytes"] + step13["loaded_bytes"], version3["operand_bytes"] + version3["loaded_bytes"],
    step["operand_bytes"] + step["loaded_bytes"]) == (80, 96, 80),
   "tc_schedule: shared-memory bytes per tensor-core cycle, 80 (step 13), 96 (version 3), 80 (step 17)")
wrong = pic.feed("a 64 x 128 wgmma per slice of the 256 x 128 tile", 256, 128, 128, True)
ok(wrong["operand_bytes"] + wrong["loaded_bytes"] != 80, "tc_schedule: a narrower wgmma's bandwidth is told apart")

svg = check_drawn(ok, FOLDER, ["tc_schedule"])
ok(svg["tc_schedule"].count("197,696 bytes") == 3 and "96 bytes" in svg["tc_schedule"],
   "tc_schedule shows each row's 197,696 bytes and version 3's 96 bytes a cycle")
done()
