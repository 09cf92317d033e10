"""What the scripts share: the ladder's programs and lessons, the device and host slugs, the
results CSV with its replace-by-key rule, the shared-memory caps of smaller GPUs, and the
runner scripts' common steps (their options, the GPU check, the rows they record, the skips,
the table). Standard library only.

Usage: scripts/ladder.py caps   (the caps' byte values, one per line, for the Perl tests)
"""
import argparse
import csv
import datetime
import glob
import io
import json
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The programs are found, not listed: every step folder stepNN_name holds a program stepNN
# (the Makefile builds it), and cublas/ and cutlass/ hold the references. Each program says
# what it is (--describe: one block of key=value lines per arithmetic, --math); the rows it
# gives are the names in the results ("cublas_tf32": cublas/cublas --math tf32).
# The descriptions of the programs measured are kept beside the measurements, in
# results/programs.csv, so that the charts and tables need no build.
CATALOGUE = os.path.join(ROOT, "results", "programs.csv")

# The recorded runs in results/ are the reference set the pages, tables and charts read. A run
# made here goes beside them, into results/local/ (which git ignores), so that a user's own
# measurements never rewrite a recorded file; MATMUL_RESULTS (make ... RESULTS=results) names
# another folder: the reference set itself, when a run is to be recorded.
REFERENCE_RESULTS = os.path.join(ROOT, "results")


def measurements_dir(chosen=""):
    """The folder a measurement writes its rows and logs into (made if missing): chosen, else
    the one MATMUL_RESULTS names, else results/local/. One that cannot be a folder ends the
    run with one line (exit 2) before anything is measured."""
    chosen = chosen or os.environ.get("MATMUL_RESULTS") or os.path.join(REFERENCE_RESULTS, "local")
    path = chosen if os.path.isabs(chosen) else os.path.join(ROOT, chosen)
    try:
        if os.path.exists(path) and not os.path.isdir(path):
            raise NotADirectoryError(0, "is a file, not a folder")
        os.makedirs(path, exist_ok=True)
    except OSError as e:
        print(f"results folder {chosen}: {(e.strerror or str(e)).lower()}", file=sys.stderr)
        raise SystemExit(EXIT_USAGE)
    return path


def results_folder(text):
    """argparse type of --results: measurements_dir(text)."""
    return measurements_dir(text)
# What the pages need of each program's --describe, recorded: the steps', the references' and
# the development versions' (whose binaries are in obj/versions/); make diff, the versions table
# and a step's table read builds_on, change and fails_on_purpose from here where nothing is built.
CATALOGUE_COLUMNS = ["row", "program", "binary", "math", "math_index", "folder", "lesson", "chapter", "precision",
                     "compensated", "min_cc", "exact_cc", "needs", "builds_on", "change", "fails_on_purpose"]
REFERENCE_BINARIES = ["cublas/cublas", "cutlass/cutlass", "gemmul8/gemmul8"]
OPTIONAL_BINARIES = {"cutlass/cutlass": "cutlass/cutlass is not built (make cutlass fetches its headers)",
                     "gemmul8/gemmul8": "gemmul8/gemmul8 is not built (make gemmul8-lib builds its library)"}


def step_binaries():
    """stepNN_name/stepNN, ...: one per step folder, in the ladder's order."""
    folders = sorted(d for d in os.listdir(ROOT) if re.fullmatch(r"step\d\d_\w+", d)
                     and os.path.isdir(os.path.join(ROOT, d)))
    return [f"{d}/{d.split('_')[0]}" for d in folders]


def describe(binary, n=None):
    """A program's --describe blocks, each a dict (its keys: common/step_main.c), plus the
    binary and its folder. Raises OSError when the program is not built."""
    cmd = [os.path.join(ROOT, binary), "--describe"] + (["-n", str(n)] if n else [])
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise OSError(f"{binary} --describe exited {p.returncode}: {p.stderr.strip()}")
    blocks = []
    for i, text in enumerate(p.stdout.strip().split("\n\n")):
        d = dict(line.split("=", 1) for line in text.splitlines())
        d.update(binary=binary, folder=os.path.dirname(binary), math_index=str(i))
        d["configs"] = d.get("configs", "").split()
        blocks.append(d)
    return blocks


VERSIONS_DIR = os.path.join("obj", "versions")  # where make versions builds them


def is_version(d):
    """Whether a description is a development version's (its binary in obj/versions/)."""
    return os.path.dirname(d["binary"]) == VERSIONS_DIR


