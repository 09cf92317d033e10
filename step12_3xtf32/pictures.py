"""Step 12's picture (make plots draws it into plots/), drawn from the rule the kernel uses:

  tc_split      3xTF32's split of x = 1 + 2^-12 + 2^-23 into big = tf32(x) and
                small = tf32(x - big), bit by bit: the bit that neither holds

tests/pictures_test.py checks the rule (cvt.rn's rounding, the split) against known values.
"""
import math
import os
import struct



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



FIELD_COLORS = {"sign": "#d9d9d9", "exponent": "#9ecae1", "kept": "#a1d99b", "dropped": "#fdd0a2"}


def bit_x(i):
    """x of bit i (31: sign) in a row of boxes, a gap after the sign and after the exponent."""
    pos = 31 - i
    return pos + (0.5 if pos >= 1 else 0) + (0.5 if pos >= 9 else 0)


def bit_row(d, ax, y, bits, label, value, note=None, mark=()):
    """An FP32 pattern as 32 boxes coloured by field (the fraction's last 13 bits, which TF32
    drops, in orange); the boxes in `mark` outlined in red."""
    ax.text(-0.6, y + 0.5, label, ha="right", va="center", fontsize=9.5, fontweight="bold")
    ax.text(-0.6, y + 1.35, f"0x{bits:08X}", ha="right", va="center", fontsize=7.5, family="monospace",
            color="#444444")
    for i in range(32):
        field = "sign" if i == 31 else "exponent" if i >= 23 else "kept" if i >= 13 else "dropped"
        one = bits >> i & 1
        d.box(ax, bit_x(i), y, FIELD_COLORS[field])
        ax.text(bit_x(i) + 0.5, y + 0.5, str(one), ha="center", va="center", fontsize=8.5,
                fontweight="bold" if one else "normal", color="black" if one else "#777777")
        if i in mark:
            d.outline(ax, bit_x(i), y, color="#d62728", lw=2.2)
    e = bits >> 23 & 0xFF
    ax.text(34.0, y + 0.5, value, ha="left", va="center", fontsize=9.5)
    field = f"exponent field {e} = {e:08b}: $2^{{{e - 127}}}$ ({e} \u2212 127)" if e else "exponent field 0: zero"
    ax.text(34.0, y + 1.35, field, ha="left", va="center", fontsize=7.5, color="#444444")
    if note:
        ax.text(0.0, y + 1.45, note, ha="left", va="top", fontsize=7.5, color="#444444", linespacing=1.3)


def split_picture(d, out):
    x = 1.0 + 2.0 ** -12 + 2.0 ** -23
    s = split_3xtf32(x)
    xb, big, diff, small = s["x"], s["big"], s["diff"], s["small"]
    total = f32_bits(bits_f32(big) + bits_f32(small))  # exact: no rounding in FP32 either
    last = significand_weights(xb)[-1]  # x's lowest set bit
    fig, ax = d.canvas(-9.5, 56.0, -3.6, 29.6, 0.24)
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
        bit_row(d, ax, 0.3 + 3.4 * n, bits, label, value, note, mark)
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
            d.box(ax, col(e), yy, FIELD_COLORS["kept"] if e in window else "white", lw=0.3,
                edge="#1b7837" if e in window else "#bbbbbb")
            ax.text(col(e) + 0.5, yy + 0.5, "1" if one else "0", ha="center", va="center", fontsize=8,
                    fontweight="bold" if one else "normal", color="black" if one else "#999999")
        if window:
            ax.text(col(weights[-1]) + 1.8, yy + 0.5, f"holds {power(max(window))} to {power(min(window))}",
                    ha="left", va="center", fontsize=8)
    for e in sorted(x_ones - held):
        d.outline(ax, col(e), y + 1.4, color="#d62728", lw=2.2)
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
    d.save(fig, out, "tc_split")




def draw(shared, out):
    """Every picture of this step, into out (make plots: plots/tensor_pictures.py finds it)."""
    d = shared.drawing  # plots/drawing.py, handed in by the loader
    split_picture(d, out)
