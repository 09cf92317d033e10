"""Step 13's pictures (make plots draws them into plots/), each drawn from the rules the
kernel uses (nothing placed by hand):

  tc_pipeline   the warp-specialised pipeline over time: the producer, the 4 stages (the
                k-tile each holds) and the two consumer warpgroups, each wait's barrier phase; the
                order from a small simulation of step13.cu's loops and parity rules (its
                durations are illustrative, not measured)
  tc_wgmma      wgmma's operands and accumulators: A's and Bt's K-major tiles with the
                128-byte swizzle (chunk j of row r at j ^ (r % 8)) and the descriptor's k-steps
                (desc + 2 each), why B is transposed first (.tf32 reads K-major only), and the
                warp, lane and register holding each element of a 64 x 16 corner of D

tests/pictures_test.py checks each rule against step13.cu.
"""
import os

from matplotlib.patches import Rectangle

WARP = 32   # lanes in a warp


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



CONSUMER_COLORS = ["#08519c", "#a63603"]     # consumer 1, consumer 2: their arrivals on empty[s]
WAIT_COLOR = "#e6e6e6"


def pipeline_picture(d, out):
    stage_colors = d.MATRIX_COLORS  # stage s of the ring; a wgmma group reading it
    p = Pipeline().run()
    if p.deadlock or p.errors:
        raise AssertionError(f"step 13's rules: deadlock {p.deadlock}, errors {p.errors}")
    x0, end = 0.0, p.end
    fig, ax = d.canvas(-13.0, end + 1.0, -4.2, 61.6, 0.19)
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
        bar(y, w["t1"], w["t1"] + T_ISSUE, stage_colors[w["stage"]], str(w["kt"]), fs=8.5)
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
        bar(y, c["t1"], until, stage_colors[s], f"k-tile {kt}" if until - c["t1"] >= 5 else str(kt), fs=9)
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
            bar(y, g["start"], g["end"], stage_colors[g["stage"]], str(g["kt"]), fs=9)
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
            d.box(ax, x0 + kt * cw, yy, stage_colors[kt % STAGES] if n else "white", w=cw, h=2.1, lw=0.5)
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
    d.save(fig, out, "tc_pipeline")


KSTEP_COLORS = ["#c6dbef", "#fdd0a2", "#c7e9c0", "#dadaeb"]  # k-step 0-3 of a 32-float row


