#!/usr/bin/env python3
"""make reproduce: measure again, on this machine's GPU and CPU, everything the READMEs
show, then redraw the charts. Each part writes its rows into results/local/<device-slug>*.csv
(or <host-slug>-cpu.csv) and its log into results/local/<device-slug>-<part>.txt, headed with
the date and the commands (make reproduce RESULTS=results: into the recorded set the pages read). It prints what
it will run and how long that should take before it starts, and its progress as it goes.

Parts, in order (ONLY="compare caps" runs some, SKIP="cpu" leaves some out); each part runs, after
its own commands, the sweeps the steps declare for it (experiments.json's "sweeps", "part"):
  device          the GPU, driver, clocks and tools
  config-sweep    every configuration (tile shape, pipeline depth) of each program that
                  has several, at n = 1000 ... 8192
  compare         every step, cuBLAS (FP32 and TF32) and CUTLASS at n = 256 ... 8192 in one run;
                  and the sweeps the steps declare for this part (step 04's unaligned sizes)
  tensor          the tensor-core chapter (its steps, cuBLAS FP32 and TF32, CUTLASS TF32 and
                  3xTF32) on wide inputs at n = 256 ... 8192; the other steps on wide inputs; ncu
                  of the tensor-core steps, cuBLAS and CUTLASS
  range           the FP32-class programs (steps 12 and 14, cuBLAS SGEMM, CUTLASS 3xTF32) on the
                  ends of FP32's range (--dist subnormal, tiny, rowscale, mixed, huge) at
                  n = 33, 1000 and 4096 (CUTLASS's FAILs there are recorded, not errors)
  versions        every step's development versions beside the step, at n = 1000,
                  4096 and 8192 (the runner writes its own log)
  rounding        the sweeps the steps declare for this part (experiments.json's "sweeps", "part":
                  "rounding"): TF32 truncated (a development version) beside rounded to nearest and
                  cuBLAS TF32, on both inputs at n = 1000 ... 8192 and the range families at 1000
  article         every program's article-style output at n = 1000
  caps            the sweeps the steps declare under caps (step 10's: the step, the one before it
                  and cuBLAS under the shared memory of smaller GPUs, 64, 99, 163 KB per block),
                  labelled "capped to N KB"
  tile-sweep      the lab's tile size, tiled against naive kernel (step 05's sweep)
  warptile-sweep  the tile shapes of the warp-tiled kernels (step 09's sweep)
  sweeps          every other sweep a step declares (its build variants beside the programs it
                  names, or its own Python's, each sweep with its log)
  transpose       the transpose chapter, and its ncu counters where ncu is installed
  multigpu        the multi-GPU chapter on every GPU of this machine, and on one GPU beside
                  cuBLASMp (where multigpu/multigpu is built: it needs NCCL)
  ncu             the profiler's evidence of the READMEs, the sweeps the steps declare for it
                  among it (step 04's counters; needs ncu)
  cpu             the CPU chapter on this machine's CPU (make cpu, make cpu-sweep)
  test            make test and make sanitize (sanitize needs compute-sanitizer)
  plots           the charts and the README tables, from results/

Usage: scripts/reproduce.py [--only "PART ..."] [--skip "PART ..."] [--dry-run] [--check]
(--dry-run: the plan and each part's commands, and stop; it needs no GPU, and marks the parts that do;
--check: the parts and the results folder checked, nothing else)
"""
import datetime
import os
import shlex
import shutil
import subprocess
import sys
import time

import ladder

PARTS = ["device", "config-sweep", "compare", "tensor", "range", "versions", "rounding", "article", "caps", "tile-sweep",
         "warptile-sweep", "sweeps", "transpose", "multigpu", "ncu", "cpu", "test", "plots"]
GPU_PARTS = set(PARTS) - {"cpu", "plots"}
COMPARE_SIZES = "256 512 1000 2048 4096 8192"
REPS = 20
TIMINGS_COLUMNS = ["date", "device", "fp32_peak_gflops", "part", "seconds"]
# Seconds a part should take before it has ever been timed (napkin: the H100; 10 runs at
# n = 4096 and 8192, each a few seconds of inputs, passes and check on the host).
FIRST_ESTIMATES = {"versions": 60, "range": 60, "rounding": 60, "sweeps": 300}


def tensor_rows():
    """The tensor-core chapter's steps and every reference built here (the part "tensor")."""
    return ladder.TENSOR_STEPS + [p for p in ladder.PROGRAMS if ladder.chapter_of(p) == "reference"]


