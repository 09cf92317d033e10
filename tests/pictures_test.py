"""The tensor-core pictures (each step's pictures.py, drawn by plots/tensor_pictures.py): the
rules they are drawn from agree with the kernels' sources and give the facts the chapter
states (fragment owners, what ldmatrix delivers, bank conflicts with and without the
swizzles, the 3xTF32 split), and a wrong rule is told apart; drawn twice, every file is the same byte for byte. TAP output
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
import tensor_pictures  # noqa: E402  the runner, which finds each step's pictures.py

# Each step's pictures and their rules, from its own folder.
STEP_PICTURES = dict(tensor_pictures.step_pictures())
p11, p12, p13, p14, p15, p16 = (STEP_PICTURES[f] for f in ("step11_tf32", "step12_3xtf32", "step13_wgmma_tf32",
                                                            "step14_wgmma_3xtf32", "step15_fused_split",
                                                            "step16_ozaki_int8"))

NAMES = ("tc_fragments", "tc_ldmatrix", "tc_swizzle", "tc_split", "tc_pipeline", "tc_wgmma", "tc_budget",
         "tc_fused", "tc_ozaki")


def source(path):
    return open(os.path.join(ROOT, path)).read()


def macro(text, name):
    """A C macro of the sources as a Python function: its body is only ( ) * + >> << ^ &,
    which Python reads with C's meaning and precedence."""
    m = re.search(rf"#define {name}\(([^)]*)\) (.*)", text)
    return eval(f"lambda {m.group(1)}: {m.group(2)}", {"BK": p11.BK}) if m else None


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
s11, s12 = source("step11_tf32/step11.cu"), source("step12_3xtf32/step12.cu")
ok("a_row = wrow + (lane >> 3 & 1) * 8 + (lane & 7)" in s11 and "8 * q + (lane >> 4) * 4" in s11
   and "lrow = wrow + i * 16 + (lane >> 3 & 1) * 8 + (lane & 7)" in s12 and "k8 + (lane >> 4) * 4" in s12,
   "steps 11 and 12 compute the ldmatrix row addresses the picture uses")

# ---- the swizzles and the banks ----
ok(all(re.search(r"#define BK (\d+)", s).group(1) == str(p11.BK) for s in (s11, s12)), "BK is the sources' BK")
mismatch = []
for path, text in (("step11", s11), ("step12", s12)):
    a, b = macro(text, "SWZ_A"), macro(text, "SWZ_B")
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

# ---- step 13's pipeline: the mbarrier ring (tc_pipeline) ----
s13 = source("step13_wgmma_tf32/step13.cu")


def c_int(expr, **names):
    """A C integer expression of the sources over non-negative ints ((size_t) casts, / and %,
    * + - & ^ >> and parentheses) evaluated in Python: / as //, which agrees for non-negative values."""
    return eval(re.sub(r"\(size_t\)", "", expr).replace("/", "//"), {}, names)


def define(name, text=s13):
    m = re.search(rf"#define {name} (\d+)", text)
    return int(m.group(1)) if m else None


wait_e = re.search(r"mbarrier_wait_parity\(&empty\[s\], (.*)\);", s13)
wait_f = re.search(r"mbarrier_wait_parity\(&full\[s\], (.*)\);", s13)
free = re.search(r"mbarrier_arrive\(&empty\[(.*)\]\);", s13)
ok("mbarrier_wait_parity(&empty[s], ((kt / STAGES) & 1) ^ 1);" in s13
   and "mbarrier_wait_parity(&full[s], (kt / STAGES) & 1);" in s13
   and "mbarrier_arrive(&empty[(kt - 1) % STAGES]);" in s13 and s13.count("const int s = kt % STAGES;") == 2,
   "step13.cu: the producer waits empty[s] on ((kt / STAGES) & 1) ^ 1, the consumers full[s] on "
   "(kt / STAGES) & 1, then free empty[(kt - 1) % STAGES]; s = kt % STAGES in both loops")
