#!/usr/bin/env python3
"""make sanitize: compute-sanitizer on every program built here, found and described as the
tests find them (scripts/ladder.py):
- every step and cuBLAS at the given sizes (memcheck and racecheck; synccheck too for the
  tensor-core steps, whose barriers a wrong phase or a missing wait would break);
- every configuration of a program that has several, at n = 300 on both input distributions;
- the FP32-class tensor-core steps on inputs with NaN and Inf (the safe split) and at the ends
  of FP32's range (the scaled rows and columns);
- the transpose chapter's kernels.
A program this GPU cannot run (exit 4) is skipped, saying why; any error ends the run with
the sanitizer's report.

Usage: scripts/sanitize.py [--sizes "17 100"] [--only "PROGRAM ..."]
"""
import os
import subprocess
import sys

import ladder

ERROR_EXIT = 9  # compute-sanitizer's exit code when it found an error


def runs(found, sizes, transpose=True):
    """(what, tools, command) for every run, in order."""
    plan = []
    for row, d in found.items():
        if row in ladder.MATH_ROWS:  # the binary's other arithmetics: its kernels are the references'
            continue
        tools = ["memcheck", "racecheck"] + (["synccheck"] if d["chapter"] == "tensor-cores" else [])
        cmd = [d["binary"]]
        plan += [(f"{row} -n {n}", tools, cmd + ["-n", str(n), "--reps", "1", "--check", "full", "--csv"])
                 for n in sizes]
        if d["program"].startswith("step"):
            plan += [(f"{row} --config {c} -n 300 --dist {dist}", tools,
                      cmd + ["--config", c, "-n", "300", "--dist", dist, "--reps", "1", "--csv"])
                     for c in d["configs"] for dist in ladder.DISTS]
        if d["chapter"] == "tensor-cores" and d["precision"] == "fp32":
            plan.append((f"{row} --load obj/sanitize_special (NaN, Inf: the safe split)", tools,
                         cmd + ["--load", "obj/sanitize_special", "--reps", "1", "--csv"]))
            plan += [(f"{row} -n 300 --dist {dist} (scaled rows and columns)", tools,
                      cmd + ["-n", "300", "--dist", dist, "--reps", "1", "--csv"]) for dist in ("subnormal", "huge")]
    if transpose:
        plan.append(("transpose --rows 100 --cols 77", ["memcheck", "racecheck"],
                     ["transpose/transpose", "--rows", "100", "--cols", "77", "--iters", "1", "--variant",
                      "naive,shared,shared_padded,tiled32x8,copy,copy_kernel", "--csv"]))
    return plan


def select(found, only):
    """The programs named in only (space-separated rows' names), and the names not found."""
    wanted = only.split()
    return {row: d for row, d in found.items() if row in wanted}, [w for w in wanted if w not in found]


def main(argv):
    ap = ladder.ArgumentParser(prog="sanitize.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=ladder.sizes_arg, default="17 100")
    ap.add_argument("--only", help="these programs only (their rows' names, space-separated), no transpose")
    a = ap.parse_args(argv)
    found = ladder.discover()
    if a.only:
        chosen, unknown = select(found, a.only)
        if unknown:
            ap.error(f"no program named {' '.join(unknown)} here (built: {' '.join(found)})")
        found = chosen
    ladder.require_tool("compute-sanitizer")
    if ladder.require_gpu("sanitize.py") is None:
        return ladder.EXIT_NO_GPU
    p = subprocess.run([sys.executable, os.path.join("scripts", "special_inputs.py"), "obj/sanitize_special"],
                       cwd=ladder.ROOT, capture_output=True, text=True)
    if p.returncode != 0:
        print(p.stderr.strip() or f"special_inputs.py exited {p.returncode}", file=sys.stderr)
        return p.returncode
    done, skipped = 0, {}
    for what, tools, cmd in runs(found, a.sizes, transpose=not a.only):
        if cmd[0] in skipped:
            continue
        for tool in tools:
            print(f"== {tool} {what}", flush=True)
            # memcheck also reports device memory the program never freed (--leak-check full).
            leak = ["--leak-check", "full"] if tool == "memcheck" else []
            p = subprocess.run(["compute-sanitizer", "--tool", tool] + leak + ["--error-exitcode", str(ERROR_EXIT),
                                "./" + cmd[0]] + cmd[1:], cwd=ladder.ROOT, capture_output=True, text=True)
            sys.stdout.write(p.stdout)
            why = ladder.skip_reason(p.returncode, p.stderr)
            if why:
                skipped[cmd[0]] = why
                print(f"skipped: {why}")
                break
            if p.returncode != 0:
                sys.stderr.write(p.stderr)
                print(f"compute-sanitizer --tool {tool} {' '.join(cmd)}: exit {p.returncode}", file=sys.stderr)
                return 1
            done += 1
    for binary, why in skipped.items():
        print(f"skipped {binary}: {why}")
    print(f"compute-sanitizer: no errors in {done} runs")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
