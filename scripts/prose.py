#!/usr/bin/env python3
r"""The measured numbers in the READMEs' prose, generated from results/ and checked.

A number in prose that comes from a measurement is written with the expression that
gives it, in an HTML comment that Markdown does not show:

    the first step already runs at <!--= tflops("stepNN", 1000) | .1f -->5.2<!--/=--> TFLOPS

(in a Markdown table, write the bar as \| so that it does not split the cell)

`make plots` (scripts/readme_tables.py) rewrites the text between the markers from the
expression, formatted with the Python format spec after the bar; `make test` fails when a
README's text differs from what results/ give. A claim that is not a number is written
as an assertion, checked the same way and never shown:

    <!--? ms("stepNN", 8192) < ms("stepMM", 8192) -->

And a lint: every number in prose or in a typed table with a unit of measurement (ms, µs,
GB/s, GFLOPS, TFLOPS, GB, MB, KB, %, or an "x" speedup) or written as a relative error
(2.15e-6) must be inside a marker, or in the list of numbers that are not measurements
(specifications, estimates, the article's text, ...) in tests/prose_exempt/ or, for a step's
page, in its folder's prose_exempt.txt, each with its reason.

The expressions can use the functions below (all figures of the main device unless said):
  ms(p, n), gflops(p, n), tflops(p, n), e2e_ms(p, n), e2e_gflops(p, n), err(p, n),
  avg_err(p, n), col(p, n, column), faster(a, b, n) = ms(b) / ms(a),
  pct_cublas(p, n), pct_peak(p, n), peak() (FP32 peak, GFLOPS),
  capped(kb, p, n, column), config(program, name, n, column), version(p, n, column)
  (the development versions' runs), transpose(variant, rows, cols, column),
  cpu(host, program, n, threads, isa=None, block=None, column="gflops") with host
  "xeon" or "epyc", ncu(log, section, metric) (value in bytes, seconds, % or a count),
  art(p, column) (the article's 8800GT figures), test_ratio(p, dist, n) (a program's
  componentwise error over cuBLAS SGEMM's in the recorded make test-deep), steps(chapter) (its
  steps' range as text: "07-10"), mgpu(algo, n, gpus, column="ms", panel=8192, run="multigpu",
  device=None, comm=None, grid=None) (the multi-GPU chapter's runs; run="multigpu-cublasmp": its
  one-GPU run beside cuBLASMp, "multigpu-two-buffers": SUMMA before its bands; device names
  another GPU's file, "NVIDIA H200"; comm "nccl" or "copy" and grid pick among a run's rows),
  experiment(name, column, **match) (a step's own experiment, results/<device>-<name>.csv:
  experiment("step15-time-split", "kernel_ms", variant="as it is", n=4096)),
  steps_in_class(chapter, precision, compensated=None) (a chapter's steps of one precision class, chapter
  None for all: "12, 14-16, 18-19"), references_in_class(precision) ("cuBLAS SGEMM, CUTLASS 3xTF32"),
  mgpu_eff(algo, n, gpus, panel=8192, run, device, comm, grid) (parallel efficiency against the
  same run's one-GPU SGEMM, scaled by n^3 where one GPU did not run that n), and min, max, abs, round; and the
  functions the steps declare (their experiments.json's "prose", in their folders' Python, each
  called with the shared helpers and these results first: a step's sweep's rows, read by its
  variants' column; step 05's tile(kernel, t, n, column), step 09's warptile(program, config, n,
  column), ...).
"""
import functools
import glob
import os
import re

import ladder
import step_plugins