differ = [f"{what} kt {kt}" for kt in range(64)
          for what, m, rule in (("empty wait", wait_e, p13.producer_parity), ("full wait", wait_f, p13.consumer_parity),
                                ("free", free, p13.freed_stage))
          if m is None or (kt > 0 or what != "free") and c_int(m.group(1), kt=kt, STAGES=p13.STAGES) != rule(kt)]
ok(not differ, "the simulation's parity and release rules are step13.cu's expressions, kt = 0 ... 63",
   " ".join(differ[:8]))
ok(define("BM") == p13.BM13 and define("BK") == p13.BK13 and define("CONSUMERS") == p13.CONSUMERS
   and "launch_shape<256, 4>(m, bt, padded)" in s13 and '"128x256x32/4", SMEM(256, 4)' in s13
   and "#define STAGE_BYTES(BN) ((BM + (BN)) * BK * 4)" in s13
   and c_int("(BM + (BN)) * BK * 4", BM=p13.BM13, BN=p13.BN13, BK=p13.BK13) == p13.STAGE_BYTES,
   "BM, BK, CONSUMERS, the 128 x 256 tile with 4 stages and STAGE_BYTES are step13.cu's",
   (define("BM"), define("BK"), define("CONSUMERS"), p13.STAGE_BYTES))
ok("mbarrier_init(&full[s], 1);" in s13 and "mbarrier_init(&empty[s], CONSUMERS);" in s13
   and "mbarrier_arrive_expect_tx(&full[s], STAGE_BYTES(BN));" in s13 and s13.count(", &full[s]);") == 2
   and "wgmma_wait_group<1>();" in s13 and "if (kt > 0 && threadIdx.x % 128 == 0)" in s13
   and "wgmma_wait_group<0>();" in s13,
   "step13.cu: full[s] takes 1 arrival and the copies' bytes, empty[s] one per consumer; wait_group<1>, "
   "free only for kt > 0, wait_group<0> at the end (as the simulation)")
fresh = p13.Barrier("full", 0, 1)
ok(fresh.done(1) and not fresh.done(0), "a new barrier: parity 1 (the phase before the first) passes, 0 waits")

sim = p13.Pipeline().run()
ok(sim.deadlock is None and not sim.errors
   and all(sorted(g["kt"] for g in sim.groups if g["consumer"] == c) == list(range(p13.KT_COUNT)) for c in (1, 2)),
   f"with step 13's rules the simulation runs all {p13.KT_COUNT} k-tiles through both consumers, no stage "
   "read before its tile landed or while refilled", (sim.deadlock, sim.errors[:4]))
late = []
for e in sim.events:
    if e["kind"] == "copy" and e["kt"] >= p13.STAGES:
        before = e["kt"] - p13.STAGES
        freed = [a["t"] for a in sim.events if a["kind"] == "arrive" and a["kt"] == before]
        read = [g["end"] for g in sim.groups if g["kt"] == before]
        if len(freed) != p13.CONSUMERS or e["t0"] < max(freed) or e["t0"] < max(read):
            late.append(f"k-tile {e['kt']} into stage {e['stage']} at {e['t0']}: freed {freed}, read until {read}")
ok(not late and sum(e["kind"] == "copy" and e["kt"] >= p13.STAGES for e in sim.events) == p13.KT_COUNT - p13.STAGES,
   "no stage is refilled before both consumers released it and their wgmmas on it finished", " ".join(late[:4]))
alternate = []
for s in range(p13.STAGES):
    uses = len(range(s, p13.KT_COUNT, p13.STAGES))
    for name, who, first in (("full", "consumer 1", 0), ("full", "consumer 2", 0), ("empty", "producer", 1)):
        got = [w["parity"] for w in sim.waits(who, name) if w["stage"] == s]
        if got != [(first + n) % 2 for n in range(uses)]:
            alternate.append(f"{who} on {name}[{s}]: {got}")
    for bar in (sim.full[s], sim.empty[s]):
        if [n for n, _ in bar.completed] != list(range(len(bar.completed))) or len(bar.completed) < uses - 1:
            alternate.append(f"{bar.name}[{s}] completed {bar.completed}")
