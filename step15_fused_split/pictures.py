"""Step 15's picture (make plots draws it into plots/):

  tc_fused      one block's stage, and its budget: who prepares what, when (the step, where each
                consumer splits its A and then multiplies, and the tensor cores take the two
                consumers' products in turn, beside version 1, where each consumer splits the next
                stage's A during its products: a schematic, not to scale), and how the four warpgroups share the registers
                and the shared memory (from step15.cu's sizes, which tests/pictures_test.py
                checks)

"""
import os

import matplotlib.pyplot as plt
from matplotlib.patches import Rectangle

# step15.cu's sizes
BM, BK, BN, STAGES = 128, 32, 128, 3             # the 128x128x32/3 configuration
REGS = {"producer": 24, "transform": 56, "consumer": 216}  # setmaxnreg_dec<24>, <56>, setmaxnreg_inc<216>
THREADS = {"producer": 128, "transform": 128, "consumer": 256}
REGISTER_FILE = 65536                            # registers per SM (one block per SM)
SMEM_LIMIT = 227 * 1024


def stage_parts():
    """A stage's tiles (step15.cu's TILE_A, TILE_B(BN) x 3: raw B, Bt big, Bt small), bytes."""
    return [("A raw", BM * BK * 4), ("B raw", BK * BN * 4), ("Bt big", BN * BK * 4), ("Bt small", BN * BK * 4)]


def smem_bytes():
    """step15.cu's SMEM(BN, STAGES): the stages, then per stage three barriers, BN column shifts and
    four flags, and 1024 bytes to align."""
    stage = sum(b for _, b in stage_parts())
    return STAGES * (stage + 3 * 8 + 4 * BN + 4 * 4) + 1024


def registers():
    return {k: REGS[k] * THREADS[k] for k in REGS}


# The schematic timeline: (row, start, length, label, colour) for three stages. The two
# consumers' products take the SM's tensor cores one after the other (PRODUCTS: one consumer's).
PRODUCTS, SPLIT_A, SPLIT_B, ADD, ISSUE = 3.0, 2.2, 3.0, 0.8, 0.4


def timeline(overlapped):
    """The step (overlapped False): each consumer splits its fragment of A, then multiplies.
    Version 1 (True): each consumer splits the next fragment while its products run (thin bars).
    Either way a consumer's products wait for the tensor cores, busy with the other's."""
    bars = []
    split_b_done = []
    t_b = 0.0
    for s in range(4):  # the transform runs ahead, as far as the stages allow
        bars.append(("transform", t_b, SPLIT_B, f"split B{s}", "#fd8d3c"))
        t_b += SPLIT_B + 0.3
        split_b_done.append(t_b - 0.3)
    ready = {0: 0.0, 1: 0.0}      # when each consumer can go on
    split_ready = {0: None, 1: None}  # version 1: when the fragment split ahead is done
    tensor_free = 0.0
    for s in range(3):
        for c in (0, 1):  # consumer 0 first at every stage: its products were queued first
            row = f"consumer {c}"
            if overlapped and split_ready[c] is not None:
                issue = max(ready[c], split_ready[c])
            else:
                start = max(ready[c], split_b_done[s])
                bars.append((row, start, SPLIT_A, f"split A{s}", "#6baed6"))
                issue = start + SPLIT_A
            start = max(issue, tensor_free)
            tensor_free = start + PRODUCTS
            bars.append(("tensor cores", start, PRODUCTS, f"stage {s}, c{c}", "#74c476"))
            bars.append((row, issue, tensor_free - issue, f"wgmma {s}", "#d9d9d9"))
            if overlapped and s + 1 < 3:
                split = max(issue + ISSUE, split_b_done[s + 1])
                bars.append((row, split, SPLIT_A, f"split A{s + 1}", "#6baed6"))
                split_ready[c] = split + SPLIT_A
            done = max(tensor_free, split_ready[c] or 0.0) if overlapped else tensor_free
            bars.append((row, done, ADD, "+", "#fdd0a2"))
            ready[c] = done + ADD
    return bars, max(ready.values())


