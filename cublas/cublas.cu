/* The ceilings: cuBLAS SGEMM in its default math mode (FP32 arithmetic, no TF32), and
 * with --math tf32 the same call on TF32 tensor cores, with the same harness, options and
 * output as the steps. With --math fp64, DGEMM on FP64 matrices (the FP64 ceiling), and with
 * --math fp64_emulated the same call in cuBLAS's FP64 emulation on INT8 tensor cores. */
#include "step.h"

#include <cublas_v2.h>
#include "cublas_check.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* FP32 first: the default, and the ceiling of the fp32-class steps; TF32 is the ceiling of
 * the tensor-core steps (CUBLAS_COMPUTE_32F_FAST_TF32: inputs rounded to TF32, FP32 sums). */
static const struct step_math maths[] = {
    {.name = "fp32", .row_name = "cublas", .precision = PRECISION_FP32,
     .lesson = "cuBLAS SGEMM, FP32 (the ceiling)"},
    {.name = "tf32", .row_name = "cublas_tf32", .precision = PRECISION_TF32,
     .lesson = "cuBLAS on TF32 tensor cores (the TF32 ceiling)",
     .min_cc = 80, .needs = "TF32 tensor cores; below it cuBLAS would compute in FP32"},
    {.name = "fp64", .row_name = "cublas_dgemm", .precision = PRECISION_FP64,
     .lesson = "cuBLAS DGEMM, FP64 (the FP64 ceiling)", .element = ELEMENT_FP64},
    /* The fixed-point emulation's own choice of bits (its default mantissa control), made eager:
     * on a GPU where cuBLAS would judge native DGEMM faster, it emulates all the same. */
    {.name = "fp64_emulated", .row_name = "cublas_dgemm_emulated", .precision = PRECISION_FP64,
     .lesson = "cuBLAS DGEMM in its FP64 emulation on INT8 tensor cores (fixed point)", .element = ELEMENT_FP64,
     .outside_bound = "rowscale: rows of A of FP64 subnormals beside normal columns of B lose bits in the emulation's "
                      "fixed point, at every n measured (1 ... 1025 on an H200); subnormal: at n = 1 on an H200 "
                      "(A's one subnormal element)"},
    {.name = NULL},
};
const struct step_info step_info = {
    .program = "cublas",
    .lesson = "cuBLAS SGEMM (FP32 default math, or TF32 tensor cores) and DGEMM (native, or emulated)",
    .chapter = "reference",
    .maths = maths,
};

/* The run's cuBLAS handle, made in setup with the arithmetic --math chose, outside the timed
 * phases. */
struct step_state {
    cublasHandle_t handle;
};

static void setup(struct step_run *run)
{
    struct step_state *state = (struct step_state *)run->state;
    CUBLAS_CHECK(cublasCreate(&state->handle));
    /* The default is FP32 (FP64) arithmetic: TF32 and the emulation have to be asked for. */
    const int emulated = strcmp(run->math->name, "fp64_emulated") == 0;
    CUBLAS_CHECK(cublasSetMathMode(state->handle, run->math->precision == PRECISION_TF32 ? CUBLAS_TF32_TENSOR_OP_MATH
                                                  : emulated ? CUBLAS_FP64_EMULATED_FIXEDPOINT_MATH
                                                             : CUBLAS_DEFAULT_MATH));
    if (emulated)
        CUBLAS_CHECK(cublasSetEmulationStrategy(state->handle, CUBLAS_EMULATION_STRATEGY_EAGER));
}

static void launch(const struct step_run *run)
{
    const struct step_state *state = (const struct step_state *)run->state;
    const struct dev_mats *m = &run->mats;
    /* cuBLAS is column-major: a row-major matrix is its transpose. Row-major
     * C = A B is column-major C^T = B^T A^T, so pass B first, then A. */
    if (run->math->element == ELEMENT_FP64) {
        const double one = 1.0, zero = 0.0;
        CUBLAS_CHECK(cublasDgemm(state->handle, CUBLAS_OP_N, CUBLAS_OP_N, m->n, m->n, m->n, &one, m->b64,
                                 (int)m->ldb, m->a64, (int)m->lda, &zero, m->c64, (int)m->ldc));
        return;
    }
    const float one = 1.0f, zero = 0.0f;
    CUBLAS_CHECK(cublasSgemm(state->handle, CUBLAS_OP_N, CUBLAS_OP_N, m->n, m->n, m->n, &one, m->b, (int)m->ldb,
                             m->a, (int)m->lda, &zero, m->c, (int)m->ldc));
}

static void teardown(struct step_run *run)
{
    const struct step_state *state = (const struct step_state *)run->state;
    CUBLAS_CHECK(cublasDestroy(state->handle));
}

static const struct step_ops ops = {.state_bytes = sizeof(struct step_state), .setup = setup, .launch = launch,
                                    .teardown = teardown};

/* The steps' shared host function (common/padded.c), with a tile of 1: pitched
 * rows, no padding of n. cuBLAS gets the same allocation, copies and timing as the steps
 * it is the ceiling for. */
MATMULT_GPU_PADDED(1, ops)
