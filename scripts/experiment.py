#!/usr/bin/env python3
"""The measurements on the GPU, one runner for all. Each kind below is a list of program runs,
found as the build finds the programs (each says what it is: --describe) and as the steps
declare their experiments (their experiments.json); the runs go one after the other, each
program's CSV row is recorded with the date and the command (and the columns the kind adds: a
configuration, a build variant's parameter) in a results file, replacing earlier rows of the
same key (scripts/ladder.py). A program this GPU cannot run (exit 4; for a forced
configuration, exit 2) is skipped, saying why; without a GPU nothing runs (exit 3).

  compare         make compare: every program built here (each step, cuBLAS's rows, CUTLASS's
                  where built) at --sizes on --dists, into results/<device>.csv; the table
  configs         make config-sweep: every configuration of each program that has several,
                  forced with --config, into results/<device>-config-sweep.csv
  versions        the development versions (each step's versions/, built by make versions)
                  beside the steps they became, into results/<device>-versions.csv, with a log
  sweep           make sweep STEP=NN: what a step declares under "sweeps": the step, its build
                  variants ("variants": a -D parameter whose value is a column of the rows) and
                  the programs it names beside it ("beside": rows of the ladder or development
                  versions) at its sizes and inputs, into results/<device>-<sweep>.csv with a log
                  (with "results": "ladder", into the comparison's own results/<device>.csv; with
                  "caps": true, once under each smaller GPU's shared memory per block, into the
                  capped twins of that file); or a program of the step's own that prints its table
                  ("program"); or the step's own Python ("function": module.function in its folder,
                  handed the shared helpers and the sweep's options: make tile-sweep, make
                  warptile-sweep, make step-counters); a variant value the step does not declare,
                  or a size its program cannot take (its "multiple_of"), is refused before anything
                  is built or run

Usage: scripts/experiment.py KIND [options]   (scripts/experiment.py KIND --help)
"""
import os
import re
import shlex
import subprocess
import sys
import types

import ladder
import step_plugins

# ---- The runner: runs, rows, records ----

class Run:
    """One program run: its command (with --csv), its name in the progress lines, the columns the
    kind adds to its row, the program name its row must carry (None: not checked), whether a
    FAIL (exit 1) is expected (recorded and said, not an error), the row to record when this
    GPU cannot run it (None: nothing recorded), and the environment it runs in (cap: the shared
    memory per block it is capped to, MATMUL_SMEM_LIMIT, or None)."""

    def __init__(self, cmd, label, fields=None, name=None, fail_ok=False, skipped_row=None, cap=None):
        self.cmd, self.label, self.fields = [str(c) for c in cmd], label, dict(fields or {})
        self.name, self.fail_ok, self.skipped_row, self.cap = name, fail_ok, skipped_row, cap


class Log:
    """The progress lines, on the console and, where a kind keeps one, in its log file, headed
    with the device, the moment and the command."""

    def __init__(self, path=None, header=None):
        self.file = None
        if path:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            self.file = open(path, "w")
            self.file.write(header)

    def say(self, line):
        print(line, flush=True)
        if self.file:
            self.file.write(line + "\n")
            self.file.flush()

    def close(self):
        if self.file:
            self.file.close()


def progress(r):
    """One run's figures in a line."""
    return (f"{float(r['kernel_ms']):9.3f} ms {float(r['gflops']):8.0f} GFLOPS, max rel err "
            f"{float(r['max_rel_err']):.2e}, comp err {float(r.get('max_comp_err') or 'nan'):.2e}, "
            f"{r['precision']} {r['status']}" + (f", config {r['config']}" if r.get("config") else ""))