def chunk_grid(d, ax, x0, y0, stored, cw=1.8, ch=1.0):
    """Rows 0-7 of a 128-byte-swizzled tile: 8 chunks of 16 bytes a row, in k order (stored
    False) or where the TMA puts them (True); coloured by k-step, k-step 1 outlined."""
    for r in range(8):
        ax.text(x0 - 0.2, y0 + (r + 0.5) * ch, f"row {r}", ha="right", va="center", fontsize=8)
        for place in range(8):
            j = place ^ (r % 8) if stored else place  # the chunk at this place: sw128_place inverted
            if stored and sw128_place(r, j) != place:
                raise AssertionError("the swizzle is not its own inverse")
            d.box(ax, x0 + place * cw, y0 + r * ch, KSTEP_COLORS[j // 2], w=cw, h=ch)
            ax.text(x0 + (place + 0.5) * cw, y0 + (r + 0.5) * ch, f"k {4 * j}-{4 * j + 3}", ha="center",
                    va="center", fontsize=7.5, fontweight="bold" if j // 2 == 1 else "normal")
            if j // 2 == 1:
                d.outline(ax, x0 + place * cw, y0 + r * ch, w=cw, h=ch, lw=1.8)
    for place in range(8):
        ax.text(x0 + (place + 0.5) * cw, y0 - 0.15, f"{16 * place}" if stored else f"chunk {place}",
                ha="center", va="bottom", fontsize=7, color="#555555")


def address_grid(d, ax, x0, y0, rows, cols, addr, lit, row_name, col_name, cw=1.0, ch=0.8):
    """A small matrix, each cell showing its float's place in memory; the cells in `lit` shaded."""
    for r in range(rows):
        ax.text(x0 - 0.15, y0 + (r + 0.5) * ch, str(r), ha="right", va="center", fontsize=7, color="#555555")
        for c in range(cols):
            on = (r, c) in lit
            d.box(ax, x0 + c * cw, y0 + r * ch, "#fdae6b" if on else "white", w=cw, h=ch)
            ax.text(x0 + (c + 0.5) * cw, y0 + (r + 0.5) * ch, str(addr(r, c)), ha="center", va="center",
                    fontsize=7.5, fontweight="bold" if on else "normal")
    for c in range(cols):
        ax.text(x0 + (c + 0.5) * cw, y0 - 0.1, str(c), ha="center", va="bottom", fontsize=7, color="#555555")
    ax.text(x0 + cols * cw / 2, y0 - 0.75, f"{col_name} \u2192", ha="center", va="bottom", fontsize=7.5,
            color="#555555")
    ax.text(x0 - 0.9, y0 + rows * ch / 2, f"{row_name} \u2192", ha="center", va="center", fontsize=7.5,
            color="#555555", rotation=270)


def wgmma_picture(d, out):
    warp_colors = d.MATRIX_COLORS     # warp 0-3 of a consumer warpgroup
    example_d = (0, d.EXAMPLE_LANE)   # warp 0, lane 5: followed in panel (c)
    y_a = 0.6                 # (a): the stage, then rows 0-7 of a tile at gy
    sy, gy = y_a + 2.3, y_a + 8.5
    y_b = gy + 12.2           # (b): B and Bt at by
    by = y_b + 3.4
    y_c = by + 11.4           # (c): the accumulators at oy
    oy = y_c + 3.0
    fig, ax = d.canvas(-1.0, 38.0, -1.6, oy + 64 * 0.3 + 1.2, 0.3)
    ax.text(-0.8, -1.4, f"wgmma m64n{BN13}k8 .tf32 in step 13: operands read from shared memory, "
            "accumulators in registers", ha="left", va="top", fontsize=11, fontweight="bold")

    # (a) The stage as the TMA writes it, and the 128-byte swizzle of its rows.
    ax.text(-0.8, y_a, "(a) A's and Bt's tiles, K-major: rows of 32 floats of k (128 bytes), as the TMA "
            "writes them (128-byte swizzle)", ha="left", va="top", fontsize=9.5, fontweight="bold")
    sx, sw = 3.0, 34.0  # one stage, 48 KiB, drawn to scale
    a_bytes = BM13 * BK13 * 4
    parts = [(0, a_bytes // 2, "A rows 0-63: consumer 1", warp_colors[0]),
             (a_bytes // 2, a_bytes, "A rows 64-127: consumer 2", warp_colors[1]),
             (a_bytes, STAGE_BYTES, f"Bt: {BN13} rows (n), read by both consumers", warp_colors[2])]
    for b0, b1, text, color in parts:
        d.box(ax, sx + sw * b0 / STAGE_BYTES, sy, color, w=sw * (b1 - b0) / STAGE_BYTES, h=1.3, lw=0.8)
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
    chunk_grid(d, ax, lx, gy, False)
    chunk_grid(d, ax, rx, gy, True)
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
        d.box(ax, lx + 3.6 * s, ay + 0.3, KSTEP_COLORS[s], w=0.8, h=0.7)
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
    address_grid(d, ax, 3.0, by, n_show, n_show, lambda k, n: k * n_show + n,
                 {(k, col) for k in range(8)}, "k", "n")
    ax.text(25.0 + 4.0, by - 1.5, "Bt = B transposed: n x k, k along memory (K-major)", ha="center",
            va="bottom", fontsize=8.5, fontweight="bold")
    address_grid(d, ax, 25.0, by, n_show, n_show, lambda n, k: n * n_show + k,
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
            d.box(ax, ox + c * oc, oy + r * oc, warp_colors[warp], w=oc, h=oc, lw=0.15, edge="#888888")
    for warp in range(4):
        ax.text(ox - 0.2, oy + (16 * warp + 8) * oc, f"warp {warp}\nrows {16 * warp}-{16 * warp + 15}",
                ha="right", va="center", fontsize=7.5, linespacing=1.2)
    for c in (0, 8, 15):
        ax.text(ox + (c + 0.5) * oc, oy - 0.1, str(c), ha="center", va="bottom", fontsize=6.5, color="#555555")
    d.outline(ax, ox, oy, w=16 * oc, h=16 * oc, lw=1.6, style="--")
    zx, zy, zc = 11.0, oy, 1.1
    ax.plot([ox + 16 * oc, zx], [oy, zy], color="#555555", linewidth=0.6, linestyle="--")
    ax.plot([ox + 16 * oc, zx], [oy + 16 * oc, zy + 16 * zc], color="#555555", linewidth=0.6, linestyle="--")
    for r in range(16):
        ax.text(zx - 0.15, zy + (r + 0.5) * zc, str(r), ha="right", va="center", fontsize=7, color="#555555")
        for c in range(16):
            warp, lane, i = own[(r, c)]
            d.box(ax, zx + c * zc, zy + r * zc, d.GROUP_COLORS[lane // 4], w=zc, h=zc)
            ax.text(zx + (c + 0.5) * zc, zy + r * zc + 0.4, str(lane), ha="center", va="center", fontsize=8.5,
                    fontweight="bold")
            ax.text(zx + (c + 0.5) * zc, zy + r * zc + 0.82, f"d{i}", ha="center", va="center", fontsize=6.5,
                    color="#333333")
            if (warp, lane) == example_d:
                d.outline(ax, zx + c * zc, zy + r * zc, w=zc, h=zc)
    for c in range(16):
        ax.text(zx + (c + 0.5) * zc, zy - 0.1, str(c), ha="center", va="bottom", fontsize=7, color="#555555")
    ax.plot([zx + 8 * zc] * 2, [zy, zy + 16 * zc], color="black", linewidth=1.6)
    ax.text(zx + 8 * zc, zy - 0.75, "warp 0's rows 0-15, columns 0-15: lane (bold), register d i; colour: "
            "lane / 4", ha="center", va="bottom", fontsize=8.5, fontweight="bold")
    tx, ty = zx + 16 * zc + 0.8, zy + 0.2
    w, l = example_d
    mine = sorted((i, rc) for rc, (ww, ll, i) in own.items() if (ww, ll) == example_d and rc[1] < 16)
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
    d.save(fig, out, "tc_wgmma")


# ---- Step 14: the shared-memory and register budget (step14.cu, step13.cu) ----



def draw(shared, out):
    """Every picture of this step, into out (make plots: plots/tensor_pictures.py finds it)."""
    d = shared.drawing  # plots/drawing.py, handed in by the loader
    pipeline_picture(d, out)
    wgmma_picture(d, out)
