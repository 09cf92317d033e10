"""Step 13's pictures (its pictures.py; run by pictures.t beside this file): the mbarrier ring
simulated with step13.cu's own parity and release rules (and wrong rules told apart), the TMA's
swizzled placement read back by wgmma's descriptors, the transpose, the accumulators' layout and
the epilogue's stores; drawn twice, every file is the same byte for byte. TAP output.
"""
import re

from pictures_lib import c_int, check_drawn, define, folder_of, source, step_pictures, step_source
from tap import done, ok

FOLDER = folder_of(__file__)
p11, p13 = step_pictures("step11_"), step_pictures(FOLDER)
# ---- step 13's pipeline: the mbarrier ring (tc_pipeline) ----
s13 = step_source(FOLDER)


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
ok(define("BM", s13) == p13.BM13 and define("BK", s13) == p13.BK13 and define("CONSUMERS", s13) == p13.CONSUMERS
   and "launch_shape<256, 4>(run)" in s13 and '"128x256x32/4", SMEM(256, 4)' in s13
   and "#define STAGE_BYTES(BN) ((BM + (BN)) * BK * 4)" in s13
   and c_int("(BM + (BN)) * BK * 4", BM=p13.BM13, BN=p13.BN13, BK=p13.BK13) == p13.STAGE_BYTES,
   "BM, BK, CONSUMERS, the 128 x 256 tile with 4 stages and STAGE_BYTES are step13.cu's",
   (define("BM", s13), define("BK", s13), define("CONSUMERS", s13), p13.STAGE_BYTES))
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
bm, bk = define("BM", s13), define("BK", s13)
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

# ---- the pictures: drawn, and the same bytes twice ----
svg = check_drawn(ok, FOLDER, ['tc_pipeline', 'tc_wgmma'])
ok("full[1] phase 0" in svg["tc_pipeline"] and "empty[0] phase 1" in svg["tc_pipeline"]
   and "Not measured: the order, not the durations." in svg["tc_pipeline"],
   "tc_pipeline names each barrier's phase and says its durations are not measured")
ok("chunk j of row r at j ^ (r % 8)" in svg["tc_wgmma"] and "desc + 6" in svg["tc_wgmma"]
   and "d7: row 9, col 11" in svg["tc_wgmma"], "tc_wgmma shows the swizzle, the descriptor's k-steps and "
   "lane 5's registers")
done()