def version_sources():
    """[(step binary, [its versions' sources, in order])] for each step with a versions/ folder:
    the chain's order is its files' names (stepNN_v1_..., stepNN_v2_..., numbered), then the step."""
    out = []
    for step in step_binaries():
        sources = glob.glob(os.path.join(ROOT, os.path.dirname(step), "versions", "*.cu"))
        number = lambda f: int(re.search(r"_v(\d+)", os.path.basename(f)).group(1))  # noqa: E731
        if sources:
            out.append((step, [os.path.relpath(f, ROOT) for f in sorted(sources, key=number)]))
    return out


def version_binary(source):
    """Where make versions builds a version: obj/versions/<its file's name>."""
    return os.path.join(VERSIONS_DIR, os.path.basename(source)[:-3])


def version_chains():
    """The development versions, found: for each step with a versions/ folder, its versions in
    their files' order and then the step, each {"program", "source", "binary", "change",
    "fails_on_purpose"} as the program says of itself (--describe: asked of the built program,
    else as recorded in results/programs.csv). A version described neither way is left out
    (make versions builds it; make plots then records it)."""
    chains = []
    for step, sources in version_sources():
        chain = []
        for source, binary in [(src, version_binary(src)) for src in sources] + [(step + ".cu", step)]:
            d = VERSION_DESCRIPTIONS.get(binary) or next((d for d in PROGRAMS.values() if d["binary"] == binary), None)
            if d:
                chain.append({"program": d["program"], "source": source, "binary": binary, "change": d.get("change", ""),
                              "fails_on_purpose": d.get("fails_on_purpose", "")})
        chains.append(chain)
    return chains


def versions(describe_built=False):
    """{program (its CSV name): (binary, what changed from the one before, may FAIL its bound)},
    the chains one after the other, as the programs say of themselves (version_chains);
    describe_built: each built version asked again first (describe_versions)."""
    if describe_built:
        describe_versions()
    return {v["program"]: (v["binary"], v["change"], bool(v["fails_on_purpose"]))
            for chain in version_chains() for v in chain}


def describe_versions():
    """Ask every built development version what it is (--describe), in place of its recorded
    description: [the descriptions]."""
    found = [d for _, sources in version_sources() for src in sources
             if os.path.exists(os.path.join(ROOT, version_binary(src))) for d in describe(version_binary(src))]
    VERSION_DESCRIPTIONS.update((d["binary"], d) for d in found)
    return found


def experiments(key=None):
    """What each step measures beyond the standard comparison, as its folder declares it
    (stepNN_name/experiments.json, each entry with its "why"): {program: {name: entry}};
    with key, [(program, entry)] of the steps that declare that experiment, in order."""
    found = {}
    for step in step_binaries():
        path = os.path.join(ROOT, os.path.dirname(step), "experiments.json")
        if os.path.exists(path):
            with open(path) as f:
                found[os.path.basename(step)] = json.load(f)
    if key is None:
        return found
    return [(p, e[key]) for p, e in found.items() if key in e]


def step_folder(program):
    """A step's folder ("stepNN_name") from its program's name."""
    return next(os.path.dirname(b) for b in step_binaries() if os.path.basename(b) == program)


def step_before(program):
    """The step this one builds on: the (first) one it names (its --describe's builds_on: asked of
    the built program, else as recorded in results/programs.csv), else the step before it on the
    ladder (the step folders' order); None for the first."""
    binaries = step_binaries()
    steps = [os.path.basename(b) for b in binaries]
    i = steps.index(program)
    # A step may build on several ("step16 step17": step 16's passes, step 17's schedule): its
    # lesson is told against the first.
    declared = (PROGRAMS.get(program, {}).get("builds_on") or "").split()
    for named in declared:
        if named not in steps[:i]:
            raise ValueError(f"{program} builds on '{named}' (its step_info's builds_on), which is no step "
                             "before it")
    if declared:
        return declared[0]
    return steps[i - 1] if i > 0 else None


def before(name, in_chain=False):
    """(source of the program before it, its own source): for a step ("stepNN"), the step
    before it on the ladder; in_chain, for a development version or the step that ends a chain
    ("stepNN_v2", "stepNN"), the one before it in its chain, the first version against the
    step before its step. None when it has none."""
    for chain in version_chains() if in_chain else []:
        names = [v["program"] for v in chain]
        if name in names:
            i = names.index(name)
            if i > 0:
                return chain[i - 1]["source"], chain[i]["source"]
            name = names[-1]  # the first version: against the step before its step
            prev = step_before(name)
            if not prev:
                return None
            return next(b for b in step_binaries() if b.endswith("/" + prev)) + ".cu", chain[0]["source"]
    steps = {os.path.basename(b): b for b in step_binaries()}
    if name not in steps or not step_before(name):
        return None
    return steps[step_before(name)] + ".cu", steps[name] + ".cu"