DEVICE = "NVIDIA H100 80GB HBM3"  # the device whose figures the READMEs discuss
HOSTS = {"xeon": "intel-r-xeon-r-processor-16-cpus", "epyc": "amd-epyc-2-cpus"}
# In a Markdown table the bar is written \| (a plain one would split the cell).
VALUE = re.compile(r"<!--=\s*((?:(?!-->).)*?)\s*\\?\|\s*([^|]*?)\s*-->(.*?)<!--/=-->", re.S)
MARKER = re.compile(r"<!--=")  # every one must be a whole VALUE: an expression, "|", a format
ASSERT = re.compile(r"<!--\?\s*(.*?)\s*-->", re.S)
UNIT_BYTES = {"byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "Tbyte": 1e12}
UNIT_SECONDS = {"ns": 1e-9, "us": 1e-6, "usecond": 1e-6, "ms": 1e-3, "msecond": 1e-3, "s": 1.0, "second": 1.0}


class Results:
    """Every results file, read once, behind the functions the expressions call."""

    def __init__(self, results_dir):
        self.dir = results_dir
        self.slug = ladder.slug(DEVICE)
        self._csv = {}
        self._ncu = {}
        self._ratios = None

    def csv(self, name):
        if name not in self._csv:
            path = os.path.join(self.dir, name)
            if not os.path.exists(path):
                raise KeyError(f"no results file {name}")
            self._csv[name] = ladder.read_results(path)
        return self._csv[name]

    def find(self, name, what, **match):
        rows = [r for r in self.csv(name) if all(str(r.get(k)) == str(v) for k, v in match.items())]
        if len(rows) != 1:
            raise KeyError(f"{name}: {len(rows)} rows for {what} {match}")
        return rows[0]

    # The ladder of the main device
    def col(self, p, n, column, dist="uniform"):
        return float(self.find(f"{self.slug}.csv", "the ladder", program=p, n=n, dist=dist)[column])

    def gemmul8(self, p, n, dist="uniform", column="kernel_ms"):
        """The GEMMul8 peer's run (results/<device>-gemmul8.csv: it, step 16 and cuBLAS SGEMM in one
        call): a program's column at n on dist, the mean of its rounds (a number column), or the
        first round's (the errors and the verdict, checked in that round alone)."""
        rows = [r for r in self.csv(f"{self.slug}-gemmul8.csv") if r["program"] == p and r["n"] == str(n)
                and r["dist"] == dist]
        if not rows:
            raise KeyError(f"the GEMMul8 run has no {p} at n = {n} on {dist}")
        if column in ("kernel_ms", "gflops"):
            return sum(float(r[column]) for r in rows) / len(rows)
        first = [r for r in rows if r["round"] == "1"][0]
        return first[column] if column == "status" else float(first[column])

    def ncu(self, log, section, metric):
        key = (log, section)
        if log not in self._ncu:
            self._ncu[log] = parse_ncu(os.path.join(self.dir, f"{self.slug}-{log}.txt"))
        sections = self._ncu[log]
        if section not in sections:
            raise KeyError(f"{log}: no section '{section}' (sections: {', '.join(sections)})")
        if metric not in sections[section]:
            raise KeyError(f"{key}: no metric '{metric}'")
        return sections[section][metric]

    def test_ratio(self, p, dist, n, log="test-deep"):
        """A program's componentwise error over cuBLAS SGEMM's, as a recorded test log prints it
        (tests/12-tensor-cores.t: '# stepNN/p / cuBLAS SGEMM componentwise error on dist: n=1 4.8
        n=2 ...'): results/<device>-<log>.txt, make test-deep's unless log names another."""
        if self._ratios is None:
            self._ratios = {}
        if log not in self._ratios:
            self._ratios[log] = {}
            path = os.path.join(self.dir, f"{self.slug}-{log}.txt")
            for line in open(path):
                m = re.match(r"#\s+\S*?(\w+) / cuBLAS SGEMM componentwise error on (\w+): (.*)", line)
                if m:
                    for size, ratio in re.findall(r"n=(\d+) (\S+)", m.group(3)):
                        self._ratios[log][(m.group(1), m.group(2), int(size))] = float(ratio)
        if (p, dist, n) not in self._ratios[log]:
            raise KeyError(f"the test log {log} has no ratio for {p} on {dist} at n = {n}")
        return self._ratios[log][(p, dist, n)]

    def test_time(self, name, machine, column="wall_s"):
        """A recorded run of the test suite (results/test-times.csv, scripts/test_times.py): its wall
        seconds, or another column (prove_s, files, tests, commit, date ...) of the row called name
        on machine (a GPU's slug, or a CPU's and its count)."""
        rows = [r for r in self.csv("test-times.csv") if r["name"] == name and r["machine"] == machine]
        if len(rows) != 1:
            raise KeyError(f"test-times.csv: {len(rows)} rows of {name} on {machine}")
        value = rows[0][column]
        return float(value) if re.fullmatch(r"[\d.]+", value) else value

    def _mgpu_file(self, run, device):
        return f"{ladder.slug(device) if device else self.slug}-{run}.csv"

    def _mgpu_match(self, algo, n, gpus, panel, comm, grid):
        match = dict(algo=algo, n=n, gpus=gpus, panel=panel, dist="uniform", local="sgemm")
        match.update({k: v for k, v in (("comm", comm), ("grid", grid)) if v})
        return match

    def mgpu(self, algo, n, gpus, column="ms", panel=8192, run="multigpu", device=None, comm=None, grid=None):
        return float(self.find(self._mgpu_file(run, device), "the multi-GPU chapter",
                               **self._mgpu_match(algo, n, gpus, panel, comm, grid))[column])

    def mgpu_eff(self, algo, n, gpus, panel=8192, run="multigpu", device=None, comm=None, grid=None):
        """Parallel efficiency as scripts/multigpu_sweep.py computes it."""
        import multigpu_sweep
        row = self.find(self._mgpu_file(run, device), "the multi-GPU chapter",
                        **self._mgpu_match(algo, n, gpus, panel, comm, grid))
        eff = multigpu_sweep.efficiency(row, self.csv(self._mgpu_file(run, device)))
        if eff is None:
            raise KeyError(f"no one-GPU run to compare {algo} at n = {n} on {gpus} GPUs with")
        return eff

    def functions(self, where=""):
        """The expressions' functions: these, and the ones the steps declare. A name two steps
        declare (a copy of a step keeps its functions' names) is the page's own step's on its page
        (where: its path from the root), elsewhere the first step's on the ladder."""
        shared = self.shared_functions()
        found = dict(shared)
        steps = step_plugins.step_functions("prose")
        own = [s for s in steps if where.startswith(ladder.step_folder(s[0]) + "/")]
        for program, name, function in own + [s for s in steps if s not in own]:
            if name in shared:
                raise ValueError(f"{program}'s experiments.json declares prose function '{name}', which exists")
            found.setdefault(name, functools.partial(function, self))
        return found

    def shared_functions(self):
        c = self.col
        peak = lambda: ladder.fp32_peak_gflops(gpu_fields(self.dir, DEVICE))  # noqa: E731
        return {
            "col": c,
            "ms": lambda p, n: c(p, n, "kernel_ms"),
            "gflops": lambda p, n: c(p, n, "gflops"),
            "tflops": lambda p, n: c(p, n, "gflops") / 1e3,
            "e2e_ms": lambda p, n: c(p, n, "total_ms"),
            "e2e_gflops": lambda p, n: c(p, n, "e2e_gflops"),
            "err": lambda p, n, dist="uniform": c(p, n, "max_rel_err", dist),
            "avg_err": lambda p, n, dist="uniform": c(p, n, "avg_rel_err", dist),
            "comp_err": lambda p, n, dist="uniform": c(p, n, "max_comp_err", dist),
            "tflops_on": lambda p, n, dist: c(p, n, "gflops", dist) / 1e3,
            "x_cublas": lambda p, n: c(p, n, "gflops") / c("cublas", n, "gflops"),
            "faster": lambda a, b, n: c(b, n, "kernel_ms") / c(a, n, "kernel_ms"),
            "pct_cublas": lambda p, n: 100 * c(p, n, "gflops") / c("cublas", n, "gflops"),
            "gemmul8": self.gemmul8,
            "gemmul8_x": lambda p, n, dist="uniform": self.gemmul8("cublas", n, dist) / self.gemmul8(p, n, dist),
            "pct_peak": lambda p, n: 100 * c(p, n, "gflops") / peak(),
            "peak": peak,
            "capped": lambda kb, p, n, column="gflops": float(self.find(
                f"{self.slug}-capped-to-{kb}-kb.csv", "a capped run", program=p, n=n)[column]),
            "version": lambda p, n, column="gflops": float(self.find(
                f"{self.slug}-versions.csv", "a development version", program=p, n=n)[column]),
            "experiment": lambda name, column, **match: float(self.find(
                f"{self.slug}-{name}.csv", f"the experiment {name}", **match)[column]),
            "config": lambda program, name, n, column="gflops": float(self.find(
                f"{self.slug}-config-sweep.csv", "a configuration", program=program, config=name, n=n)[column]),
            "transpose": lambda variant, rows, cols, column="gbps": float(self.find(
                f"{self.slug}-transpose.csv", "the transpose", program=variant, rows=rows, cols=cols)[column]),
            "cpu": lambda host, program, n, threads, isa=None, block=None, column="gflops": float(self.find(
                f"{HOSTS[host]}-cpu.csv", "the CPU chapter", program=program, n=n, threads=threads,
                **({"isa": isa} if isa else {}), **({"block": block} if block is not None else {}))[column]),
            "mgpu": self.mgpu,
            "mgpu_eff": self.mgpu_eff,
            "ncu": self.ncu,
            "test_ratio": self.test_ratio,
            "test_time": self.test_time,
            "steps": steps_of,
            "steps_in_class": steps_in_class, "references_in_class": references_in_class,
            "art": lambda p, column: float(self.find("article_8800gt.csv", "the article", program=p)[column]),
            "min": min, "max": max, "abs": abs, "round": round,
        }


def steps_of(chapter):
    """A chapter's steps as prose writes them, from what the steps say of themselves: "07-10",
    or "13" for one (a chapter's steps are consecutive on the ladder)."""
    numbers = [s[4:] for s in ladder.STEPS if ladder.chapter_of(s) == chapter]
    if not numbers:
        raise KeyError(f"no steps in chapter '{chapter}'")
    return numbers[0] if len(numbers) == 1 else f"{numbers[0]}-{numbers[-1]}"


def steps_in_class(chapter, precision, compensated=None):
    """Steps of one precision class as prose writes them, from what the steps declare: runs of
    consecutive steps joined, "12, 14-16, 18-19"; of one chapter (None: every chapter), and with
    compensated 0 or 1 only those that do (not) compensate (the Kahan steps' class)."""
    numbers = [int(s[4:]) for s in ladder.STEPS
               if (chapter is None or ladder.chapter_of(s) == chapter) and ladder.PROGRAMS[s]["precision"] == precision
               and (compensated is None or int(ladder.PROGRAMS[s]["compensated"]) == compensated)]
    if not numbers:
        raise KeyError(f"no {precision} steps in chapter '{chapter}'")
    runs = []
    for x in numbers:
        if runs and x == runs[-1][1] + 1:
            runs[-1][1] = x
        else:
            runs.append([x, x])
    return ", ".join(f"{a:02d}" if a == b else f"{a:02d}-{b:02d}" for a, b in runs)


def references_in_class(precision):
    """The references' rows of one precision class, by their names in charts ("cuBLAS SGEMM,
    CUTLASS 3xTF32"), from what the programs declare (results/programs.csv)."""
    rows = [ladder.label(r) for r, d in ladder.PROGRAMS.items()
            if d["chapter"] == "reference" and d["precision"] == precision]
    if not rows:
        raise KeyError(f"no {precision} references")
    return ", ".join(rows)


def gpu_fields(results_dir, device):
    """gpu_info's CSV line for the device, as recorded in results/<slug>-device.txt."""
    path = os.path.join(results_dir, ladder.slug(device) + "-device.txt")
    for line in open(path):
        fields = dict(zip(ladder.GPU_INFO_FIELDS, line.strip().split(",")))
        if fields.get("name") == device and fields.get("sms", "").isdigit():
            return fields
    raise KeyError(f"{path}: no gpu_info line")


def parse_ncu(path):
    """{section: {metric: value}} from an ncu log written by make reproduce. Sections start
    at '$ make ... profile STEP=NN' (section 'stepNN', or 'cublas', with ' --math tf32' when the
    profile named one), '$ prog/stepNN -n N'
    ('stepNN -n N') or '== variant' ('variant'). Values in bytes, seconds, % or counts."""
    out, section = {}, None
    for line in open(path):
        m = re.match(r"\$ make .*profile(?:-launch)? STEP=(\w+)(?:.*PROFILE_ARGS=(--math \w+))?", line)
        if m:  # 'cublas', 'cutlass --math 3xtf32', 'cublas --math tf32', 'stepNN'
            section = m.group(1) if m.group(1) in ("cublas", "cutlass") else f"step{m.group(1)}"
            section += f" {m.group(2)}" if m.group(2) else ""
        elif re.match(r"\$ \S+/(\w+) -n (\d+)", line):
            m = re.match(r"\$ \S+/(\w+) -n (\d+)", line)
            section = f"{m.group(1)} -n {m.group(2)}"
        elif line.startswith("== "):
            section = line[3:].strip()
        elif section:
            m = re.match(r"\s+([a-z][\w.]+|Warp Cycles Per Issued Instruction)\s+(\S+)?\s+([\d,.]+)\s*$", line)
            if m:
                value = float(m.group(3).replace(",", ""))
                unit = m.group(2) or ""
                value *= UNIT_BYTES.get(unit, UNIT_SECONDS.get(unit, 1.0))
                out.setdefault(section, {})[m.group(1)] = value
    return out


def render(text, results, where):
    """(new text, problems): every value marker rewritten from its expression; every
    assertion evaluated. where names the file for the messages."""
    # The functions as globals, so that comprehensions and all() see them too.
    scope = dict(results.functions(where), __builtins__={}, all=all, any=any, len=len, sorted=sorted, range=range)
    problems = []

    def line_of(pos):
        return text.count("\n", 0, pos) + 1

    def value(m):
        expr, spec, old = m.group(1), m.group(2), m.group(3)
        try:
            new = format(eval(expr, scope), spec)  # noqa: S307 (our own READMEs)
        except Exception as err:  # a missing row or a typo: say where
            problems.append(f"{where}:{line_of(m.start())}: cannot evaluate '{expr}': {err}")
            return m.group(0)
        if new != old:
            problems.append(f"{where}:{line_of(m.start())}: '{old}' is stale: {expr} gives {new}")
        return m.group(0)[: m.start(3) - m.start(0)] + new + "<!--/=-->"

    whole = {m.start() for m in VALUE.finditer(text)}
    problems += [f"{where}:{line_of(m.start())}: a value without its format (<!--= expr | fmt -->v<!--/=-->)"
                 for m in MARKER.finditer(text) if m.start() not in whole]
    new_text = VALUE.sub(value, text)
    for m in ASSERT.finditer(new_text):
        try:
            ok = bool(eval(m.group(1), scope))  # noqa: S307
        except Exception as err:
            problems.append(f"{where}:{line_of(m.start())}: cannot evaluate assertion '{m.group(1)}': {err}")
            continue
        if not ok:
            problems.append(f"{where}:{line_of(m.start())}: false: {m.group(1)} (the sentence before it no longer "
                            "holds: rewrite it)")
    return new_text, problems


# A number with a unit of measurement, in prose.
NUMBER = r"(?<![\w.])\d[\d,]*(?:\.\d+)?(?:\s?[-–]\s?\d[\d,]*(?:\.\d+)?)?"
MEASURED = re.compile(NUMBER + r"(?:\s?(?:ms|µs|us|GB/s|TB/s|GFLOPS|TFLOPS|GB|MB|KB|%)|x)(?![\w/])"
                      r"|(?<![\w.])\d\.\d+e-\d+\b")  # and relative errors, 2.15e-6


# Ratios and ulps written as words: "3.6 times", "9.46 u" (a decimal is a measurement; whole
# numbers such as "8 times as long" are usually arithmetic and are left alone).
MEASURED_WORDS = re.compile(r"(?<![\w.])\d+\.\d+\s(?:times|u)\b")

# Claims that admit no limit, each once written here and found wrong; the text must say where
# the claim stops instead. (phrase, what to write)
UNBOUNDED = [
    ("every input FP32 can hold", "say where it stops (the 3xTF32 split's limits: values within 2^113 of their row's "
     "or column's largest, C in FP32's normal range)"),
    ("no step here uses", "name what the steps use"),
    ("no other GPU has", "say which GPUs run it (sm_90a: compute capability 9.0, H100 and H200)"),
    ("every row in the same run", "say which rows come from which run"),
]

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def command_problems(text, where):
    """Commands quoted in a page that cannot do what it says: `make profile` without NCU_N
    where the text cites another n (ncu's default is n = 1000), `diff` of files that do
    not exist (paths are from the repository's root, where the commands are run), and
    `make diff` of a step or version with nothing before it."""
    problems = []
    lines = text.split("\n")
    for i, line in enumerate(lines, 1):
        # The paragraph around the line (a list item or a block of text between blank lines).
        first, last = i - 1, i - 1
        while first > 0 and lines[first - 1].strip() and not re.match(r"\s*(\d+\.|-) ", lines[first]):
            first -= 1
        while last + 1 < len(lines) and lines[last + 1].strip() and not re.match(r"\s*(\d+\.|-) ", lines[last + 1]):
            last += 1
        paragraph = " ".join(lines[first:last + 1])
        sizes = set(re.findall(r"\bn = (\d+)", paragraph))
        for cmd in re.findall(r"`(make profile [^`]*)`", line):
            if "NCU_N=" not in cmd and "PROGRAM=" not in cmd and sizes - {"1000"} and "1000" not in sizes:
                problems.append(f"{where}:{i}: `{cmd}` profiles n = 1000 (NCU_N's default), where the text cites "
                                f"n = {', '.join(sorted(sizes))}: add NCU_N=")
        for m in re.finditer(r"(?:^|`)\s*diff ([\w./-]+)(?:[ \t]+([\w./-]+))?", line):
            for path in filter(None, m.groups()):
                if path.startswith("-"):
                    continue
                if not os.path.exists(os.path.join(ROOT, path)):
                    problems.append(f"{where}:{i}: diff of '{path}', which is no file (from the repository's root)")
        for m in re.finditer(r"make diff (STEP|VERSION)=(\w+)", line):
            name = ("step" + m.group(2)) if m.group(1) == "STEP" else m.group(2)
            if ladder.before(name, in_chain=m.group(1) == "VERSION") is None:
                problems.append(f"{where}:{i}: `make diff {m.group(1)}={m.group(2)}` has nothing to compare: no such "
                                "step or version, or none before it")
    return problems


def prose_lines(text):
    """(line number, line) of the prose and of typed tables: not code blocks, headings or
    the generated tables; with markers and comments blanked out."""
    text = VALUE.sub(lambda m: " " * len(m.group(0)), text)
    text = re.sub(r"<!-- BEGIN table:.*?<!-- END table:[^>]*-->", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text,
                  flags=re.S)
    text = re.sub(r"<!--.*?-->", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)
    fenced = False
    for i, line in enumerate(text.split("\n"), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if fenced or line.startswith("#"):
            continue
        yield i, re.sub(r"`[^`]*`", lambda m: " " * len(m.group(0)), line)


def read_exempt(root=ROOT):
    """{(file, text)}: numbers that are not measurements, one per line: 'file | the number as
    written, with its unit | why it is not a measurement' (a specification, an estimate, the
    article's own figure, ...); in tests/prose_exempt/*.txt, files from the repository's root, and
    in a step folder's prose_exempt.txt, files in that folder (its README.md)."""
    out = set()
    lists = [(path, "") for path in sorted(glob.glob(os.path.join(root, "tests", "prose_exempt", "*.txt")))]
    lists += [(path, os.path.basename(os.path.dirname(path)) + "/")
              for path in sorted(glob.glob(os.path.join(root, "step[0-9][0-9]_*", "prose_exempt.txt")))]
    for path, folder in lists:
        for n, line in enumerate(open(path), 1):
            if not line.strip() or line.startswith("#"):
                continue
            parts = [p.strip() for p in line.split("|")]
            if len(parts) < 3 or not parts[2]:
                raise ValueError(f"{path}:{n}: expected 'file | number | why', got: {line.strip()}")
            out.add((folder + parts[0], parts[1]))
    return out


def lint(text, where, exempt):
    """Numbers with a unit in prose that are neither generated nor exempt; and markers that
    start a line inside a paragraph (Markdown would end the paragraph there)."""
    problems = []
    lines = text.split("\n")
    for i, line in enumerate(lines):
        inside = 0 < i < len(lines) - 1 and lines[i - 1].strip() and lines[i + 1].strip() \
            and not lines[i - 1].lstrip().startswith(("|", "<!--", "```")) 
        if line.lstrip().startswith("<!--=") or (inside and line.lstrip().startswith("<!--?")):
            problems.append(f"{where}:{i + 1}: a marker starts this line inside a paragraph, which Markdown would "
                            "split there: put a word before it")
    for i, line in prose_lines(text):
        for m in list(MEASURED.finditer(line)) + list(MEASURED_WORDS.finditer(line)):
            token = m.group(0).strip()
            if (where, token) not in exempt:
                problems.append(f"{where}:{i}: '{token}' is not generated from results/ "
                                f"(<!--= expr | fmt -->) nor listed in tests/prose_exempt/ or its step's prose_exempt.txt")
        flat = line.lower()
        for phrase, instead in UNBOUNDED:
            if phrase.lower() in flat:
                problems.append(f"{where}:{i}: '{phrase}': a claim with no limit; {instead}")
    return problems + command_problems(text, where)


# Words about how the work was organised, which a lesson page never needs: a student reads
# about GPUs and numbers. (pattern, what to write instead); spaces as \s+, for a phrase that a line
# break splits.
NOTEBOOK_WORDS = [
    (r"\bruns? \d+(?:\s*(?:,|and|to|-|–|\.\.\.|…)\s*\d+)*\b(?! ?(?:times|x|ms|%|GB|MB|KB|bytes|launches|rounds))",
     "a development run's number: give the measurement and its log, not the run"),
    (r"\bdrafts?\b", "a draft: say what the code does now; its history goes to results/"),
    (r"\bdevelopment\s+machine\b", "name the machine (its CPU, its GPU)"),
    (r"\bwe\s+had\b", "say what is, not what we had"),
    (r"\bgoals?\s+(?:this|the)\s+step\s+was\s+built\s+for\b",
     "give the measurement and the ceiling it is held against"),
    (r"\bissue\s+#?\d+", "an issue of the tracker: a page speaks about GPUs and numbers"),
    (r"\b(?:development|dev)\s+runs?\b", "a development run: say what was measured where, and link its log"),
]
# Words about the machinery that lent the GPUs and ran the work ("in the same call", a machine
# "lent", "in one sitting"): no page says them, not even results/'s development logs, whose
# subject is how the work went (tests/prose_test.py reads those with this list).
MACHINERY_WORDS = [
    (r"\b(?:in|inside|within|during|from|over|across)\s+(?:one|the\s+same|another|a\s+single|that|this|each|a|"
     r"the\s+first|the\s+second|the\s+last)\s+(?:device\s+)?calls?\b(?!\s+(?:to|of)\b)",
     "a call of the tool that lent the GPU: write 'in the same run'"),
    (r"\bdevice\s+calls?\b", "a device call: name the run and its log"),
    (r"\b(?:first|second|third|fourth|last)\s+call:", "a call of the tool that lent the GPU: 'First run:'"),
    (r"\bcall'?s\s+limit\b", "a call's limit: say what the run measured"),
    (r"\blent\b", "a machine lent: name the machine"),
    (r"\bsittings?\b", "a sitting: say which run, when and where"),
    (r"\bsessions?\b", "a working session: say what was measured, when and where"),
    (r"\bdevice\s+tool\b", "the tool that lent the GPU: name the GPU"),
]
PROCESS_WORDS = NOTEBOOK_WORDS + MACHINERY_WORDS


# Section titles of a lab notebook: what was tried, in which order, and how it was checked.
PROCESS_HEADINGS = re.compile(r"^#+\s.*\b(How it got there|Checked|Development|Dev runs)\b", re.I | re.M)


def words_problems(text, where, patterns):
    """The patterns in a page's prose (code, comments, headings and generated tables left out),
    across line breaks, each with its line: 'where:line: 'words': what to write instead'."""
    kept = [""] * (text.count("\n") + 1)
    for i, line in prose_lines(text):
        kept[i - 1] = line
    joined = "\n".join(kept)
    return [f"{where}:{joined.count(chr(10), 0, m.start()) + 1}: '{' '.join(m.group(0).split())}': {instead}"
            for pattern, instead in patterns for m in re.finditer(pattern, joined, re.I)]


def process_problems(text, where):
    """Process words in a page's prose (code, comments and generated tables left out), and
    sections titled as a lab notebook's."""
    return [f"{where}:{text.count(chr(10), 0, m.start()) + 1}: a section titled '{m.group(1)}': a lesson "
            "teaches what is; how it was developed goes to results/, with a one-line link"
            for m in PROCESS_HEADINGS.finditer(text)] + words_problems(text, where, PROCESS_WORDS)


WORD_LIMIT = 3000  # rendered words in a lesson page: a step's README or a chapter's


def rendered_words(text):
    """The words a reader sees: HTML comments (the markers' expressions) and link and
    image targets dropped, a word being a whitespace-separated token with a letter or
    digit in it (a table's bars are not words; its cells are)."""
    text = re.sub(r"<!--.*?-->", " ", text, flags=re.S)
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"</?[a-zA-Z][^>]*>", " ", text)
    return sum(1 for w in text.split() if re.search(r"\w", w))


def github_anchor(heading):
    """The anchor GitHub gives a Markdown heading: lower case, punctuation dropped, spaces
    as hyphens."""
    text = heading.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def glossary_anchors(root):
    return {github_anchor(m.group(1)) for m in
            re.finditer(r"^#+\s+(.*)$", open(os.path.join(root, "GLOSSARY.md")).read(), re.M)}


def read_terms(path):
    """[(pattern, anchor)] from tests/glossary_terms.txt: 'regex | anchor | ...'."""
    out = []
    for n, line in enumerate(open(path), 1):
        if not line.strip() or line.startswith("#"):
            continue
        parts = [p.strip() for p in re.split(r"\s\|\s", line)]  # a regex's own bars have no spaces
        if len(parts) < 2 or not parts[0] or not parts[1]:
            raise ValueError(f"{path}:{n}: expected 'regex | glossary anchor', got: {line.strip()}")
        out.append((parts[0], parts[1]))
    return out


def glossary_problems(text, where, anchors, terms):
    """Links into GLOSSARY.md that lead nowhere, and glossary terms a page uses in its prose
    without linking their entry once (or with no entry to link)."""
    problems = []
    for m in re.finditer(r"GLOSSARY\.md#([\w-]+)", text):
        if m.group(1) not in anchors:
            problems.append(f"{where}:{text.count(chr(10), 0, m.start()) + 1}: GLOSSARY.md#{m.group(1)}: no such "
                            "entry in the glossary")
    linked = set(re.findall(r"GLOSSARY\.md#([\w-]+)", text))
    # Link targets are addresses, not words ("cluster.c#L94", "#warp-specialization-...").
    prose = "\n".join(re.sub(r"\]\([^)]*\)", "]", line) for _, line in prose_lines(text))
    for pattern, anchor in terms:
        if anchor not in anchors:
            problems.append(f"tests/glossary_terms.txt: '{pattern}' points to #{anchor}, which the glossary lacks")
            continue
        m = re.search(pattern, prose)
        if m and anchor not in linked:
            line = prose.count("\n", 0, m.start()) + 1
            problems.append(f"{where}:{line}: '{m.group(0)}' is a glossary term: link GLOSSARY.md#{anchor} once")
    return problems


def link_problems(text, path, root=ROOT):
    """Links in a page that lead nowhere: a file that is not there, a heading that no page
    has, or a line past the end of the source it points into (`stepNN.cu#L120`)."""
    problems, here = [], os.path.dirname(os.path.abspath(path))
    for m in re.finditer(r"\]\(([^)\s]+)\)", text):
        target = m.group(1)
        if re.match(r"[a-z]+:", target):
            continue
        where = f"{os.path.relpath(path, root)}:{text.count(chr(10), 0, m.start()) + 1}"
        name, _, anchor = target.partition("#")
        full = os.path.normpath(os.path.join(here, name)) if name else os.path.abspath(path)
        if not os.path.exists(full):
            problems.append(f"{where}: the link ({target}) leads to no file")
            continue
        if os.path.isdir(full):
            full = os.path.join(full, "README.md")
        if not anchor or not os.path.exists(full):
            continue
        if full.endswith(".md"):
            body = re.sub(r"```.*?```", "", open(full).read(), flags=re.S)
            if anchor not in {github_anchor(h) for h in re.findall(r"^#+\s+(.*)$", body, re.M)}:
                problems.append(f"{where}: the link ({target}) names no heading of {os.path.relpath(full, root)}")
        elif re.fullmatch(r"L\d+(-L\d+)?", anchor):
            last, lines = int(re.findall(r"\d+", anchor)[-1]), sum(1 for _ in open(full))
            if last > lines:
                problems.append(f"{where}: the link ({target}) points past the file's {lines} lines")
    return problems


def lesson_page(path, root):
    """A step's README or a chapter's (not the top README, the glossary or results/)."""
    rel = os.path.relpath(path, root)
    return os.path.dirname(rel) not in ("", "results") and rel.endswith("README.md")


def page_problems(text, path, root, anchors, terms):
    """What the page checks add to the numbers' checks: process words (every page but
    results/'s), glossary terms (every page but the glossary and results/'s), the word limit
    (lesson pages) and the top README's shape."""
    where = os.path.relpath(path, root)
    if where.startswith("results" + os.sep):
        return link_problems(text, path, root)
    problems = process_problems(text, where) + link_problems(text, path, root)
    if where != "GLOSSARY.md":
        problems += glossary_problems(text, where, anchors, terms)
    if lesson_page(path, root) and rendered_words(text) > WORD_LIMIT:
        problems.append(f"{where}: {rendered_words(text)} rendered words, over the lesson limit of {WORD_LIMIT}")
    if where == "README.md":
        problems += top_readme_problems(text) + layout_problems(text, root)
    return problems


TOP_OPENING_WORDS, TOP_START_HERE_LINE = 80, 30


def top_readme_problems(text):
    """The top README is an entry point: a short opening, a table of contents and "Start here"
    near the top (its length, at most page_lists.TOP_README_LINES, page_lists.problems checks)."""
    problems = []
    lines = text.split("\n")
    start = next((i for i, l in enumerate(lines, 1) if re.match(r"#+\s+Start here", l)), None)
    if start is None or start > TOP_START_HERE_LINE:
        problems.append(f"README.md: 'Start here' must be a heading within the first {TOP_START_HERE_LINE} lines")
    body = text.split("\n## ", 1)[0].split("\n", 1)[-1]  # between the title and the first section
    opening = body.split("\n\n## ")[0]
    opening = re.split(r"\n\s*\n(?=\s*(?:\*\*Contents|- \[))", opening)[0]
    if rendered_words(opening) > TOP_OPENING_WORDS:
        problems.append(f"README.md: the opening has {rendered_words(opening)} words, over {TOP_OPENING_WORDS}")
    if not re.search(r"^\s*[-*] \[[^\]]+\]\(#[\w-]+\)", text, re.M):
        problems.append("README.md: no table of contents (a list of links to its sections)")
    return problems


def layout_problems(text, root=ROOT):
    """The top README's Layout block names every folder of the repository that holds what
    was written for it (not what a build or a tool made) and every script in scripts/."""
    m = re.search(r"^## Layout\n+```\n(.*?)```", text, re.S | re.M)
    if not m:
        return ["README.md: no Layout section with the tree in a code block"]
    block = m.group(1)
    folders = sorted(d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d)) and not d.startswith(".")
                     and d not in ("obj", "third_party", "__pycache__") and not re.fullmatch(r"step\d\d_\w+", d))
    named = [f"{d}/" for d in folders] + [os.path.basename(p) for p in sorted(glob.glob(os.path.join(root, "scripts", "*.py")))]
    return [f"README.md: the Layout section does not name {n}" for n in named if n not in block]


def readmes(root):
    return [os.path.join(root, "README.md"), os.path.join(root, "GLOSSARY.md")] + \
        sorted(glob.glob(os.path.join(root, "*", "README.md")))
