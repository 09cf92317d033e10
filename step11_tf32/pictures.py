"""Step 11's pictures (make plots draws them into plots/), each drawn from the rules the
kernel uses, written here as index formulas (nothing placed by hand):

  tc_fragments  mma.sync.m16n8k8 on TF32: the lane and register that hold each element of
                A (16 x 8), B (8 x 8) and C/D (16 x 8), after the PTX ISA's fragment layouts
  tc_ldmatrix   ldmatrix.sync.aligned.m8n8.x4 on A's tile (step11.cu's and step12.cu's): which
                lanes give the rows' addresses, which lane receives each float, and that this
                is a0..a3
  tc_swizzle    the shared-memory banks one fragment read touches, without and with SWZ_A and
                SWZ_B (step11.cu's, which step12.cu keeps): the conflict degree of each

tests/pictures_test.py checks each rule against the sources.
"""
import os

from matplotlib.patches import Rectangle

BANKS = 32  # shared-memory banks, 4 bytes wide
WARP = 32   # lanes in a warp


BK = 32   # step11.cu and step12.cu: k per tile, one 128-byte row of A per tile row
BN = 128  # B's tile width in the pictures (64x128 and 128x128 tiles; any multiple of 32 behaves the same)


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



def operand_grid(d, ax, name, x0, y0, row_name, col_name):
    """An operand's fragment map at (x0, y0): every element's lane and register, coloured by
    the lane's group g, the example lane's (d.EXAMPLE_LANE) elements outlined."""
    rows, cols, _, _, letter = FRAGMENTS[name]
    for (r, c), (lane, reg) in owners(name).items():
        d.lane_cell(ax, x0 + c, y0 + r, lane, f"{letter}{reg}", d.GROUP_COLORS[lane_place(lane)[0]])
        if lane == d.EXAMPLE_LANE:
            d.outline(ax, x0 + c, y0 + r)
    for c in range(cols):
        ax.text(x0 + c + 0.5, y0 - 0.25, str(c), ha="center", va="bottom", fontsize=7, color="#555555")
    for r in range(rows):
        ax.text(x0 - 0.2, y0 + r + 0.5, str(r), ha="right", va="center", fontsize=7, color="#555555")
    ax.text(x0 + cols / 2, y0 - 0.85, f"{col_name} \u2192", ha="center", va="bottom", fontsize=7.5, color="#555555")
    ax.text(x0 - 0.85, y0 + rows / 2, f"{row_name} \u2192", ha="center", va="center", fontsize=7.5, color="#555555",
            rotation=270)


def fragments_picture(d, out):
    # A left, B above C, C right of A: the product's own arrangement.
    ax_a, ax_b, ax_c = (1.5, 15.0), (12.5, 3.0), (12.5, 15.0)
    fig, ax = d.canvas(-1.0, 21.5, -2.0, 31.5, 0.4)
    operand_grid(d, ax, "A", *ax_a, "row m", "column k")
    operand_grid(d, ax, "B", *ax_b, "row k", "column n")
    operand_grid(d, ax, "C", *ax_c, "row m", "column n")
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
    g, t = lane_place(d.EXAMPLE_LANE)
    ax.text(-0.8, 0.6, "Each cell: the lane that holds the element\n(bold) and the register it is in.\n"
            "Lane l: g = l / 4, t = l % 4.\n"
            f"Outlined: lane {d.EXAMPLE_LANE}'s elements (g = {g}, t = {t}).",
            ha="left", va="top", fontsize=8.5, linespacing=1.4)
    ax.text(-0.8, 5.1, "Colour: the lane's group g", ha="left", va="top", fontsize=8.5)
    for grp in range(8):  # the legend: two columns of four groups
        x, y = -0.6 + 4.6 * (grp // 4), 6.0 + 1.0 * (grp % 4)
        d.box(ax, x, y, d.GROUP_COLORS[grp], w=0.8, h=0.75)
        ax.text(x + 1.0, y + 0.38, f"g = {grp}: lanes {4 * grp}-{4 * grp + 3}", ha="left", va="center", fontsize=8)
    d.save(fig, out, "tc_fragments")


def ldmatrix_picture(d, out):
    got = ldmatrix_x4()
    if any(got[lane][j][:2] != a_element(lane, j) for lane in range(WARP) for j in range(4)):
        raise AssertionError("ldmatrix.x4 with step 11's addresses does not deliver the mma's A fragment")
    x0, y0 = 3.0, 3.2
    fig, ax = d.canvas(0.0, 32.0, 0.0, 23.6, 0.36)
    for lane in range(WARP):
        for j, (r, c, _) in enumerate(got[lane]):
            d.lane_cell(ax, x0 + c, y0 + r, lane, f"a{j}", d.MATRIX_COLORS[j])
            if lane == d.EXAMPLE_LANE:
                d.outline(ax, x0 + c, y0 + r)
    # The address each lane gives: matrices 0 and 1 (k 0-3) on the left, 2 and 3 on the right.
    for lane in range(WARP):
        r, k0 = ldmatrix_address(lane)
        left = k0 == 0
        ax.text(x0 - 0.15 if left else x0 + 8.15, y0 + r + 0.5,
                f"lane {lane} \u2192" if left else f"\u2190 lane {lane}", ha="right" if left else "left",
                va="center", fontsize=7, color="#000000" if lane == d.EXAMPLE_LANE else "#444444",
                fontweight="bold" if lane == d.EXAMPLE_LANE else "normal")
        if lane == d.EXAMPLE_LANE:
            d.outline(ax, x0 + k0, y0 + r, w=4, lw=1.6, style="--")
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
        d.box(ax, x0 - 2.5, y, d.MATRIX_COLORS[j], w=0.8, h=0.7)
        ax.text(x0 - 1.5, y + 0.35, f"matrix {j}: rows {rows[0]}-{rows[-1]}, k {cols[0]}-{cols[-1]}; "
                f"addresses from lanes {givers[0]}-{givers[-1]}; lands in register {j} = a{j}",
                ha="left", va="center", fontsize=8)
    tx = 14.0
    g, t = lane_place(d.EXAMPLE_LANE)
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
             (f"Lane {d.EXAMPLE_LANE} (g = {g}, t = {t}), outlined:", "bold")]
    for j, (r, c, giver) in enumerate(got[d.EXAMPLE_LANE]):
        lines.append((f"   a{j} = A({r}, {c}): matrix {j}, row {r % 8}, word {c % 4}; address from lane {giver}",
                      None))
    r, k0 = ldmatrix_address(d.EXAMPLE_LANE)
    lines += [(f"Lane {d.EXAMPLE_LANE}'s own address (dashed) is row {r}, k {k0}-{k0 + 3}: data for lanes "
               f"{4 * (r % 8)}-{4 * (r % 8) + 3}.", None),
              ("", None),
              ("The swizzle (SWZ_A) moves each 16-byte row piece elsewhere in shared", None),
              ("memory; ldmatrix takes any 16-byte-aligned row address, so each lane", None),
              ("still receives the same floats (tc_swizzle shows where they sit).", None)]
    for n, (text, style) in enumerate(lines):
        ax.text(tx, 1.0 + 0.85 * n, text, ha="left", va="center", fontsize=8.5,
                fontweight="bold" if style == "bold" else "normal",
                family="monospace" if style == "mono" else "sans-serif")
    d.save(fig, out, "tc_ldmatrix")