def steps_of(chapter):
    """'07', '08', ...: the numbers of a chapter's steps, as make profile STEP= takes them."""
    return [s[4:] for s in ladder.STEPS if ladder.chapter_of(s) == chapter]


def py(script, *args):
    return [sys.executable, os.path.join("scripts", script)] + list(args)


def measure(kind, *args):
    """The runner's command for one kind of measurement (scripts/experiment.py)."""
    return py("experiment.py", kind, *args)


def make(*args):
    return ["make", "--no-print-directory"] + list(args)


def declared_parts():
    """The parts the steps' sweeps are declared for (each entry's "part", default "sweeps")."""
    return {e.get("part", "sweeps") for _, sweeps in ladder.experiments("sweeps") for e in sweeps.values()}


def part_commands(part, device, fields, have_ncu, have_sanitizer):
    """[(command, environment overrides or None, the log's name suffix)] for one part: its own,
    then the sweeps the steps declare for it (each writes its own log)."""
    if part == "ncu" and not have_ncu:
        return []
    declared = [(measure("sweep", "--part", part, "--reps", str(REPS)), None, None)] if part in declared_parts() else []
    return own_commands(part, device, fields, have_ncu, have_sanitizer) + declared


def own_commands(part, device, fields, have_ncu, have_sanitizer):
    """The commands of one part that are not the steps' sweeps."""
    if part == "device":
        query = "name,driver_version,clocks.max.sm,clocks.max.mem,power.limit"
        return [(["date", "-u"], None, "device"),
                (["nvidia-smi", f"--query-gpu={query}", "--format=csv"], None, "device"),
                (["obj/gpu_info"], None, "device"), (["obj/gpu_info", "--describe"], None, "device"),
                (["sh", "-c", "lscpu | grep -E 'Model name|^CPU\\(s\\)'"], None, "device"),
                (["sh", "-c", "nvcc --version | tail -n 1"], None, "device")] + \
            ([(["sh", "-c", "ncu --version | tail -n 1"], None, "device")] if have_ncu else [])
    if part == "config-sweep":
        return [(measure("configs", "--sizes", "1000 2048 4096 8192", "--reps", str(REPS)), None, "config-sweep")]
    if part == "compare":
        # One run for the whole ladder, the tensor-core chapter included: every ratio against
        # cuBLAS comes from the same run.
        return [(measure("compare", "--sizes", COMPARE_SIZES, "--reps", str(REPS), "--dists", "uniform",
                    "--programs", " ".join(ladder.LADDER)), None, "compare")]
    if part == "tensor":
        # The tensor-core chapter beside its ceilings and peer, on both input distributions,
        # the ladder's steps on wide inputs, and the profiler's evidence.
        tensor = tensor_rows()
        cmds = [(measure("compare", "--sizes", COMPARE_SIZES, "--reps", str(REPS), "--dists", "wide", "--programs",
                    " ".join(tensor)), None, "compare-tensor"),
                (measure("compare", "--sizes", "1000 4096", "--reps", str(REPS), "--dists", "wide", "--programs",
                    " ".join(p for p in ladder.LADDER if p not in tensor)), None, "compare-wide")]
        if have_ncu:
            cmds += [(make("profile", f"STEP={s}", "NCU_N=4096", "NCU_SECTIONS=--section WarpStateStats"), None,
                      "ncu-tensor") for s in steps_of("tensor-cores")]
            cmds += [(make("profile", "STEP=cublas", "NCU_N=4096", f"PROFILE_ARGS=--math {m}",
                           "NCU_SECTIONS=--section WarpStateStats"), None, "ncu-tensor") for m in ("tf32", "fp32")]
            if "cutlass_3xtf32" in ladder.PROGRAMS:
                cmds += [(make("profile", "STEP=cutlass", "NCU_N=4096", f"PROFILE_ARGS=--math {m}",
                               "NCU_SECTIONS=--section WarpStateStats"), None, "ncu-tensor") for m in ("tf32", "3xtf32")]
        return cmds
    if part == "range":
        # Every FP32-class program of the chapter; the peer's FAILs are recorded, not errors, and
        # so are those of a step on the families it says are outside its bound (outside_bound).
        fp32 = [p for p in tensor_rows() if ladder.PROGRAMS[p]["precision"] == "fp32"]
        peers = [p for p in fp32 if p.startswith("cutlass") or ladder.PROGRAMS[p].get("outside_bound")]
        return [(measure("compare", "--sizes", "33 1000 4096", "--reps", "5", "--dists", " ".join(ladder.RANGE_DISTS),
                    "--programs", " ".join(fp32), "--reported", " ".join(peers)), None, "range")]
    if part == "versions":  # None: the script writes results/<device-slug>-versions.txt itself
        return [(measure("versions", "--sizes", "1000 4096 8192", "--reps", str(REPS)), None, None)]
    if part == "article":
        return [(ladder.program_command(p) + ["-n", "1000", "--reps", str(REPS)], None, "article-style")
                for p in ladder.LADDER]
    if part == "transpose":
        return [(py("transpose_compare.py"), None, "transpose")] + \
            ([(make("transpose-profile"), None, "transpose")] if have_ncu else [])
    if part == "multigpu":
        if not os.path.exists(os.path.join(ladder.ROOT, "multigpu", "multigpu")):
            return []
        import multigpu_sweep
        gpus = int(multigpu_sweep.features().get("gpus") or 0)
        sweep = [(py("multigpu_sweep.py"), None, "multigpu"),
                 (py("multigpu_sweep.py", "--sizes", "65536", "--weak", "none", "--reps", "1"), None, "multigpu"),
                 (py("multigpu_sweep.py", "--gpus", "1", "--record-in", "multigpu-cublasmp"), None, "multigpu")]
        if gpus > 1:  # both ways of sending SUMMA's panels, and its panel width on every GPU
            sweep += [(py("multigpu_sweep.py", "--comm", comm, "--algo", "rows,summa", "--record-in",
                          "multigpu-copy-engines"), None, "multigpu") for comm in ("nccl", "copy")]
            sweep += [(py("multigpu_sweep.py", "--sizes", "32768", "--gpus", str(gpus), "--weak", "none", "--algo",
                          "summa", "--panel", str(w), "--record-in", "multigpu-panels"), None, "multigpu")
                      for w in (2048, 4096, 16384)]
            # cuBLASMp's block size (its nb is --panel), beside SUMMA in the same run
            blocks = ("--weak", "none", "--record-in", "multigpu-blocks")
            sweep += [(py("multigpu_sweep.py", "--sizes", "32768", "--gpus", "2 4" if gpus >= 4 else "2", "--algo", algo,
                          "--panel", str(nb), *blocks), None, "multigpu")
                      for algo, nb in [("summa", 8192)] + [("cublasmp", nb) for nb in (1024, 2048, 4096, 8192)]]
        return sweep
    if part == "ncu":
        if not have_ncu:
            return []
        cmds = [(make("profile", f"STEP={s}", f"NCU_N={n}"), None, f"ncu-{n}") for n in (1000, 4096)
                for s in steps_of("article")]
        cmds += [(make("profile", f"STEP={s}", "NCU_N=4096", "NCU_SECTIONS=--section WarpStateStats"), None,
                  "ncu-4096-beyond") for s in steps_of("cuda-cores") + ["cublas"]]
        cmds += [(make("profile-launch", "STEP=cublas", "NCU_N=4096"), None, "ncu-cublas")]
        return cmds
    if part == "cpu":
        return [(make("cpu"), None, "cpu"), (make("cpu-sweep"), None, "cpu")]
    if part == "test":
        return [(make("test"), None, "test")] + ([(make("sanitize"), None, "sanitize")] if have_sanitizer else [])
    if part == "plots":
        return [(make("plots"), None, "plots")]
    if part in PARTS:  # a part of the steps' sweeps alone
        return []
    raise ValueError(part)