def describe_built(step, versions_too=False):
    """Ask a step's built program (and with versions_too its built versions) what it is, in place
    of its recorded description: make diff builds them, then asks them what they build on."""
    binary = next((b for b in step_binaries() if os.path.basename(b) == step), None)
    if binary and os.path.exists(os.path.join(ROOT, binary)):
        PROGRAMS.update((d["row"], d) for d in describe(binary))
    if versions_too:
        describe_versions()


def first_step():
    """The first step, which speedups are measured against."""
    return os.path.basename(step_binaries()[0])


HARNESS = "obj/libharness.a"  # common/*.c, as every program links it (the Makefile builds it)


def arch_flags():
    """nvcc's architecture flags of this build, as the Makefile computes them."""
    require_tool("make")
    p = subprocess.run(["make", "-s", "-p", "-n", "all"], cwd=ROOT, capture_output=True, text=True)
    m = re.search(r"^ARCH_FLAGS :?= (.*)$", p.stdout, re.M)
    return m.group(1).split() if m else ["-arch=sm_90"]


def build_variant(source, defines, exe, arch, extra=()):
    """A step's source built with -D flags into exe (a step's own experiment: its tile sizes,
    its tile shapes), as the Makefile builds the step: (exit code, nvcc's stderr)."""
    require_tool("nvcc")
    os.makedirs(os.path.join(ROOT, os.path.dirname(exe)), exist_ok=True)
    cmd = ["nvcc", "-O3"] + list(arch) + ["-Icommon"] + list(extra) + [f"-D{d}" for d in defines] + \
        ["-o", exe, source, HARNESS, "-Xcompiler", "-fopenmp"]
    p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    return p.returncode, p.stderr


def order_key(d):
    """Steps by number, then the references, each in the order its arithmetics are declared,
    then the development versions."""
    return (2 if is_version(d) else 0 if d["program"].startswith("step") else 1, d["binary"],
            int(d.get("math_index") or 0))


def discover(n=None, built_only=False):
    """Every program built here, described: {row: description}, in the ladder's order. A step
    or cuBLAS that is not built ends the script (run make), unless built_only; CUTLASS is
    optional. A script that records measurements records these beside them
    (record_catalogue). The development versions built here are asked too (describe_versions);
    the others keep their recorded descriptions."""
    found = {}
    for binary in step_binaries() + REFERENCE_BINARIES:
        if (binary in OPTIONAL_BINARIES or built_only) and not os.path.exists(os.path.join(ROOT, binary)):
            continue
        try:
            blocks = describe(binary, n)
        except OSError as err:
            raise SystemExit(f"{err} (run make first)")
        found.update((d["row"], d) for d in blocks)
    _load({**found, **{d["row"]: d for d in VERSION_DESCRIPTIONS.values()}})
    describe_versions()
    return found


def read_catalogue(path=CATALOGUE):
    """The recorded descriptions, {row: description}, in the ladder's order."""
    if not os.path.exists(path):
        return {}
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    return {r["row"]: r for r in sorted(rows, key=order_key)}


def record_catalogue(descriptions, path=CATALOGUE):
    """Merge descriptions into results/programs.csv: each row replaces its old description."""
    new = list(descriptions)
    names = {d["row"] for d in new}
    rows = [r for r in read_catalogue(path).values() if r["row"] not in names] + new
    rows.sort(key=order_key)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path + ".tmp", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=CATALOGUE_COLUMNS, extrasaction="ignore", lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    os.replace(path + ".tmp", path)


def _load(descriptions):
    """Set the module's views of a set of descriptions (the catalogue's, or discover()'s): the
    programs of the ladder and the references, and apart from them the development versions."""
    global PROGRAMS, LADDER, STEPS, MATH_ROWS, TENSOR_STEPS, VERSION_DESCRIPTIONS
    PROGRAMS = {r: d for r, d in descriptions.items() if not is_version(d)}
    # binary -> description: a version is found by the file it is built from
    VERSION_DESCRIPTIONS = {d["binary"]: d for d in descriptions.values() if is_version(d)}
    # row -> (folder, lesson in a few words)
    # (the FP32 ladder: an FP64 arithmetic, cuBLAS DGEMM's, is measured beside the FP64 programs)
    LADDER = {r: (d["folder"], d["lesson"]) for r, d in PROGRAMS.items() if d["precision"] != "fp64"}
    STEPS = [r for r, d in PROGRAMS.items() if d["program"].startswith("step")]
    # Rows of one program run with --math: row name -> (binary name, --math value).
    MATH_ROWS = {r: (d["program"], d["math"]) for r, d in PROGRAMS.items() if d["math"] and r != d["program"]}
    # The tensor-core chapter: its steps are judged against the references' TF32 and 3xTF32 rows.
    TENSOR_STEPS = [r for r in STEPS if PROGRAMS[r]["chapter"] == "tensor-cores"]


