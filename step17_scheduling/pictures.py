"""Step 17's picture (make plots draws it into plots/):

  tc_schedule   the budgets of the three ways to feed the tensor cores step 17 and its versions
                try: shared memory per block (four stages of A's and B's tiles), registers per
                consumer thread (accumulators, B^T's fragments, their offsets), and the bytes of
                shared memory each tensor-core cycle asks for (the operand wgmma reads from shared
                memory and the fragments the threads load), against the H100's limits

Computed from step17.cu's, its version 3's and step13.cu's sizes, which tests/pictures_test.py
checks.
"""
import os

import matplotlib.pyplot as plt
from matplotlib.patches import Rectangle

SMEM_LIMIT = 227 * 1024   # the H100's shared memory per block (opt-in): cudaDevAttrMaxSharedMemoryPerBlockOptin
REGS_LIMIT = 232          # setmaxnreg_inc<232>() in the consumer warpgroups
SMEM_BYTES_PER_CYCLE = 128  # an SM's shared memory: 32 banks of 4 bytes a cycle
FMA_PER_CYCLE = 1024      # an SM's dense TF32 multiply-adds a cycle: 494.7 TFLOPS / 2 / 132 SMs / 1.83 GHz
BK, STAGES = 32, 4        # k per stage and stages, the same in all three


def feed(name, bm, bn, wgmma_n, from_registers):
    """A way to feed the tensor cores: a bm x bn tile of C per block, shared by two consumers,
    each issuing 64 x wgmma_n x 8 wgmmas; from_registers: their first operand (64 rows of B^T) loaded
    by the threads into registers, else both operands from shared memory (step 13's A and Bt).
    The budgets: a stage (A's bm x BK and B's BK x bn floats); the block's shared memory (the
    stages, two 8-byte barriers per stage, 1024 bytes to align); a consumer thread's registers (its
    half of the tile's accumulators over 128 threads; the fragments, 4 per wgmma, for the two
    k-steps of a half stage, in two sets; 4 offsets); and per cycle of tensor-core work a wgmma
    gives (64 x wgmma_n x 8 multiply-adds at FMA_PER_CYCLE), the bytes it reads from shared memory
    and the bytes the threads load for it."""
    cycles = 64 * wgmma_n * 8 / FMA_PER_CYCLE
    read = wgmma_n * 8 * 4 + (0 if from_registers else 64 * 8 * 4)
    wgmmas_per_k_step = bn // 2 // 64 if from_registers else 1  # 64-row slices of C^T per consumer
    stage = (bm + bn) * BK * 4
    return {"name": name, "bm": bm, "bn": bn, "stage": stage, "smem": STAGES * stage + 2 * STAGES * 8 + 1024,
            "acc": bm * bn // 2 // 128, "fragments": 4 * wgmmas_per_k_step * 2 * 2 if from_registers else 0,
            "offsets": 4 if from_registers else 0, "operand_bytes": read / cycles,
            "loaded_bytes": (64 * 8 * 4 if from_registers else 0) / cycles}


def feeds():
    """Step 13 (128 x 256, m64n256 from shared memory), version 3 (128 x 256, two m64n128 with
    B^T from registers) and the step (256 x 128, one m64n256 with B^T from registers)."""
    return [feed("step 13: 128 x 256 tile,\nboth operands from shared memory", 128, 256, 256, False),
            feed("version 3: 128 x 256 tile,\ntwo 64 x 128 wgmmas, B^T from registers", 128, 256, 128, True),
            feed("step 17: 256 x 128 tile,\none 64 x 256 wgmma, B^T from registers", 256, 128, 256, True)]


