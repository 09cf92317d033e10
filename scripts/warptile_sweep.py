#!/usr/bin/env python3
"""make warptile-sweep: the tile shapes tried for steps 09 and 10 on this GPU. Each
shape is built from the step's own source with -D flags (BM, BN, BK, WM, WN, MIN_BLOCKS;
for step 10 its large shape LBM ... LMIN_BLOCKS, used at every n, with each number of
stages run through --config), run at the given sizes,
and recorded with its registers per thread (ptxas) in
results/<device-slug>-warptile-sweep.csv.

Usage: scripts/warptile_sweep.py [--step 09|10|both] [--sizes "1000 4096"] [--reps R]
"""
import argparse
import concurrent.futures
import os
import re
import subprocess
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
HARNESS = "obj/libharness.a"  # common/*.c, as every program links it (the Makefile builds it)


def arch_flags():
    p = subprocess.run(["make", "-s", "-p", "-n", "all"], cwd=ladder.ROOT, capture_output=True, text=True)
    m = re.search(r"^ARCH_FLAGS :?= (.*)$", p.stdout, re.M)
    return m.group(1).split() if m else ["-arch=sm_90"]


def build(step, shape, arch):
    """Build step 09 or 10 with this tile shape; step 10's stages are chosen at run time
    (--config), its large shape being the one overridden, run at every n."""
    bm, bn, bk, wm, wn, minb = shape
    name = f"{bm}x{bn}x{bk}_w{wm}x{wn}_b{minb}"
    src = "step09_warptile/step09.cu" if step == "09" else "step10_pipelined/step10.cu"
    exe = f"obj/tile/step{step}_{name}"
    defs = [f"-DLBM={bm}", f"-DLBN={bn}", f"-DLBK={bk}", f"-DLWM={wm}", f"-DLWN={wn}", f"-DLMIN_BLOCKS={minb}"]
    if step == "10":
        defs.append("-DSMALL_MAX_N=0")
    cmd = ["nvcc", "-O3"] + arch + ["-Icommon", "-Xptxas", "-v"] + defs + ["-o", exe, src, HARNESS] + \
        ["-Xcompiler", "-fopenmp"]
    p = subprocess.run(cmd, cwd=ladder.ROOT, capture_output=True, text=True)
    return name, exe, kernel_registers(p.stderr, shape), p.returncode


def kernel_registers(ptxas_log, shape):
    """{stages: "registers[+spills]"} of this shape's kernels, from ptxas -v: each
    'Compiling entry function' line names the kernel's template arguments (step 09: BM,
    BN, BK, WM, WN, MIN_BLOCKS; step 10: BM, BN, BK, WM, WN, STAGES, MIN_BLOCKS), the lines
    after it its registers and spills. Step 09's one kernel is under the key None."""
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
    ap.add_argument("--step", choices=("09", "10", "both"), default="both")
    ap.add_argument("--sizes", type=ladder.sizes_arg, default="1000 4096")
    ap.add_argument("--reps", type=ladder.positive_int, default=10)
    ap.add_argument("--shapes", choices=("first", "more", "third", "fourth", "fifth", "all"), default="all")
    ap.add_argument("--stages", default="2 3 4", help="step 10's pipeline depths to try")
    a = ap.parse_args(argv)
    device = ladder.require_gpu("warptile-sweep")
    if device is None:
        return ladder.EXIT_NO_GPU
    os.makedirs(os.path.join(ladder.ROOT, "obj", "tile"), exist_ok=True)
    arch = arch_flags()
    shapes = {"first": SHAPES, "more": MORE_SHAPES, "third": THIRD_SHAPES, "fourth": FOURTH_SHAPES,
              "fifth": FIFTH_SHAPES, "all": SHAPES + MORE_SHAPES + THIRD_SHAPES + FOURTH_SHAPES + FIFTH_SHAPES}[a.shapes]
    shapes = list(dict.fromkeys(shapes))  # a shape tried in several rounds is measured once
    jobs = [(step, shape) for step in (("09", "10") if a.step == "both" else (a.step,)) for shape in shapes]
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count()) as pool:
        built = list(pool.map(lambda j: j + build(j[0], j[1], arch), jobs))
    stamp = ladder.now_stamp()
    rows = []
    # Rows measured before the swizzle of A's tile existed carry no tag; the code has it now.
    tag = "+swizzle"
    for step, shape, name, exe, kernel_regs, rc in built:
        bm, bn, bk, wm, wn, minb = shape
        threads = 32 * (bm // wm) * (bn // wn)
        if rc != 0:
            print(f"step{step} {name}: does not build")
            continue
        for stages in ([int(x) for x in a.stages.split()] if step == "10" else [None]):
            config = name + (f"_s{stages}" if stages else "")
            regs = kernel_regs.get(stages, kernel_regs.get(None, "?"))
            for n in a.sizes:
                cmd = [exe, "-n", str(n), "--reps", str(a.reps), "--csv"]
                if stages:
                    cmd += ["--config", f"{bm}x{bn}x{bk}/{stages}"]
                r, code, err = ladder.run_csv(cmd)
                if r is None:
                    print(f"step{step} {config} n={n}: exit {code} {err}")
                    continue
                rows.append(ladder.result_row(cmd, {
                    "program": f"step{step}", "config": config + tag, "threads": threads, "registers": regs, "n": n,
                    "device": device, "kernel_ms": r["kernel_ms"], "gflops": r["gflops"],
                    "max_rel_err": r["max_rel_err"], "status": r["status"]}, stamp))
                print(f"step{step} {config:28s} {threads:4d} threads {regs:>12s} regs  n={n:5d} "
                      f"{float(r['kernel_ms']):9.3f} ms {float(r['gflops']):9.0f} GFLOPS {r['status']}", flush=True)
    print(ladder.record(os.path.join(ladder.ROOT, "results", ladder.slug(device) + "-warptile-sweep.csv"), rows,
                        COLUMNS, KEY))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
