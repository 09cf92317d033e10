"""The warp-tiled kernels' tile shapes, step 09's own experiment (its experiments.json: the sweep
warptile-sweep, its table and its README's numbers): each shape tried, the kernel of each program it
declares (this step's, and step 10's large configuration with each number of stages) built with
-D flags, its registers read from ptxas, run at each n, into results/<device>-warptile-sweep.csv.
`make warptile-sweep` runs it. Each function gets the repository's shared helpers first (shared:
scripts/for_steps.py); the sweep, its options too (scripts/experiment.py's sweep_options).
"""
import concurrent.futures
import glob
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
STEP = os.path.basename(HERE).split("_")[0]

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
ALL_SHAPES = SHAPES + MORE_SHAPES + THIRD_SHAPES + FOURTH_SHAPES + FIFTH_SHAPES
COLUMNS = ["date", "command", "program", "config", "threads", "registers", "n", "device", "kernel_ms", "gflops",
           "max_rel_err", "status"]
KEY = ("program", "config", "n", "device")


def build_shape(shared, step, entry, shape, arch):
    """Build a step with this tile shape (its large one, the one overridden); its stages, where it
    has them, are chosen at run time (--config): (name, exe, {stages: registers}, exit code)."""
    bm, bn, bk, wm, wn, minb = shape
    name = f"{bm}x{bn}x{bk}_w{wm}x{wn}_b{minb}"
    exe = f"obj/tile/{step}_{name}"
    defs = [f"LBM={bm}", f"LBN={bn}", f"LBK={bk}", f"LWM={wm}", f"LWN={wn}", f"LMIN_BLOCKS={minb}"] + \
        [d[2:] for d in entry.get("defines", [])]
    code, err = shared.build_variant(shared.step_binary(step) + ".cu", defs, exe, arch, extra=["-Xptxas", "-v"])
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


def measure(shared, options):
    """Build every shape of each program declared, run each (with each number of stages the program
    declares, through --config) at the sizes asked, else the declared ones, and record the rows: the
    exit code (3 without a GPU, 2 without a tool it needs, or a number of stages the program does not
    have). A FAIL is expected of some shapes and recorded; a run that does not run is a failure."""
    programs, sizes = options.entry["programs"], options.sizes or options.entry["sizes"]
    for prog, entry in programs.items():
        # A depth is one of the program's own configurations' (--config BMxBNxBK/STAGES): its --describe says which.
        depths = sorted({int(c.split("/")[1]) for c in shared.describe(shared.step_binary(prog))[0]["configs"]
                         if "/" in c})
        unknown = [s for s in entry.get("stages", []) if s not in depths]
        if unknown:
            print(f"{STEP}'s experiments.json: stages {' '.join(map(str, unknown))}: {prog}'s configurations have "
                  f"{' '.join(map(str, depths))} stages", file=sys.stderr)
            return shared.EXIT_USAGE
    shared.require_tool("make")  # the build's architecture flags
    shared.require_tool("nvcc")
    device = shared.require_gpu("warptile-sweep")
    if device is None:
        return shared.EXIT_NO_GPU
    arch = shared.arch_flags()
    jobs = [(step, shape) for step in programs for shape in dict.fromkeys(ALL_SHAPES)]  # each shape once
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count()) as pool:
        built = list(pool.map(lambda j: j + build_shape(shared, j[0], programs[j[0]], j[1], arch), jobs))
    log = options.log(device)
    runs = []
    # Rows measured before the swizzle of A's tile existed carry no tag; the code has it now.
    for step, shape, name, exe, kernel_regs, code in built:
        bm, bn, bk, wm, wn, minb = shape
        if code != 0:
            log.say(f"{step} {name}: does not build")
            continue
        for stages in programs[step].get("stages") or [None]:
            config = name + (f"_s{stages}" if stages else "")
            fields = {"program": step, "config": config + "+swizzle", "threads": 32 * (bm // wm) * (bn // wn),
                      "registers": kernel_regs.get(stages, kernel_regs.get(None, "?")), "device": device}
            runs += [shared.Run([exe, "-n", n, "--reps", options.reps, "--csv"] + (["--config", f"{bm}x{bn}x{bk}/{stages}"]
                                                                                   if stages else []),
                                f"{step} {config} n={n}", fields=fields, fail_ok=True) for n in sizes]
    got = shared.measure(runs, log, options.stamp)
    log.say(shared.record(shared.results_path(options.results, device, "-warptile-sweep"), got["rows"], COLUMNS, KEY))
    log.close()
    if got["failed"]:  # a FAIL is expected of some shapes (fail_ok); a run that did not run is not
        print("FAILED to run: " + "; ".join(got["failed"]), file=sys.stderr)
        return 1
    return 0


def warptile_table(shared, results_dir):
    """Every tile shape tried for steps 09 and 10: GFLOPS at n = 1000 and 4096, best first."""
    f, table = shared.f, shared.table
    parts = []
    for path in sorted(glob.glob(os.path.join(results_dir, "*-warptile-sweep.csv"))):
        rows = shared.read_results(path)
        keys = sorted({(r["program"], r["config"], r["threads"], r["registers"]) for r in rows})
        get = {(r["program"], r["config"], int(r["n"])): r for r in rows}
        body = []
        for prog, cfg, threads, regs in keys:
            g = {n: get.get((prog, cfg, n)) for n in (1000, 4096)}
            body.append((float(g[4096]["gflops"]) if g[4096] else 0.0,
                         [prog, cfg.replace("_", " "), threads, regs,
                          f(g[1000]["gflops"], 0) if g[1000] else "", f(g[4096]["gflops"], 0) if g[4096] else ""]))
        body.sort(key=lambda x: -x[0])
        dates = ", ".join(sorted({r["date"][:10] for r in rows}))
        parts.append(f"**{rows[0]['device']}** (measured {dates}; kernel GFLOPS, median of 10; shape = "
                     "BM x BN x BK, warp tile WM x WN, blocks per SM asked of the compiler, pipeline stages; "
                     "+swizzle: after the swizzle of A's tile)\n\n"
                     + table(["step", "shape", "threads", "registers", "GFLOPS n = 1000", "GFLOPS n = 4096"],
                             [b for _, b in body], 2))
    return "\n\n".join(parts)


def warptile(shared, results, program, cfg, n, column="gflops"):
    """warptile(program, config, n, column="gflops"): a row of the warptile sweep."""
    return float(results.find(f"{results.slug}-warptile-sweep.csv", "the warptile sweep", program=program, config=cfg,
                              n=n)[column])