def fused_picture(d, out):
    rows = ["producer", "transform", "consumer 0", "consumer 1", "tensor cores"]
    fig = plt.figure(figsize=(15, 8.2))
    grid = fig.add_gridspec(2, 2, height_ratios=[1, 1], width_ratios=[1.6, 1])
    fig.suptitle("Step 15: the preparation inside the kernel, who does it and when (schematic), and what it costs "
                 "in registers and shared memory", fontsize=12, fontweight="bold")
    for panel, overlapped in enumerate((False, True)):
        ax = fig.add_subplot(grid[panel, 0])
        bars, end = timeline(overlapped)
        for name, start, length, label, color in bars:
            y = rows.index(name)
            thin = label.startswith("split A") and overlapped and label != "split A0"
            h = 0.3 if thin else 0.64
            ax.add_patch(Rectangle((start, y - h / 2 + (0.17 if thin else 0)), length, h, facecolor=color,
                                   edgecolor="#555555", linewidth=0.5))
            lift = 0.17 if thin else -0.15 if overlapped and label.startswith("wgmma") else 0
            ax.text(start + length / 2, y + lift, label, ha="center", va="center", fontsize=7)
        for k in range(4):
            ax.add_patch(Rectangle((k * 2.4, -0.3), 0.5, 0.6, facecolor="#bcbddc", edgecolor="#555555",
                                   linewidth=0.5))
            ax.text(k * 2.4 + 0.25, 0, f"TMA{k}", ha="center", va="center", fontsize=6)
        ax.set_title("the step: each consumer splits its fragment of A, then multiplies; the tensor cores take\n"
                     "one consumer's products at a time, so one consumer splits while the other's products run"
                     if not overlapped else
                     "version 1: each consumer splits the next fragment of A while its products run (thin bars):\n"
                     "the same rhythm once the stages flow, bought with more instructions per stage", fontsize=9,
                     loc="left")
        ax.set_xlim(0, 25)
        ax.set_ylim(len(rows) - 0.4, -0.6)
        ax.set_yticks(range(len(rows)))
        ax.set_yticklabels(rows, fontsize=9)
        ax.set_xticks([])
        ax.spines[["top", "right"]].set_visible(False)
        ax.set_xlabel("time (not to scale)", fontsize=8)

    ax_r = fig.add_subplot(grid[0, 1])
    regs = registers()
    left = 0
    colors = {"producer": "#bcbddc", "transform": "#fd8d3c", "consumer": "#6baed6"}
    for k in ("producer", "transform", "consumer"):
        ax_r.barh(0, regs[k], left=left, height=0.6, color=colors[k], edgecolor="#555555", linewidth=0.5)
        if k == "consumer":
            ax_r.text(left + regs[k] / 2, 0, f"{k}\n{THREADS[k]} x {REGS[k]}", ha="center", va="center", fontsize=8)
        left += regs[k]
    ax_r.text(0, 0.38, "producer {} x {}, transform {} x {}".format(THREADS["producer"], REGS["producer"],
                                                                  THREADS["transform"], REGS["transform"]),
              ha="left", va="bottom", fontsize=8)
    ax_r.axvline(REGISTER_FILE, color="#cb181d", linestyle="--", linewidth=1.2)
    ax_r.text(REGISTER_FILE, -0.5, f"{REGISTER_FILE}: the SM's registers", ha="right", va="bottom", fontsize=8,
              color="#cb181d")
    ax_r.set_title(f"registers: {left} of {REGISTER_FILE},\nshared by setmaxnreg (threads x registers)", fontsize=9,
                   loc="left")
    ax_r.set_xlim(0, 70000)
    ax_r.set_ylim(-0.6, 0.9)
    ax_r.set_yticks([])
    ax_r.spines[["top", "right", "left"]].set_visible(False)

    ax_s = fig.add_subplot(grid[1, 1])
    part_colors = {"A raw": "#9ecae1", "B raw": "#fdd0a2", "Bt big": "#fd8d3c", "Bt small": "#fdae6b"}
    x = 0
    for s in range(STAGES):
        for name, b in stage_parts():
            kb = b / 1024
            ax_s.add_patch(Rectangle((x, -0.3), kb, 0.6, facecolor=part_colors[name], edgecolor="#555555",
                                     linewidth=0.5))
            if s == 0:
                ax_s.text(x + kb / 2, 0, name.replace(" ", "\n"), ha="center", va="center", fontsize=7)
            x += kb
        ax_s.plot([x, x], [-0.4, 0.4], color="black", linewidth=1.4)
    total = smem_bytes()
    ax_s.axvline(SMEM_LIMIT / 1024, color="#cb181d", linestyle="--", linewidth=1.2)
    ax_s.text(SMEM_LIMIT / 1024, 0.5, f"{SMEM_LIMIT // 1024} KB: a block's limit", ha="right", va="bottom",
              fontsize=8, color="#cb181d")
    ax_s.set_title(f"shared memory: {STAGES} stages of four 16 KB tiles,\n{total} bytes with barriers, shifts, "
                   "flags and alignment", fontsize=9, loc="left")
    ax_s.set_xlim(0, 240)
    ax_s.set_ylim(-0.6, 0.9)
    ax_s.set_yticks([])
    ax_s.set_xlabel("KB (black: a stage ends)", fontsize=8)
    ax_s.spines[["top", "right", "left"]].set_visible(False)
    fig.tight_layout()
    d.save(fig, out, "tc_fused")


def draw(shared, out):
    """Every picture of this step, into out (make plots: plots/tensor_pictures.py finds it)."""
    d = shared.drawing  # plots/drawing.py, handed in by the loader
    fused_picture(d, out)
