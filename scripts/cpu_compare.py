#!/usr/bin/env python3
"""make cpu / make cpu-sweep: the CPU chapter's measurements.

make cpu:        every variant single-threaded (with OpenBLAS on 1 thread), then our
                 threaded variant and OpenBLAS on all cores, each phase in a process of
                 its own (both libraries leave worker threads spinning after a call,
                 which would slow whatever runs next beside them); the comparison table.
make cpu-sweep:  the lab's block-size sweep of avx_blocked (8 ... 1024) at n = 1024, 2048.

Rows go to results/<host-slug>-cpu.csv (replacing earlier rows with the same key), with
the date, the command, the compiler and OpenBLAS's own configuration string.

Usage: scripts/cpu_compare.py [--sizes "128 256 512 1000 1024 2048"] [--threads T]
                              [--reps R] [--sweep]
"""
import os
import subprocess
import sys

import experiment
import ladder

EXE = ladder.CPU_GEMM
PROGRAM_COLUMNS = ["program", "n", "threads", "block", "isa", "host", "cpus", "ms", "gflops", "max_rel_err",
                   "avg_rel_err", "reps", "check", "tolerance", "status"]
COLUMNS = ["date", "command", "compiler", "openblas"] + PROGRAM_COLUMNS
KEY = ("program", "n", "threads", "block", "isa", "host")
SINGLE = "baseline,avx,avx_blocked,avx_blocked_bt,packed,openblas"


def compiler():
    p = subprocess.run(["gcc", "--version"], capture_output=True, text=True)
    return p.stdout.splitlines()[0] if p.returncode == 0 else "unknown"


def run(args, feats, stamp, rows):
    cmd = [EXE] + args + ["--csv-header"]
    print("$ " + " ".join(cmd), flush=True)
    found, code, err = experiment.run_table(cmd)
    if code not in (0, 1):
        print(err, file=sys.stderr)
        return False
    for r in found:
        r = ladder.result_row(cmd[:-1] + ["--csv"], r, stamp)
        r.update(compiler=compiler_name, openblas=feats.get("openblas_config", "").replace(",", " "))
        rows.append(r)
        print(f"  {r['program']:15s} n={r['n']:5s} threads={r['threads']:3s} isa={r['isa']:8s} "
              f"{float(r['ms']):10.3f} ms {float(r['gflops']):8.2f} GFLOPS  {r['status']}", flush=True)
    if err:
        print(err, file=sys.stderr)
    return code == 0


def table(rows, sizes):
    out = []
    for n in sizes:
        at = [r for r in rows if int(r["n"]) == n]
        ceiling = {r["threads"]: float(r["gflops"]) for r in at if r["program"] == "openblas"}
        out.append(f"\nn = {n}\n{'variant':15s} {'threads':>7s} {'isa':>8s} {'block':>5s} {'ms':>10s} "
                   f"{'GFLOPS':>8s} {'% OpenBLAS':>10s} {'max rel err':>11s}")
        for r in at:
            c = ceiling.get(r["threads"])
            pct = f"{100 * float(r['gflops']) / c:.1f}" if c else ""
            out.append(f"{r['program']:15s} {r['threads']:>7s} {r['isa']:>8s} {r['block']:>5s} {float(r['ms']):10.3f} "
                       f"{float(r['gflops']):8.2f} {pct:>10s} {float(r['max_rel_err']):11.2e}")
    return "\n".join(out)


def main(argv):
    global compiler_name
    ap = ladder.ArgumentParser(prog="cpu_compare.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=ladder.sizes_arg, default="128 256 512 1000 1024 2048")
    ap.add_argument("--threads", type=ladder.positive_int, default=os.cpu_count())
    ap.add_argument("--reps", type=ladder.positive_int, default=5)
    ap.add_argument("--sweep", action="store_true", help="the block-size sweep instead of the comparison")
    ap.add_argument("--phase", choices=("all", "single", "threads"), default="all",
                    help="only the single-threaded or only the all-cores phases (default all)")
    a = ap.parse_args(argv)
    results = ladder.measurements_dir()  # checked before anything is measured
    sizes = a.sizes
    if a.sweep and sizes == ladder.sizes_arg(ap.get_default("sizes")):
        sizes = [1024, 2048]  # the lab's, unless other sizes were asked for
    if not os.path.exists(os.path.join(ladder.ROOT, EXE)):
        print(f"cpu_compare: {EXE} is not built (make cpu/cpu_gemm)", file=sys.stderr)
        return 2
    ladder.require_tool("gcc", "the rows record the compiler that built cpu/cpu_gemm (gcc --version)")
    feats = ladder.cpu_features()
    compiler_name = compiler()
    stamp = ladder.now_stamp()
    sz = [x for n in sizes for x in ("-n", str(n))]
    reps = ["--reps", str(a.reps)]
    rows, ok = [], True
    print(f"{feats['cpu']} ({feats['cpus']} CPUs), micro-kernel {feats['packed_isa']}, {compiler_name}, "
          f"{feats['openblas_config']}")
    if a.sweep:
        for block in (8, 16, 32, 64, 128, 256, 512, 1024):
            ok &= run(["--variant", "avx_blocked", "--block", str(block), "--check", "sample"] + sz + reps, feats,
                      stamp, rows)
    else:
        variants = SINGLE if feats["openblas"] == "1" else SINGLE.replace(",openblas", "")
        if a.phase in ("all", "single"):
            ok &= run(["--variant", variants, "--threads", "1"] + sz + reps, feats, stamp, rows)
        if feats["packed_isa"] == "avx512" and a.phase in ("all", "single"):  # what AVX-512 buys
            ok &= run(["--variant", "packed", "--isa", "avx2"] + sz + reps, feats, stamp, rows)
        if a.threads > 1 and a.phase in ("all", "threads"):
            ok &= run(["--variant", "packed_omp", "--threads", str(a.threads)] + sz + reps, feats, stamp, rows)
            if feats["openblas"] == "1":
                ok &= run(["--variant", "openblas", "--threads", str(a.threads)] + sz + reps, feats, stamp, rows)
    recorded = ladder.record(os.path.join(results, f"{ladder.host_slug(feats)}-cpu.csv"), rows,
                             COLUMNS, KEY)
    if not a.sweep:
        print(table(rows, sizes))
    else:
        print("\nblock size sweep (avx_blocked), ms")
        for n in sizes:
            print(f"n = {n}: " + "  ".join(f"{r['block']}: {float(r['ms']):.1f}" for r in rows if int(r["n"]) == n))
    if feats["openblas"] != "1":
        print("\nOpenBLAS is not built in: install libopenblas-dev (Debian/Ubuntu) and rebuild for the ceiling.")
    print(f"\n{recorded}")
    return 0 if ok else 1


compiler_name = ""

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