def empty_reason(part, have_ncu):
    """Why a part has nothing to run here, for the plan."""
    if part == "ncu" and not have_ncu:
        return "ncu is not installed"
    if part == "multigpu":
        return "multigpu/multigpu is not built: NCCL was not found (make nccl fetches it)"
    return "no step declares it" if part not in ("device", "compare", "tensor", "range", "article", "test") \
        else "nothing to do"


def tools_of(cmds):
    """The tools a part's commands run from PATH (make, nvidia-smi, date, sh: a command's first
    word without a folder; the programs built here and this Python are not looked up)."""
    return list(dict.fromkeys(cmd[0] for cmd, _, _ in cmds if os.sep not in cmd[0]))


def read_timings(results):
    rows = []
    for name in sorted(os.listdir(results)):
        if name.endswith("-reproduce.csv"):
            rows += ladder.read_results(os.path.join(results, name))
    return rows


def estimate(part, device, fields, timings):
    """Seconds this part should take: what it took here before, else what it took on
    another GPU, scaled by the FP32 peaks for the GPU's parts; None if never measured."""
    mine = [float(r["seconds"]) for r in timings if r["part"] == part and r["device"] == device]
    if mine:
        return mine[-1]
    other = [r for r in timings if r["part"] == part]
    if not other:
        return FIRST_ESTIMATES.get(part)
    seconds, peak_there = float(other[-1]["seconds"]), other[-1].get("fp32_peak_gflops")
    if part in GPU_PARTS and peak_there and fields:
        seconds *= float(peak_there) / ladder.fp32_peak_gflops(fields)
    return seconds


