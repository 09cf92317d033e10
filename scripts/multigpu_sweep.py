#!/usr/bin/env python3
"""make multigpu-sweep: the multi-GPU chapter's scaling runs. Strong scaling: every algorithm
at each size on 1, 2, ... GPUs (up to the machine's count; --gpus asking for more than it has is
refused, exit 4, before anything runs); weak scaling, two ways from --weak-base on one GPU:
the work per GPU held (n grows as the cube root of the GPU count) and the memory per GPU held
(n grows as its square root). The
table gives time, TFLOPS, the communication and the local products each timed alone,
parallel efficiency against one GPU's cuBLAS SGEMM of the same n (the rows algorithm on
one GPU is exactly that one call) and the time against cuBLASMp's in the same run; rows
recorded in results/<device>-multigpu.csv (--record-in), replacing earlier rows of the same key.

Usage: scripts/multigpu_sweep.py [--sizes "16384 32768"] [--gpus "1 2"] [--weak-base 16384]
                                 [--weak both|work|memory|none] [--algo rows,summa,cublasmp]
                                 [--reps 3] [--panel 8192] [--dist uniform] [--comm nccl]
                                 [--record-in multigpu]
"""
import argparse
import os
import subprocess
import sys

import experiment
import ladder

EXE = os.path.join("multigpu", "multigpu")
PROGRAM_COLUMNS = ["algo", "local", "n", "gpus", "grid", "panel", "device", "ms", "tflops", "comm_ms", "gemm_ms",
                   "max_rel_err", "max_comp_err", "bound", "status", "rows_checked", "reps", "dist", "comm", "uuids"]
COLUMNS = ["date", "command"] + PROGRAM_COLUMNS
KEY = ("algo", "local", "n", "gpus", "grid", "panel", "device", "dist", "comm")


def record_name(text):
    """argparse type of --record-in: a word for the results file's name, not a path."""
    if not text or not all(c.isalnum() or c in "-_" for c in text):
        raise argparse.ArgumentTypeError(f"'{text}' is not a name of letters, digits, - and _")
    return text


def weak_size(base, gpus, rule="work"):
    """n with n^3 / gpus = base^3 (rule "work": the products per GPU held) or n^2 / gpus =
    base^2 ("memory": the matrices' bytes per GPU held), rounded to a multiple of 256."""
    grown = base * gpus ** (1 / 3 if rule == "work" else 1 / 2)
    return int(round(grown / 256)) * 256


def algo_list(text):
    """argparse type of --algo: multigpu's own names, comma-separated."""
    names = [t for t in text.split(",") if t]
    if not names or any(t not in ("rows", "summa", "cublasmp") for t in names):
        raise argparse.ArgumentTypeError(f"'{text}' is not a comma-separated list of rows, summa, cublasmp")
    return ",".join(names)


def efficiency(row, rows):
    """T1 / (gpus x T), T1 one GPU's cuBLAS SGEMM at this n: 1 is perfect scaling. Where one GPU
    did not run this n (the weak-scaling sizes), T1 is the largest smaller n's time times the
    work's ratio (n / n1)^3: SGEMM's rate is flat at these sizes."""
    one = [r for r in rows if r["algo"] == "rows" and r["gpus"] == "1" and r["dist"] == row["dist"]
           and r["local"] == row["local"] and r["panel"] == row["panel"] and int(r["n"]) <= int(row["n"])]
    if not one:
        return None
    base = max(one, key=lambda r: int(r["n"]))
    t1 = float(base["ms"]) * (int(row["n"]) / int(base["n"])) ** 3
    return t1 / (int(row["gpus"]) * float(row["ms"]))


def table(rows):
    body = []
    for r in rows:
        eff = efficiency(r, rows)
        mp = [m for m in rows if m["algo"] == "cublasmp" and all(m[k] == r[k] for k in ("n", "gpus", "dist", "local"))]
        body.append([r["algo"], r["n"], r["gpus"], r["grid"], f"{float(r['ms']):.1f}", r["tflops"],
                     "" if r["comm_ms"] == "nan" else f"{float(r['comm_ms']):.1f}",
                     "" if r["gemm_ms"] == "nan" else f"{float(r['gemm_ms']):.1f}",
                     "" if eff is None else f"{100 * eff:.1f}%",
                     f"{float(mp[0]['ms']) / float(r['ms']):.3f}" if mp else "", r["max_comp_err"], r["status"]])
    return ladder.text_table(["algo", "n", "GPUs", "grid", "ms", "TFLOPS", "comm ms", "gemm ms", "efficiency",
                              "x cuBLASMp", "comp err", "result"], body, left=(0, 3, 11))


def gpu_counts(text):
    """argparse type of --gpus: "1 2 4" -> [1, 2, 4], at least one, each a whole number >= 1."""
    counts = ladder.sizes_arg(text)
    return sorted(set(counts))


