#!/usr/bin/env python3
"""The tensor-core chapter's pictures (make plots), each drawn from the rules the kernels
use, written here as index formulas (nothing placed by hand):

  tc_fragments  mma.sync.m16n8k8 on TF32: the lane and register that hold each element of
                A (16 x 8), B (8 x 8) and C/D (16 x 8), after the PTX ISA's fragment layouts
  tc_ldmatrix   ldmatrix.sync.aligned.m8n8.x4 on step 11/12's A tile: which lanes give the
                rows' addresses, which lane receives each float, and that this is a0..a3
  tc_swizzle    the shared-memory banks one fragment read touches, without and with
                steps 11 and 12's SWZ_A and SWZ_B: the conflict degree of each
  tc_split      3xTF32's split of x = 1 + 2^-12 + 2^-23 into big = tf32(x) and
                small = tf32(x - big), bit by bit: the bit that neither holds
  tc_pipeline   step 13's warp-specialised pipeline over time: the producer, the 4 stages (the
                k-tile each holds) and the two consumer warpgroups, each wait's barrier phase; the
                order from a small simulation of step13.cu's loops and parity rules (its
                durations are illustrative, not measured)
  tc_wgmma      step 13's wgmma operands and accumulators: A's and Bt's K-major tiles with the
                128-byte swizzle (chunk j of row r at j ^ (r % 8)) and the descriptor's k-steps
                (desc + 2 each), why B is transposed first (.tf32 reads K-major only), and the
                warp, lane and register holding each element of a 64 x 16 corner of D
  tc_budget     step 14's budget: shared memory per block (stages x the four tiles of a stage)
                and registers per consumer thread (accumulators + running sums) for each tile
                shape, against the H100's 227 KB and setmaxnreg's 232, step 13's tile beside them

Each is written as PNG and SVG, the same bytes every run. No results are read.
Usage: plots/tensor_pictures.py [--out DIR]
"""
import argparse
import math
import os
import struct
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402

# The same files every run: SVG ids from a fixed salt, no dates (see save()), as charts.py.
plt.rcParams["svg.hashsalt"] = "matmul-step-by-step"

HERE = os.path.dirname(os.path.abspath(__file__))
WARP = 32
BANKS = 32
BK = 32   # step11.cu and step12.cu: k per tile, one 128-byte row of A per tile row
BN = 128  # B's tile width in the pictures (64x128 and 128x128 tiles; any multiple of 32 behaves the same)

# Eight lane groups (g = lane / 4) and the four 8 x 8 matrices of an ldmatrix.x4.
GROUP_COLORS = ["#a6cee3", "#b2df8a", "#fb9a99", "#fdbf6f", "#cab2d6", "#ffff99", "#8dd3c7", "#d9d9d9"]
MATRIX_COLORS = ["#9ecae1", "#a1d99b", "#fdae6b", "#bcbddc"]
EXAMPLE_LANE = 5  # the lane followed through the pictures (g = 1, t = 1: no coordinate is 0)


# ---- The rules: mma.sync.m16n8k8 fragments (PTX ISA, "Matrix Fragments for mma.m16n8k8", .tf32) ----

def lane_place(lane):
    """g and t of a lane: the PTX ISA's groupID (lane >> 2) and threadID_in_group (lane % 4)."""
    return lane >> 2, lane & 3


def a_element(lane, reg):
    """(row, col) of A held by register a<reg>: row g for a0, a2 and g + 8 for a1, a3; col t
    for a0, a1 and t + 4 for a2, a3."""
    g, t = lane_place(lane)
    return g + 8 * (reg & 1), t + 4 * (reg >> 1)


def b_element(lane, reg):
    """(row, col) of B held by b<reg>: row t for b0, t + 4 for b1; col g."""
    g, t = lane_place(lane)
    return t + 4 * reg, g


def c_element(lane, reg):
    """(row, col) of C/D held by c<reg>: row g for c0, c1 and g + 8 for c2, c3; col 2t + (reg & 1)."""
    g, t = lane_place(lane)
    return g + 8 * (reg >> 1), 2 * t + (reg & 1)


# name -> (rows, cols, registers per lane, rule, register letter)
FRAGMENTS = {"A": (16, 8, 4, a_element, "a"), "B": (8, 8, 2, b_element, "b"), "C": (16, 8, 4, c_element, "c")}


def owners(name):
    """{(row, col): (lane, register)} for one operand; raises if the rule misses an element or
    gives one to two lanes (a layout must cover the matrix exactly once)."""
    rows, cols, regs, rule, _ = FRAGMENTS[name]
    own = {}
    for lane in range(WARP):
        for reg in range(regs):
            rc = rule(lane, reg)
            if rc in own or not (0 <= rc[0] < rows and 0 <= rc[1] < cols):
                raise ValueError(f"{name}: lane {lane} register {reg} -> {rc} is taken or outside")
            own[rc] = (lane, reg)
    if len(own) != rows * cols:
        raise ValueError(f"{name}: {rows * cols - len(own)} elements have no lane")
    return own


# ---- ldmatrix.sync.aligned.m8n8.x4.shared.b16, as steps 11 and 12 use it on A ----

def ldmatrix_address(lane, i=0, k8=0, wrow=0):
    """The (row, first k) of the 16 bytes (4 floats) of A's tile whose address the lane gives:
    step12.cu's lrow = wrow + i*16 + (lane >> 3 & 1)*8 + (lane & 7), column k8 + (lane >> 4)*4
    (step11.cu's a_row and a_off, the same)."""
    return wrow + i * 16 + (lane >> 3 & 1) * 8 + (lane & 7), k8 + (lane >> 4) * 4


def ldmatrix_x4(address=ldmatrix_address):
    """What each lane receives: lanes 8j .. 8j + 7 give the addresses of rows 0-7 of matrix j
    (8 rows of 16 bytes: 8 b16 values, or 4 floats), and lane l receives in register j the
    32-bit word l % 4 of row l / 4 of matrix j. Returns [lane][j] = (row, col, the lane that
    gave that row's address)."""
    got = []
    for lane in range(WARP):
        regs = []
        for j in range(4):
            giver = 8 * j + lane // 4
            row, k0 = address(giver)
            regs.append((row, k0 + lane % 4, giver))
        got.append(regs)
    return got


# ---- Shared-memory places: step12.cu's SWZ_A and SWZ_B, and the plain row-major ones ----

def swz_a(row, k):
    """SWZ_A: row * BK + (((k >> 2) ^ (row & 7)) << 2) + (k & 3)."""
    return row * BK + (((k >> 2) ^ (row & 7)) << 2) + (k & 3)


def plain_a(row, k):
    return row * BK + k


def swz_b(k, col, bn=BN):
    """SWZ_B: k * bn + (((col >> 2) ^ ((k & 3) << 1)) << 2) + (col & 3)."""
    return k * bn + (((col >> 2) ^ ((k & 3) << 1)) << 2) + (col & 3)


def plain_b(k, col, bn=BN):
    return k * bn + col


def a_read(swizzled, reg=0, k8=0, i=0, wrow=0):
    """The float index in A's tile that each lane's register a<reg> comes from (the ldmatrix
    reads the same words, one 8 x 4 matrix per register)."""
    place = swz_a if swizzled else plain_a
    return [place(wrow + i * 16 + r, k8 + c) for r, c in (a_element(lane, reg) for lane in range(WARP))]


def b_read(swizzled, reg=0, k8=0, j=0, wcol=0, bn=BN):
    """The float index in B's tile that each lane's b<reg> is loaded from: row k8 + t (+ 4),
    column wcol + 8j + g, as step 12's bs[SWZ_B(k8 + t, col, BN)]."""
    place = swz_b if swizzled else plain_b
    return [place(k8 + r, wcol + 8 * j + c, bn) for r, c in (b_element(lane, reg) for lane in range(WARP))]


def words_per_bank(indices):
    """{bank: the distinct 32-bit words of the read in it}; lanes reading one word share it."""
    per = {}
    for x in indices:
        per.setdefault(x % BANKS, set()).add(x)
    return per


def conflict_degree(indices):
    """The wavefronts the warp's read takes: the most distinct words in one bank (1: no conflict)."""
    return max(len(words) for words in words_per_bank(indices).values())


def conflict_text(indices):
    n = conflict_degree(indices)
    return "no conflict: 32 banks, 1 wavefront" if n == 1 else f"{n}-way conflict: {n} wavefronts"


# ---- FP32 and TF32 bits: cvt.rn.tf32.f32, and step 12's split ----

def f32_bits(x):
    """The FP32 bit pattern of x, which must be an FP32 value."""
    bits = struct.unpack("<I", struct.pack("<f", x))[0]
    if bits_f32(bits) != x:
        raise ValueError(f"{x!r} is not an FP32 value")
    return bits


def bits_f32(bits):
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def tf32_rn(bits):
    """cvt.rn.tf32.f32 on a finite value: the low 13 fraction bits rounded away to nearest,
    ties to an even last kept bit (a carry may reach the exponent, as in the hardware)."""
    low, kept = bits & 0x1FFF, bits & 0xFFFFE000
    if low > 0x1000 or (low == 0x1000 and kept & 0x2000):
        kept += 0x2000
    return kept


def tf32_rna(bits):
    """cvt.rna.tf32.f32 (Ampere and Ada): to nearest, ties away from zero."""
    return (bits & 0xFFFFE000) + (0x2000 if bits & 0x1FFF >= 0x1000 else 0)