def minutes(seconds):
    return f"{seconds / 60:.0f} min" if seconds >= 90 else f"{seconds:.0f} s"


def took(seconds):
    """A part's line's estimate: about so long, or that it has never been timed."""
    return "never timed" if seconds is None else f"about {minutes(seconds)}"


def run_logged(cmd, env, log, echo):
    """Run cmd, appending its output to log (None: the command keeps its own) and to the
    console if echo; its exit code."""
    with open(log or os.devnull, "a") as fh:
        fh.write(("$ " + (" ".join(f"{k}={v}" for k, v in env.items()) + " " if env else "") + " ".join(cmd))
                 + "\n")
        fh.flush()
        p = subprocess.Popen(cmd, cwd=ladder.ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             env=dict(os.environ, **(env or {})))
        for line in p.stdout:
            fh.write(line)
            if echo:
                print("    " + line, end="", flush=True)
        return p.wait()


def main(argv):
    ap = ladder.ArgumentParser(prog="reproduce.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default="", help="run only these parts (space-separated)")
    ap.add_argument("--skip", default="", help="leave these parts out")
    ap.add_argument("--dry-run", action="store_true", help="print the plan, each part's commands, and stop (no GPU "
                    "needed: the parts that need one are marked; nothing built needed: the programs as "
                    "results/programs.csv records them where they are not)")
    ap.add_argument("--check", action="store_true", help="check the parts named and the results folder, and stop "
                    "(make reproduce does, before it builds anything)")
    a = ap.parse_args(argv)
    only, skip = a.only.split(), a.skip.split()
    for name in only + skip:
        if name not in PARTS:
            ap.error(f"unknown part '{name}' (parts: {' '.join(PARTS)})")
    parts = [p for p in PARTS if (not only or p in only) and p not in skip]
    if not parts:
        ap.error(f"--only \"{a.only}\" and --skip \"{a.skip}\" leave no part to run")
    results = ladder.measurements_dir()  # checked before anything is measured
    if a.check:
        return 0
    # The programs built here, each described by itself; for the plan alone, before make has built
    # them, the descriptions recorded in results/programs.csv stand in.
    needed = ladder.step_binaries() + [b for b in ladder.REFERENCE_BINARIES if b not in ladder.OPTIONAL_BINARIES]
    if not a.dry_run or all(os.path.exists(os.path.join(ladder.ROOT, b)) for b in needed):
        ladder.discover()

    device, fields = ladder.gpu_info()
    if device is None and any(p in GPU_PARTS for p in parts) and not a.dry_run:
        print(f"reproduce: no GPU to measure: {fields}. Without one, ONLY=\"cpu plots\" measures the CPU "
              "chapter and redraws the charts (--dry-run shows the whole plan).", file=sys.stderr)
        return ladder.EXIT_NO_GPU
    if device and "capped to" in device:
        print(f"reproduce: MATMUL_SMEM_LIMIT is set ({device}); reproduce measures the GPU as it is "
              "(its 'caps' part applies the caps itself): unset it", file=sys.stderr)
        return 2
    have_ncu, have_sanitizer = shutil.which("ncu") is not None, shutil.which("compute-sanitizer") is not None
    slug = ladder.slug(device) if device else "no-gpu"
    fields = fields if device else None
    plan = [(p, part_commands(p, device, fields, have_ncu, have_sanitizer)) for p in parts]
    # What each part took before: the recorded runs' timings, then those of the runs made here (a
    # file of them that cannot be read is named in one line); a part skipped here takes no time.
    try:
        timings = read_timings(ladder.REFERENCE_RESULTS) + (
            read_timings(results) if os.path.abspath(results) != os.path.abspath(ladder.REFERENCE_RESULTS) else [])
        estimates = {part: estimate(part, device, fields, timings) if cmds else None for part, cmds in plan}
    except ladder.ResultsError as err:
        print(f"reproduce.py: {err}", file=sys.stderr)
        return ladder.EXIT_USAGE
    missing = {p: [t for t in tools_of(cmds) if shutil.which(t) is None] for p, cmds in plan}
    total, untimed = 0.0, []
    print(f"make reproduce on {device or 'this machine (no GPU)'}: {len(parts)} part{'s' if len(parts) != 1 else ''}")
    for i, (part, cmds) in enumerate(plan, 1):
        est = estimates[part]
        total += est or 0
        if cmds and est is None:
            untimed.append(part)
        notes = ([] if cmds else [f"skipped: {empty_reason(part, have_ncu)}"]) + \
            (["needs a GPU"] if device is None and part in GPU_PARTS else []) + \
            [f"{t} not found" for t in missing[part]]
        print(f"  [{i:2d}] {part:15s} {len(cmds):2d} {'command' if len(cmds) == 1 else 'commands'}"
              + (f", {took(est)}" if cmds else "")
              + (f" ({'; '.join(notes)})" if notes else ""))
        if a.dry_run:
            print("".join(f"         $ {shlex.join(cmd)}" + (f"   [{' '.join(f'{k}={v}' for k, v in env.items())}]"
                                                          if env else "") + "\n" for cmd, env, _ in cmds), end="")
    print(f"  in all about {minutes(total)}" + (f", not counting {' and '.join(untimed)} (never timed)"
                                               if untimed else ""), flush=True)
    if a.dry_run:
        return 0
    for part, tools in missing.items():  # every tool the plan runs, before any part runs
        for tool in tools:
            ladder.require_tool(tool, f"make reproduce's part '{part}' runs {tool}")

    stamp = datetime.datetime.now(datetime.timezone.utc)
    failed, done = [], []
    for i, (part, cmds) in enumerate(plan, 1):
        if not cmds:
            continue
        print(f"\n[{i:2d}/{len(plan)}] {part} ({datetime.datetime.now():%H:%M:%S})", flush=True)
        started = time.time()
        logs = set()
        for cmd, env, suffix in cmds:
            if part == "cpu":
                log = os.path.join(results, ladder.host_slug() + "-cpu.txt")
            else:
                log = suffix and os.path.join(results, f"{slug}-{suffix}.txt")
            if log and log not in logs:  # a fresh log per run of make reproduce
                logs.add(log)
                with open(log, "w") as fh:
                    fh.write(f"# make reproduce, part '{part}', on {device or 'this machine'}, "
                             f"{stamp:%Y-%m-%d %H:%M} UTC\n")
            print(f"  $ {' '.join(cmd)}" + (f"   [{' '.join(f'{k}={v}' for k, v in env.items())}]" if env else ""),
                  flush=True)
            echo = part in ("compare", "caps", "config-sweep", "versions", "rounding", "tile-sweep", "sweeps", "cpu")
            code = run_logged(cmd, env, log, echo)
            if code == ladder.EXIT_NO_FEATURE:  # this GPU lacks what the program needs: said in the log
                print(f"  skipped (exit 4): see {os.path.relpath(log, ladder.ROOT) if log else 'above'}", flush=True)
            elif code != 0:
                print(f"  exit {code}: see {os.path.relpath(log, ladder.ROOT) if log else 'above'}", flush=True)
                failed.append(f"{part}: {' '.join(cmd)} (exit {code})")
        seconds = time.time() - started
        done.append({"date": ladder.now_stamp(stamp), "device": device or "none", "part": part,
                     "fp32_peak_gflops": f"{ladder.fp32_peak_gflops(fields):.0f}" if device else "",
                     "seconds": f"{seconds:.0f}"})
        print(f"  {part} took {minutes(seconds)}", flush=True)
    if done:
        ladder.merge_results(os.path.join(results, f"{slug}-reproduce.csv"), done, TIMINGS_COLUMNS,
                             ("device", "part"))
    if failed:
        print("\nFAILED:\n  " + "\n  ".join(failed), file=sys.stderr)
        return 1
    print(f"\nmake reproduce: done; {os.path.relpath(results, ladder.ROOT)}/ holds the new figures "
          "(make plots draws them beside the recorded ones)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