def counts_to_run(asked, available):
    """The GPU counts to run: those asked (all of them, or the run is refused), else 1 ... every
    GPU this machine has; (counts, None), or (None, the one line that refuses) when the machine
    has fewer GPUs than a count asked for."""
    if not asked:
        return list(range(1, available + 1)), None
    if max(asked) > available:
        return None, (f"multigpu_sweep.py: --gpus asks for {max(asked)} GPUs; this machine has {available}"
                      f" (--gpus \"{' '.join(str(g) for g in range(1, available + 1))}\" runs on those it has)"
                      if available else
                      f"multigpu_sweep.py: --gpus asks for {max(asked)} GPUs; this machine has none")
    return list(asked), None


def features():
    """What multigpu/multigpu says of its build and of this machine (--features: nccl, cublasmp,
    cublasmp_why, gpus); one that cannot say ends the script with its message."""
    p = subprocess.run([EXE, "--features"], cwd=ladder.ROOT, capture_output=True, text=True)
    if p.returncode != 0:
        print(f"multigpu_sweep.py: {EXE} --features exited {p.returncode}: {p.stderr.strip()}", file=sys.stderr)
        raise SystemExit(p.returncode)
    return dict(line.split("=", 1) for line in p.stdout.strip().splitlines() if "=" in line)


def main(argv):
    ap = ladder.ArgumentParser(prog="multigpu_sweep.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=ladder.sizes_arg, default=ladder.sizes_arg("16384 32768"))
    ap.add_argument("--gpus", type=gpu_counts, default=None, help="GPU counts, space-separated (default 1 .. all); "
                    "a count this machine lacks is refused (exit 4)")
    ap.add_argument("--weak-base", type=ladder.positive_int, default=16384)
    ap.add_argument("--weak", choices=["both", "work", "memory", "none"], default="both",
                    help="which weak-scaling sizes to add: work per GPU held, memory per GPU held, both or none")
    ap.add_argument("--algo", type=algo_list, default=None,
                    help="which algorithms (multigpu --algo; default all it can run here)")
    ap.add_argument("--reps", type=ladder.positive_int, default=3)
    ap.add_argument("--panel", type=ladder.positive_int, default=8192)
    ap.add_argument("--comm", choices=["nccl", "copy"], default="nccl",
                    help="how SUMMA sends its panels (multigpu --comm)")
    ap.add_argument("--record-in", type=record_name, default="multigpu",
                    help="results/<device>-NAME.csv (default multigpu)")
    ap.add_argument("--dist", choices=ladder.DISTS + ladder.RANGE_DISTS, default="uniform")
    a = ap.parse_args(argv)
    results = ladder.measurements_dir()  # checked before anything is measured
    if not os.path.exists(os.path.join(ladder.ROOT, EXE)):
        print(f"multigpu_sweep.py: {EXE} is not built: NCCL was not found (make nccl fetches it)",
              file=sys.stderr)
        return ladder.EXIT_USAGE
    device = ladder.require_gpu("multigpu_sweep.py")
    if device is None:
        return ladder.EXIT_NO_GPU
    f = features()
    available = int(f["gpus"])
    counts, refusal = counts_to_run(a.gpus, available)
    if refusal:
        print(refusal, file=sys.stderr)
        return ladder.EXIT_NO_FEATURE
    print(f"# NCCL {f['nccl']}, cuBLASMp {f['cublasmp'] or 'not run: ' + f['cublasmp_why']}, {available} GPUs",
          flush=True)
    runs = [(n, g) for n in a.sizes for g in counts]
    for rule in {"both": ("work", "memory"), "none": ()}.get(a.weak, (a.weak,)):
        runs += [(weak_size(a.weak_base, g, rule), g) for g in counts
                 if g > 1 and (weak_size(a.weak_base, g, rule), g) not in runs]
    stamp = ladder.now_stamp()
    allrows, ok = [], True
    for n, g in runs:
        cmd = [EXE, "-n", str(n), "--gpus", str(g), "--reps", str(a.reps), "--panel", str(a.panel), "--dist", a.dist,
               "--comm", a.comm] + (["--algo", a.algo] if a.algo else []) + ["--csv-header"]
        print("$ " + " ".join(cmd), flush=True)
        found, code, err = experiment.run_table(cmd)
        if err:
            print(err, flush=True)
        if code not in (0, 1):
            return code
        ok &= code == 0
        allrows += [ladder.result_row(cmd[:-1] + ["--csv"], r, stamp) for r in found]
    print(f"\n{device}: C = A B in FP32, {a.dist} inputs, median of {a.reps}; efficiency = one GPU's cuBLAS "
          f"SGEMM time / (GPUs x time)\n{table(allrows)}\n")
    print(ladder.record(os.path.join(results, ladder.slug(device) + f"-{a.record_in}.csv"), allrows,
                        COLUMNS, KEY))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
