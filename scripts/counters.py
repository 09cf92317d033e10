#!/usr/bin/env python3
"""make step-counters: the hardware counters a step's lesson is told in, as the step
declares them (its experiments.json's "counters": ncu metrics and sizes), on the step and
on the step before it, so that the counters show what the step changed. For each program
and size: its own report's Pitch and Kernel lines, then ncu's metrics of one launch of
matmult_kernel after a warm-up. make reproduce (part ncu) keeps the output in
results/<device-slug>-<log>.txt, the log the declaration names.

Usage: scripts/counters.py [--programs "PROGRAM ..."]
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ladder  # noqa: E402


def plan(programs=None):
    """[(step, log, [(binary, n)], metrics)] for each step that declares counters."""
    out = []
    for step, entry in ladder.experiments("counters"):
        if programs and step not in programs:
            continue
        pair = [s for s in (ladder.step_before(step), step) if s]
        binaries = [next(b for b in ladder.step_binaries() if b.endswith("/" + s)) for s in pair]
        out.append((step, entry["log"], [(b, n) for n in entry["sizes"] for b in binaries], entry["metrics"]))
    return out


def main(argv):
    ap = ladder.ArgumentParser(prog="counters.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--programs", default="", help="only these steps (default: every one that declares counters)")
    a = ap.parse_args(argv)
    declared = [step for step, _ in ladder.experiments("counters")]
    for prog in a.programs.split():
        if prog not in declared:
            ap.error(f"{prog} declares no counters in its experiments.json (those that do: {' '.join(declared)})")
    ladder.require_tool("ncu", "make step-counters measures with Nsight Compute's ncu")
    if ladder.require_gpu("counters.py") is None:
        return ladder.EXIT_NO_GPU
    failed = 0
    for step, log, runs, metrics in plan(a.programs.split()):
        for binary, n in runs:
            print(f"$ {binary} -n {n}", flush=True)
            p = subprocess.run([f"./{binary}", "-n", str(n), "--reps", "20"], cwd=ladder.ROOT, capture_output=True,
                               text=True)
            print("".join(line + "\n" for line in p.stdout.splitlines() if "Pitch" in line or "Kernel" in line), end="")
            p = subprocess.run(["ncu", "--clock-control", "none", "--kernel-name", "regex:matmult_kernel",
                                "--launch-skip", "1", "--launch-count", "1", "--metrics", ",".join(metrics),
                                f"./{binary}", "-n", str(n), "--reps", "1", "--check", "none"],
                               cwd=ladder.ROOT, capture_output=True, text=True)
            print("".join(line + "\n" for line in p.stdout.splitlines() if line.startswith("    ") and
                          line[4:5].isalpha() and line[4:5].islower()), end="", flush=True)
            if p.returncode != 0:
                print(f"ncu on {binary} -n {n}: exit {p.returncode}: {p.stderr.strip()}", file=sys.stderr)
                failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
