"""Step 16's picture (its pictures.py; run by pictures.t beside this file): the moduli and the plan
drawn are the step's ozaki.h's, the worked example is the README's and comes back through the
remainder theorem; drawn twice, the same bytes. The step is this folder's: a copy tests itself.
TAP output.
"""
import re

from pictures_lib import check_drawn, folder_of, source, step_pictures
from tap import done, ok

FOLDER = folder_of(__file__)
p16 = step_pictures(FOLDER)
# ---- the remainder theorem (tc_ozaki): the moduli and the plan are the step's ozaki.h's ----
oz = source(f"{FOLDER}/ozaki.h")
FP32_MODULI = int(re.search(r"#define OZAKI_MAX_MODULI (\d+)", oz).group(1))  # the rest are FP64's (step 20)
ok(p16.MODULI == [int(m) for m in re.findall(r"(?:case \d+|default): return (\d+);", oz)][:FP32_MODULI]
   and f"#define OZAKI_DEFAULT_MODULI_SHORT {p16.DEFAULT_SHORT}" in oz
   and f"#define OZAKI_DEFAULT_MODULI_LONG {p16.DEFAULT_LONG}" in oz and f"#define OZAKI_LONG_SUMS {p16.LONG_SUMS}" in oz,
   "tc_ozaki: the moduli and the default counts drawn are the step's ozaki.h's")
p1, p2, row, col = p16.EXAMPLE
cells = {(x % p1, x % p2) for x in range(p1 * p2)}
exact = sum(a * b for a, b in zip(row, col))
ok(len(cells) == p1 * p2 and p16.crt([exact % p1, exact % p2], [p1, p2]) - p1 * p2 == exact == -2
   and all(abs(v) > max(p1, p2) for v in row + col),
   "tc_ozaki: every number below 63 has a cell of its own; the worked example's inputs are larger than the moduli, "
   "and its remainders 5 and 7 give 61, read -2, back")
readme16 = source(f"{FOLDER}/README.md")
ok(f"({row[0]}, {row[1]})" in readme16 and f"({col[0]}, {str(col[1]).replace('-', '−')})" in readme16
   and "x = 61" in readme16, "tc_ozaki: the picture's example is the README's")
ok(all(p16.crt([x % p for p in p16.MODULI[:4]], p16.MODULI[:4]) == x for x in (0, 1, 12345, 2 ** 31 - 1)),
   "tc_ozaki: the remainder theorem of four moduli gives numbers back")
P, alpha, beta = p16.plan(p16.default_count(8192), 8192)
ok(p16.default_count(8192) == 8 and (alpha, beta) == (24, 25)
   and 8192 * 2 ** (alpha + beta) < P // 2 <= 8192 * 2 ** (alpha + beta + 1),
   "tc_ozaki: at n = 8192 (8 moduli) the plan's alpha and beta are 24 and 25, as step 16's README says, the largest "
   "that keep k 2^(alpha + beta) below P / 2")
ok("alpha = 24, beta = 25" in readme16.replace("α = 24 and β = 25", "alpha = 24, beta = 25"),
   "tc_ozaki: step 16's README gives the same alpha and beta")

# ---- the pictures: drawn, and the same bytes twice ----
svg = check_drawn(ok, FOLDER, ['tc_ozaki'])
ok("61 - 63 = -2" in svg["tc_ozaki"] and "alpha = 24, beta = 25" in svg["tc_ozaki"],
   "tc_ozaki marks the worked example and states the plan")
done()
