/* The ceilings: cuBLAS SGEMM in its default math mode (FP32 arithmetic, no TF32), and
 * with --math tf32 the same call on TF32 tensor cores, with the same harness, options and
 * output as the steps. */
#include "step.h"

#include <cublas_v2.h>
#include "cublas_check.h"
#include <stdio.h>
#include <stdlib.h>

/* FP32 first: the default, and the ceiling of the fp32-class steps; TF32 is the ceiling of
 * the tensor-core steps (CUBLAS_COMPUTE_32F_FAST_TF32: inputs rounded to TF32, FP32 sums). */
static const struct step_math maths[] = {
    {.name = "fp32", .row_name = "cublas", .precision = PRECISION_FP32,
     .lesson = "cuBLAS SGEMM, FP32 (the ceiling)"},
    {.name = "tf32", .row_name = "cublas_tf32", .precision = PRECISION_TF32,
     .lesson = "cuBLAS on TF32 tensor cores (the TF32 ceiling)",
     .min_cc = 80, .needs = "TF32 tensor cores; below it cuBLAS would compute in FP32"},
    {.name = NULL},
};
const struct step_info step_info = {
    .program = "cublas",
    .lesson = "cuBLAS SGEMM (FP32 default math, or TF32 tensor cores)",
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
    /* The default is FP32 arithmetic: TF32 has to be asked for. */
    CUBLAS_CHECK(cublasSetMathMode(state->handle, run->math->precision == PRECISION_TF32 ? CUBLAS_TF32_TENSOR_OP_MATH
                                                                                         : CUBLAS_DEFAULT_MATH));
}

static void launch(const struct step_run *run)
{
    const struct step_state *state = (const struct step_state *)run->state;
    const struct dev_mats *m = &run->mats;
    const float one = 1.0f, zero = 0.0f;
    /* cuBLAS is column-major: a row-major matrix is its transpose. Row-major
     * C = A B is column-major C^T = B^T A^T, so pass B first, then A. */
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
