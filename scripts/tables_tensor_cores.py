"""The tensor-core chapter's tables: its steps beside every reference on both input
distributions, FP32's whole range, and the top README's opening of the chapter.
"""

import ladder
from tables_shared import LADDER_SIZES, REFERENCES, device_results, e, f, link, table


# The tensor-core chapter's steps beside every reference (cuBLAS FP32 and TF32, CUTLASS).
TENSOR_PROGRAMS = ladder.TENSOR_STEPS + REFERENCES


def tensor_table(results_dir):
    """The tensor-core chapter: per device, n and input distribution, each program's TFLOPS,
    its speed against cuBLAS SGEMM in the same run, its errors and its precision class."""
    rows = []
    for dist in ladder.DISTS:
        for device, res in device_results(results_dir, dist=dist).items():
            for n in LADDER_SIZES:
                blas = res.get(("cublas", n))
                for p in TENSOR_PROGRAMS:
                    r = res.get((p, n))
                    if not r or not r.get("max_comp_err"):
                        continue
                    rows.append([device, f"`{p}`", str(n), dist, f(float(r["gflops"]) / 1e3, 1),
                                 f(float(r["gflops"]) / float(blas["gflops"]), 2) + "x" if blas else "",
                                 e(r["max_rel_err"]), e(r["avg_rel_err"]), e(r["max_comp_err"]),
                                 f"{r['precision']}, {r['status']}"])
    if not rows:
        return ("No `make compare` rows of the tensor-core programs are recorded yet: `make reproduce "
                "ONLY=tensor` on a GPU measures them (the development runs are in "
                "[results/](../results/nvidia-h100-80gb-hbm3-tensor-dev-runs.txt)).")
    return table(["device", "program", "n", "inputs", "TFLOPS", "x cuBLAS SGEMM (same run)", "max rel. error",
                  "avg rel. error", "componentwise error", "class, verdict"], rows, text_columns=4)


# FP32's range: the tensor-core steps that claim FP32 accuracy, beside the FP32-class references.
RANGE_STEPS = [s for s in ladder.TENSOR_STEPS if ladder.PROGRAMS[s]["precision"] == "fp32"]


RANGE_PROGRAMS = RANGE_STEPS + [p for p in REFERENCES if ladder.PROGRAMS[p]["precision"] == "fp32"]


def range_table(results_dir):
    """FP32's whole range (make reproduce ONLY=range): per device, input family and n, the
    componentwise error of each FP32-class tensor-core step, cuBLAS SGEMM and CUTLASS's
    3xTF32, each with its verdict against the fp32 bound, and each step's error over SGEMM's."""
    rows = []
    for dist in ladder.RANGE_DISTS:
        for device, res in device_results(results_dir, dist=dist).items():
            for n in sorted({k[1] for k in res}):
                got = {p: res.get((p, n)) for p in RANGE_PROGRAMS}
                steps = [got[s] for s in RANGE_STEPS if got[s]]
                if not steps:
                    continue
                blas = got.get("cublas")
                ratios = [f(float(got[s]["max_comp_err"]) / float(blas["max_comp_err"]), 2)
                          if got[s] and blas and float(blas["max_comp_err"]) > 0 else "" for s in RANGE_STEPS]
                rows.append([device, dist, str(n)] + [f"{e(r['max_comp_err'])} {r['status']}" if r else "not run"
                                                      for r in got.values()] + ratios + [e(steps[0]["tolerance"])])
    if not rows:
        return "No rows on the ends of FP32's range are recorded yet: `make reproduce ONLY=range` on a GPU measures them."
    return table(["device", "inputs", "n"] + [ladder.label(p) for p in RANGE_PROGRAMS]
                 + [f"{ladder.label(s)} / SGEMM" for s in RANGE_STEPS] + ["fp32 bound"], rows, text_columns=3)


# The last CUDA-core step, then the tensor-core chapter and the references.
HEADLINE = [s for s in ladder.STEPS if ladder.chapter_of(s) == "cuda-cores"][-1:] + TENSOR_PROGRAMS


def tensor_headline(results_dir, n=4096):
    """The top README's opening of the tensor-core chapter: n = 4096, uniform inputs, TFLOPS,
    against cuBLAS SGEMM in the same run, and the mean relative error."""
    rows = []
    for device, res in device_results(results_dir).items():
        blas = res.get(("cublas", n))
        for p in HEADLINE:
            r = res.get((p, n))
            if r:
                rows.append([device, link(p), f(float(r["gflops"]) / 1e3, 1),
                             f(float(r["gflops"]) / float(blas["gflops"]), 2) + "x" if blas else "",
                             e(r["avg_rel_err"]), r.get("precision") or "fp32"])
    if not rows:
        return "No rows recorded yet: `make reproduce ONLY=tensor` on a GPU measures them."
    return table(["device", f"program (n = {n})", "TFLOPS", "x cuBLAS SGEMM", "avg rel. error", "class"], rows,
                 text_columns=2)


def tables(results_dir):
    return {"tensor": tensor_table(results_dir), "range": range_table(results_dir),
            "tensor-headline": tensor_headline(results_dir)}