def budget_picture(d, out):
    rows = feeds()
    fig, (ax_s, ax_r, ax_b) = plt.subplots(1, 3, figsize=(16, 3.8), gridspec_kw={"width_ratios": [1.3, 1, 1]})
    fig.suptitle("Step 17's budgets: the same shared memory, registers to spare, and shared-memory bandwidth",
                 fontsize=12, fontweight="bold")
    for y, r in enumerate(rows):
        x = 0
        for s in range(STAGES):
            for part, kb, color in (("A", r["bm"] * BK * 4 / 1024, "#9ecae1"),
                                    ("B" if r["fragments"] else "Bt", r["bn"] * BK * 4 / 1024, "#fdae6b")):
                ax_s.add_patch(Rectangle((x, y - 0.32), kb, 0.64, facecolor=color, edgecolor="#555555", linewidth=0.5))
                if s == 0:
                    ax_s.text(x + kb / 2, y, part, ha="center", va="center", fontsize=8)
                x += kb
            ax_s.plot([x, x], [y - 0.4, y + 0.4], color="black", linewidth=1.4)
        ax_s.text(x + 3, y, f"{r['smem']:,} bytes", ha="left", va="center", fontsize=9, fontweight="bold")
        left = 0
        for part, value, color in (("acc.", r["acc"], "#a1d99b"), ("fragments", r["fragments"], "#fdd0a2"),
                                   ("offsets", r["offsets"], "#dadaeb")):
            if value:
                ax_r.barh(y, value, left=left, height=0.64, color=color, edgecolor="#555555", linewidth=0.5)
                if value >= 48:
                    ax_r.text(left + value / 2, y, f"{value} {part}", ha="center", va="center", fontsize=8)
                left += value
        ax_r.text(left + 4, y, f"{left} of {REGS_LIMIT}", ha="left", va="center", fontsize=9, fontweight="bold")
        ax_b.barh(y, r["operand_bytes"], height=0.64, color="#9ecae1", edgecolor="#555555", linewidth=0.5)
        if r["loaded_bytes"]:
            ax_b.barh(y, r["loaded_bytes"], left=r["operand_bytes"], height=0.64, color="#fdd0a2", edgecolor="#555555",
                      linewidth=0.5)
        total = r["operand_bytes"] + r["loaded_bytes"]
        ax_b.text(total + 2, y, f"{total:.0f} bytes", ha="left", va="center", fontsize=9, fontweight="bold")
    for ax, limit, label in ((ax_s, SMEM_LIMIT / 1024, f"{SMEM_LIMIT // 1024} KB: a block's limit"),
                             (ax_r, REGS_LIMIT, f"{REGS_LIMIT}: setmaxnreg's registers"),
                             (ax_b, SMEM_BYTES_PER_CYCLE, f"{SMEM_BYTES_PER_CYCLE} bytes: the SM's shared memory")):
        ax.axvline(limit, color="#cb181d", linestyle="--", linewidth=1.2)
        ax.text(limit, len(rows) - 0.45, label, ha="right", va="bottom", fontsize=8, color="#cb181d")
        ax.set_ylim(len(rows) - 0.3, -0.7)
        ax.set_yticks(range(len(rows)))
        ax.spines[["top", "right"]].set_visible(False)
    ax_s.set_yticklabels([r["name"] for r in rows], fontsize=9)
    ax_r.set_yticklabels([])
    ax_b.set_yticklabels([])
    ax_s.set_xlim(0, 280)
    ax_r.set_xlim(0, 300)
    ax_b.set_xlim(0, 150)
    ax_s.set_xlabel("shared memory per block, KB: A's and B's tiles of each stage (black: a stage ends)")
    ax_r.set_xlabel("registers per consumer thread")
    ax_b.set_xlabel("shared-memory bytes per tensor-core cycle\n(blue: wgmma's reads; orange: B^T's fragments)")
    fig.tight_layout()
    d.save(fig, out, "tc_schedule")


def draw(shared, out):
    """Every picture of this step, into out (make plots: plots/tensor_pictures.py finds it)."""
    d = shared.drawing  # plots/drawing.py, handed in by the loader
    budget_picture(d, out)