_load(read_catalogue())


def chapter_of(row):
    return PROGRAMS[row]["chapter"] if row in PROGRAMS else ""


REFERENCE_NAMES = {"cublas": "cuBLAS SGEMM", "cublas_tf32": "cuBLAS TF32", "cutlass_tf32": "CUTLASS TF32",
                   "cutlass_3xtf32": "CUTLASS 3xTF32", "cublas_dgemm": "cuBLAS DGEMM",
                   "cublas_dgemm_emulated": "cuBLAS DGEMM emulated"}


def label(row):
    """A row's name in charts and table headers: 'stepNN' -> 'step NN', 'cublas_tf32' -> 'cuBLAS TF32'."""
    return REFERENCE_NAMES.get(row, row.replace("step", "step ", 1) if row.startswith("step") else row)


# The conditions a GPU row was measured under, the last columns of every program's row
# (common/conditions.h): the device's UUID (the multi-GPU chapter's rows name theirs in uuids), the
# SM clock averaged over the timed launches, the power limit, the driver, the CUDA runtime and
# cuBLAS. Rows recorded before them lack them, and stay readable: a reader asks r.get(column).
CONDITION_COLUMNS = ["device_uuid", "sm_clock_mhz", "power_limit_w", "driver_version", "cuda_runtime_version",
                     "cublas_version"]
# The programs' --csv columns (common/step_main.c), and the results file's.
PROGRAM_COLUMNS = ["program", "n", "device", "kernel_ms", "gflops", "total_ms", "max_rel_err", "avg_rel_err",
                   "e2e_gflops", "alloc_ms", "h2d_ms", "kernel_e2e_ms", "d2h_ms", "free_ms", "reps", "check",
                   "rows_checked", "tolerance", "status", "config", "smem_bytes", "smem_limit", "dist",
                   "precision", "max_comp_err", "avg_comp_err"] + CONDITION_COLUMNS
RESULT_COLUMNS = ["date", "command"] + PROGRAM_COLUMNS
KEY = ("program", "n", "device", "dist")
KEY_DEFAULTS = {"dist": "uniform"}  # rows recorded before the column existed
DISTS = ("uniform", "wide")
# The ends of FP32's range (common/matrix.h): the range part of make reproduce runs the
# FP32-class programs on them; the charts keep to DISTS.
RANGE_DISTS = ("subnormal", "tiny", "rowscale", "mixed", "huge")


def program_path(program):
    """The binary of a program or of a --math row."""
    return PROGRAMS[program]["binary"]


def program_command(program):
    """The command that runs a program (a --math row: its binary with --math)."""
    d = PROGRAMS[program]
    return [d["binary"]] + (["--math", d["math"]] if program in MATH_ROWS else [])


def slug(device):
    """'NVIDIA H100 80GB HBM3' -> 'nvidia-h100-80gb-hbm3'."""
    return re.sub(r"[^a-z0-9]+", "-", device.lower()).strip("-")


CPU_GEMM = os.path.join("cpu", "cpu_gemm")


def cpu_features():
    """What this CPU and cpu/cpu_gemm's build support (cpu_gemm --features: cpu, cpus, isa,
    packed_isa, openblas, openmp, openblas_config); one not built, or failing, ends the script in one line."""
    try:
        p = subprocess.run([CPU_GEMM, "--features"], cwd=ROOT, capture_output=True, text=True)
    except OSError:
        raise SystemExit(f"{CPU_GEMM} is not built (make {CPU_GEMM})")
    if p.returncode != 0:
        raise SystemExit(f"{CPU_GEMM} --features exited {p.returncode}: {p.stderr.strip()}")
    return dict(line.split("=", 1) for line in p.stdout.strip().splitlines() if "=" in line)


def host_slug(features=None):
    """This machine's name in the CPU chapter's results (results/<host-slug>-cpu.csv): its CPU
    and how many, 'intel-r-xeon-r-processor-16-cpus'. features: cpu_features(), read here
    when not given."""
    features = features or cpu_features()
    return slug(f"{features['cpu']} {features['cpus']} cpus")


# The shared memory per block (bytes) of GPUs smaller than the H100, each with the GPUs
# that have it, in order: make reproduce (part "caps") and tests/03-gpu.t run under each
# (MATMUL_SMEM_LIMIT), the README tables name them.
SMEM_CAPS = {65536: ["T4 (though it lacks cp.async)"], 101376: ["RTX 30/40/50", "L4", "A10"], 166912: ["A100"]}

