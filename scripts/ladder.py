"""What the scripts share: the ladder's programs and lessons, the device slug, and the
results CSV with its replace-by-key rule. Standard library only."""
import csv
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# program -> (folder, lesson in a few words)
LADDER = {
    "step01": ("step01_naive", "naive: one thread per element"),
    "step02": ("step02_kahan", "Kahan summation"),
    "step03": ("step03_shared_row", "row of A in shared memory"),
    "step04": ("step04_pitch", "cudaMallocPitch"),
    "step05": ("step05_tiled", "16x16 shared-memory tiles"),
    "step06": ("step06_padded", "padded allocation, no bounds checks"),
    "step07": ("step07_regtile", "register tiling, 8x8 per thread (no Kahan)"),
    "step08": ("step08_vectorized", "float4 loads, A transposed in shared"),
    "step09": ("step09_warptile", "warp tiling, conflict-free fragments"),
    "step10": ("step10_pipelined", "cp.async pipeline, 4 stages"),
    "step11": ("step11_tf32", "TF32 tensor cores, mma.sync"),
    "step12": ("step12_3xtf32", "3xTF32: FP32 accuracy on tensor cores"),
    "cublas": ("cublas", "cuBLAS SGEMM, FP32 (the ceiling)"),
    "cublas_tf32": ("cublas", "cuBLAS on TF32 tensor cores (the TF32 ceiling)"),
    "cutlass_tf32": ("cutlass", "CUTLASS TF32, mma.sync (the peer)"),
    "cutlass_3xtf32": ("cutlass", "CUTLASS 3xTF32, mma.sync (the peer)"),
}
STEPS = [p for p in LADDER if p.startswith("step")]
# Rows of one program run with --math: row name -> (binary, --math value).
MATH_ROWS = {"cublas_tf32": ("cublas", "tf32"), "cutlass_tf32": ("cutlass", "tf32"),
             "cutlass_3xtf32": ("cutlass", "3xtf32")}
# The tensor-core chapter: its steps are judged against these ceilings and peers.
TENSOR_STEPS = ["step11", "step12"]

# The programs' --csv columns (common/step_main.c), and the results file's.
PROGRAM_COLUMNS = ["program", "n", "device", "kernel_ms", "gflops", "total_ms", "max_rel_err", "avg_rel_err",
                   "e2e_gflops", "alloc_ms", "h2d_ms", "kernel_e2e_ms", "d2h_ms", "free_ms", "reps", "check",
                   "rows_checked", "tolerance", "status", "config", "smem_bytes", "smem_limit", "dist",
                   "precision", "max_comp_err", "avg_comp_err"]
RESULT_COLUMNS = ["date", "command"] + PROGRAM_COLUMNS
KEY = ("program", "n", "device", "dist")
KEY_DEFAULTS = {"dist": "uniform"}  # rows recorded before the column existed
DISTS = ("uniform", "wide")
# The ends of FP32's range (common/matrix.h): the range part of make reproduce runs the
# FP32-class programs on them; the charts keep to DISTS.
RANGE_DISTS = ("subnormal", "tiny", "rowscale", "mixed", "huge")


def program_path(program):
    """The binary of a program or of a --math row."""
    folder = LADDER[program][0]
    return os.path.join(folder, MATH_ROWS[program][0] if program in MATH_ROWS else program)


def program_command(program):
    """The command that runs a program (a --math row: its binary with --math)."""
    return [program_path(program)] + (["--math", MATH_ROWS[program][1]] if program in MATH_ROWS else [])


def slug(device):
    """'NVIDIA H100 80GB HBM3' -> 'nvidia-h100-80gb-hbm3'."""
    return re.sub(r"[^a-z0-9]+", "-", device.lower()).strip("-")


# The programs' exit codes (common/exit_codes.h): 3 and 4 are skipped, saying why;
# 5, 6 and 7 are failures to fix.
EXIT_NO_GPU, EXIT_NO_FEATURE = 3, 4
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


def fp32_lanes(cc):
    """FP32 lanes (FMA units) per SM by compute capability: 64 on Turing (7.5) and on the
    A100 (8.0), 128 on GA10x, Ada, Hopper and Blackwell."""
    major, minor = (int(x) for x in cc.split("."))
    return 64 if major < 8 or (major, minor) == (8, 0) else 128


def fp32_peak_gflops(fields):
    """SMs x FP32 lanes x 2 FLOP (an FMA) x the SM clock the driver reports."""
    return int(fields["sms"]) * fp32_lanes(fields["cc"]) * 2 * int(fields["clock_khz"]) / 1e6


def run_csv(cmd):
    """Run a program with --csv: (its row as a dict, exit code, stderr). The row is None
    unless the program exited 0 (pass) or 1 (not within tolerance, still a measurement)."""
    p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    return (parse_program_csv(p.stdout) if p.returncode in (0, 1) else None), p.returncode, p.stderr.strip()


def parse_program_csv(text):
    """The one CSV row a program printed with --csv, as a dict."""
    rows = [r for r in csv.reader(text.strip().splitlines()) if r and r[0] != "program"]
    if len(rows) != 1 or len(rows[0]) != len(PROGRAM_COLUMNS):
        raise ValueError(f"expected one CSV row of {len(PROGRAM_COLUMNS)} columns, got: {text!r}")
    return dict(zip(PROGRAM_COLUMNS, rows[0]))


def read_results(path):
    """The rows of a results CSV; rows recorded before inputs had a distribution (no dist
    column) are the article's uniform inputs."""
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        if "dist" in KEY and not r.get("dist") and "program" in r:
            r["dist"] = "uniform"
    return rows


def merge_results(path, new_rows, columns=RESULT_COLUMNS, key=KEY):
    """Write new_rows into the CSV at path, replacing earlier rows with the same key
    (program, n, device); other rows stay. Sorted by program, then n."""
    keyof = lambda r: tuple(str(r.get(k) or KEY_DEFAULTS.get(k, "")) for k in key)
    replaced = {keyof(r) for r in new_rows}
    rows = [r for r in read_results(path) if keyof(r) not in replaced] + list(new_rows)
    rows.sort(key=lambda r: tuple(int(v) if v.isdigit() else v for v in keyof(r)))
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=columns, extrasaction="raise")
        w.writeheader()
        for r in rows:
            w.writerow({c: r.get(c, "") for c in columns})
    os.replace(tmp, path)
    return rows
