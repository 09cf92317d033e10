"""Step 16's picture (make plots draws it into plots/):

  tc_ozaki      the remainder theorem as a grid: every number 0 ... 62 in the cell of its
                remainders mod 7 and mod 9, each cell holding one number (the worked example of
                the README, -2, marked in the cell of 61 = -2 + 63); and the step's passes at n = 8192 with the default
                moduli, with alpha, beta and P from the plan's rule (ozaki.h), which
                tests/pictures_test.py checks

"""
import math
import os

import matplotlib.pyplot as plt
from matplotlib.patches import FancyArrowPatch, Rectangle

# ozaki.h's moduli and default counts: SHORT below LONG_SUMS products, LONG from there
MODULI = [256, 255, 253, 251, 247, 241, 239, 233, 229, 227, 223, 217, 211, 199]
DEFAULT_SHORT, DEFAULT_LONG, LONG_SUMS = 10, 8, 128
EXAMPLE = (7, 9, (23, 17), (11, -15))  # the README's moduli, row of A, column of B


def default_count(k):
    """ozaki_default_moduli: the default number of moduli for sums of k products."""
    return DEFAULT_SHORT if k < LONG_SUMS else DEFAULT_LONG


def plan(count, k):
    """ozaki_plan_make's rule: P, then the largest s <= 106 with k 2^(s + 1) < P, alpha = s / 2."""
    P = math.prod(MODULI[:count])
    s = -1
    while s < 106 and (k << (s + 2)) < P:
        s += 1
    return P, s // 2, s - s // 2


def crt(residues, moduli):
    """The one x in 0 ... P - 1 with x = r_l mod p_l: sum r_l q_l mod P, q_l = M_l (M_l^-1 mod p_l)."""
    P = math.prod(moduli)
    return sum(r * (P // p) * pow(P // p, -1, p) for r, p in zip(residues, moduli)) % P


def ozaki_picture(d, out):
    p1, p2, row, col = EXAMPLE
    exact = sum(a * b for a, b in zip(row, col))
    fig = plt.figure(figsize=(15, 6.2))
    grid = fig.add_gridspec(1, 2, width_ratios=[1, 1.35])
    ax = fig.add_subplot(grid[0, 0])
    for x in range(p1 * p2):
        i, j = x % p1, x % p2
        mark = x == exact % (p1 * p2)
        ax.add_patch(Rectangle((j, i), 1, 1, facecolor="#fd8d3c" if mark else
                               ("#c6dbef" if x <= (p1 * p2) // 2 else "#fdd0a2"), edgecolor="#555555", linewidth=0.5))
        label = str(x) if x <= (p1 * p2) // 2 else f"{x}\n({x - p1 * p2})"
        ax.text(j + 0.5, i + 0.5, label, ha="center", va="center", fontsize=7.5 if x <= 31 else 6,
                fontweight="bold" if mark else "normal")
    ax.set_xlim(0, p2)
    ax.set_ylim(p1, 0)
    ax.set_xticks([j + 0.5 for j in range(p2)], [str(j) for j in range(p2)])
    ax.set_yticks([i + 0.5 for i in range(p1)], [str(i) for i in range(p1)])
    ax.set_xlabel(f"x mod {p2}")
    ax.set_ylabel(f"x mod {p1}")
    ax.set_aspect("equal")
    r1, r2 = exact % p1, exact % p2
    x = crt([r1, r2], [p1, p2])
    ax.set_title(f"Each of the {p1 * p2} numbers has a cell of its own: {row} . {col} mod {p1} = {r1},\n"
                 f"mod {p2} = {r2}, so the product is the number in row {r1}, column {r2}: {x}, read {x} - {p1 * p2}"
                 f" = {x - p1 * p2}.\nPast {(p1 * p2) // 2} (orange) read x - {p1 * p2}", fontsize=9, loc="left")

    bx = fig.add_subplot(grid[0, 1])
    bx.axis("off")
    bx.set_xlim(0, 13.8)
    bx.set_ylim(7.4, 0)
    n = 8192
    count = default_count(n)
    P, alpha, beta = plan(count, n)
    steps = [
        (0.2, 0.3, "A (FP32)", "#deebf7"), (0.2, 3.4, "B (FP32)", "#deebf7"),
        (3.0, 0.3, f"A' = A 2^(alpha - e_i)\nrounded: |A'| <= 2^{alpha}", "#c6dbef"),
        (3.0, 3.4, f"B' = B 2^(beta - f_j)\nrounded: |B'| <= 2^{beta}", "#c6dbef"),
        (6.0, 0.3, f"A' mod p, {count} planes\nof INT8 (K-major)", "#9ecae1"),
        (6.0, 3.4, f"B'^T mod p, {count} planes\nof INT8 (K-major)", "#9ecae1"),
        (8.8, 1.85, f"{count} INT8 wgmma\nproducts, exact in INT32,\neach sum mod p: bytes", "#a1d99b"),
        (11.6, 1.85, "the remainder\ntheorem (128 bits),\none rounding:\nC (FP32)", "#fdae6b"),
    ]
    for x, y, text, color in steps:
        w = 2.5 if x > 8 and x < 11 else 2.2 if x < 11 else 1.9
        bx.add_patch(Rectangle((x, y), w, 1.6, facecolor=color, edgecolor="#555555", linewidth=0.6))
        bx.text(x + w / 2, y + 0.8, text, ha="center", va="center", fontsize=8)
    for (x0, y0), (x1, y1) in [((2.4, 1.1), (3.0, 1.1)), ((2.4, 4.2), (3.0, 4.2)), ((5.2, 1.1), (6.0, 1.1)),
                               ((5.2, 4.2), (6.0, 4.2)), ((8.2, 1.1), (8.8, 2.4)), ((8.2, 4.2), (8.8, 3.1)),
                               ((11.3, 2.65), (11.6, 2.65))]:
        bx.add_patch(FancyArrowPatch((x0, y0), (x1, y1), arrowstyle="-|>", mutation_scale=12, color="#333333"))
    bits = P.bit_length()
    bx.text(0.2, 5.6, f"n = k = {n}, {count} moduli ({', '.join(map(str, MODULI[:count]))}):\n"
            f"P = their product, a {bits}-bit number; the plan takes the largest alpha + beta with\n"
            f"k 2^(alpha + beta) < P / 2: alpha = {alpha}, beta = {beta}, so that |A'B'| < P / 2 and the remainders\n"
            f"give A'B' back exactly. e_i, f_j: the exponents of each row's and column's largest element.",
            fontsize=8.5, va="top")
    bx.set_title("The step's passes (every one counted in its time)", fontsize=9, loc="left")
    fig.suptitle("Step 16: products of residues, and the one number they come from", fontsize=12, fontweight="bold")
    fig.tight_layout()
    d.save(fig, out, "tc_ozaki")


def draw(shared, out):
    """Every picture of this step, into out (make plots: plots/tensor_pictures.py finds it)."""
    d = shared.drawing  # plots/drawing.py, handed in by the loader
    ozaki_picture(d, out)