def split_3xtf32(x, rounding=tf32_rn):
    """step12.cu's split_tf32 (the fast path): big = tf32(x), masked to its 19 bits;
    x - big, exact in FP32; small = tf32(x - big). Bit patterns, and what is lost:
    x - (big + small), exact in Python's double."""
    xb = f32_bits(x)
    big = rounding(xb) & 0xFFFFE000
    diff = bits_f32(xb) - bits_f32(big)  # exact in double; and in FP32, which f32_bits checks
    small = rounding(f32_bits(diff))
    return {"x": xb, "big": big, "diff": f32_bits(diff), "small": small,
            "lost": bits_f32(xb) - (bits_f32(big) + bits_f32(small))}


def significand_weights(bits):
    """The powers of two of a normal FP32 value's set significand bits (its leading 1 and the
    fraction's ones), and its exponent: [e, e - i for fraction bits 23 - i set]."""
    e = (bits >> 23 & 0xFF) - 127
    return [e] + [e - i for i in range(1, 24) if bits >> (23 - i) & 1]


def power(e):
    """2^e as mathtext."""
    return "1" if e == 0 else f"$2^{{{e}}}$"


def power_of(v):
    """A positive power of two as mathtext; raises for anything else."""
    m, e = math.frexp(v)
    if m != 0.5:
        raise ValueError(f"{v!r} is not a power of two")
    return power(e - 1)


def sum_of_powers(bits):
    return " + ".join(power(e) for e in significand_weights(bits))


# ---- Step 13: the mbarrier ring of the warp-specialised pipeline (step13.cu) ----

STAGES = 4                                # step13.cu's 128x256x32/4: launch_shape<256, 4>
BM13, BN13, BK13 = 128, 256, 32           # step13.cu's BM, the wide BN, BK
CONSUMERS = 2                             # warpgroups 1 and 2; warpgroup 0 produces
STAGE_BYTES = (BM13 + BN13) * BK13 * 4    # STAGE_BYTES(BN): A's 128 x 32 and Bt's 256 x 32 floats
KT_COUNT = 10                             # k-tiles drawn (n = 320: 10 tiles of 32)
# Illustrative durations, in time units (not measured): one stage's two copies, one
# consumer's 4 wgmmas of a stage, the producer's arm + two copy instructions.
T_COPY, T_MMA, T_ISSUE = 6, 2, 1


