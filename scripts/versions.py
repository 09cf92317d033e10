#!/usr/bin/env python3
"""make reproduce ONLY=versions: the tensor chapter's development versions beside the steps
they became, each in its default configuration at n = 4096 and 8192, into
results/<device-slug>-versions.csv, with a log in results/<device-slug>-versions.txt.

The versions (make versions builds them into obj/versions/) are whole programs, each one
change from the next: step 11 as first written, then with ldmatrix and integer rounding,
then the step; step 12 with one accumulator, then the step; step 13 row after row, then in
bands, then with two tile shapes (A still truncated), then the step; step 14 on ordinary
inputs, then over FP32's range, then with NaN and Inf, then with two tile shapes, then the
step. Each is judged by its own
precision class, and its verdict is recorded as the program gives it: step12_v1 claims
FP32 accuracy and FAILS its bound at large n, which is what it is kept to show. A FAIL of
a version marked as expected to fail is recorded and said, not an error of this script;
a FAIL of any other is (exit 1).

Usage: scripts/versions.py [--sizes "4096 8192"] [--reps R] [--results DIR]
"""
import argparse
import datetime
import os
import shlex
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ladder  # noqa: E402

# program (its CSV name) -> (binary, what changed from the row before, may FAIL its bound).
VERSIONS = {
    "step11_v1": ("obj/versions/step11_v1_scalar",
                  "step 11 as first written: scalar fragment loads, cvt.rna, step 10's copy loops", False),
    "step11_v2": ("obj/versions/step11_v2_ldmatrix", "ldmatrix for A's fragments, rounding by integer add and mask",
                  False),
    "step11": ("step11_tf32/step11", "copy places and fragment offsets computed once, main loop unrolled by stages, "
               "cvt.rn on sm_90: the step", False),
    "step12_v1": ("obj/versions/step12_v1_one_accumulator",
                  "3xTF32 with one accumulator: three mma per k-step straight into the sums", True),
    "step12_v2": ("obj/versions/step12_v2_staged", "staged accumulation: fresh sums per tile of k, added to the "
                  "running sums rounded to nearest", False),
    "step12": ("step12_3xtf32/step12", "big no longer masked on sm_90 (cvt.rn zeroes the low bits): the step", False),
    "step13_v1": ("obj/versions/step13_v1_tma_wgmma", "step 13 as first written: TMA, an mbarrier ring, wgmma "
                  "64x256x8, a producer and two consumers; one 128x256 tile, blocks row after row", False),
    "step13_v2": ("obj/versions/step13_v2_bands", "blocks walked in bands of 8 block rows, for L2", False),
    "step13_v3": ("obj/versions/step13_v3_truncated", "a 128x128 tile with 6 stages below n = 2048; A still "
                  "truncated by wgmma", False),
    "step13": ("step13_wgmma_tf32/step13", "both tensor maps typed TFLOAT32: the TMA rounds A and Bt to nearest; "
               "the pre-pass only transposes: the step", False),
    "step14_v1": ("obj/versions/step14_v1_split", "3xTF32 on step 13's pipeline: pre-passes write big and small "
                  "K-major copies of A and B, three wgmma 64x128x8 per k-step into staged sums; one 128x128 tile; "
                  "ordinary inputs only", False),
    "step14_v2": ("obj/versions/step14_v2_range", "FP32's whole range: rows of A and columns of B scaled by powers "
                  "of two before the split, C scaled back", False),
    "step14_v3": ("obj/versions/step14_v3_special", "NaN and Inf: split as 0, their rows and columns marked, a last "
                  "pass gives those elements what FP32 gives", False),
    "step14_v4": ("obj/versions/step14_v4_narrow", "a 128x64 tile with 4 stages below n = 2048", False),
    "step14": ("step14_wgmma_3xtf32/step14", "the fourth product (small x small) kept for n <= 32, where the "
               "fp32 bound has no room for it: the step", False),
}


def main(argv):
    ap = argparse.ArgumentParser(prog="versions.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=ladder.sizes_arg, default="4096 8192", help="matrix sizes (default: 4096 8192)")
    ap.add_argument("--reps", type=ladder.positive_int, default=20, help="timed kernel launches per run (default 20)")
    ap.add_argument("--results", default=os.path.join(ladder.ROOT, "results"), help="results folder")
    a = ap.parse_args(argv)
    device = ladder.require_gpu("versions")
    if device is None:
        return ladder.EXIT_NO_GPU
    missing = [b for b, _, _ in VERSIONS.values() if not os.path.exists(os.path.join(ladder.ROOT, b))]
    if missing:
        print(f"versions: not built: {' '.join(missing)} (make all versions)", file=sys.stderr)
        return 1
    stamp = datetime.datetime.now(datetime.timezone.utc)
    log_path = os.path.join(a.results, ladder.slug(device) + "-versions.txt")
    os.makedirs(a.results, exist_ok=True)
    log = open(log_path, "w")
    log.write(f"# scripts/versions.py on {device}, {stamp:%Y-%m-%d %H:%M} UTC\n"
              f"# $ python3 scripts/versions.py {shlex.join(argv)}".rstrip() + "\n")

    def say(line):
        print(line, flush=True)
        log.write(line + "\n")
        log.flush()

    rows, failed = [], 0
    for prog, (binary, _, may_fail) in VERSIONS.items():
        for n in a.sizes:
            cmd = [binary, "-n", str(n), "--reps", str(a.reps), "--csv"]
            say("$ " + " ".join(cmd))
            r, code, err = ladder.run_csv(cmd)
            why = ladder.skip_reason(code, err, too_big=True)  # too big: no configuration fits this GPU
            if why:
                say(f"{prog} n={n}: skipped: {why}")
                continue
            if r is None:
                say(f"{prog} n={n}: exit {code}: {err}")
                failed += 1
                continue
            if r["program"] != prog:  # the binary's own name: a mix-up of files would show here
                say(f"{prog} n={n}: the program calls itself {r['program']}")
                failed += 1
                continue
            expected = code == 1 and may_fail
            failed += code == 1 and not may_fail
            rows.append(ladder.result_row(cmd, r, ladder.now_stamp(stamp)))
            say(f"{prog:10s} n={n:5d} {r['config']:14s} {float(r['kernel_ms']):9.3f} ms "
                f"{float(r['gflops']) / 1e3:6.1f} TFLOPS, avg rel err {float(r['avg_rel_err']):.2e}, "
                f"comp err {float(r['max_comp_err']):.2e} (the {r['precision']} bound {float(r['tolerance']):.2e}): "
                f"{r['status']}"
                + (" (expected: this version is kept to show it)" if expected else ""))
    if rows:
        say(ladder.record(os.path.join(a.results, ladder.slug(device) + "-versions.csv"), rows))
    log.close()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