def measure(runs, log, stamp, too_big=False):
    """Run each Run in turn: {"rows": the rows to record, "failed": the commands that did not run
    or FAILed unexpectedly, "expected": those that FAILed as expected, "skipped": {label: why}}.
    too_big: exit 2 is this GPU's answer too (a forced configuration that does not fit)."""
    out = {"rows": [], "failed": [], "expected": [], "skipped": {}}
    for i, run in enumerate(runs, 1):
        head = f"[{i}/{len(runs)}] {run.label}"
        if log.file:
            log.say("$ " + " ".join(run.cmd))
        r, code, err = ladder.run_csv(run.cmd, {"MATMUL_SMEM_LIMIT": str(run.cap)}) if run.cap else ladder.run_csv(run.cmd)
        why = ladder.skip_reason(code, err, too_big)
        if why:
            out["skipped"][run.label] = why
            log.say(f"{head}: skipped: {why}")
            if run.skipped_row is not None:
                out["rows"].append(ladder.result_row(run.cmd, dict(run.skipped_row, status=f"skipped: {why}"), stamp))
            continue
        if r is None or (run.name and r["program"] != run.name):
            log.say(f"{head}: " + (f"exit {code}: {err}" if r is None else f"the program calls itself {r['program']}"))
            out["failed"].append(" ".join(run.cmd))
            continue
        out["rows"].append(ladder.result_row(run.cmd, dict(r, **run.fields), stamp))
        if code == 1:
            out["expected" if run.fail_ok else "failed"].append(" ".join(run.cmd))
        log.say(f"{head}: {progress(r)}" + (" (a FAIL this run expects)" if code == 1 and run.fail_ok else ""))
    return out


def run_table(cmd):
    """Run a program that prints a CSV table (a header line, then a row per line): (its rows, each
    a dict by the header, exit code, stderr). The chapters' own programs and a step's ceiling
    print theirs so."""
    p = subprocess.run([str(c) for c in cmd], cwd=ladder.ROOT, capture_output=True, text=True)
    lines = [line for line in p.stdout.strip().splitlines() if line]
    rows = [dict(zip(lines[0].split(","), line.split(","))) for line in lines[1:] if line != lines[0]] if lines else []
    return rows, p.returncode, p.stderr.strip()


def build(targets):
    """Build what runs need (a step's variants, its other programs) with make: (exit code, output)."""
    if not targets:
        return 0, ""
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    p = subprocess.run(["make", "--no-print-directory", f"-j{os.cpu_count() or 1}"] + list(targets), cwd=ladder.ROOT,
                       capture_output=True, text=True, env=env)
    return p.returncode, p.stdout + p.stderr


def log_header(device, stamp, kind, argv):
    return (f"# scripts/experiment.py {kind} on {device}, {stamp.replace('T', ' ').replace('Z', '')} UTC\n"
            f"# $ python3 scripts/experiment.py {shlex.join([kind] + list(argv))}\n")


def results_path(results, device, suffix=""):
    return os.path.join(results, ladder.slug(device) + suffix + ".csv")


def options(kind, **defaults):
    """The options every kind takes (--sizes, --reps, --results) with the kind's defaults, and its own."""
    ap = ladder.ArgumentParser(prog=f"experiment.py {kind}", description=DESCRIPTIONS[kind])
    ap.add_argument("--sizes", type=ladder.sizes_arg, default=defaults.get("sizes"),
                    help=f"matrix sizes, space-separated (default: {defaults.get('sizes') or 'the declared ones'})")
    ap.add_argument("--reps", type=ladder.positive_int, default=defaults.get("reps", 10),
                    help="timed kernel launches per run (default " + (
                        f"{defaults.get('reps', 10)})" if defaults.get("reps", 10) else "10, where a sweep declares none)"))
    ap.add_argument("--results", type=ladder.results_folder, default="",
                    help="the folder the rows go into (default: results/local/, or the one MATMUL_RESULTS names)")
    return ap


# ---- compare ----

def compare_table(rows, n, dist):
    """The comparison table for one size and input distribution: step, lesson, kernel ms,
    GFLOPS, speedup over the first step, % of cuBLAS, end-to-end ms, max and average relative
    error, max componentwise error, verdict."""
    by = {r["program"]: r for r in rows
          if int(r["n"]) == n and r["dist"] == dist and not r["status"].startswith("skipped")}
    first = ladder.STEPS[0] if ladder.STEPS else None  # speedups are over the first step
    base = float(by[first]["kernel_ms"]) if first in by else None
    ceiling = float(by["cublas"]["gflops"]) if "cublas" in by else None
    head = ["program", "lesson", "kernel ms", "GFLOPS", f"x {first}", "% cuBLAS", "end-to-end ms", "max rel err",
            "avg rel err", "comp err", "class", "config"]
    body = []
    for prog in ladder.LADDER:
        r = by.get(prog)
        if not r:
            continue
        k = float(r["kernel_ms"])
        body.append([prog, ladder.LADDER[prog][1], f"{k:.3f}", f"{float(r['gflops']):.0f}",
                     f"{base / k:.2f}" if base else "", f"{100 * float(r['gflops']) / ceiling:.1f}" if ceiling else "",
                     f"{float(r['total_ms']):.2f}", f"{float(r['max_rel_err']):.2e}", f"{float(r['avg_rel_err']):.2e}",
                     f"{float(r['max_comp_err']):.2e}", f"{r['precision']} {r['status']}", r.get("config") or ""])
    return ladder.text_table(head, body, left=(0, 1, len(head) - 1))