# The programs' exit codes (common/exit_codes.h): 3 and 4 are skipped, saying why;
# 5, 6 and 7 are failures to fix.
EXIT_USAGE, EXIT_NO_GPU, EXIT_NO_FEATURE = 2, 3, 4
GPU_INFO_FIELDS = ["name", "cc", "sms", "clock_khz", "total_bytes", "free_bytes", "smem_optin_bytes", "l2_bytes",
                   "smem_device_optin_bytes", "smem_per_sm_bytes", "driver_version"]


def gpu_info():
    """(name, {field: value}) of the first GPU, or (None, the one-line reason) without one.
    Any other failure (driver too old, a CUDA error, gpu_info not built) ends the
    script with gpu_info's message and exit code: those are to be fixed, not skipped."""
    exe = os.path.join(ROOT, "obj", "gpu_info")
    try:
        p = subprocess.run([exe], capture_output=True, text=True)
    except OSError as err:
        raise SystemExit(f"cannot run {exe}: {err} (run make first)")
    if p.returncode == EXIT_NO_GPU:
        return None, p.stderr.strip().splitlines()[0] if p.stderr.strip() else "no GPU"
    if p.returncode != 0:
        sys.stderr.write(p.stderr)
        raise SystemExit(p.returncode)
    fields = dict(zip(GPU_INFO_FIELDS, p.stdout.strip().split(",")))
    return fields["name"], fields


def require_gpu(script):
    """The name of the GPU a script measures on; without one, None, after one line on stderr
    saying why. The script then exits EXIT_NO_GPU (3): the machine's answer, which make test
    and make reproduce report as a skip, not a failure."""
    device, info = gpu_info()
    if device is None:
        print(f"{script}: no GPU to run on: {info}", file=sys.stderr)
    return device


# The tools a script runs, each with what it is for and how to get it, in the words of the
# Makefile's `missing` lines: a script that lacks one says so in one line, before anything runs.
CUDA_TOOL = "or put the toolkit's bin/ on PATH"
TOOLS = {
    "nvcc": ("the CUDA toolkit is needed", "install it from https://developer.nvidia.com/cuda-downloads {tool}"
             " (export PATH=/usr/local/cuda/bin:$PATH)"),
    "make": ("the programs are built with GNU Make", "{apt} make"),
    "gcc": ("a C compiler is needed", "{apt} build-essential"),
    "prove": ("make test runs the tests with prove", "{apt} perl"),
    "objcopy": ("the fat binary is read with binutils' objcopy", "{apt} binutils"),
    "nvidia-smi": ("the GPU's clocks and driver are read with nvidia-smi", "it comes with NVIDIA's driver "
                   "(https://www.nvidia.com/drivers), or put the driver's folder on PATH"),
    "cuobjdump": ("make sass disassembles with the CUDA toolkit's cuobjdump", "{apt} cuda-cuobjdump-{cuda}, {tool}"),
    "ncu": ("this target measures with Nsight Compute's ncu", "{apt} cuda-nsight-compute-{cuda} "
            "(https://developer.nvidia.com/nsight-compute), or put its folder on PATH"),
    "compute-sanitizer": ("make sanitize runs the CUDA toolkit's compute-sanitizer",
                          "{apt} cuda-sanitizer-{cuda}, {tool}"),
}


def cuda_package_version():
    """The CUDA toolkit's version as NVIDIA's packages name it ("13-0"), read from nvcc --version
    as the Makefile reads it (nvcc from PATH, else /usr/local/cuda/bin/nvcc)."""
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    try:
        out = subprocess.run([nvcc, "--version"], capture_output=True, text=True).stdout
    except OSError:
        out = ""
    m = re.search(r"release (\d+)\.(\d+)", out)
    return f"{m.group(1)}-{m.group(2)}" if m else "<version>"


def missing_tool(name, why=None):
    """The line that says a tool is missing, what needs it and how to get it (the Makefile's
    wording; the install command with sudo only where this user is not root)."""
    default_why, how = TOOLS.get(name, (f"{name} is needed", ""))
    apt = ("" if os.geteuid() == 0 else "sudo ") + "apt-get install"
    if "{cuda}" in how:
        how = how.replace("{cuda}", cuda_package_version())
    how = how.replace("{apt}", apt).replace("{tool}", CUDA_TOOL)
    return f"{name} not found: {why or default_why}" + (f": {how}" if how else "")


def require_tool(name, why=None):
    """A tool the script runs (its path): one that is not on PATH ends the script with one line
    saying so and how to get it (missing_tool), exit 2, before anything runs."""
    path = shutil.which(name)
    if path is None:
        print(missing_tool(name, why), file=sys.stderr)
        raise SystemExit(EXIT_USAGE)
    return path


