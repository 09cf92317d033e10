"""Step 04's lesson in hardware counters, its own experiment (its experiments.json: the sweep
pitch): the ncu metrics it declares, on this step and on the programs beside it (the step before,
without cudaMallocPitch), at its sizes, so that the counters show what the pitch changed. For each
program and size: its own report's Pitch and Kernel lines, then ncu's metrics of one launch of
matmult_kernel after a warm-up, into results/<device>-pitch.txt. `make step-counters` runs it (and
make reproduce, part ncu). The function gets the repository's shared helpers first (shared:
scripts/for_steps.py), then the sweep's options (scripts/experiment.py's sweep_options).
"""
import os
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
STEP = os.path.basename(HERE).split("_")[0]


def measure(shared, options):
    """Each program at each size (the sizes asked, else the declared ones), then ncu on it: the exit
    code (2 without ncu, 3 without a GPU, 1 where ncu failed)."""
    entry = options.entry
    shared.require_tool("ncu", "make step-counters measures with Nsight Compute's ncu")
    device = shared.require_gpu("step-counters")
    if device is None:
        return shared.EXIT_NO_GPU
    binaries = [shared.step_binary(p) for p in entry["beside"]] + [f"{os.path.basename(HERE)}/{STEP}"]
    log = options.log(device)
    failed = 0
    for n in options.sizes or entry["sizes"]:
        for binary in binaries:
            log.say(f"$ {binary} -n {n}")
            p = subprocess.run([f"./{binary}", "-n", str(n), "--reps", "20"], cwd=shared.ROOT, capture_output=True,
                               text=True)
            for line in p.stdout.splitlines():
                if "Pitch" in line or "Kernel" in line:
                    log.say(line)
            p = subprocess.run(["ncu", "--clock-control", "none", "--kernel-name", "regex:matmult_kernel",
                                "--launch-skip", "1", "--launch-count", "1", "--metrics", ",".join(entry["metrics"]),
                                f"./{binary}", "-n", str(n), "--reps", "1", "--check", "none"],
                               cwd=shared.ROOT, capture_output=True, text=True)
            for line in p.stdout.splitlines():
                if line.startswith("    ") and line[4:5].isalpha() and line[4:5].islower():
                    log.say(line)
            if p.returncode != 0:
                log.say(f"ncu on {binary} -n {n}: exit {p.returncode}: {p.stderr.strip()}")
                failed += 1
    log.close()
    return 1 if failed else 0