def compare(argv):
    ap = options("compare", sizes="1000 4096")
    ap.add_argument("--programs", help="programs to run (default: every one of the FP32 ladder built here: each step "
                    "folder's, cuBLAS's FP32 and TF32 rows, and CUTLASS's where it is built)")
    ap.add_argument("--dists", default=" ".join(ladder.DISTS), help="input distributions (default: uniform wide)")
    ap.add_argument("--reported", default="", help="programs whose FAIL is recorded and reported, not an error "
                    "(a peer on inputs it is not made for)")
    ap.add_argument("--list", action="store_true", help="list the programs it would run, with their lessons, "
                    "and stop (no GPU needed)")
    a = ap.parse_args(argv)
    found = ladder.discover()
    programs = a.programs.split() if a.programs is not None else [p for p in found if p in ladder.LADDER]
    unknown = [x for x in programs if x not in ladder.LADDER]
    if unknown:
        ap.error(f"unknown program '{unknown[0]}' (known: {' '.join(ladder.LADDER)})")
    if not programs:
        ap.error("--programs names no program")
    dists, reported = a.dists.split(), a.reported.split()
    if not dists or any(d not in ladder.DISTS + ladder.RANGE_DISTS for d in dists):
        ap.error(f"bad --dists: expected some of {' '.join(ladder.DISTS + ladder.RANGE_DISTS)}")
    strays = [x for x in reported if x not in programs]
    if strays:
        ap.error(f"--reported names {' '.join(strays)}, which this run does not measure "
                 f"(it runs: {' '.join(programs)})")
    if a.list:
        for prog in programs:
            d = ladder.PROGRAMS[prog]
            print(f"{prog:16s} {d['precision']}  {' '.join(ladder.program_command(prog)):32s} {d['lesson']}")
        return 0
    device = ladder.require_gpu("compare")
    if device is None:
        return ladder.EXIT_NO_GPU
    stamp = ladder.now_stamp()
    runs = [Run(ladder.program_command(prog) + ["-n", n, "--dist", dist, "--reps", a.reps, "--csv"],
                f"{prog} n={n} {dist}", fail_ok=prog in reported,
                skipped_row={"program": prog, "n": str(n), "device": device, "dist": dist})
            for n in a.sizes for prog in programs for dist in dists]
    got = measure(runs, Log(), stamp)
    recorded = ladder.record(results_path(a.results, device), got["rows"])
    ladder.record_catalogue([ladder.PROGRAMS[p] for p in programs], os.path.join(a.results, "programs.csv"))
    for n in a.sizes:
        for dist in dists:
            print(f"\n{device}, n = {n}, {dist} inputs\n" + compare_table(got["rows"], n, dist))
    print(f"\n{recorded}")
    for label, why in got["skipped"].items():
        print(f"skipped {label}: {why}")
    if got["expected"]:
        print("FAIL, recorded and reported (--reported): " + "; ".join(got["expected"]))
    if got["failed"]:
        print("FAILED: " + "; ".join(got["failed"]), file=sys.stderr)
        return 1
    return 0


# ---- configs ----

CONFIG_COLUMNS = ["date", "command", "program", "config", "smem_bytes", "n", "device", "kernel_ms", "gflops",
                  "max_rel_err", "status", "max_comp_err"]
CONFIG_KEY = ("program", "config", "n", "device")