def require_matplotlib():
    """The charts and pictures draw with matplotlib: without it, one line naming how to get it
    (make plots-env makes .venv with it; PLOT_PYTHON names a python that has it), exit 2."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print(f"matplotlib not found: {sys.executable} cannot import it: make plots-env "
              "installs it into .venv (make plots then draws with .venv/bin/python), or "
              "PLOT_PYTHON=a python that has it", file=sys.stderr)
        raise SystemExit(EXIT_USAGE)


class ArgumentParser(argparse.ArgumentParser):
    """argparse's parser with its errors in one line (the script, what is wrong; an unknown option
    with the hint to --help), exit 2, as every program here refuses bad input."""

    def error(self, message):
        if message.startswith(("unrecognized arguments", "the following arguments")):
            message += " (--help lists the options)"
        print(f"{self.prog}: {message}", file=sys.stderr)
        raise SystemExit(EXIT_USAGE)


def skip_reason(code, stderr, too_big=False):
    """Why a program did not run on this GPU, or None where it ran (or failed): exit 4, the
    GPU lacks what the program needs; with too_big, exit 2 too, what was asked (a forced
    configuration) does not fit this GPU. Either is this machine's answer, to be said and
    skipped, not a failure. The reason is the program's last line on stderr (a tool such as
    compute-sanitizer may print before it)."""
    if code == EXIT_NO_FEATURE or (too_big and code == EXIT_USAGE):
        lines = stderr.strip().splitlines()
        return lines[-1] if lines else f"exit {code}"
    return None


def fp32_lanes(cc):
    """FP32 lanes (FMA units) per SM by compute capability: 64 on Turing (7.5) and on the
    A100 (8.0), 128 on GA10x, Ada, Hopper and Blackwell."""
    major, minor = (int(x) for x in cc.split("."))
    return 64 if major < 8 or (major, minor) == (8, 0) else 128


def fp32_peak_gflops(fields):
    """SMs x FP32 lanes x 2 FLOP (an FMA) x the SM clock the driver reports."""
    return int(fields["sms"]) * fp32_lanes(fields["cc"]) * 2 * int(fields["clock_khz"]) / 1e6


def run_csv(cmd, env=None):
    """Run a program with --csv (env: variables to set for it, MATMUL_SMEM_LIMIT say): (its row as
    a dict, exit code, stderr). The row is None unless the program exited 0 (pass) or 1 (not
    within tolerance, still a measurement)."""
    p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, env=dict(os.environ, **env) if env else None)
    return (parse_program_csv(p.stdout) if p.returncode in (0, 1) else None), p.returncode, p.stderr.strip()


def parse_program_csv(text):
    """The one CSV row a program printed with --csv, as a dict; a program built before the
    conditions' columns (CONDITION_COLUMNS) gives a row without them."""
    rows = [r for r in csv.reader(text.strip().splitlines()) if r and r[0] != "program"]
    widths = (len(PROGRAM_COLUMNS), len(PROGRAM_COLUMNS) - len(CONDITION_COLUMNS))
    if len(rows) != 1 or len(rows[0]) not in widths:
        raise ValueError(f"expected one CSV row of {' or '.join(map(str, widths))} columns, got: {text!r}")
    return dict(zip(PROGRAM_COLUMNS, rows[0]))


# The results files' columns that hold numbers, wherever a file has them: the charts and tables
# read them as numbers, so read_results refuses a file where one does not. A column named for
# its unit holds a number too (kernel_ms, dram_read_gb, imma_active_pct, a clock's _mhz), or
# several, space-separated (round_ms: each round's).
WHOLE_COLUMNS = {"n", "smem_bytes", "smem_limit", "gpus", "panel", "rows", "cols", "threads", "block", "tile", "moduli"}
NUMBER_COLUMNS = WHOLE_COLUMNS | {"gflops", "e2e_gflops", "tflops", "tops", "gbps", "tolerance", "bound", "warp_instructions",
                  "fp32_peak_gflops", "speedup", "seconds"}
UNIT_SUFFIXES = ("_ms", "_s", "_gb", "_gbs", "_ghz", "_mhz", "_pct", "_err", "_w")


class ResultsError(ValueError):
    """A results CSV that cannot be read as one: the message names the file, the line and what is
    wrong, in one line (charts.py and prose.py say it as it is)."""


class MissingColumn(ResultsError, KeyError):
    """A column a reader asks of a row that its file does not have (a KeyError as well, so that
    whoever looks a column up and handles a missing one still does)."""

    def __str__(self):
        return self.args[0]


class Row(dict):
    """A results row: a column its file lacks is a MissingColumn naming the file, not a bare
    KeyError far from it."""
    path = ""

    def __missing__(self, column):
        raise MissingColumn(f"{self.path} has no column '{column}'")


