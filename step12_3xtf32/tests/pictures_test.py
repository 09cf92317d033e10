"""Step 12's picture (its pictures.py; run by pictures.t beside this file): TF32 rounding and the
3xTF32 split it draws, with a wrong rounding told apart; drawn twice, the same bytes. TAP output.
"""

from pictures_lib import check_drawn, folder_of, step_pictures
from tap import done, ok

FOLDER = folder_of(__file__)
p12 = step_pictures(FOLDER)
# ---- TF32 rounding and the 3xTF32 split ----
ok(p12.tf32_rn(0x3F801000) == 0x3F800000 and p12.tf32_rn(0x3F803000) == 0x3F804000
   and p12.tf32_rn(0x3F801001) == 0x3F802000 and p12.tf32_rn(0x3F800FFF) == 0x3F800000,
   "cvt.rn: ties to even, the rest to nearest")
ok(p12.tf32_rna(0x3F801000) == 0x3F802000, "cvt.rna: ties away from zero")
s = p12.split_3xtf32(1 + 2 ** -12 + 2 ** -23)
ok(s["big"] == 0x3F800000 and s["small"] == p12.f32_bits(2 ** -12) and s["lost"] == 2 ** -23,
   "1 + 2^-12 + 2^-23 splits into big = 1 and small = 2^-12: exactly 2^-23 is lost", s)
ok(p12.split_3xtf32(1 + 2 ** -12)["lost"] == 0 and p12.split_3xtf32(1 + 2 ** -11 + 2 ** -22)["lost"] == 0,
   "values whose bits big and small can hold split exactly (the check can fail)")
ok(p12.split_3xtf32(1 + 2 ** -12 + 2 ** -23, p12.tf32_rna)["lost"] == -2 ** -23,
   "with cvt.rna the same value comes out one ulp above instead")

# ---- the pictures: drawn, and the same bytes twice ----
svg = check_drawn(ok, FOLDER, ['tc_split'])
ok("in neither, lost" in svg["tc_split"], "tc_split marks the lost bit")
done()