def configs(argv):
    ap = options("configs", sizes="1000 2048 4096 8192")
    ap.add_argument("--programs", help="default: every program built here that has several configurations")
    a = ap.parse_args(argv)
    found = ladder.discover()
    programs = a.programs.split() if a.programs else [p for p, d in found.items() if d["configs"]]
    unknown = [p for p in programs if p not in found]
    if unknown:
        ap.error(f"unknown program '{unknown[0]}' (built here: {' '.join(found)})")
    device = ladder.require_gpu("config-sweep")
    if device is None:
        return ladder.EXIT_NO_GPU
    runs = [Run(ladder.program_command(prog) + ["-n", n, "--reps", a.reps, "--csv", "--config", config],
                f"{prog} {config} n={n}", fields={"program": prog, "config": config})
            for prog in programs for config in found[prog]["configs"] for n in a.sizes]
    got = measure(runs, Log(), ladder.now_stamp(), too_big=True)  # too big: the configuration does not fit
    print(ladder.record(results_path(a.results, device, "-config-sweep"), got["rows"], CONFIG_COLUMNS, CONFIG_KEY))
    return 1 if got["failed"] else 0


# ---- versions ----

def versions(argv):
    ap = options("versions", sizes="4096 8192", reps=20)
    a = ap.parse_args(argv)
    device = ladder.require_gpu("versions")
    if device is None:
        return ladder.EXIT_NO_GPU
    # Each version as it describes itself (its program's name, what it changed, whether it fails on
    # purpose): asked of the built programs, and recorded beside the rows for the versions table.
    chains = ladder.versions(describe_built=True)
    missing = [b for b, _, _ in chains.values() if not os.path.exists(os.path.join(ladder.ROOT, b))]
    missing += [os.path.join(ladder.VERSIONS_DIR, os.path.basename(src)[:-3]) for _, sources in ladder.version_sources()
                for src in sources if ladder.version_binary(src) not in ladder.VERSION_DESCRIPTIONS]
    if missing:
        print(f"versions: not built: {' '.join(missing)} (make all versions)", file=sys.stderr)
        return 1
    ladder.record_catalogue([d for d in ladder.VERSION_DESCRIPTIONS.values() if d["program"] in chains],
                            os.path.join(a.results, "programs.csv"))
    stamp = ladder.now_stamp()
    log = Log(results_path(a.results, device, "-versions")[:-4] + ".txt", log_header(device, stamp, "versions", argv))
    # A version kept to show a failure says so (.fails_on_purpose): its FAIL is recorded, expected.
    runs = [Run([binary, "-n", n, "--reps", a.reps, "--csv"], f"{prog} n={n}", name=prog, fail_ok=may_fail)
            for prog, (binary, _, may_fail) in chains.items() for n in a.sizes]
    got = measure(runs, log, stamp, too_big=True)  # too big: no configuration fits this GPU
    if got["rows"]:
        log.say(ladder.record(results_path(a.results, device, "-versions"), got["rows"]))
    log.close()
    return 1 if got["failed"] else 0


# ---- sweep: what a step declares ----

def step_sweeps(steps=None, name=None, part=None):
    """[(step, sweep name, entry)]: the sweeps the steps declare (experiments.json's "sweeps"),
    of the given steps (default: all), name and reproduce part (an entry's "part", default
    "sweeps")."""
    return [(step, n, e) for step, declared in ladder.experiments("sweeps") for n, e in declared.items()
            if (not steps or step in steps) and (name is None or n == name)
            and (part is None or e.get("part", "sweeps") == part)]


def variant_builds(step, values=None):
    """[(value, binary)]: the step's build variants (its experiments.json's "variants"), as the
    Makefile builds them (obj/variants/<folder>/<PARAMETER>/<value>/<program>); values: only those."""
    entry = ladder.experiments().get(step, {}).get("variants")
    if not entry:
        return []
    folder = ladder.step_folder(step)
    return [(str(v), f"obj/variants/{folder}/{entry['parameter']}/{v}/{step}") for v in entry["values"]
            if values is None or str(v) in values]


def sweep_command(step, program):
    """The command of a program a sweep names: a row of the ladder, or a development version."""
    if program in ladder.PROGRAMS:
        return ladder.program_command(program)
    chains = ladder.versions()
    if program in chains:
        return [chains[program][0]]
    raise SystemExit(f"{step}'s experiments.json: sweep names '{program}', which is neither a program built here "
                     "nor a development version")