def number_problem(column, value):
    """Why value cannot be column's (a number column holding a word), or None. Empty cells, nan,
    inf and N/A are numbers not measured (a skipped program's row, a time not taken apart, what
    nvidia-smi cannot read on this GPU)."""
    value = value.strip()
    if not value or value.lower() in ("nan", "inf", "-inf", "n/a", "[n/a]"):
        return None
    if column in NUMBER_COLUMNS or column.endswith(UNIT_SUFFIXES):
        try:
            [float(v) for v in value.split()]
        except ValueError:
            return f"{column} is '{value}', not a number"
    return None


def read_results(path, check=True):
    """The rows of a results CSV (each a Row: a column the file lacks is named with it); rows
    recorded before inputs had a distribution (no dist column) are the article's uniform inputs.
    A file that is not UTF-8 text or not CSV, or (check) a row with more or fewer fields than
    the header or a word in a number column, raises ResultsError naming the file and the line."""
    if not os.path.exists(path):
        return []
    shown = path if os.path.relpath(path).startswith("..") else os.path.relpath(path)
    data = open(path, "rb").read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data[:err.start].count(b"\n") + 1
        raise ResultsError(f"{shown}, line {line}: not UTF-8 text (byte 0x{data[err.start]:02x})") from None
    reader = csv.reader(io.StringIO(text, newline=""))
    rows, header = [], None
    try:
        for fields in reader:
            if header is None:
                header = fields
                continue
            if not fields:  # a blank line, as csv.DictReader skips it
                continue
            why = check and (f"{len(fields)} fields, the header has {len(header)}" if len(fields) != len(header)
                             else next(filter(None, map(number_problem, header, fields)), None))
            if why:
                raise ResultsError(f"{shown}, line {reader.line_num}: {why}")
            row = Row(zip(header, fields))
            row.path = shown
            rows.append(row)
    except csv.Error as err:
        raise ResultsError(f"{shown}, line {reader.line_num}: not CSV ({err})") from None
    for r in rows:
        if "dist" in KEY and not r.get("dist") and "program" in r:
            r["dist"] = "uniform"
    return rows


def merge_results(path, new_rows, columns=RESULT_COLUMNS, key=KEY):
    """Write new_rows into the CSV at path, replacing earlier rows with the same key
    (program, n, device); other rows stay. Sorted by program, then n. The conditions' columns
    (CONDITION_COLUMNS) that a chapter's rows carry beyond its columns are kept, after them; the
    rows recorded before them get them empty."""
    keyof = lambda r: tuple(str(r.get(k) or KEY_DEFAULTS.get(k, "")) for k in key)
    replaced = {keyof(r) for r in new_rows}
    rows = [r for r in read_results(path, check=False) if keyof(r) not in replaced] + list(new_rows)
    columns = list(columns) + [c for c in CONDITION_COLUMNS if c not in columns and any(c in r for r in rows)]
    # Numbers numerically, before words: a build variant's column mixes counts and "" (the step as built).
    rows.sort(key=lambda r: tuple((0, int(v), "") if v.isdigit() else (1, 0, v) for v in keyof(r)))
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=columns, extrasaction="raise")
        w.writeheader()
        for r in rows:
            w.writerow({c: r.get(c, "") for c in columns})
    os.replace(tmp, path)
    return rows


def positive_int(text):
    """argparse type of a count or a size (--reps, --threads): a whole number >= 1, so that a
    bad value is refused with the usage line (exit 2) before anything runs."""
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number")
    if v < 1:
        raise argparse.ArgumentTypeError(f"'{text}' is not >= 1")
    return v


def sizes_arg(text):
    """argparse type of --sizes (or --tiles): "1000 4096" -> [1000, 4096], at least one, each
    a whole number >= 1."""
    sizes = [positive_int(s) for s in text.split()]
    if not sizes:
        raise argparse.ArgumentTypeError("no size given")
    return sizes


def now_stamp(when=None):
    """The date column of a results row: UTC to the minute, '2026-01-31T14:05Z' (when: a
    datetime, for a script whose log is headed with the same moment)."""
    return (when or datetime.datetime.now(datetime.timezone.utc)).strftime("%Y-%m-%dT%H:%MZ")


def result_row(cmd, fields, date=None):
    """A row to record: fields, with the date it was measured (now unless given) and the
    command that measures it again."""
    return dict(fields, date=date or now_stamp(), command=" ".join(cmd))


