"""Step 14's picture (make plots draws it into plots/):

  tc_budget     the budget: shared memory per block (stages x the four tiles of a stage)
                and registers per consumer thread (accumulators + running sums) for each tile
                shape, against the H100's 227 KB and setmaxnreg's 232, step 13's tile beside them

Computed from step14.cu's and step13.cu's sizes, which tests/pictures_test.py checks.
"""
import os

import matplotlib.pyplot as plt
from matplotlib.patches import Rectangle


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


def budget_picture(d, out):
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
    d.save(fig, out, "tc_budget")




def draw(shared, out):
    """Every picture of this step, into out (make plots: plots/tensor_pictures.py finds it)."""
    d = shared.drawing  # plots/drawing.py, handed in by the loader
    budget_picture(d, out)