def sweep_reps(entry, a):
    """The timed launches of a sweep's runs: its own ("reps": the lab's tile sweep keeps the lab's 5),
    else --reps, else 10."""
    return entry.get("reps") or a.reps or 10


def sweep_plan(step, name, entry, a):
    """What one sweep does: {"builds": the binaries make builds first, "runs": its Runs, or
    "table": the command of a program that prints its own table, or "function": the step's own
    Python that measures, "columns" and "key": its results file's, "ladder": whether its rows go
    into the comparison's files}."""
    folder = ladder.step_folder(step)
    reps = sweep_reps(entry, a)
    if "function" in entry:  # the step's own Python: it builds, runs and records (sweep_options)
        return {"builds": [], "function": entry["function"], "key": ()}
    if "program" in entry:  # a program of the step's own, printing its table (its sizes checked: sweep_refusal)
        sizes = a.sizes or entry["sizes"]
        exe = f"obj/{folder}/{entry['program']}"
        cmd = [exe] + [arg.format(sizes=" ".join(map(str, sizes)), reps=reps) for arg in entry["args"]]
        return {"builds": [exe], "table": cmd, "key": tuple(entry["key"])}
    variants = ladder.experiments()[step]["variants"] if entry.get("variants") else None
    column = [variants["column"]] if variants else []
    builds = variant_builds(step, a.variants.split() if a.variants is not None else None) if variants else []
    programs = [(p, sweep_command(step, p), {}) for p in entry.get("beside", [])]
    # "peers": programs built only where their library is (GEMMul8's): beside the step where built
    programs += [(p, ladder.program_command(p), {}) for p in entry.get("peers", []) if p in ladder.PROGRAMS]
    programs.append((step, ladder.program_command(step), {}))
    programs += [(step, [binary], {column[0]: value}) for value, binary in builds]
    specs, seen = [], set()
    for spec in entry["runs"]:
        for n in a.sizes or spec["sizes"]:
            for dist in spec["dists"]:
                if (n, dist) not in seen:  # sizes given on the command line serve every spec once
                    seen.add((n, dist))
                    specs.append((n, dist, [arg.format(reps=reps) for arg in spec["args"]],
                                  spec.get("variants", True) or a.sizes))
    # Under caps: the whole sweep under each smaller GPU's shared memory per block in turn (those
    # at or above this GPU's own are left out when it runs).
    caps = sorted(ladder.SMEM_CAPS) if entry.get("caps") else [None]
    # Size by size, every program in turn: the ratios at a size come from the same minutes. A
    # spec with "variants": false runs the step as built and the programs beside it alone.
    runs = [Run(cmd + ["-n", n, "--dist", dist, "--csv"] + args,
                prog + "".join(f" {k}={v}" for k, v in fields.items()) + f" n={n} {dist}"
                + (f" capped to {cap // 1024} KB" if cap else ""),
                fields=dict(dict.fromkeys(column, ""), **fields), name=prog, fail_ok=True, cap=cap)
            for cap in caps for n, dist, args, with_variants in specs
            for prog, cmd, fields in programs if with_variants or not fields]
    versions = [cmd[0] for p, cmd, _ in programs if p not in ladder.PROGRAMS]  # make versions builds them
    return {"builds": versions + [b for _, b in builds], "runs": runs, "columns": ladder.RESULT_COLUMNS + column,
            "key": ladder.KEY + tuple(column), "ladder": entry.get("results") == "ladder"}


def sweep_options(step, name, entry, a, argv):
    """What a sweep of the step's own Python is handed beside the shared helpers: the step, the
    sweep's name and entry, the sizes asked (None: its own), its reps, the results folder, the
    command that runs it again (for its rows), and its log (log(device): results/<device>-<name>.txt,
    headed with the moment and the command)."""
    stamp = ladder.now_stamp()
    header = lambda device: log_header(device, stamp, "sweep", argv) + f"# {step}'s {name}: {entry['why']}\n"  # noqa: E731
    return types.SimpleNamespace(step=step, folder=ladder.step_folder(step), name=name, entry=entry, sizes=a.sizes,
                                 reps=sweep_reps(entry, a), results=a.results, stamp=stamp,
                                 command=["python3", "scripts/experiment.py", "sweep"] + list(argv),
                                 log=lambda device: Log(results_path(a.results, device, f"-{name}")[:-4] + ".txt",
                                                        header(device)))


