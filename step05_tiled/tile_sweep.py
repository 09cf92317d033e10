"""The lab's tile sweep, step 05's own experiment (its experiments.json: the sweep tile-sweep, its
table and its README's numbers): each kernel it declares (this step's tiled kernel, and step 02's
naive one with as many threads per block) built with its -D flag at each tile size TILE (a block
of TILE x TILE threads), run at each n, into results/<device>-tile-sweep.csv; the lab's layout.
`make tile-sweep` runs it. Each function gets the repository's shared helpers first (shared:
scripts/for_steps.py); the sweep, its options too (scripts/experiment.py's sweep_options).
"""
import concurrent.futures
import glob
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
STEP = os.path.basename(HERE).split("_")[0]

COLUMNS = ["date", "command", "kernel", "tile", "threads_per_block", "n", "device", "kernel_ms", "gflops",
           "max_rel_err", "status"]
KEY = ("kernel", "tile", "n", "device")
MAX_THREADS_PER_BLOCK = 1024  # CUDA's limit on every GPU the build targets


def declared():
    """This step's declaration of the sweep (its experiments.json)."""
    with open(os.path.join(HERE, "experiments.json")) as fh:
        return json.load(fh)["sweeps"]["tile-sweep"]


def measure(shared, options):
    """Build each kernel at each tile, run them (the sizes asked, else the declared ones; a kernel's
    max_n, the lab's limit, leaves larger n out), record the rows and print the lab's table: the
    exit code (3 without a GPU, 2 without a tool it needs)."""
    entry = options.entry
    tiles, sizes = entry["tiles"], options.sizes or entry["sizes"]
    too_big = [t for t in tiles if t * t > MAX_THREADS_PER_BLOCK]
    if too_big:
        print(f"{STEP}'s experiments.json: tiles {' '.join(map(str, too_big))}: a tile of TILE x TILE threads is at "
              f"most {MAX_THREADS_PER_BLOCK} threads (TILE <= 32)", file=sys.stderr)
        return shared.EXIT_USAGE
    shared.require_tool("make")  # the build's architecture flags
    shared.require_tool("nvcc")
    device = shared.require_gpu("tile-sweep")
    if device is None:
        return shared.EXIT_NO_GPU
    todo = []  # (kernel, tile, binary, source, -D flag, largest n)
    for k in entry["kernels"]:
        step = k.get("step", STEP)  # another step's kernel, or this one's
        source = (shared.step_binary(step) if step != STEP else f"{os.path.basename(HERE)}/{STEP}") + ".cu"
        todo += [(k["kernel"], tile, f"obj/tile/{step}_{k['kernel']}{tile}", source, k["define"].format(tile=tile),
                  k.get("max_n")) for tile in tiles]
    arch = shared.arch_flags()
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count()) as pool:
        built = list(pool.map(lambda v: shared.build_variant(v[3], [v[4]], v[2], arch), todo))
    for (kernel, tile, exe, *_), (code, err) in zip(todo, built):
        if code != 0:
            print(f"{exe}: does not build: {err}", file=sys.stderr)
            return 1
    runs = [shared.Run([exe, "-n", n, "--reps", options.reps, "--csv"], f"{kernel} tile {tile} n={n}",
                       fields={"kernel": kernel, "tile": tile, "threads_per_block": tile * tile})
            for n in sizes for tile in tiles for kernel, t, exe, _, _, max_n in todo
            if t == tile and not (max_n and n > max_n)]
    log = options.log(device)
    got = shared.measure(runs, log, options.stamp)
    recorded = shared.record(shared.results_path(options.results, device, "-tile-sweep"), got["rows"], COLUMNS, KEY)
    log.say(f"\n{device}: kernel ms (median of {options.reps}), the lab's layout")
    kernels = list(dict.fromkeys(v[0] for v in todo))
    log.say(f"{'n':>6} {'tile':>5} " + " ".join(f"{k + ' kernel':>13}" for k in kernels))
    get = {(r["kernel"], r["tile"], int(r["n"])): float(r["kernel_ms"]) for r in got["rows"]}
    for n in sizes:
        for tile in tiles:
            log.say(f"{n:6d} {tile:5d} " + " ".join(f"{get.get((k, tile, n), float('nan')):13.3f}" for k in kernels))
    log.say(recorded)
    log.close()
    return 1 if got["failed"] else 0


def tile_table(shared, results_dir):
    """The lab's layout: n, tile, each kernel's ms and GFLOPS, per device."""
    f, table = shared.f, shared.table
    kernels = [k["kernel"] for k in declared()["kernels"]]
    parts = []
    for path in sorted(glob.glob(os.path.join(results_dir, "*-tile-sweep.csv"))):
        if path.endswith("-warptile-sweep.csv"):
            continue
        rows = shared.read_results(path)
        if not rows:
            continue
        get = {(r["kernel"], int(r["tile"]), int(r["n"])): r for r in rows}
        sizes = sorted({int(r["n"]) for r in rows})
        tiles = sorted({int(r["tile"]) for r in rows})
        body = []
        for n in sizes:
            for t in tiles:
                body.append([str(n), f"{t} x {t}"] + [cell for k in kernels for r in [get.get((k, t, n))]
                                                      for cell in (f(r["kernel_ms"], 3) if r else "",
                                                                   f(r["gflops"], 0) if r else "")])
        dates = sorted({r["date"][:10] for r in rows})
        parts.append(f"**{rows[0]['device']}** (measured {', '.join(dates)}; kernel time, median of "
                     f"{rows[0]['command'].split('--reps ')[1].split()[0]})\n\n"
                     + table(["n", "tile (threads per block)"]
                             + [h for k in kernels for h in (f"{k} kernel ms", f"{k} GFLOPS")], body))
    return "\n\n".join(parts)


def tile(shared, results, kernel, t, n, column="kernel_ms"):
    """tile(kernel, t, n, column="kernel_ms"): a row of the tile sweep (the kernel at tile t x t)."""
    return float(results.find(f"{results.slug}-tile-sweep.csv", "the tile sweep", kernel=kernel, tile=t,
                              n=n)[column])
