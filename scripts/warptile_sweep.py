#!/usr/bin/env python3
"""make warptile-sweep: the tile shapes tried for the warp-tiled kernels on this GPU, for
each step that declares the experiment (its experiments.json's "warptile_sweep"). Each
shape is built from the step's own source with -D flags (its large shape LBM, LBN, LBK,
LWM, LWN, LMIN_BLOCKS, plus the defines the step names; a step that says "stages" has each
number of stages run through --config), run at the given sizes, and recorded with its
registers per thread (ptxas) in results/<device-slug>-warptile-sweep.csv.

Usage: scripts/warptile_sweep.py [--programs "PROGRAM ..."] [--sizes "1000 4096"] [--reps R]
"""
import argparse
import concurrent.futures
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ladder  # noqa: E402

# (BM, BN, BK, WM, WN, MIN_BLOCKS): threads = 32 (BM/WM)(BN/WN), thread tile (4 WM/32) x (4 WN/16)
SHAPES = [(128, 128, 16, 64, 32, 1), (128, 128, 8, 64, 32, 1), (128, 128, 16, 64, 32, 2),
          (128, 256, 8, 64, 64, 1), (256, 128, 8, 64, 64, 1), (128, 256, 16, 64, 64, 1),
          (64, 128, 16, 32, 32, 2), (128, 64, 16, 32, 32, 2), (64, 64, 16, 32, 32, 2)]
# Tried second: 4 warps of 64 x 64 per block (two blocks per SM), larger BK.
MORE_SHAPES = [(128, 128, 16, 64, 64, 2), (128, 128, 8, 64, 64, 2), (128, 128, 32, 64, 64, 2),
               (64, 128, 16, 32, 64, 2), (128, 64, 16, 64, 32, 2), (128, 256, 32, 64, 64, 1),
               (256, 128, 16, 64, 64, 1), (64, 128, 32, 32, 32, 2)]
# Tried fourth: 16 warps of 64 x 32 on the large tiles (more warps to hide latency).
FOURTH_SHAPES = [(128, 256, 32, 64, 32, 1), (256, 128, 32, 32, 64, 1), (128, 256, 16, 64, 32, 1),
                 (128, 256, 32, 64, 64, 1)]
# Tried fifth: two blocks of 8 warps per SM on 128 x 128 tiles, with the swizzle.
FIFTH_SHAPES = [(128, 128, 32, 64, 32, 2), (128, 128, 16, 64, 32, 2), (128, 128, 32, 32, 64, 2)]
# Tried third, after the swizzle: the best shapes again, and BK = 64.
THIRD_SHAPES = [(128, 256, 32, 64, 64, 1), (256, 128, 32, 64, 64, 1), (128, 128, 32, 64, 64, 2),
                (64, 128, 32, 32, 32, 2), (128, 256, 64, 64, 64, 1), (128, 128, 64, 64, 64, 2)]
STAGES = [2, 3, 4]
COLUMNS = ["date", "command", "program", "config", "threads", "registers", "n", "device", "kernel_ms", "gflops",
           "max_rel_err", "status"]
KEY = ("program", "config", "n", "device")


def build(step, entry, shape, arch):
    """Build a step with this tile shape (its large one, the one overridden); its stages,
    where it has them, are chosen at run time (--config)."""
    bm, bn, bk, wm, wn, minb = shape
    name = f"{bm}x{bn}x{bk}_w{wm}x{wn}_b{minb}"
    src = next(b for b in ladder.step_binaries() if b.endswith("/" + step)) + ".cu"
    exe = f"obj/tile/{step}_{name}"
    defs = [f"LBM={bm}", f"LBN={bn}", f"LBK={bk}", f"LWM={wm}", f"LWN={wn}", f"LMIN_BLOCKS={minb}"] + \
        [d[2:] for d in entry.get("defines", [])]
    code, err = ladder.build_variant(src, defs, exe, arch, extra=["-Xptxas", "-v"])
    return name, exe, kernel_registers(err, shape), code