def sweep_refusal(chosen, a):
    """Why the sweeps chosen ([(step, name, entry)]) cannot run as asked, in one line, or None: a
    value of --variants that a step does not declare (its experiments.json's "variants": the
    values it builds), --variants where no sweep chosen builds variants, or a size a sweep's own
    program cannot take (its "multiple_of")."""
    values = a.variants.split() if a.variants is not None else []
    with_variants = list(dict.fromkeys(step for step, _, entry in chosen if entry.get("variants")))
    if values and not with_variants:
        return (f"--variants {' '.join(values)}: no sweep chosen builds variants (those that do: "
                f"{' '.join(f'{s} {n}' for s, n, e in step_sweeps() if e.get('variants')) or 'none'})")
    for step in with_variants:
        declared = ladder.experiments()[step]["variants"]
        known = [str(v) for v in declared["values"]]
        unknown = [v for v in values if v not in known]
        if unknown:
            return (f"--variants {' '.join(unknown)}: {step} declares {declared['parameter']} = {' '.join(known)} "
                    "(its experiments.json's \"variants\")")
    for step, name, entry in chosen:
        multiple = entry.get("multiple_of", 1)
        off = [str(n) for n in (a.sizes or entry.get("sizes", [])) if n % multiple]
        if "program" in entry and off:
            return (f"{'--sizes' if a.sizes else step + chr(39) + 's experiments.json: sizes'} {' '.join(off)}: "
                    f"{step}'s sweep {name} ({entry['program']}) takes sizes that are multiples of {multiple} only")
    return None


def sweep(argv):
    ap = options("sweep", reps=None)
    ap.add_argument("--step", help="the step whose sweeps run (NN, stepNN; default: every step that declares one)")
    ap.add_argument("--name", help="only this sweep of the step's")
    ap.add_argument("--part", help="only the sweeps of this make reproduce part (an entry's \"part\", default "
                    "\"sweeps\")")
    ap.add_argument("--variants", help="only these values of the step's build variants (\"\": none, the "
                    "programs beside it alone)")
    ap.add_argument("--plan", action="store_true", help="print what it would build and run, and stop (no GPU needed)")
    a = ap.parse_args(argv)
    ladder.discover()
    steps = None
    if a.step:
        steps = ["step" + a.step if a.step.isdigit() else a.step]
        if steps[0] not in ladder.STEPS:
            ap.error(f"no step '{a.step}' here (steps: {' '.join(ladder.STEPS)})")
    chosen = step_sweeps(steps, a.name, a.part)
    if not chosen:
        what = (f"{' by ' + steps[0] if steps else ''}{' named ' + a.name if a.name else ''}"
                f"{' for part ' + a.part if a.part else ''}")
        declared = [f"{s} {n} (part {e.get('part', 'sweeps')})" for s, n, e in step_sweeps()]
        if what:  # something was asked for that no step declares: refused, not run as nothing
            ap.error(f"no sweep declared{what} (declared: {', '.join(declared) or 'none'})")
        print("sweep: no step declares a sweep (a step's experiments.json, \"sweeps\")")
        return 0
    refusal = sweep_refusal(chosen, a)
    if refusal:
        ap.error(refusal)
    todo = [(step, name, entry, sweep_plan(step, name, entry, a)) for step, name, entry in chosen]
    if a.plan:
        for step, name, entry, plan in todo:
            if "function" in plan:
                print(f"{step}'s sweep {name}: its own Python, {ladder.step_folder(step)}/"
                      f"{plan['function'].rsplit('.', 1)[0]}.py's {plan['function'].rsplit('.', 1)[1]}()")
                continue
            into = f"<device>-{name}" if not plan.get("ladder") else "<device>-capped-to-<N>-kb" if entry.get("caps") \
                else "<device>"
            print(f"{step}'s sweep {name}: into results/{into}.csv, by {', '.join(plan['key'])}")
            print("".join(f"  make {b}\n" for b in plan["builds"]), end="")
            runs = [(run.cmd, run.cap) for run in plan["runs"]] if "runs" in plan else [(plan["table"], None)]
            print("".join(f"  $ {' '.join(cmd)}" + (f"   [MATMUL_SMEM_LIMIT={cap}]" if cap else "") + "\n"
                          for cmd, cap in runs), end="")
        return 0
    own = [t for t in todo if "function" in t[3]]  # the steps' own Python, after the runs below
    todo = [t for t in todo if "function" not in t[3]]
    code = measure_sweeps(todo, a, argv) if todo else 0
    if code == ladder.EXIT_NO_GPU:  # said once; the steps' own sweeps need the GPU too
        return code
    for step, name, entry, plan in own:
        # Each checks its tools and the GPU itself, builds, runs and records; one it stops (a tool
        # missing: its one line said) leaves the others to run.
        measure_own = step_plugins.function(ladder.step_folder(step), plan["function"])
        try:
            done = measure_own(sweep_options(step, name, entry, a, argv))
        except SystemExit as stop:
            if not isinstance(stop.code, int):
                print(stop.code, file=sys.stderr)
            done = stop.code if isinstance(stop.code, int) else 1
        code = code or done
    return code


