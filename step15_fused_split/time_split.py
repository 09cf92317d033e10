"""Where step 15's time goes, its own experiment (its experiments.json: the sweep time-split): the
kernel as it is, and with each half of its preparation left out, timed side by side. "without B's
transform": the transform warpgroup waits for each stage and hands it on without reading,
splitting or writing a value; "without A's split": each consumer hands wgmma a constant fragment
instead of loading and splitting its share of A's tile; "without either": both. The variants
compute wrong results (timing only: run with --check none) and are built here from step15.cu by
the exact replacements below, which fail loudly when the source no longer holds the text they
replace. Interleaved rounds (each variant in turn at each size, and step 14 beside them), the
median of its reps launches per run; a row per variant and n with the median over the rounds and
every round's time, into results/<device>-step15-time-split.csv. `make sweep STEP=15
NAME=time-split` runs it (its sizes, rounds and reps: its experiments.json). The function gets the
repository's shared helpers first (shared: scripts/for_steps.py), then the sweep's options
(scripts/experiment.py's sweep_options).
"""
import concurrent.futures
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
STEP = os.path.basename(HERE).split("_")[0]
SOURCE = os.path.join(HERE, "step15.cu")

# What each half of the preparation is, as text of step15.cu: (the text, what replaces it).
SKIP_TRANSFORM = ("            if (j < BN) {\n                const float *raw",
                  "            if (false) {\n                const float *raw")
SKIP_A_SPLIT = ("    const int4 flags = *(const int4 *)col_shifted;\n",
                "    const int4 flags = *(const int4 *)col_shifted;\n"
                "    for (int k8 = 0; k8 < BK / 8; k8++)\n"
                "        for (int v = 0; v < 4; v++) {\n"
                "            f->big[k8][v] = __float_as_uint((float)(k8 + v + r_up));\n"
                "            f->small[k8][v] = 0;\n"
                "        }\n"
                "    f->cols_shifted = 0;\n"
                "    f->e_up = f->e_down = 0;\n"
                "    return;\n")
VARIANTS = [("as it is", []), ("without B's transform", [SKIP_TRANSFORM]), ("without A's split", [SKIP_A_SPLIT]),
            ("without either", [SKIP_TRANSFORM, SKIP_A_SPLIT])]
# The step it builds on, timed in the same rounds (its pre-passes and kernel, as make builds it).
BESIDE = ("step 14 (its passes and kernel)", os.path.join("step14_wgmma_3xtf32", "step14"))

COLUMNS = ["date", "command", "variant", "n", "device", "kernel_ms", "round_ms", "reps"]
KEY = ("variant", "n", "device")


def variant_source(edits):
    text = open(SOURCE).read()
    for old, new in edits:
        if text.count(old) != 1:
            raise SystemExit("time_split.py: step15.cu no longer holds, once, the text a variant replaces (its "
                             f"first line: {old.strip().splitlines()[0]!r}): update SKIP_TRANSFORM or SKIP_A_SPLIT")
        text = text.replace(old, new)
    return text


def measure(shared, options):
    """Build the variants, time them and step 14 in interleaved rounds, record the medians: the exit
    code (2 without nvcc, 3 without a GPU, or this GPU's exit 4 where it cannot run them)."""
    sizes, rounds, reps = options.sizes or options.entry["sizes"], options.entry["rounds"], options.reps
    shared.require_tool("nvcc", "time_split.py builds its variants of step15.cu with nvcc")
    for program in (BESIDE[1], os.path.join(os.path.basename(HERE), STEP)):
        if not os.path.exists(os.path.join(shared.ROOT, program)):
            print(f"time_split.py: {program} is not built (run make)", file=sys.stderr)
            return 1
    for _, edits in VARIANTS:  # the source still holds what each variant replaces
        variant_source(edits)
    device = shared.require_gpu("time_split.py")
    if device is None:
        return shared.EXIT_NO_GPU
    os.makedirs(os.path.join(shared.ROOT, "obj", "time_split"), exist_ok=True)
    # Built as the step is: for the architecture its build holds (its --describe's archs: sm_90a).
    archs = shared.describe(os.path.join(os.path.basename(HERE), STEP))[0]["archs"].split()
    arch = [f"-gencode=arch={a.replace('sm_', 'compute_')},code={a}" for a in archs if a.startswith("sm_")] + \
        [f'-DSTEP_ARCHS="{" ".join(archs)}"']
    todo = []
    for i, (name, edits) in enumerate(VARIANTS):
        src = os.path.join("obj", "time_split", f"step15_{i}.cu")
        with open(os.path.join(shared.ROOT, src), "w") as f:
            f.write(variant_source(edits))
        todo.append((name, src, os.path.join("obj", "time_split", f"step15_{i}")))
    with concurrent.futures.ThreadPoolExecutor(max_workers=len(todo)) as pool:
        builds = list(pool.map(lambda v: shared.build_variant(v[1], [], v[2], arch), todo))
    for (name, _, exe), (code, err) in zip(todo, builds):
        if code != 0:
            print(f"{exe} ({name}): does not build: {err}", file=sys.stderr)
            return 1
    todo.append((BESIDE[0], None, BESIDE[1]))
    log = options.log(device)
    times = {}
    for _ in range(rounds):
        for n in sizes:
            for name, _, exe in todo:
                cmd = [exe, "-n", str(n), "--reps", str(reps), "--check", "none", "--csv"]
                log.say("$ " + " ".join(cmd))
                row, code, err = shared.run_csv(cmd)
                reason = shared.skip_reason(code, err)
                if reason:
                    log.say(f"time_split.py: skipped: {reason}")
                    return code
                if row is None:
                    log.say(f"{' '.join(cmd)}: exit {code}: {err}")
                    return 1
                times.setdefault((name, n), []).append(float(row["kernel_ms"]))
    rows, body = [], []
    for n in sizes:
        for name, _, _ in todo:
            t = times[(name, n)]
            rows.append(shared.result_row(options.command, {
                "variant": name, "n": n, "device": device, "kernel_ms": f"{statistics.median(t):.4f}",
                "round_ms": " ".join(f"{x:.4f}" for x in t), "reps": reps}))
            body.append([name, str(n), f"{statistics.median(t):.3f}", " ".join(f"{x:.3f}" for x in t)])
    log.say(shared.text_table(["variant", "n", "kernel ms (median)", "each round"], body))
    path = os.path.join(options.results, f"{shared.slug(device)}-{STEP}-time-split.csv")
    log.say(shared.record(path, rows, COLUMNS, KEY))
    log.close()
    return 0