def bank_panel(d, ax, x0, y0, indices, line_name, title, formula):
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
            d.box(ax, x0 + b, y, "white", lw=0.3, edge="#bbbbbb")
        ax.text(x0 - 0.3, y + 0.5, line_name(line), ha="right", va="center", fontsize=7)
    for lane, x in enumerate(indices):
        y = top + lines.index(x // BANKS)
        d.box(ax, x0 + x % BANKS, y, d.GROUP_COLORS[lane_place(lane)[0]], lw=0.5)
        ax.text(x0 + x % BANKS + 0.5, y + 0.5, str(lane), ha="center", va="center", fontsize=6.5)
    bottom = top + len(lines)
    for ch in range(9):  # the 16-byte chunks the swizzles move
        ax.plot([x0 + 4 * ch] * 2, [top, bottom], color="#333333", linewidth=1.0)
    per = words_per_bank(indices)
    y = bottom + 0.5
    for b in range(BANKS):
        n = len(per.get(b, ()))
        d.box(ax, x0 + b, y, "white" if n == 0 else "#c7e9c0" if n == 1 else "#fc9272", lw=0.3)
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


def swizzle_picture(d, out):
    if BK != BANKS:
        raise AssertionError("the A panels draw one row of A's tile per line of 32 banks")
    reads = {"A": (a_read(False), a_read(True)), "B": (b_read(False), b_read(True))}
    h_a = max(panel_height(r) for r in reads["A"])
    bottom = h_a + 1.5 + max(panel_height(r) for r in reads["B"])
    fig, ax = d.canvas(-8.0, 75.0, -3.2, bottom + 2.6, 0.24)
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
        bank_panel(d, ax, x0, 0.0, read, a_line, a_title, formula)
    for x0, read, formula in ((left, reads["B"][0], "k*BN + col"),
                              (right, reads["B"][1], "SWZ_B: k*BN + (((col>>2) ^ ((k&3)<<1))<<2) + (col&3)")):
        bank_panel(d, ax, x0, h_a + 1.5, read, b_line, b_title, formula)
    ax.text(-7.8, bottom + 0.2, "Each coloured cell: a 32-bit word the read touches, with the lane reading it "
            "(colour: g). A row of cells is one 128-byte line of shared memory, 32 banks across; "
            "bank = float index % 32.\n"
            "A bank serves one word per wavefront: the most words in one bank is the number of wavefronts. "
            "The swizzles XOR the 16-byte chunk number (4 banks), so cp.async's 16-byte copies stay whole.",
            ha="left", va="top", fontsize=8, linespacing=1.4)
    d.save(fig, out, "tc_swizzle")




def draw(shared, out):
    """Every picture of this step, into out (make plots: plots/tensor_pictures.py finds it)."""
    d = shared.drawing  # plots/drawing.py, handed in by the loader
    fragments_picture(d, out)
    ldmatrix_picture(d, out)
    swizzle_picture(d, out)