def measure_sweeps(todo, a, argv):
    """Build, run and record the sweeps that are runs of programs (todo: [(step, name, entry,
    plan)]): the exit code."""
    targets = sorted({b for *_, plan in todo for b in plan["builds"]})
    if targets:
        ladder.require_tool("make", "the sweep builds its programs with make")
    code, out = build(targets)
    if code != 0:
        print(out + "sweep: the builds failed", file=sys.stderr)
        return 1
    device, fields = ladder.gpu_info()
    if device is None:
        print(f"sweep: no GPU to run on: {fields}", file=sys.stderr)
        return ladder.EXIT_NO_GPU
    limit = int(fields.get("smem_device_optin_bytes") or 0)
    stamp, failed = ladder.now_stamp(), []
    for step, name, entry, plan in todo:
        path = results_path(a.results, device, f"-{name}")
        log = Log(path[:-4] + ".txt", log_header(device, stamp, "sweep", argv) + f"# {step}'s {name}: {entry['why']}\n")
        if "runs" in plan:
            # a cap at or above this GPU's own shared memory per block would measure it as it is
            got = measure([r for r in plan["runs"] if not r.cap or r.cap < limit], log, stamp)
            failed += got["failed"]
            if plan["ladder"]:  # the comparison's files: the device's, and each cap's own
                for dev in dict.fromkeys(r["device"] for r in got["rows"]):
                    log.say(ladder.record(results_path(a.results, dev), [r for r in got["rows"] if r["device"] == dev],
                                          plan["columns"], plan["key"]))
            else:
                log.say(ladder.record(path, got["rows"], plan["columns"], plan["key"]))
        else:  # its rows as the program prints them
            log.say("$ " + " ".join(plan["table"]))
            rows, code, err = run_table(plan["table"])
            why = ladder.skip_reason(code, err)
            if why or code != 0 or not rows:
                log.say(f"{step}'s {name}: " + (f"skipped: {why}" if why else f"exit {code}: {err}"))
                failed += [] if why else [" ".join(plan["table"])]
                continue
            for r in rows:
                log.say("  " + "  ".join(f"{k}={v}" for k, v in r.items() if k not in ("date", "command")))
            log.say(ladder.record(path, rows, list(rows[0]), plan["key"]))
        log.close()
    if failed:
        print("FAILED to run: " + "; ".join(failed), file=sys.stderr)
        return 1
    return 0


KINDS = {"compare": compare, "configs": configs, "versions": versions, "sweep": sweep}
# Each kind's line of the list above, for its --help.
DESCRIPTIONS = {m.group(1): " ".join(m.group(2).split())
                for m in re.finditer(r"^  ([a-z-]+) +(.*(?:\n {18}.*)*)", __doc__, re.M)}


def main(argv):
    if argv[:1] in (["--help"], ["-h"]):
        print(__doc__.strip())
        return 0
    if not argv or argv[0] not in KINDS:
        print(f"usage: scripts/experiment.py {'|'.join(KINDS)} [options] (--help)", file=sys.stderr)
        return ladder.EXIT_USAGE
    return KINDS[argv[0]](argv[1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
