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


def main(argv):
    p = argparse.ArgumentParser(prog="tensor_pictures.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default=HERE)
    a = p.parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    fragments_picture(a.out)
    ldmatrix_picture(a.out)
    swizzle_picture(a.out)
    split_picture(a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
