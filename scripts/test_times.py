#!/usr/bin/env python3
"""How long the test suite takes, recorded: runs a test command (make test, make test-deep), keeps
its whole output as a log in results/ and records one row in results/test-times.csv: when, on what
(the GPU and the CPUs), the commit, the command, its wall seconds, prove's own wall seconds, the
test files and tests prove counted, and the verdict. The README's times are read from these rows.

Usage: scripts/test_times.py --name NAME --commit REV [--results DIR] -- COMMAND ...
  NAME: what the row is called ("make-test", "make-test-deep", "fresh-clone-make-test"); the log is
  <results>/<machine>-<NAME>.txt, machine the GPU's name (or, without one, the CPU's and how many).
Exit: the command's own exit code (its row says FAIL), 2 for bad usage."""
import csv
import datetime
import os
import platform
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import ladder  # noqa: E402

COLUMNS = ["date", "name", "machine", "gpu", "cpus", "commit", "command", "wall_s", "prove_s", "files", "tests",
           "result", "log"]
KEY = ("name", "machine")


def cpu_name():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return re.sub(r"\s+", " ", line.split(":", 1)[1]).strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def gpu_name():
    """The first GPU's name as nvidia-smi says it, or '' without one."""
    try:
        p = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True,
                           text=True)
    except OSError:
        return ""
    return p.stdout.strip().splitlines()[0] if p.returncode == 0 and p.stdout.strip() else ""


def prove_summary(text):
    """(files, tests, prove's wall seconds, PASS or FAIL) from prove's last lines."""
    m = re.search(r"^Files=(\d+), Tests=(\d+), +(\d+) wallclock secs", text, re.M)
    verdict = re.search(r"^Result: (PASS|FAIL)", text, re.M)
    if not m:
        return "", "", "", "FAIL"
    return m.group(1), m.group(2), m.group(3), verdict.group(1) if verdict else "FAIL"


def main(argv):
    # Where the row goes is settled first: a MATMUL_RESULTS that cannot be a folder is refused
    # before anything else is read or run.
    default_results = None if any(a.startswith("--results") for a in argv) else ladder.measurements_dir()
    parser = ladder.ArgumentParser(prog="scripts/test_times.py", description=__doc__.splitlines()[0])
    parser.add_argument("--name", required=True, type=lambda s: s if re.fullmatch(r"[a-z0-9-]+", s) else
                        parser.error(f"bad --name '{s}': lower-case letters, digits and '-'"))
    parser.add_argument("--commit", required=True, help="the commit the tree is (the copy may hold no .git)")
    parser.add_argument("--results", type=ladder.results_folder, default=None,
                        help="where the log and the row go (default: as every measurement, MATMUL_RESULTS "
                             "or results/local/)")
    parser.add_argument("command", nargs="+", help="the test command, after --")
    args = parser.parse_args(argv)
    results = args.results or default_results
    gpu = gpu_name()
    cpus = os.cpu_count() or 1
    machine = ladder.slug(gpu) if gpu else ladder.slug(f"{cpu_name()} {cpus} cpus")
    log_path = os.path.join(results, f"{machine}-{args.name}.txt")
    started = datetime.datetime.now(datetime.timezone.utc)
    t0 = time.monotonic()
    # The output goes into the log as it comes, so that a run stopped from outside leaves what it did.
    lines = []
    with open(log_path, "w") as log:
        p = subprocess.Popen(args.command, cwd=ladder.ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True)
        for line in p.stdout:
            lines.append(line)
            log.write(line)
            log.flush()
        p.wait()
    wall = time.monotonic() - t0
    output = "".join(lines)
    files, tests, prove_s, verdict = prove_summary(output)
    if p.returncode != 0:
        verdict = "FAIL"
    head = (f"# {' '.join(args.command)}: {wall:.0f} s wall ({prove_s or '?'} s of it prove's), {files or '?'} test "
            f"files, {tests or '?'} tests, {verdict}.\n"
            f"# {started:%Y-%m-%d %H:%M} UTC, commit {args.commit}, on {gpu or 'no GPU'} with {cpus} CPUs "
            f"({cpu_name()}).\n")
    with open(log_path, "w") as f:
        f.write(head + output)
    row = dict(date=ladder.now_stamp(started), name=args.name, machine=machine, gpu=gpu, cpus=str(cpus),
               commit=args.commit, command=" ".join(args.command), wall_s=f"{wall:.0f}", prove_s=prove_s,
               files=files, tests=tests, result=verdict, log=os.path.basename(log_path))
    print(ladder.record(os.path.join(results, "test-times.csv"), [row], COLUMNS, KEY))
    print(head, end="")
    return p.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