def kernel_registers(ptxas_log, shape):
    """{stages: "registers[+spills]"} of this shape's kernels, from ptxas -v: each
    'Compiling entry function' line names the kernel's template arguments (BM, BN, BK, WM,
    WN, MIN_BLOCKS; with stages: BM, BN, BK, WM, WN, STAGES, MIN_BLOCKS), the lines after it
    its registers and spills. A kernel without stages is under the key None."""
    bm, bn, bk, wm, wn, minb = shape
    out, current = {}, "?"
    for line in ptxas_log.splitlines():
        m = re.search(r"Compiling entry function '(\S+)'", line)
        if m:
            args = [int(x) for x in re.findall(r"Li(\d+)E", m.group(1))]
            current = "?" if args[:5] != [bm, bn, bk, wm, wn] else None if len(args) == 6 else args[5]
            continue
        regs = re.search(r"Used (\d+) registers", line)
        if regs and current != "?":
            out[current] = regs.group(1)
        spill = re.search(r"(\d+) bytes spill stores", line)
        if spill and spill.group(1) != "0" and current in out:
            out[current] += "+spills"
    return out


def main(argv):
    ap = argparse.ArgumentParser(prog="warptile_sweep.py", description=__doc__.split("\n\n")[0])
    declared = dict(ladder.experiments("warptile_sweep"))
    ap.add_argument("--programs", default=" ".join(declared), help="the steps to sweep (default: every one "
                    f"that declares it: {' '.join(declared)})")
    ap.add_argument("--sizes", type=ladder.sizes_arg, default="1000 4096")
    ap.add_argument("--reps", type=ladder.positive_int, default=10)
    ap.add_argument("--shapes", choices=("first", "more", "third", "fourth", "fifth", "all"), default="all")
    ap.add_argument("--stages", default="2 3 4", help="the pipeline depths to try, for a step that has stages")
    a = ap.parse_args(argv)
    device = ladder.require_gpu("warptile-sweep")
    if device is None:
        return ladder.EXIT_NO_GPU
    for prog in a.programs.split():
        if prog not in declared:
            ap.error(f"{prog} does not declare warptile_sweep in its experiments.json (those that do: "
                     f"{' '.join(declared)})")
    arch = ladder.arch_flags()
    shapes = {"first": SHAPES, "more": MORE_SHAPES, "third": THIRD_SHAPES, "fourth": FOURTH_SHAPES,
              "fifth": FIFTH_SHAPES, "all": SHAPES + MORE_SHAPES + THIRD_SHAPES + FOURTH_SHAPES + FIFTH_SHAPES}[a.shapes]
    shapes = list(dict.fromkeys(shapes))  # a shape tried in several rounds is measured once
    jobs = [(step, shape) for step in a.programs.split() for shape in shapes]
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count()) as pool:
        built = list(pool.map(lambda j: j + build(j[0], declared[j[0]], j[1], arch), jobs))
    stamp = ladder.now_stamp()
    rows = []
    # Rows measured before the swizzle of A's tile existed carry no tag; the code has it now.
    tag = "+swizzle"
    for step, shape, name, exe, kernel_regs, rc in built:
        bm, bn, bk, wm, wn, minb = shape
        threads = 32 * (bm // wm) * (bn // wn)
        if rc != 0:
            print(f"{step} {name}: does not build")
            continue
        for stages in ([int(x) for x in a.stages.split()] if declared[step].get("stages") else [None]):
            config = name + (f"_s{stages}" if stages else "")
            regs = kernel_regs.get(stages, kernel_regs.get(None, "?"))
            for n in a.sizes:
                cmd = [exe, "-n", str(n), "--reps", str(a.reps), "--csv"]
                if stages:
                    cmd += ["--config", f"{bm}x{bn}x{bk}/{stages}"]
                r, code, err = ladder.run_csv(cmd)
                if r is None:
                    print(f"{step} {config} n={n}: exit {code} {err}")
                    continue
                rows.append(ladder.result_row(cmd, {
                    "program": step, "config": config + tag, "threads": threads, "registers": regs, "n": n,
                    "device": device, "kernel_ms": r["kernel_ms"], "gflops": r["gflops"],
                    "max_rel_err": r["max_rel_err"], "status": r["status"]}, stamp))
                print(f"{step} {config:28s} {threads:4d} threads {regs:>12s} regs  n={n:5d} "
                      f"{float(r['kernel_ms']):9.3f} ms {float(r['gflops']):9.0f} GFLOPS {r['status']}", flush=True)
    print(ladder.record(os.path.join(ladder.ROOT, "results", ladder.slug(device) + "-warptile-sweep.csv"), rows,
                        COLUMNS, KEY))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