ok(not alternate, "per stage, the consumers wait full[s] on phases 0, 1, 0 ... and the producer empty[s] on "
   "1, 0, 1 ...; each barrier completes its phases one after the other", " ".join(alternate[:4]))
long = p13.Pipeline(kt_count=40).run()
ok(long.deadlock is None and not long.errors and len(long.groups) == 80,
   "... and 40 k-tiles (ten rounds of the ring) run as well", (long.deadlock, long.errors[:2]))
wrong = p13.Pipeline(producer_rule=lambda kt: (kt // p13.STAGES) & 1).run()
ok(wrong.deadlock == ["producer", "consumer 1", "consumer 2"] and wrong.t == 0 and not wrong.groups,
   "a producer waiting on (kt / STAGES) & 1, without ^ 1, deadlocks at once: empty[0]'s first phase needs "
   "the consumers, who wait for its tile", (wrong.deadlock, wrong.t))
wrong = p13.Pipeline(consumer_rule=lambda kt: ((kt // p13.STAGES) & 1) ^ 1).run()
ok(any("holds nothing yet" in e for e in wrong.errors),
   "consumers waiting on the producer's parity read stage 0 before k-tile 0 has landed", wrong.errors[:2])
wrong = p13.Pipeline(groups_kept=2).run()
ok(any("overwrites stage" in e for e in wrong.errors),
   "with wgmma_wait_group<2> before freeing (kt - 1) % STAGES, a stage is refilled while a wgmma still reads it",
   wrong.errors[:2])
wrong = p13.Pipeline(freed_rule=lambda kt: kt % p13.STAGES).run()
ok(wrong.deadlock or wrong.errors, "freeing kt % STAGES (the stage just issued) is told apart",
   (wrong.deadlock, wrong.errors[:2]))

# ---- step 13's operands and accumulators (tc_wgmma) ----
wh = source("common/device/wgmma.h")
flat_wh = " ".join(re.sub(r"\n \*", " ", wh).split())
ok("chunk j stored at j ^ (r % 8)" in flat_wh and "const uint64_t stride = (8 * 128) >> 4;" in wh
   and "const uint64_t swizzle_128b = 1;" in wh and s13.count("CU_TENSOR_MAP_SWIZZLE_128B") == 2
   and all(p13.sw128_place(r, j) == j ^ (r % 8) for r in range(16) for j in range(8)),
   "common/device/wgmma.h's layout (chunk j of row r at j ^ (r % 8), 1024 bytes per 8 rows, 128-byte swizzle) is "
   "the picture's; both of step 13's tensor maps use it")
ok(s13.count("desc_a + 2 * k8, desc_b + 2 * k8") == len(re.findall(r"wgmma_m64n\d+k8_tf32\(acc", s13)) == 2
   and "for (int k8 = 0; k8 < BK / 8; k8++)" in s13
   and all(p13.wgmma_byte(0, 8 * s) == 16 * 2 * s for s in range(4)),
   "step13.cu steps the descriptors by 2 (16-byte units, 32 bytes) per k-step of 8, 4 k-steps per stage")
words = [p13.tma_byte(r, k) for r in range(p13.BN13) for k in range(p13.BK13)]
ok(sorted(words) == list(range(0, 4 * p13.BN13 * p13.BK13, 4)),
   "the TMA's swizzled placement puts every float of a 256 x 32 tile in its own 4 bytes")
mism = [(r, k) for r in range(p13.BN13) for k in range(p13.BK13) if p13.wgmma_byte(r, k) != p13.tma_byte(r, k)]
ok(not mism, "wgmma's reads (desc + 2 s, row r 128 bytes on, the address swizzled) find every (row, k) "
   "where the TMA put it, for A's 128 and Bt's 256 rows", mism[:8])
ok(any(p13.wgmma_byte(r, k, step=1) != p13.tma_byte(r, k) for r in range(8) for k in range(32))
   and any(p13.wgmma_byte(r, k, swizzled=False) != p13.tma_byte(r, k) for r in range(8) for k in range(32))
   and all(p13.wgmma_byte(0, k, swizzled=False) == p13.tma_byte(0, k) for k in range(32)),
   "... and a descriptor step of 1, or reads that ignore the swizzle, do not (row 0 alone cannot tell)")
bm, bk = define("BM"), define("BK")
offsets = {"stage": c_int("(BM + (BN)) * BK * 4", BM=bm, BN=p13.BN13, BK=bk),
           "consumer 2's A": c_int("consumer * 64 * BK * 4", consumer=1, BK=bk),
           "Bt": c_int("BM * BK * 4", BM=bm, BK=bk)}
ok("stage + consumer * 64 * BK * 4" in s13 and "stage + BM * BK * 4" in s13 and "+ 1023) & ~(uintptr_t)1023" in s13
   and all(v % 1024 == 0 for v in offsets.values()),
   "every tile wgmma reads starts at a 1024-byte boundary (the swizzle's period): the stages, "
   "consumer 2's half of A, Bt", offsets)
# (each match stays within one instruction: [^;] never runs on into the next one)
asm = re.findall(r'"wgmma\.mma_async\.sync\.aligned\.m64n(\d+)k8\.f32\.tf32\.tf32 [^;]*?\}, %\d+, %\d+, ([^;]*?);', wh)
ok(len(asm) == 3 and all(args == "p, 1, 1" for _, args in asm) and "K-major only" in flat_wh,
   "wgmma's .tf32 forms in common/device/wgmma.h take only scale-d, scale-a and scale-b: no transpose flags; "
   "K-major only", asm)
# transpose: its index expressions, run over a 64 x 64 matrix, write Bt(n, k) = B(k, n).
tr = {k: re.search(p, s13) for k, p in (
    ("read", r"const int x = (.*?), y0 = (.*?);"), ("load", r"tile\[j\]\[threadIdx\.x\] = b\[(.*?)\];"),
    ("write", r"const int tx = (.*?), ty0 = (.*?);"), ("store", r"bt\[(.*?)\] = tile\[threadIdx\.x\]\[j\];"))}


def run_transpose(n, flip=False):
    b = [[k * n + c for c in range(n)] for k in range(n)]
    bt = {}
    for bx in range(n // 32):
        for by in range(n // 32):
            tile = {}
            for tx_ in range(32):
                for ty in range(8):
                    env = dict(blockIdx_x=bx, blockIdx_y=by, threadIdx_x=tx_, threadIdx_y=ty)

                    def ev(expr, **more):
                        return c_int(expr.replace(".", "_"), **env, **more)
                    x, y0 = ev(tr["read"].group(1)), ev(tr["read"].group(2))
                    for j in range(ty, 32, 8):
                        at = ev(tr["load"].group(1), y0=y0, j=j, ldb=n, x=x)
                        tile[(j, tx_)] = b[at // n][at % n]
            for tx_ in range(32):
                for ty in range(8):
                    env = dict(blockIdx_x=bx, blockIdx_y=by, threadIdx_x=tx_, threadIdx_y=ty)
                    t_x, ty0 = (c_int(e.replace(".", "_"), **env) for e in tr["write"].groups())
                    for j in range(ty, 32, 8):
                        bt[c_int(tr["store"].group(1), ty0=ty0, j=j, ldbt=n, tx=t_x)] = \
                            tile[(j, tx_) if flip else (tx_, j)]
    return all(bt.get(c * n + k) == b[k][c] for k in range(n) for c in range(n))


ok(all(tr.values()) and run_transpose(64) and not run_transpose(64, flip=True),
   "transpose's index expressions (step13.cu) write Bt(n, k) = B(k, n), the tile read back "
   "transposed; read back as written, they do not")

try:
    down = p13.d_owners()
    ok(True, "the D rule gives every element of the 64 x 256 tile to exactly one warp, lane and register")
except ValueError as err:
    down = None
    ok(False, "the D rule gives every element of the 64 x 256 tile to exactly one warp, lane and register", err)
doc = re.search(r"row = (16 w .*?)\s{2,}col = (.*?)\n", wh)
differ = []
if doc:
    row_e, col_e = (re.sub(r"(\d) ([a-z(])", r"\1 * \2", e) for e in doc.groups())
    differ = [(w, l, i) for w in range(4) for l in range(32) for i in range(128)
              if (c_int(row_e, w=w, l=l, i=i), c_int(col_e, w=w, l=l, i=i)) != p13.d_element(w, l, i)]
ok(doc and not differ, "common/device/wgmma.h's documented accumulator layout is the picture's rule", differ[:4])
epi = re.search(r"float \*out = c \+ \(size_t\)\((.*?)\) \* ldc \+ (.*?);", s13)
stores = re.findall(r"\*\(float2 \*\)\(out \+ (.*?)\) = make_float2\(acc\[(.*?)\], acc\[(.*?)\]\);", s13)
LD = 1 << 20
placed = {}
if epi and len(stores) == 2 and "for (int i = 0; i < BN / 2; i += 4)" in s13:
    for warp in range(4):
        for lane in range(32):
            base = c_int(epi.group(1), m0=0, consumer=0, warp=warp, lane=lane) * LD + \
                c_int(epi.group(2), n0=0, lane=lane)
            for i in range(0, p13.BN13 // 2, 4):
                for off, r0, r1 in stores:
                    at = base + c_int(off, i=i, ldc=LD)
                    for idx, dx in ((c_int(r0, i=i), 0), (c_int(r1, i=i), 1)):
                        placed[(warp, lane, idx)] = ((at + dx) // LD, (at + dx) % LD)
ok("warp * 16 + lane / 4" in s13 and "2 * (lane % 4)" in s13 and "8 * (i / 4)" in s13
   and "const int warp = threadIdx.x / 32 % 4, lane = threadIdx.x % 32;" in s13
   and len(placed) == 128 * 128 and all(p13.d_element(*k) == v for k, v in placed.items()),
   "step13.cu's epilogue stores each acc[i] where the picture's rule puts it (warp * 16 + lane / 4, "
   "2 * (lane % 4), 8 * (i / 4))", len(placed))
ok(all(p13.d_element(w, l, 4 * q + r) == (16 * w + p11.c_element(l, r)[0], 8 * q + p11.c_element(l, r)[1])
       for w in range(4) for l in range(32) for q in range(32) for r in range(4)),
   "each warp's 16 x 8 piece of D is laid out as mma.sync's m16n8 C fragment (tc_fragments)")
ok(p13.d_element(0, 5, 0) == (1, 2) and p13.d_element(0, 5, 2) == (9, 2) and p13.d_element(0, 5, 5) == (1, 11)
   and p13.d_element(2, 5, 0) == (33, 2), "warp 0 lane 5 holds D(1, 2) in d0, D(9, 2) in d2, D(1, 11) in d5; "
   "warp 2 lane 5 D(33, 2) in d0")


def upper_swapped(w, l, i):
    return 16 * w + l // 4 + 8 * (1 - (i // 2) % 2), 8 * (i // 4) + 2 * (l % 4) + i % 2


def halves_by_odd(w, l, i):
    return 16 * w + l // 4 + 8 * (i % 2), 8 * (i // 4) + 2 * (l % 4) + i % 2


try:
    p13.d_owners(rule=halves_by_odd)
    raised = False
except ValueError:
    raised = True
ok(raised and placed and any(upper_swapped(*k) != v for k, v in placed.items()),
   "a wrong D rule is told apart: rows by i % 2 give elements twice; upper and lower rows swapped covers "
   "the tile but not where the epilogue stores")

# ---- step 14's budget (tc_budget): the sources' own macros give the bytes drawn ----
s14 = source("step14_wgmma_3xtf32/step14.cu")


def c_macros(text):
    """The sources' size macros as Python functions of the names before them: TILE_A, TILE_B(BN),
    STAGE_BYTES(BN), SMEM(BN, STAGES), with BM and BK from the same file."""
    names = {"BM": define("BM", text), "BK": define("BK", text)}
    for name in ("TILE_A", "TILE_B", "STAGE_BYTES", "SMEM"):
        m = re.search(rf"#define {name}(\(([^)]*)\))? (.*)", text)
        if m:
            args = m.group(2) or ""
            names[name] = eval(f"lambda {args}: {m.group(3)}" if args else m.group(3), dict(names))
    return names


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

# ---- step 15's budget (tc_fused): its macros and setmaxnreg counts are the ones drawn ----
s15 = source("step15_fused_split/step15.cu")
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

# ---- step 16's remainder theorem (tc_ozaki): the moduli and the plan are common/ozaki.h's ----
oz = source("common/ozaki.h")
ok(p16.MODULI == [int(m) for m in re.findall(r"(?:case \d+|default): return (\d+);", oz)]
   and f"#define OZAKI_DEFAULT_MODULI_SHORT {p16.DEFAULT_SHORT}" in oz
   and f"#define OZAKI_DEFAULT_MODULI_LONG {p16.DEFAULT_LONG}" in oz and f"#define OZAKI_LONG_SUMS {p16.LONG_SUMS}" in oz,
   "tc_ozaki: the moduli and the default counts drawn are common/ozaki.h's")
p1, p2, row, col = p16.EXAMPLE
cells = {(x % p1, x % p2) for x in range(p1 * p2)}
exact = sum(a * b for a, b in zip(row, col))
ok(len(cells) == p1 * p2 and p16.crt([exact % p1, exact % p2], [p1, p2]) - p1 * p2 == exact == -2
   and all(abs(v) > max(p1, p2) for v in row + col),
   "tc_ozaki: every number below 63 has a cell of its own; the worked example's inputs are larger than the moduli, "
   "and its remainders 5 and 7 give 61, read -2, back")
readme16 = source("step16_ozaki_int8/README.md")
ok(f"({row[0]}, {row[1]})" in readme16 and f"({col[0]}, {str(col[1]).replace('-', '−')})" in readme16
   and "x = 61" in readme16, "tc_ozaki: the picture's example is the README's")
ok(all(p16.crt([x % p for p in p16.MODULI[:4]], p16.MODULI[:4]) == x for x in (0, 1, 12345, 2 ** 31 - 1)),
   "tc_ozaki: the remainder theorem of four moduli gives numbers back")
P, alpha, beta = p16.plan(p16.default_count(8192), 8192)
ok(p16.default_count(8192) == 8 and (alpha, beta) == (24, 25)
   and 8192 * 2 ** (alpha + beta) < P // 2 <= 8192 * 2 ** (alpha + beta + 1),
   "tc_ozaki: at n = 8192 (8 moduli) the plan's alpha and beta are 24 and 25, as step 16's README says, the largest "
   "that keep k 2^(alpha + beta) below P / 2")
ok("alpha = 24, beta = 25" in source("step16_ozaki_int8/README.md").replace("α = 24 and β = 25", "alpha = 24, beta = 25"),
   "tc_ozaki: step 16's README gives the same alpha and beta")

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
    ok("full[1] phase 0" in svg["tc_pipeline"] and "empty[0] phase 1" in svg["tc_pipeline"]
       and "Not measured: the order, not the durations." in svg["tc_pipeline"],
       "tc_pipeline names each barrier's phase and says its durations are not measured")
    ok("61 - 63 = -2" in svg["tc_ozaki"] and "alpha = 24, beta = 25" in svg["tc_ozaki"],
       "tc_ozaki marks the worked example and states the plan")
    ok("not to scale" in svg["tc_fused"] and "split A1" in svg["tc_fused"],
       "tc_fused says its timeline is a schematic, not a measurement")
    ok("chunk j of row r at j ^ (r % 8)" in svg["tc_wgmma"] and "desc + 6" in svg["tc_wgmma"]
       and "d7: row 9, col 11" in svg["tc_wgmma"], "tc_wgmma shows the swizzle, the descriptor's k-steps and "
       "lane 5's registers")
    ok("256 of 232: does not fit" in svg["tc_budget"] and svg["tc_budget"].count("192 KB") == 4,
       "tc_budget marks the 128 x 256 tile's registers as not fitting and each row's 192 KB")
done()