def record(path, rows, columns=RESULT_COLUMNS, key=KEY):
    """Merge rows into the results CSV at path (merge_results; no rows: the file stays as it
    is), and return the line that says where they went, for the script to print after its
    table. A file there that cannot be read (not UTF-8 CSV) is left as it is: one line says so,
    exit 2."""
    if rows:
        try:
            merge_results(path, rows, columns, key)
        except ResultsError as err:
            print(f"rows not recorded: {err}: move it away and measure again", file=sys.stderr)
            raise SystemExit(EXIT_USAGE)
    return f"rows recorded in {os.path.relpath(path, ROOT)}"


def text_table(head, body, left=(0,)):
    """A table for the terminal: each column as wide as its widest cell, two spaces apart, a
    rule under the head; figures right-aligned so their digits line up, the columns whose
    indexes are in left (names, words) left-aligned."""
    widths = [max(len(row[i]) for row in [head] + body) for i in range(len(head))]

    def line(cells):
        return "  ".join(c.ljust(w) if i in left else c.rjust(w)
                         for i, (c, w) in enumerate(zip(cells, widths))).rstrip()
    return "\n".join([line(head), line(["-" * w for w in widths])] + [line(b) for b in body])


def numbers_as_ranges(numbers):
    """["01", "02", "03", "05"] -> "01-03, 05"."""
    runs = []
    for text in numbers:
        if runs and int(text) == int(runs[-1][-1]) + 1:
            runs[-1].append(text)
        else:
            runs.append([text])
    return ", ".join(r[0] if len(r) == 1 else f"{r[0]}-{r[-1]}" for r in runs)


def build_archs():
    """The programs built here grouped by the architectures their build carries, as each says
    (--describe's archs): ["steps 01-12, cublas: sm_75 ... compute_120", "steps 13-20: sm_90a"]."""
    groups = {}
    for binary in step_binaries() + REFERENCE_BINARIES:
        if not os.path.exists(os.path.join(ROOT, binary)):
            continue
        try:
            archs = describe(binary)[0].get("archs") or "no archs said"
        except OSError:
            archs = "its --describe fails"
        groups.setdefault(archs, []).append(os.path.basename(binary))
    lines = []
    for archs, names in groups.items():
        steps = [n[4:] for n in names if re.fullmatch(r"step\d\d", n)]
        who = ([("step " if len(steps) == 1 else "steps ") + numbers_as_ranges(steps)] if steps else []) + \
            [n for n in names if n[4:] not in steps]
        lines.append(f"{', '.join(who)}: {archs}")
    return lines


def main(argv):
    """scripts/ladder.py caps: SMEM_CAPS's byte values, one per line, so that the Perl tests
    (tests/03-gpu.t) run under the same caps as make reproduce.
    scripts/ladder.py archs: which programs built here carry which architectures, one line per
    set, as the programs say (make gpu-info).
    scripts/ladder.py record: describe every program built here and record the descriptions
    in results/programs.csv (make plots does, so that a new step is charted by its own words).
    scripts/ladder.py before [--version] NAME: the source before NAME's and NAME's own, on the
    ladder or (--version) in its chain of versions (make diff)."""
    if argv[:1] in (["-h"], ["--help"]):
        print("\n".join(line.strip() for line in main.__doc__.splitlines()))
        return 0
    if argv == ["caps"]:
        print("\n".join(str(limit) for limit in SMEM_CAPS))
        return 0
    if argv == ["archs"]:
        print("\n".join(build_archs()))
        return 0
    if argv == ["record"]:
        found = discover(built_only=True)
        versions_found = [d for d in VERSION_DESCRIPTIONS.values()
                          if os.path.exists(os.path.join(ROOT, d["binary"]))]
        record_catalogue(list(found.values()) + versions_found)
        print(f"{len(found)} programs and {len(versions_found)} development versions described in "
              f"{os.path.relpath(CATALOGUE, ROOT)}")
        return 0
    if argv[:1] == ["before"] and len(argv) in (2, 3) and (len(argv) == 2 or argv[1] == "--version"):
        describe_built(argv[-1].split("_")[0], versions_too=len(argv) == 3)
        pair = before(argv[-1], in_chain=len(argv) == 3)
        if pair is None:
            if len(argv) == 3:
                names = [v["program"] for chain in version_chains() for v in chain]
                print(f"make diff: VERSION={argv[-1]} names no development version with one before it "
                      f"(the versions: {' '.join(names)}; or a step, VERSION=stepNN)", file=sys.stderr)
            else:
                print(f"make diff: {argv[-1]} is not a step with one before it (the steps: "
                      f"{' '.join(os.path.basename(b) for b in step_binaries()[1:])})", file=sys.stderr)
            return EXIT_USAGE
        print(*pair)
        return 0
    print("usage: scripts/ladder.py caps|archs|record|before [--version] NAME", file=sys.stderr)
    return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