def producer_parity(kt):
    """The parity the producer waits on empty[kt % STAGES]: ((kt / STAGES) & 1) ^ 1. The first
    round waits on parity 1, the phase 'before' a fresh barrier's first, which counts as done."""
    return ((kt // STAGES) & 1) ^ 1


def consumer_parity(kt):
    """The parity the consumers wait on full[kt % STAGES]: (kt / STAGES) & 1, the phase that
    completes when k-tile kt's bytes have landed."""
    return (kt // STAGES) & 1


def freed_stage(kt):
    """The stage a consumer frees in iteration kt > 0, after wgmma_wait_group<1>: (kt - 1) % STAGES,
    the previous k-tile's, whose wgmmas are done."""
    return (kt - 1) % STAGES


class Barrier:
    """An mbarrier: `count` arrivals and the announced bytes (expect_tx) complete a phase, and the
    next one starts by itself. try_wait.parity p passes once the phase of parity p is complete:
    the current phase is not, the one before it is (a fresh barrier's 'previous' phase, parity 1,
    included)."""

    def __init__(self, name, stage, count):
        self.name, self.stage, self.count = name, stage, count
        self.phase, self.pending, self.tx = 0, count, 0
        self.completed = []  # (phase number, time)

    def done(self, parity):
        return (self.phase & 1) != parity

    def arrive(self, t):
        self.pending -= 1
        self._check(t)

    def arrive_expect_tx(self, nbytes, t):
        self.tx += nbytes
        self.arrive(t)

    def complete_tx(self, nbytes, t):
        self.tx -= nbytes
        self._check(t)

    def _check(self, t):
        if self.pending == 0 and self.tx == 0:
            self.completed.append((self.phase, t))
            self.phase += 1
            self.pending = self.count


class Pipeline:
    """A tiny discrete simulation of step13.cu's block, its threads written as the kernel's loops
    (producer() and consumer() below). Zero-time steps, except: a stage's copies land T_COPY
    after they are issued; the producer takes T_ISSUE per k-tile; each consumer's group of 4
    wgmmas runs T_MMA on the tensor cores, which the two consumers share, in the order issued.
    The rules are parameters, so that a wrong one can be run too."""

    def __init__(self, kt_count=KT_COUNT, producer_rule=producer_parity, consumer_rule=consumer_parity,
                 freed_rule=freed_stage, groups_kept=1):
        self.kt_count, self.groups_kept = kt_count, groups_kept
        self.producer_rule, self.consumer_rule, self.freed_rule = producer_rule, consumer_rule, freed_rule
        self.full = [Barrier("full", s, 1) for s in range(STAGES)]
        self.empty = [Barrier("empty", s, CONSUMERS) for s in range(STAGES)]
        self.t = 0
        self.wakes = set()      # the future times at which something happens
        self.landing = []       # (time, stage, kt): copies in flight
        self.holds = [None] * STAGES
        self.tc_free = 0        # when the tensor cores finish the groups issued so far
        self.groups = []        # {consumer, kt, stage, issued, start, end}
        self.events = []        # waits, copies, arrivals, in the order they happen
        self.errors = []        # what the kernel must never do: reading a stage that is being refilled
        self.deadlock = None

    # -- what the threads do --
    def wait(self, who, bar, parity, kt):
        t0 = self.t
        yield lambda: bar.done(parity)
        self.events.append(dict(kind="wait", who=who, bar=bar.name, stage=bar.stage, parity=parity, kt=kt,
                                t0=t0, t1=self.t))

    def sleep(self, dt):
        end = self.t + dt
        self.wakes.add(end)
        yield lambda: self.t >= end

    def copy(self, s, kt):
        """The producer's two cp.async.bulk.tensor: A's and Bt's tiles into stage s. A copy into a
        stage whose last tile a wgmma has yet to finish reading is the error the barriers prevent."""
        for g in self.groups:
            if g["stage"] == s and g["end"] > self.t:
                self.errors.append(f"k-tile {kt} overwrites stage {s} while consumer {g['consumer']}'s "
                                   f"wgmmas of k-tile {g['kt']} read it")
        self.holds[s] = None
        self.landing.append((self.t + T_COPY, s, kt))
        self.wakes.add(self.t + T_COPY)
        self.events.append(dict(kind="copy", stage=s, kt=kt, t0=self.t, t1=self.t + T_COPY))

    def mma(self, c, s, kt):
        """4 wgmma m64n256k8, one committed group, reading stage s."""
        if self.holds[s] != kt:
            self.errors.append(f"consumer {c} reads stage {s} for k-tile {kt} while it holds "
                               f"{'nothing yet' if self.holds[s] is None else f'k-tile {self.holds[s]}'}")
        start = max(self.t, self.tc_free)
        self.tc_free = start + T_MMA
        self.wakes.add(self.tc_free)
        self.groups.append(dict(consumer=c, kt=kt, stage=s, issued=self.t, start=start, end=self.tc_free))

    def in_flight(self, c):
        return sum(1 for g in self.groups if g["consumer"] == c and g["end"] > self.t)

    def arrive(self, c, s, kt):
        self.empty[s].arrive(self.t)
        self.events.append(dict(kind="arrive", consumer=c, stage=s, kt=kt, t=self.t))

    # -- the threads: step13.cu's two loops --
    def producer(self):
        for kt in range(self.kt_count):
            s = kt % STAGES
            yield from self.wait("producer", self.empty[s], self.producer_rule(kt), kt)
            self.full[s].arrive_expect_tx(STAGE_BYTES, self.t)
            self.copy(s, kt)
            yield from self.sleep(T_ISSUE)

    def consumer(self, c):
        for kt in range(self.kt_count):
            s = kt % STAGES
            yield from self.wait(f"consumer {c}", self.full[s], self.consumer_rule(kt), kt)
            self.mma(c, s, kt)
            yield lambda: self.in_flight(c) <= self.groups_kept   # wgmma_wait_group<1>
            if kt > 0:
                self.arrive(c, self.freed_rule(kt), kt - 1)
        yield lambda: self.in_flight(c) == 0                      # wgmma_wait_group<0>

    def run(self, limit=1000):
        """Steps the threads round robin, one wait at a time, until all have finished; stops at a
        deadlock (every thread waits and nothing is in flight). Returns self."""
        threads = [["producer", self.producer(), lambda: True]] + \
                  [[f"consumer {c}", self.consumer(c), lambda: True] for c in range(1, CONSUMERS + 1)]
        while threads and self.t <= limit:
            for when, s, kt in [x for x in self.landing if x[0] <= self.t]:
                self.landing.remove((when, s, kt))
                self.holds[s] = kt
                self.full[s].complete_tx(BM13 * BK13 * 4, self.t)   # A's tile
                self.full[s].complete_tx(BN13 * BK13 * 4, self.t)   # Bt's tile
            moved = True
            while moved:
                moved = False
                for th in list(threads):
                    if th[2]():
                        moved = True
                        try:
                            th[2] = next(th[1])
                        except StopIteration:
                            threads.remove(th)
            later = [w for w in self.wakes if w > self.t]
            if threads and not later:
                self.deadlock = [th[0] for th in threads]
                break
            self.t = min(later) if later else self.t
        self.end = max([g["end"] for g in self.groups], default=self.t)
        return self

    def waits(self, who=None, bar=None):
        return [e for e in self.events if e["kind"] == "wait" and (who is None or e["who"] == who)
                and (bar is None or e["bar"] == bar)]


# ---- Step 13: wgmma's operands in shared memory, and its accumulators ----

def sw128_place(r, j):
    """CU_TENSOR_MAP_SWIZZLE_128B: the place in its 128-byte row where the TMA stores the 16-byte
    chunk j (floats 4j .. 4j + 3) of row r: j ^ (r % 8)."""
    return j ^ (r % 8)


def tma_byte(r, k):
    """The byte, from the tile's start, where the TMA puts element (r, k) of a K-major tile of
    32-float rows (A's rows of m, Bt's rows of n)."""
    return 128 * r + 16 * sw128_place(r, k // 4) + 4 * (k % 4)


def sw128_address(addr):
    """What the hardware does to an address it computes in a 128-byte-swizzled tile: bits 4-6 (the
    chunk) XOR bits 7-9 (the row within 8), the tile starting at a 1024-byte boundary."""
    return addr ^ ((addr >> 7 & 7) << 4)


def wgmma_byte(r, k, step=2, swizzled=True):
    """The byte wgmma reads for element (r, k) of the tile: the descriptor of k-step k / 8 starts
    `step` 16-byte units further per k-step (step13.cu: desc + 2 * k8), row r 128 bytes on, then
    the swizzle of the address."""
    addr = 16 * step * (k // 8) + 128 * r + 4 * (k % 8)
    return sw128_address(addr) if swizzled else addr


def d_element(warp, lane, i):
    """(row, col) of the 64 x N accumulator tile in d[i] of lane `lane` of warp `warp` of the
    warpgroup: row 16 warp + lane / 4 (+ 8 when (i / 2) % 2), col 8 (i / 4) + 2 (lane % 4) + i % 2."""
    return 16 * warp + lane // 4 + 8 * ((i // 2) % 2), 8 * (i // 4) + 2 * (lane % 4) + i % 2


def d_owners(n=BN13, rule=d_element):
    """{(row, col): (warp, lane, i)} over the 64 x n tile; raises if the rule misses an element or
    gives one to two threads."""
    own = {}
    for warp in range(4):
        for lane in range(WARP):
            for i in range(n // 2):
                rc = rule(warp, lane, i)
                if rc in own or not (0 <= rc[0] < 64 and 0 <= rc[1] < n):
                    raise ValueError(f"warp {warp} lane {lane} d{i} -> {rc} is taken or outside")
                own[rc] = (warp, lane, i)
    if len(own) != 64 * n:
        raise ValueError(f"{64 * n - len(own)} elements have no thread")
    return own


# ---- Drawing ----

def save(fig, out, name):
    for ext in ("png", "svg"):
        fig.savefig(os.path.join(out, f"{name}.{ext}"), dpi=130, bbox_inches="tight",
                    metadata={"Date": None} if ext == "svg" else None)
    plt.close(fig)
    print(f"wrote {os.path.join(os.path.relpath(out), name)}.png and .svg")


def canvas(x0, x1, y0, y1, unit):
    """A figure whose data units are `unit` inches, y downwards, no axes drawn."""
    fig = plt.figure(figsize=((x1 - x0) * unit, (y1 - y0) * unit))
    ax = fig.add_axes([0, 0, 1, 1])
    ax.set_xlim(x0, x1)
    ax.set_ylim(y1, y0)
    ax.axis("off")
    return fig, ax


def box(ax, x, y, color="white", w=1.0, h=1.0, lw=0.5, edge="#555555", **kw):
    ax.add_patch(Rectangle((x, y), w, h, facecolor=color, edgecolor=edge, linewidth=lw, **kw))


def outline(ax, x, y, w=1.0, h=1.0, color="black", lw=2.2, style="-"):
    ax.add_patch(Rectangle((x, y), w, h, fill=False, edgecolor=color, linewidth=lw, linestyle=style, zorder=5))


def lane_cell(ax, x, y, lane, reg_name, color):
    """One element: the lane that holds it (bold), the register under it."""
    box(ax, x, y, color)
    ax.text(x + 0.5, y + 0.38, str(lane), ha="center", va="center", fontsize=9, fontweight="bold")
    ax.text(x + 0.5, y + 0.76, reg_name, ha="center", va="center", fontsize=6.5, color="#333333")


def operand_grid(ax, name, x0, y0, row_name, col_name):
    """An operand's fragment map at (x0, y0): every element's lane and register, coloured by
    the lane's group g, lane EXAMPLE_LANE's elements outlined."""
    rows, cols, _, _, letter = FRAGMENTS[name]
    for (r, c), (lane, reg) in owners(name).items():
        lane_cell(ax, x0 + c, y0 + r, lane, f"{letter}{reg}", GROUP_COLORS[lane_place(lane)[0]])
        if lane == EXAMPLE_LANE:
            outline(ax, x0 + c, y0 + r)
    for c in range(cols):
        ax.text(x0 + c + 0.5, y0 - 0.25, str(c), ha="center", va="bottom", fontsize=7, color="#555555")
    for r in range(rows):
        ax.text(x0 - 0.2, y0 + r + 0.5, str(r), ha="right", va="center", fontsize=7, color="#555555")
    ax.text(x0 + cols / 2, y0 - 0.85, f"{col_name} \u2192", ha="center", va="bottom", fontsize=7.5, color="#555555")
    ax.text(x0 - 0.85, y0 + rows / 2, f"{row_name} \u2192", ha="center", va="center", fontsize=7.5, color="#555555",
            rotation=270)


def fragments_picture(out):
    # A left, B above C, C right of A: the product's own arrangement.
    ax_a, ax_b, ax_c = (1.5, 15.0), (12.5, 3.0), (12.5, 15.0)
    fig, ax = canvas(-1.0, 21.5, -2.0, 31.5, 0.4)
    operand_grid(ax, "A", *ax_a, "row m", "column k")
    operand_grid(ax, "B", *ax_b, "row k", "column n")
    operand_grid(ax, "C", *ax_c, "row m", "column n")
    rule = {"A": "a0 (g, t)    a1 (g+8, t)\na2 (g, t+4)  a3 (g+8, t+4)",
            "B": "b0 (t, g)    b1 (t+4, g)",
            "C": "c0 (g, 2t)    c1 (g, 2t+1)\nc2 (g+8, 2t)  c3 (g+8, 2t+1)"}
    heads = {"A": "A: 16 x 8, row-major (TF32)", "B": "B: 8 x 8, column-major (TF32)",
             "C": "C and D: 16 x 8 (FP32)"}
    for name, (x0, y0) in (("A", ax_a), ("B", ax_b), ("C", ax_c)):
        ax.text(x0 + 4, y0 - 1.25, rule[name], ha="center", va="bottom", fontsize=8, family="monospace",
                linespacing=1.3)
        ax.text(x0 + 4, y0 - (3.0 if "\n" in rule[name] else 2.2), heads[name], ha="center", va="bottom",
                fontsize=9.5, fontweight="bold")
    ax.text(-0.8, -1.6, "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32:\none warp computes D = A B + C",
            ha="left", va="top", fontsize=10.5, fontweight="bold", linespacing=1.3)
    g, t = lane_place(EXAMPLE_LANE)
    ax.text(-0.8, 0.6, "Each cell: the lane that holds the element\n(bold) and the register it is in.\n"
            "Lane l: g = l / 4, t = l % 4.\n"
            f"Outlined: lane {EXAMPLE_LANE}'s elements (g = {g}, t = {t}).",
            ha="left", va="top", fontsize=8.5, linespacing=1.4)
    ax.text(-0.8, 5.1, "Colour: the lane's group g", ha="left", va="top", fontsize=8.5)
    for grp in range(8):  # the legend: two columns of four groups
        x, y = -0.6 + 4.6 * (grp // 4), 6.0 + 1.0 * (grp % 4)
        box(ax, x, y, GROUP_COLORS[grp], w=0.8, h=0.75)
        ax.text(x + 1.0, y + 0.38, f"g = {grp}: lanes {4 * grp}-{4 * grp + 3}", ha="left", va="center", fontsize=8)
    save(fig, out, "tc_fragments")


def ldmatrix_picture(out):
    got = ldmatrix_x4()
    if any(got[lane][j][:2] != a_element(lane, j) for lane in range(WARP) for j in range(4)):
        raise AssertionError("ldmatrix.x4 with step 11's addresses does not deliver the mma's A fragment")
    x0, y0 = 3.0, 3.2
    fig, ax = canvas(0.0, 32.0, 0.0, 23.6, 0.36)
    for lane in range(WARP):
        for j, (r, c, _) in enumerate(got[lane]):
            lane_cell(ax, x0 + c, y0 + r, lane, f"a{j}", MATRIX_COLORS[j])
            if lane == EXAMPLE_LANE:
                outline(ax, x0 + c, y0 + r)
    # The address each lane gives: matrices 0 and 1 (k 0-3) on the left, 2 and 3 on the right.
    for lane in range(WARP):
        r, k0 = ldmatrix_address(lane)
        left = k0 == 0
        ax.text(x0 - 0.15 if left else x0 + 8.15, y0 + r + 0.5,
                f"lane {lane} \u2192" if left else f"\u2190 lane {lane}", ha="right" if left else "left",
                va="center", fontsize=7, color="#000000" if lane == EXAMPLE_LANE else "#444444",
                fontweight="bold" if lane == EXAMPLE_LANE else "normal")
        if lane == EXAMPLE_LANE:
            outline(ax, x0 + k0, y0 + r, w=4, lw=1.6, style="--")
    ax.plot([x0 + 4, x0 + 4], [y0, y0 + 16], color="black", linewidth=1.8)
    ax.plot([x0, x0 + 8], [y0 + 8, y0 + 8], color="black", linewidth=1.8)
    ax.add_patch(Rectangle((x0, y0), 8, 16, fill=False, edgecolor="black", linewidth=1.8))
    for c in range(8):
        ax.text(x0 + c + 0.5, y0 - 0.2, str(c), ha="center", va="bottom", fontsize=7, color="#555555")
    ax.text(x0 + 4, y0 - 0.85, "k (column of A) \u2192", ha="center", va="bottom", fontsize=7.5, color="#555555")
    ax.text(x0 + 4, y0 - 1.6, "A's 16 x 8 piece (mma tile i = 0, k8 = 0)", ha="center", va="bottom",
            fontsize=9.5, fontweight="bold")
    for r in range(16):
        ax.text(x0 - 2.05, y0 + r + 0.5, str(r), ha="right", va="center", fontsize=7, color="#555555")
    ax.text(x0 - 2.7, y0 + 8, "row of A \u2192", ha="center", va="center", fontsize=7.5, color="#555555",
            rotation=270)
    # The legend of the four matrices, from what they hold.
    for j in range(4):
        rows = sorted({got[lane][j][0] for lane in range(WARP)})
        cols = sorted({got[lane][j][1] for lane in range(WARP)})
        givers = sorted({got[lane][j][2] for lane in range(WARP)})
        y = y0 + 16.8 + 0.9 * j
        box(ax, x0 - 2.5, y, MATRIX_COLORS[j], w=0.8, h=0.7)
        ax.text(x0 - 1.5, y + 0.35, f"matrix {j}: rows {rows[0]}-{rows[-1]}, k {cols[0]}-{cols[-1]}; "
                f"addresses from lanes {givers[0]}-{givers[-1]}; lands in register {j} = a{j}",
                ha="left", va="center", fontsize=8)
    tx = 14.0
    g, t = lane_place(EXAMPLE_LANE)
    lines = [("ldmatrix.sync.aligned.m8n8.x4.shared.b16: four 8 x 8 matrices of 16-bit values", "bold"),
             ("(for TF32 each matrix is 8 rows x 4 floats: 16 bytes a row)", None),
             ("", None),
             ("1. Each lane gives the address of one row (arrows beside the tile):", "bold"),
             ("   lanes 8j to 8j + 7 give matrix j's 8 rows. Step 11 and 12's lane l points at", None),
             ("   row (l >> 3 & 1) * 8 + (l & 7), k = k8 + (l >> 4) * 4.", "mono"),
             ("2. Each lane receives one 32-bit word of every matrix:", "bold"),
             ("   lane l gets word l % 4 of row l / 4 of matrix j, in its register j.", None),
             ("3. That is A's (g + 8 (j & 1), t + 4 (j >> 1)) with g = l / 4, t = l % 4:", "bold"),
             ("   exactly the mma's a0 .. a3 (the cells show lane and register),", None),
             ("   one instruction instead of four loads.", None),
             ("", None),
             (f"Lane {EXAMPLE_LANE} (g = {g}, t = {t}), outlined:", "bold")]
    for j, (r, c, giver) in enumerate(got[EXAMPLE_LANE]):
        lines.append((f"   a{j} = A({r}, {c}): matrix {j}, row {r % 8}, word {c % 4}; address from lane {giver}",
                      None))
    r, k0 = ldmatrix_address(EXAMPLE_LANE)
    lines += [(f"Lane {EXAMPLE_LANE}'s own address (dashed) is row {r}, k {k0}-{k0 + 3}: data for lanes "
               f"{4 * (r % 8)}-{4 * (r % 8) + 3}.", None),
              ("", None),
              ("The swizzle (SWZ_A) moves each 16-byte row piece elsewhere in shared", None),
              ("memory; ldmatrix takes any 16-byte-aligned row address, so each lane", None),
              ("still receives the same floats (tc_swizzle shows where they sit).", None)]
    for n, (text, style) in enumerate(lines):
        ax.text(tx, 1.0 + 0.85 * n, text, ha="left", va="center", fontsize=8.5,
                fontweight="bold" if style == "bold" else "normal",
                family="monospace" if style == "mono" else "sans-serif")
    save(fig, out, "tc_ldmatrix")


def bank_panel(ax, x0, y0, indices, line_name, title, formula):
    """One read: the 128-byte lines of shared memory it touches (32 banks across; each touched
    word shows the lane reading it, coloured by g), then the words per bank and the verdict.
    Returns the height used."""
    ax.text(x0 + 16, y0, title, ha="center", va="bottom", fontsize=9.5, fontweight="bold")
    ax.text(x0 + 16, y0 + 0.95, formula, ha="center", va="bottom", fontsize=8, family="monospace")
    for ch in range(8):
        ax.text(x0 + 4 * ch + 2, y0 + 1.75, f"chunk {ch}", ha="center", va="bottom", fontsize=6.5, color="#555555")
    for b in range(BANKS):
        ax.text(x0 + b + 0.5, y0 + 2.5, str(b), ha="center", va="bottom", fontsize=6, color="#555555")
    ax.text(x0 - 0.3, y0 + 2.5, "bank", ha="right", va="bottom", fontsize=6.5, color="#555555")
    lines = sorted({x // BANKS for x in indices})
    top = y0 + 2.7
    for n, line in enumerate(lines):
        y = top + n
        for b in range(BANKS):
            box(ax, x0 + b, y, "white", lw=0.3, edge="#bbbbbb")
        ax.text(x0 - 0.3, y + 0.5, line_name(line), ha="right", va="center", fontsize=7)
    for lane, x in enumerate(indices):
        y = top + lines.index(x // BANKS)
        box(ax, x0 + x % BANKS, y, GROUP_COLORS[lane_place(lane)[0]], lw=0.5)
        ax.text(x0 + x % BANKS + 0.5, y + 0.5, str(lane), ha="center", va="center", fontsize=6.5)
    bottom = top + len(lines)
    for ch in range(9):  # the 16-byte chunks the swizzles move
        ax.plot([x0 + 4 * ch] * 2, [top, bottom], color="#333333", linewidth=1.0)
    per = words_per_bank(indices)
    y = bottom + 0.5
    for b in range(BANKS):
        n = len(per.get(b, ()))
        box(ax, x0 + b, y, "white" if n == 0 else "#c7e9c0" if n == 1 else "#fc9272", lw=0.3)
        if n:
            ax.text(x0 + b + 0.5, y + 0.5, str(n), ha="center", va="center", fontsize=7)
    ax.text(x0 - 0.3, y + 0.5, "words per bank", ha="right", va="center", fontsize=7)
    n = conflict_degree(indices)
    ax.text(x0 + 16, y + 1.3, conflict_text(indices), ha="center", va="top", fontsize=9.5, fontweight="bold",
            color="#1b7837" if n == 1 else "#b2182b")
    return y + 2.4 - y0


def panel_height(indices):
    """bank_panel's height: headings, the lines touched, words per bank, the verdict."""
    return 2.7 + len({x // BANKS for x in indices}) + 2.9


def swizzle_picture(out):
    if BK != BANKS:
        raise AssertionError("the A panels draw one row of A's tile per line of 32 banks")
    reads = {"A": (a_read(False), a_read(True)), "B": (b_read(False), b_read(True))}
    h_a = max(panel_height(r) for r in reads["A"])
    bottom = h_a + 1.5 + max(panel_height(r) for r in reads["B"])
    fig, ax = canvas(-8.0, 75.0, -3.2, bottom + 2.6, 0.24)
    left, right = 0.0, 42.0
    ax.text(left + 16, -2.6, "without a swizzle (row-major)", ha="center", va="bottom", fontsize=11,
            fontweight="bold")
    ax.text(right + 16, -2.6, "with step 11 and 12's swizzle", ha="center", va="bottom", fontsize=11,
            fontweight="bold")

    def a_line(line):
        return f"row {line}"

    def b_line(line):
        first = line * BANKS % BN
        return f"k {line * BANKS // BN}, floats {first}-{first + BANKS - 1}"
    a_title = "A: lane l reads A(g, t) (g = lane / 4, t = lane % 4; a0, k8 = 0)"
    b_title = f"B: lane l reads B(t, g) (b0, k8 = 0, column 8j + g, j = 0; BN = {BN})"
    for x0, read, formula in ((left, reads["A"][0], "row*BK + k, BK = 32"),
                              (right, reads["A"][1], "SWZ_A: row*BK + (((k>>2) ^ (row&7))<<2) + (k&3)")):
        bank_panel(ax, x0, 0.0, read, a_line, a_title, formula)
    for x0, read, formula in ((left, reads["B"][0], "k*BN + col"),
                              (right, reads["B"][1], "SWZ_B: k*BN + (((col>>2) ^ ((k&3)<<1))<<2) + (col&3)")):
        bank_panel(ax, x0, h_a + 1.5, read, b_line, b_title, formula)
    ax.text(-7.8, bottom + 0.2, "Each coloured cell: a 32-bit word the read touches, with the lane reading it "
            "(colour: g). A row of cells is one 128-byte line of shared memory, 32 banks across; "
            "bank = float index % 32.\n"
            "A bank serves one word per wavefront: the most words in one bank is the number of wavefronts. "
            "The swizzles XOR the 16-byte chunk number (4 banks), so cp.async's 16-byte copies stay whole.",
            ha="left", va="top", fontsize=8, linespacing=1.4)
    save(fig, out, "tc_swizzle")


FIELD_COLORS = {"sign": "#d9d9d9", "exponent": "#9ecae1", "kept": "#a1d99b", "dropped": "#fdd0a2"}


def bit_x(i):
    """x of bit i (31: sign) in a row of boxes, a gap after the sign and after the exponent."""
    pos = 31 - i
    return pos + (0.5 if pos >= 1 else 0) + (0.5 if pos >= 9 else 0)


def bit_row(ax, y, bits, label, value, note=None, mark=()):
    """An FP32 pattern as 32 boxes coloured by field (the fraction's last 13 bits, which TF32
    drops, in orange); the boxes in `mark` outlined in red."""
    ax.text(-0.6, y + 0.5, label, ha="right", va="center", fontsize=9.5, fontweight="bold")
    ax.text(-0.6, y + 1.35, f"0x{bits:08X}", ha="right", va="center", fontsize=7.5, family="monospace",
            color="#444444")
    for i in range(32):
        field = "sign" if i == 31 else "exponent" if i >= 23 else "kept" if i >= 13 else "dropped"
        one = bits >> i & 1
        box(ax, bit_x(i), y, FIELD_COLORS[field])
        ax.text(bit_x(i) + 0.5, y + 0.5, str(one), ha="center", va="center", fontsize=8.5,
                fontweight="bold" if one else "normal", color="black" if one else "#777777")
        if i in mark:
            outline(ax, bit_x(i), y, color="#d62728", lw=2.2)
    e = bits >> 23 & 0xFF
    ax.text(34.0, y + 0.5, value, ha="left", va="center", fontsize=9.5)
    field = f"exponent field {e} = {e:08b}: $2^{{{e - 127}}}$ ({e} \u2212 127)" if e else "exponent field 0: zero"
    ax.text(34.0, y + 1.35, field, ha="left", va="center", fontsize=7.5, color="#444444")
    if note:
        ax.text(0.0, y + 1.45, note, ha="left", va="top", fontsize=7.5, color="#444444", linespacing=1.3)


def split_picture(out):
    x = 1.0 + 2.0 ** -12 + 2.0 ** -23
    s = split_3xtf32(x)
    xb, big, diff, small = s["x"], s["big"], s["diff"], s["small"]
    total = f32_bits(bits_f32(big) + bits_f32(small))  # exact: no rounding in FP32 either
    last = significand_weights(xb)[-1]  # x's lowest set bit
    fig, ax = canvas(-9.5, 56.0, -3.6, 29.6, 0.24)
    ax.text(-9.3, -3.3, "3xTF32's split of one FP32 value: step12.cu's split_tf32 with cvt.rn (ties to even, "
            "as on Hopper)", ha="left", va="top", fontsize=11, fontweight="bold")
    # The fields, named over the first row.
    ax.text(bit_x(31) + 0.5, -0.3, "sign", ha="center", va="bottom", fontsize=7.5)
    ax.text((bit_x(30) + bit_x(23) + 1) / 2, -0.3, "exponent (8 bits)", ha="center", va="bottom", fontsize=7.5)
    ax.text((bit_x(22) + bit_x(13) + 1) / 2, -0.3, "fraction: the 10 bits TF32 keeps", ha="center", va="bottom",
            fontsize=7.5)
    ax.text((bit_x(12) + bit_x(0) + 1) / 2, -0.3, "the 13 bits TF32 rounds away", ha="center", va="bottom",
            fontsize=7.5)
    for i in (31, 30, 23, 22, 13, 12, 0):
        ax.text(bit_x(i) + 0.5, -1.1, str(i), ha="center", va="bottom", fontsize=6, color="#777777")
    ax.text(-0.6, -1.1, "bit", ha="right", va="bottom", fontsize=6, color="#777777")
    low, d_low = xb & 0x1FFF, diff & 0x1FFF

    def half(bits13):
        return "below" if bits13 < 0x1000 else "exactly" if bits13 == 0x1000 else "above"
    how = f"{half(d_low)} half" + (": a tie, to even" if d_low == 0x1000 else "") + \
        f" ({'down' if small == diff & 0xFFFFE000 else 'up'})"
    rows = [
        (xb, "x", sum_of_powers(xb), None, ()),
        (big, "big = tf32(x)", sum_of_powers(big),
         f"x's last 13 bits, {low:013b}, are {half(low)} half (1000000000000): rounded "
         f"{'down' if big == xb & 0xFFFFE000 else 'up'}", ()),
        (diff, "x \u2212 big", sum_of_powers(diff) + "  (exact in FP32)",
         "the same value with its own exponent: its lowest 1 (red) falls in the bits TF32 drops",
         tuple(i for i in range(13) if diff >> i & 1)),
        (small, "small", sum_of_powers(small),
         f"tf32(x \u2212 big): the dropped bits {d_low:013b} are {how} \u2192 its {power(last)} is gone", ()),
        (total, "big + small", sum_of_powers(total),
         f"x \u2212 (big + small) = {power_of(s['lost'])}: x's last bit (red), one FP32 ulp of x",
         tuple(i for i in range(32) if (total ^ xb) >> i & 1)),
    ]
    for n, (bits, label, value, note, mark) in enumerate(rows):
        bit_row(ax, 0.3 + 3.4 * n, bits, label, value, note, mark)
    # Underneath: the same values on one scale of powers of two, and the 11 significant bits
    # (leading 1 + 10 fraction bits) that big and small can each hold.
    y = 18.4
    e_hi = (xb >> 23 & 0xFF) - 127
    weights = list(range(e_hi, e_hi - 25, -1))

    def col(e):
        return (e_hi - e) * 1.3
    ax.text(-9.3, y - 0.5, "The same on one scale: the powers of two each part can hold (11 significant bits: "
            "its leading 1 and 10 fraction bits, green)", ha="left", va="bottom", fontsize=9.5, fontweight="bold")
    for e in weights:
        ax.text(col(e) + 0.5, y + 0.5, str(e), ha="center", va="center", fontsize=7, color="#555555")
    ax.text(-0.6, y + 0.5, "power of 2:", ha="right", va="center", fontsize=7.5, color="#555555")
    x_ones = set(significand_weights(xb))
    held = set()
    for n, (name, bits) in enumerate((("x", xb), ("big", big), ("small", small))):
        yy = y + 1.4 + 1.5 * n
        ones = set(significand_weights(bits))
        window = set() if name == "x" else set(range(max(ones), max(ones) - 11, -1))
        held |= window
        ax.text(-0.6, yy + 0.5, name, ha="right", va="center", fontsize=9, fontweight="bold")
        for e in weights:
            one = e in ones
            box(ax, col(e), yy, FIELD_COLORS["kept"] if e in window else "white", lw=0.3,
                edge="#1b7837" if e in window else "#bbbbbb")
            ax.text(col(e) + 0.5, yy + 0.5, "1" if one else "0", ha="center", va="center", fontsize=8,
                    fontweight="bold" if one else "normal", color="black" if one else "#999999")
        if window:
            ax.text(col(weights[-1]) + 1.8, yy + 0.5, f"holds {power(max(window))} to {power(min(window))}",
                    ha="left", va="center", fontsize=8)
    for e in sorted(x_ones - held):
        outline(ax, col(e), y + 1.4, color="#d62728", lw=2.2)
        ax.annotate(f"{power(e)}: in neither, lost", (col(e) + 0.5, y + 2.4), xytext=(col(e) + 0.5, y + 6.8),
                    ha="center", va="top", fontsize=8, color="#d62728",
                    arrowprops=dict(arrowstyle="->", color="#d62728", linewidth=1.0))
    rna = split_3xtf32(x, tf32_rna)
    ax.text(-9.3, y + 8.0, f"big + small = {sum_of_powers(total)} differs from x by {power_of(s['lost'])}, one unit "
            f"in the last place of x: big and small hold 11 significant bits each, x's bits span "
            f"{e_hi - last + 1} places ({power(e_hi)} to {power(last)}).\n"
            f"On Ampere and Ada (cvt.rna, ties away from zero) small = {sum_of_powers(rna['small'])}: big + small "
            f"is then {'above' if rna['lost'] < 0 else 'below'} x, by {power_of(abs(rna['lost']))}.",
            ha="left", va="top", fontsize=8, linespacing=1.5)
    save(fig, out, "tc_split")


STAGE_COLORS = MATRIX_COLORS                 # stage s of the ring; a wgmma group reading it
CONSUMER_COLORS = ["#08519c", "#a63603"]     # consumer 1, consumer 2: their arrivals on empty[s]
WAIT_COLOR = "#e6e6e6"


def pipeline_picture(out):
    p = Pipeline().run()
    if p.deadlock or p.errors:
        raise AssertionError(f"step 13's rules: deadlock {p.deadlock}, errors {p.errors}")
    x0, end = 0.0, p.end
    fig, ax = canvas(-13.0, end + 1.0, -4.2, 61.6, 0.19)
    ax.text(-12.8, -3.9, "Step 13's pipeline: one producer thread, a ring of 4 stages, two consumer warpgroups "
            f"({BM13} x {BN13} tile of C, k-tiles of {BK13})", ha="left", va="top", fontsize=11, fontweight="bold")
    lanes = {"producer": 0.0}
    for s in range(STAGES):
        lanes[f"stage {s}"] = 5.2 + 5.6 * s
    lanes["consumer 1"], lanes["consumer 2"] = 28.6, 33.4
    bar_h = 2.2
    names = {"producer": "producer\n(warpgroup 0,\none thread)", "consumer 1": "consumer 1\n(warpgroup 1)",
             "consumer 2": "consumer 2\n(warpgroup 2)"}
    for lane, y in lanes.items():
        ax.text(-0.6, y + bar_h / 2, names.get(lane, f"{lane}\n({STAGE_BYTES // 1024} KiB)"), ha="right",
                va="center", fontsize=9, linespacing=1.2)
        ax.plot([x0, end], [y + bar_h / 2] * 2, color="#dddddd", linewidth=0.6, zorder=0)

    def bar(y, t0, t1, color, text=None, hatch=None, fs=8, bold=True, h=bar_h, dy=0.0, tcolor="black"):
        ax.add_patch(Rectangle((x0 + t0, y + dy), t1 - t0, h, facecolor=color, edgecolor="#555555",
                               linewidth=0.6, hatch=hatch, zorder=2))
        if text:
            ax.text(x0 + (t0 + t1) / 2, y + dy + h / 2, text, ha="center", va="center", fontsize=fs,
                    fontweight="bold" if bold else "normal", zorder=3, color=tcolor, linespacing=1.1,
                    bbox=dict(facecolor="white", edgecolor="none", pad=0.6, alpha=0.85) if hatch else None)

    # The producer: its waits on empty[s] that block, then arm + two copies per k-tile.
    y = lanes["producer"]
    for w in p.waits("producer"):
        if w["t1"] > w["t0"]:
            bar(y, w["t0"], w["t1"], WAIT_COLOR, f"empty[{w['stage']}]\nphase {w['parity']}", fs=7.5, bold=False,
                h=bar_h * 0.8, dy=bar_h * 0.1)
        bar(y, w["t1"], w["t1"] + T_ISSUE, STAGE_COLORS[w["stage"]], str(w["kt"]), fs=8.5)
    first = [w for w in p.waits("producer") if w["t1"] == w["t0"] and w["kt"] < STAGES]
    ax.text(x0 + first[0]["t0"], y - 0.3, f"k-tiles {first[0]['kt']}-{first[-1]['kt']}: empty[s] phase "
            f"{first[0]['parity']} passes at once (a new barrier)", ha="left", va="bottom", fontsize=8)
    ax.text(x0 + end, y - 0.3, "grey: waiting", ha="right", va="bottom", fontsize=8, color="#555555")

    # The stages: a copy in flight (hatched), then the k-tile it holds until both consumers freed it.
    arrivals = [e for e in p.events if e["kind"] == "arrive"]
    for c in p.events:
        if c["kind"] != "copy":
            continue
        s, kt, y = c["stage"], c["kt"], lanes[f"stage {c['stage']}"]
        freed = [a for a in arrivals if a["stage"] == s and a["kt"] == kt]
        last_read = max(g["end"] for g in p.groups if g["kt"] == kt)
        until = max(a["t"] for a in freed) if len(freed) == CONSUMERS else last_read
        bar(y, c["t0"], c["t1"], "white", f"copy {kt}", hatch="////", fs=8, bold=False)
        bar(y, c["t1"], until, STAGE_COLORS[s], f"k-tile {kt}" if until - c["t1"] >= 5 else str(kt), fs=9)
        phase = [n for n, t in p.full[s].completed if t == c["t1"]][0]
        ax.text(x0 + c["t1"], y - 0.2, f"full[{s}] phase {phase & 1}", ha="left", va="bottom", fontsize=7.5,
                color="#08306b")
        for a in freed:
            ax.plot([x0 + a["t"]], [y + bar_h + 0.45], marker="^", markersize=5.5,
                    color=CONSUMER_COLORS[a["consumer"] - 1], zorder=4)
        if len(freed) == CONSUMERS:
            phase = [n for n, t in p.empty[s].completed if t == until][0]
            ax.text(x0 + until, y + bar_h + 0.9, f"empty[{s}] phase {phase & 1}", ha="right", va="top",
                    fontsize=7.5, color="#7f2704")

    # The consumers: their wgmma groups as the tensor cores run them, coloured by the stage read;
    # the arrival on empty[(kt - 1) % 4] after wgmma_wait_group<1>.
    for cons in range(1, CONSUMERS + 1):
        y = lanes[f"consumer {cons}"]
        mine = [g for g in p.groups if g["consumer"] == cons]
        for w in p.waits(f"consumer {cons}"):
            if w["t1"] > w["t0"] and not any(g["issued"] < w["t1"] and g["end"] > w["t0"] for g in mine):
                bar(y, w["t0"], w["t1"], WAIT_COLOR, f"waits full[{w['stage']}] phase {w['parity']}", fs=7.5,
                    bold=False, h=bar_h * 0.8, dy=bar_h * 0.1)
        for g in mine:
            bar(y, g["start"], g["end"], STAGE_COLORS[g["stage"]], str(g["kt"]), fs=9)
        for a in arrivals:
            if a["consumer"] == cons:
                ax.plot([x0 + a["t"]], [y + bar_h + 0.45], marker="^", markersize=5.5,
                        color=CONSUMER_COLORS[cons - 1], zorder=4)
                ax.text(x0 + a["t"], y + bar_h + 0.9, f"frees {a['stage']}", ha="center", va="top", fontsize=7.5,
                        color=CONSUMER_COLORS[cons - 1])
    ax.annotate("", xy=(x0 + end, 38.4), xytext=(x0, 38.4),
                arrowprops=dict(arrowstyle="->", color="#555555", linewidth=1.0))
    ax.text(x0 + end / 2, 38.7, "time (illustrative units)", ha="center", va="top", fontsize=8.5, color="#555555")

    # The waits, k-tile by k-tile: the same events, as a table.
    ty, cw = 41.6, end / p.kt_count
    rows = [("k-tile kt", lambda kt: str(kt)),
            ("stage s = kt % 4", lambda kt: str(kt % STAGES)),
            ("producer waits empty[s],\nphase ((kt / 4) & 1) ^ 1",
             lambda kt: str([w["parity"] for w in p.waits("producer") if w["kt"] == kt][0])),
            ("consumers wait full[s],\nphase (kt / 4) & 1",
             lambda kt: "/".join(sorted({str(w["parity"]) for w in p.waits(bar="full") if w["kt"] == kt}))),
            ("then free stage (kt \u2212 1) % 4\n(after wgmma_wait_group<1>)",
             lambda kt: "/".join(sorted({str(a["stage"]) for a in arrivals if a["kt"] == kt - 1})) or "\u2013")]
    for n, (label, value) in enumerate(rows):
        yy = ty + 2.1 * n
        ax.text(-0.6, yy + 1.0, label, ha="right", va="center", fontsize=8, linespacing=1.1,
                fontweight="bold" if n == 0 else "normal")
        for kt in range(p.kt_count):
            box(ax, x0 + kt * cw, yy, STAGE_COLORS[kt % STAGES] if n else "white", w=cw, h=2.1, lw=0.5)
            ax.text(x0 + (kt + 0.5) * cw, yy + 1.05, value(kt), ha="center", va="center", fontsize=9,
                    fontweight="bold" if n == 0 else "normal")
    lines = [f"Colours: the stage (0-{STAGES - 1}). Producer: the k-tile whose copies it issues (expect_tx of "
             f"{STAGE_BYTES // 1024} KiB on full[s], then A's and Bt's tiles). Hatched: the copy in flight.",
             "Consumer rows: each consumer's 4 wgmmas of a k-tile on the tensor cores, which the two consumers "
             "share: they take turns.",
             "\u25b2 an arrival on empty[s] (blue: consumer 1, brown: consumer 2); the second one completes the "
             "phase, and only then does the producer refill the stage.",
             "A wait names a phase by its parity: 0, 1, 0, 1 ... per barrier. A consumer keeps one k-tile's "
             "wgmmas running (wgmma_wait_group<1>) and frees the stage before it.",
             f"Not measured: the order, not the durations. Here a stage's copies take {T_COPY} time units, one "
             f"consumer's 4 wgmmas {T_MMA}, the producer {T_ISSUE} per k-tile."]
    for n, text in enumerate(lines):
        ax.text(-12.8, ty + 12.0 + 1.55 * n, text, ha="left", va="top", fontsize=8,
                fontweight="bold" if n == len(lines) - 1 else "normal")
    save(fig, out, "tc_pipeline")


KSTEP_COLORS = ["#c6dbef", "#fdd0a2", "#c7e9c0", "#dadaeb"]  # k-step 0-3 of a 32-float row
WARP_COLORS = MATRIX_COLORS                                  # warp 0-3 of a consumer warpgroup
EXAMPLE_D = (0, EXAMPLE_LANE)                                # warp 0, lane 5: followed in panel (c)


def chunk_grid(ax, x0, y0, stored, cw=1.8, ch=1.0):
    """Rows 0-7 of a 128-byte-swizzled tile: 8 chunks of 16 bytes a row, in k order (stored
    False) or where the TMA puts them (True); coloured by k-step, k-step 1 outlined."""
    for r in range(8):
        ax.text(x0 - 0.2, y0 + (r + 0.5) * ch, f"row {r}", ha="right", va="center", fontsize=8)
        for place in range(8):
            j = place ^ (r % 8) if stored else place  # the chunk at this place: sw128_place inverted
            if stored and sw128_place(r, j) != place:
                raise AssertionError("the swizzle is not its own inverse")
            box(ax, x0 + place * cw, y0 + r * ch, KSTEP_COLORS[j // 2], w=cw, h=ch)
            ax.text(x0 + (place + 0.5) * cw, y0 + (r + 0.5) * ch, f"k {4 * j}-{4 * j + 3}", ha="center",
                    va="center", fontsize=7.5, fontweight="bold" if j // 2 == 1 else "normal")
            if j // 2 == 1:
                outline(ax, x0 + place * cw, y0 + r * ch, w=cw, h=ch, lw=1.8)
    for place in range(8):
        ax.text(x0 + (place + 0.5) * cw, y0 - 0.15, f"{16 * place}" if stored else f"chunk {place}",
                ha="center", va="bottom", fontsize=7, color="#555555")


def address_grid(ax, x0, y0, rows, cols, addr, lit, row_name, col_name, cw=1.0, ch=0.8):
    """A small matrix, each cell showing its float's place in memory; the cells in `lit` shaded."""
    for r in range(rows):
        ax.text(x0 - 0.15, y0 + (r + 0.5) * ch, str(r), ha="right", va="center", fontsize=7, color="#555555")
        for c in range(cols):
            on = (r, c) in lit
            box(ax, x0 + c * cw, y0 + r * ch, "#fdae6b" if on else "white", w=cw, h=ch)
            ax.text(x0 + (c + 0.5) * cw, y0 + (r + 0.5) * ch, str(addr(r, c)), ha="center", va="center",
                    fontsize=7.5, fontweight="bold" if on else "normal")
    for c in range(cols):
        ax.text(x0 + (c + 0.5) * cw, y0 - 0.1, str(c), ha="center", va="bottom", fontsize=7, color="#555555")
    ax.text(x0 + cols * cw / 2, y0 - 0.75, f"{col_name} \u2192", ha="center", va="bottom", fontsize=7.5,
            color="#555555")
    ax.text(x0 - 0.9, y0 + rows * ch / 2, f"{row_name} \u2192", ha="center", va="center", fontsize=7.5,
            color="#555555", rotation=270)


def wgmma_picture(out):
    y_a = 0.6                 # (a): the stage, then rows 0-7 of a tile at gy
    sy, gy = y_a + 2.3, y_a + 8.5
    y_b = gy + 12.2           # (b): B and Bt at by
    by = y_b + 3.4
    y_c = by + 11.4           # (c): the accumulators at oy
    oy = y_c + 3.0
    fig, ax = canvas(-1.0, 38.0, -1.6, oy + 64 * 0.3 + 1.2, 0.3)
    ax.text(-0.8, -1.4, f"wgmma m64n{BN13}k8 .tf32 in step 13: operands read from shared memory, "
            "accumulators in registers", ha="left", va="top", fontsize=11, fontweight="bold")

    # (a) The stage as the TMA writes it, and the 128-byte swizzle of its rows.
    ax.text(-0.8, y_a, "(a) A's and Bt's tiles, K-major: rows of 32 floats of k (128 bytes), as the TMA "
            "writes them (128-byte swizzle)", ha="left", va="top", fontsize=9.5, fontweight="bold")
    sx, sw = 3.0, 34.0  # one stage, 48 KiB, drawn to scale
    a_bytes = BM13 * BK13 * 4
    parts = [(0, a_bytes // 2, "A rows 0-63: consumer 1", WARP_COLORS[0]),
             (a_bytes // 2, a_bytes, "A rows 64-127: consumer 2", WARP_COLORS[1]),
             (a_bytes, STAGE_BYTES, f"Bt: {BN13} rows (n), read by both consumers", WARP_COLORS[2])]
    for b0, b1, text, color in parts:
        box(ax, sx + sw * b0 / STAGE_BYTES, sy, color, w=sw * (b1 - b0) / STAGE_BYTES, h=1.3, lw=0.8)
        ax.text(sx + sw * (b0 + b1) / 2 / STAGE_BYTES, sy + 0.65, text, ha="center", va="center", fontsize=8)
        ax.text(sx + sw * b0 / STAGE_BYTES, sy - 0.1, f"{b0}", ha="center", va="bottom", fontsize=7,
                color="#555555")
    ax.text(sx + sw, sy - 0.1, f"{STAGE_BYTES}", ha="center", va="bottom", fontsize=7, color="#555555")
    for b in range(0, STAGE_BYTES, 1024):  # the 8-row groups: 1024 bytes, the descriptor's stride
        ax.plot([sx + sw * b / STAGE_BYTES] * 2, [sy + 1.3, sy + 1.65], color="#555555", linewidth=0.5)
    ax.text(sx - 0.2, sy + 0.65, "a stage", ha="right", va="center", fontsize=8)
    ax.text(sx, sy + 1.75, "ticks: every 8 rows = 1024 bytes, where the swizzle pattern starts again "
            "(the descriptor's stride); each part starts at a multiple of 1024 bytes", ha="left", va="top",
            fontsize=7.5, color="#444444")
    lx, rx = 3.0, 21.6
    ax.text(lx + 7.2, gy - 2.4, "rows 0-7 of a tile, in k order", ha="center", va="bottom", fontsize=9,
            fontweight="bold")
    ax.text(rx + 7.2, gy - 2.4, "where the TMA stores them: chunk j of row r at j ^ (r % 8)", ha="center",
            va="bottom", fontsize=9, fontweight="bold")
    chunk_grid(ax, lx, gy, False)
    chunk_grid(ax, rx, gy, True)
    ax.text(rx - 0.2, gy - 0.15, "byte", ha="right", va="bottom", fontsize=7, color="#555555")
    ax.annotate("", xy=(rx - 2.4, gy + 4.0), xytext=(lx + 14.6, gy + 4.0),
                arrowprops=dict(arrowstyle="->", color="black", linewidth=1.2))
    ay = gy + 8.3
    for s in range(BK13 // 8):  # each k-step's descriptor start in row 0: 32 bytes further, desc + 2 s
        x = rx + 1.8 * wgmma_byte(0, 8 * s) / 16
        ax.annotate(f"desc + {2 * s}", xy=(x, gy), xytext=(x + 0.15, gy - 1.35), ha="left", va="center",
                    fontsize=7.5, arrowprops=dict(arrowstyle="->", color="black", linewidth=0.8,
                                                  shrinkA=0, shrinkB=0))
    for s in range(4):
        box(ax, lx + 3.6 * s, ay + 0.3, KSTEP_COLORS[s], w=0.8, h=0.7)
        ax.text(lx + 3.6 * s + 1.0, ay + 0.65, f"k-step {s}", ha="left", va="center", fontsize=8)
    ax.text(-0.8, ay + 1.6, "One wgmma takes a k-step of 8 floats: 32 bytes of each row. Its descriptor for "
            "k-step s points 32 s bytes into row 0 (step13.cu: desc_a + 2 * k8, in 16-byte units);\n"
            "for each row r the hardware XORs the address's chunk bits with r % 8, as the TMA did, so it "
            "finds k-step 1's chunks (outlined) wherever they were put.",
            ha="left", va="top", fontsize=8, linespacing=1.45)

    # (b) Why B is transposed first.
    ax.text(-0.8, y_b, "(b) Why step 13 transposes B first", ha="left", va="top", fontsize=9.5,
            fontweight="bold")
    n_show, col = 8, 2
    ax.text(3.0 + 4.0, by - 1.5, "B as stored: k x n, n along memory (MN-major)", ha="center", va="bottom",
            fontsize=8.5, fontweight="bold")
    address_grid(ax, 3.0, by, n_show, n_show, lambda k, n: k * n_show + n,
                 {(k, col) for k in range(8)}, "k", "n")
    ax.text(25.0 + 4.0, by - 1.5, "Bt = B transposed: n x k, k along memory (K-major)", ha="center",
            va="bottom", fontsize=8.5, fontweight="bold")
    address_grid(ax, 25.0, by, n_show, n_show, lambda n, k: n * n_show + k,
                 {(col, k) for k in range(8)}, "n", "k")
    ax.annotate("", xy=(23.4, by + 3.2), xytext=(12.6, by + 3.2),
                arrowprops=dict(arrowstyle="->", color="black", linewidth=1.2))
    ax.text(18.0, by + 2.8, "transpose: a pre-pass\n(the TMA rounds to TF32)", ha="center", va="bottom",
            fontsize=8, linespacing=1.3)
    ax.text(18.0, by + 3.6, "(part of step 13's time)", ha="center", va="top", fontsize=7.5, color="#444444")
    ax.text(-0.8, by + 7.0, f"Numbers: each float's place in memory (an {n_show} x {n_show} example). "
            f"Shaded: column n = {col} of B, the 8 values of a k-step that wgmma needs side by side,\n"
            f"as it reads A's rows. In B they lie {n_show} floats apart (in the kernel, a whole row of B); in Bt "
            "they are 32 bytes in a row. wgmma's .f16 and .bf16 forms can read B\n"
            "either way (a transpose flag); the .tf32 form has no such flag: it reads K-major only. So the "
            "TMA copies Bt's 256 x 32 tiles, like A's 128 x 32\n"
            "(A, row-major m x k, is K-major as it is).",
            ha="left", va="top", fontsize=8, linespacing=1.45)

    # (c) The accumulators: who holds each element of a 64 x 16 corner of the 64 x 256 tile.
    ax.text(-0.8, y_c, f"(c) Each consumer's 64 x {BN13} accumulator tile: which warp, lane and register "
            "holds each element", ha="left", va="top", fontsize=9.5, fontweight="bold")
    own = d_owners()
    ox, oc = 3.0, 0.3
    ax.text(ox + 8 * oc, oy - 0.9, "a 64 x 16 corner", ha="center", va="bottom", fontsize=8.5,
            fontweight="bold")
    for r in range(64):
        for c in range(16):
            warp, lane, i = own[(r, c)]
            box(ax, ox + c * oc, oy + r * oc, WARP_COLORS[warp], w=oc, h=oc, lw=0.15, edge="#888888")
    for warp in range(4):
        ax.text(ox - 0.2, oy + (16 * warp + 8) * oc, f"warp {warp}\nrows {16 * warp}-{16 * warp + 15}",
                ha="right", va="center", fontsize=7.5, linespacing=1.2)
    for c in (0, 8, 15):
        ax.text(ox + (c + 0.5) * oc, oy - 0.1, str(c), ha="center", va="bottom", fontsize=6.5, color="#555555")
    outline(ax, ox, oy, w=16 * oc, h=16 * oc, lw=1.6, style="--")
    zx, zy, zc = 11.0, oy, 1.1
    ax.plot([ox + 16 * oc, zx], [oy, zy], color="#555555", linewidth=0.6, linestyle="--")
    ax.plot([ox + 16 * oc, zx], [oy + 16 * oc, zy + 16 * zc], color="#555555", linewidth=0.6, linestyle="--")
    for r in range(16):
        ax.text(zx - 0.15, zy + (r + 0.5) * zc, str(r), ha="right", va="center", fontsize=7, color="#555555")
        for c in range(16):
            warp, lane, i = own[(r, c)]
            box(ax, zx + c * zc, zy + r * zc, GROUP_COLORS[lane // 4], w=zc, h=zc)
            ax.text(zx + (c + 0.5) * zc, zy + r * zc + 0.4, str(lane), ha="center", va="center", fontsize=8.5,
                    fontweight="bold")
            ax.text(zx + (c + 0.5) * zc, zy + r * zc + 0.82, f"d{i}", ha="center", va="center", fontsize=6.5,
                    color="#333333")
            if (warp, lane) == EXAMPLE_D:
                outline(ax, zx + c * zc, zy + r * zc, w=zc, h=zc)
    for c in range(16):
        ax.text(zx + (c + 0.5) * zc, zy - 0.1, str(c), ha="center", va="bottom", fontsize=7, color="#555555")
    ax.plot([zx + 8 * zc] * 2, [zy, zy + 16 * zc], color="black", linewidth=1.6)
    ax.text(zx + 8 * zc, zy - 0.75, "warp 0's rows 0-15, columns 0-15: lane (bold), register d i; colour: "
            "lane / 4", ha="center", va="bottom", fontsize=8.5, fontweight="bold")
    tx, ty = zx + 16 * zc + 0.8, zy + 0.2
    w, l = EXAMPLE_D
    mine = sorted((i, rc) for rc, (ww, ll, i) in own.items() if (ww, ll) == EXAMPLE_D and rc[1] < 16)
    lines = ["Thread t of the warpgroup:", "warp w = t / 32, lane l = t % 32.", "Its d[i] (i = 0 ... 127) is",
             "row 16 w + l / 4", "      + 8 ((i / 2) % 2)", "col 8 (i / 4) + 2 (l % 4)", "      + i % 2",
             "", "A warp owns 16 rows; each", "8 columns are laid out as", "mma.sync's 16 x 8 C", "(tc_fragments).",
             "", f"Warp {w}, lane {l} (outlined):"]
    lines += [f"  d{i}: row {rc[0]}, col {rc[1]}" for i, rc in mine]
    lines += ["", "128 threads x 128 floats:", "every element of 64 x 256", "exactly once."]
    for n, text in enumerate(lines):
        ax.text(tx, ty + 0.78 * n, text, ha="left", va="top", fontsize=8,
                family="monospace" if text.startswith(("row", "col", "  ", "      ")) else "sans-serif",
                fontweight="bold" if text.endswith(":") and "(" in text else "normal")
    save(fig, out, "tc_wgmma")


# ---- Step 14: the shared-memory and register budget (step14.cu, step13.cu) ----

SMEM_LIMIT = 227 * 1024  # the H100's shared memory per block (opt-in): cudaDevAttrMaxSharedMemoryPerBlockOptin
REGS_LIMIT = 232         # step13.cu and step14.cu: setmaxnreg_inc<232>() in the consumer warpgroups
BM14, BK14 = 128, 32     # step14.cu's BM and BK (step 13's too)


def tile_bytes(rows):
    """One rows x BK tile of floats: step14.cu's TILE_A (rows = BM) and TILE_B(BN)."""
    return rows * BK14 * 4


def budget(step, bn, stages=None):
    """A tile shape's budget: the parts of a stage (step14.cu's STAGE_BYTES(BN): big and small tiles
    of A and of Bt; step13.cu's: one of each), the stages (given, or as many as fit), the shared
    memory they take (step14.cu's SMEM(BN, STAGES): the stages, two barriers per stage and 1024 bytes
    to align), and the floats each consumer thread holds: a 64 x BN accumulator over 128 threads,
    and for step 14 as many running sums (staged accumulation)."""
    copies = 2 if step == 14 else 1
    parts = [("A big" if copies == 2 else "A", tile_bytes(BM14))] + ([("A small", tile_bytes(BM14))] if copies == 2 else []) \
        + [("Bt big" if copies == 2 else "Bt", tile_bytes(bn))] + ([("Bt small", tile_bytes(bn))] if copies == 2 else [])
    stage = sum(b for _, b in parts)
    fits = (SMEM_LIMIT - 1024) // (stage + 16)
    stages = stages or fits
    accumulators = 64 * bn // 128
    return {"step": step, "bn": bn, "parts": parts, "stage": stage, "stages": stages,
            "smem": stages * stage + 2 * stages * 8 + 1024, "acc": accumulators,
            "sums": accumulators if step == 14 else 0}


def budget_rows():
    """Step 13's wide tile as measured, then step 14's 128 x 256 (as many stages as fit) and its
    two configurations (step14.cu: 128x128x32/3 and 128x64x32/4)."""
    return [budget(13, 256, 4), budget(14, 256), budget(14, 128, 3), budget(14, 64, 4)]


def budget_picture(out):
    rows = budget_rows()
    colors = {"A": "#9ecae1", "A big": "#6baed6", "A small": "#c6dbef", "Bt": "#fdae6b", "Bt big": "#fd8d3c",
              "Bt small": "#fdd0a2"}
    fig, (ax_s, ax_r) = plt.subplots(1, 2, figsize=(14, 4.6), gridspec_kw={"width_ratios": [1.35, 1]})
    fig.suptitle("Step 14's budget: four tiles per stage, and running sums beside the accumulators",
                 fontsize=12, fontweight="bold")
    names = [f"step {r['step']}, {BM14} x {r['bn']} tile,\n{r['stages']} stages" for r in rows]
    for y, r in enumerate(rows):
        x = 0
        for s in range(r["stages"]):
            for name, b in r["parts"]:
                kb = b / 1024
                ax_s.add_patch(Rectangle((x, y - 0.32), kb, 0.64, facecolor=colors[name], edgecolor="#555555",
                                         linewidth=0.5))
                if s == 0 and kb >= 12:  # the narrower tiles are named in the rows above
                    ax_s.text(x + kb / 2, y, name.replace(" ", "\n"), ha="center", va="center", fontsize=7)
                x += kb
            ax_s.plot([x, x], [y - 0.4, y + 0.4], color="black", linewidth=1.4)
        ax_s.text(x + 3, y, f"{x:.0f} KB", ha="left", va="center", fontsize=9, fontweight="bold")
        over = r["acc"] + r["sums"] > REGS_LIMIT
        ax_r.barh(y, r["acc"], height=0.64, color="#a1d99b", edgecolor="#555555", linewidth=0.5)
        ax_r.text(r["acc"] / 2, y, f"{r['acc']} acc." if r["acc"] >= 48 else str(r["acc"]), ha="center",
                  va="center", fontsize=8)
        if r["sums"]:
            ax_r.barh(y, r["sums"], left=r["acc"], height=0.64, color="#fcbba1" if over else "#c7e9c0",
                      edgecolor="#cb181d" if over else "#555555", linewidth=1.2 if over else 0.5,
                      hatch="//" if over else None)
            ax_r.text(r["acc"] + r["sums"] / 2, y, f"{r['sums']} sums" if r["sums"] >= 48 else str(r["sums"]),
                      ha="center", va="center", fontsize=8)
        total = r["acc"] + r["sums"]
        ax_r.text(total + 4, y, f"{total} of {REGS_LIMIT}" + (": does not fit" if over else ""), ha="left",
                  va="center", fontsize=9, fontweight="bold", color="#cb181d" if over else "black")
    for ax, limit, label in ((ax_s, SMEM_LIMIT / 1024, f"{SMEM_LIMIT // 1024} KB: a block's limit on the H100"),
                             (ax_r, REGS_LIMIT, f"{REGS_LIMIT}: setmaxnreg's registers per consumer thread")):
        ax.axvline(limit, color="#cb181d", linestyle="--", linewidth=1.2)
        ax.text(limit, len(rows) - 0.45, label, ha="right", va="bottom", fontsize=8, color="#cb181d")
        ax.set_ylim(len(rows) - 0.3, -0.7)
        ax.set_yticks(range(len(rows)))
        ax.spines[["top", "right"]].set_visible(False)
    ax_s.set_yticklabels(names, fontsize=9)
    ax_r.set_yticklabels([])
    ax_s.set_xlim(0, 280)
    ax_r.set_xlim(0, 400)
    ax_s.set_xlabel("shared memory per block, KB: the tiles of each stage (black: a stage ends)")
    ax_r.set_xlabel("registers per consumer thread: accumulators (acc.) and running sums")
    fig.tight_layout()
    save(fig, out, "tc_budget")


def main(argv):
    p = argparse.ArgumentParser(prog="tensor_pictures.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default=HERE)
    a = p.parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    fragments_picture(a.out)
    ldmatrix_picture(a.out)
    swizzle_picture(a.out)
    split_picture(a.out)
    pipeline_picture(a.out)
    wgmma_picture(a.out)
    budget_picture(a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
