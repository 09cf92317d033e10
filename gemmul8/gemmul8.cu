/* The peer of step 16: GEMMul8 (RIKEN R-CCS, MIT licence), the fastest public Ozaki scheme II,
 * its SGEMM emulation on INT8 tensor cores through cuBLAS's INT8 GEMM, on the same harness,
 * options and output as the steps. Three settings (--math), each its own row in the results:
 * the accurate mode with 8 moduli, the fast mode with 8 and with 7 (its fastest; fewer bits
 * kept, and a cheaper bound of each row's scale). Its DGEMM emulation on FP64 matrices, four more:
 * fast with 14 and 15 moduli, accurate with 15 and 16, the settings its paper compares with DGEMM.
 * GEMMul8 is a C++ library, built from its source into third_party/ (gemmul8.mk); everything else
 * is the harness's. */
#include "step.h"

#include <cublas_v2.h>
#include "cublas_check.h"
#include <gemmul8.hpp>
#include <stdio.h>
#include <stdlib.h>

/* Judged by the class of what each setting claims to emulate: SGEMM's fp32, as step 16 is, or
 * DGEMM's fp64. */
static const struct step_math maths[] = {
    {.name = "accurate-8", .row_name = "gemmul8_accurate8", .precision = PRECISION_FP32,
     .lesson = "GEMMul8's SGEMM emulation, accurate mode, 8 moduli"},
    {.name = "fast-8", .row_name = "gemmul8_fast8", .precision = PRECISION_FP32,
     .lesson = "GEMMul8's SGEMM emulation, fast mode, 8 moduli"},
    {.name = "fast-7", .row_name = "gemmul8_fast7", .precision = PRECISION_FP32,
     .lesson = "GEMMul8's SGEMM emulation, fast mode, 7 moduli"},
    {.name = "fp64-fast-14", .row_name = "gemmul8_fp64_fast14", .precision = PRECISION_FP64,
     .lesson = "GEMMul8's DGEMM emulation, fast mode, 14 moduli", .element = ELEMENT_FP64},
    {.name = "fp64-fast-15", .row_name = "gemmul8_fp64_fast15", .precision = PRECISION_FP64,
     .lesson = "GEMMul8's DGEMM emulation, fast mode, 15 moduli", .element = ELEMENT_FP64},
    {.name = "fp64-accurate-15", .row_name = "gemmul8_fp64_accurate15", .precision = PRECISION_FP64,
     .lesson = "GEMMul8's DGEMM emulation, accurate mode, 15 moduli", .element = ELEMENT_FP64},
    {.name = "fp64-accurate-16", .row_name = "gemmul8_fp64_accurate16", .precision = PRECISION_FP64,
     .lesson = "GEMMul8's DGEMM emulation, accurate mode, 16 moduli", .element = ELEMENT_FP64},
    {.name = NULL},
};
/* The one compute capability the library was compiled for (gemmul8.mk passes GEMMUL8_ARCH). */
#ifndef GEMMUL8_CC
#define GEMMUL8_CC 90
#endif

const struct step_info step_info = {
    .program = "gemmul8",
    .lesson = "GEMMul8: SGEMM and DGEMM emulated by Ozaki scheme II on INT8 tensor cores (the peer of step 16)",
    .chapter = "reference",
    .min_cc = GEMMUL8_CC,
    .needs = "the GEMMul8 library as built here, for one compute capability (make gemmul8-lib GEMMUL8_ARCH=NN builds "
             "another)",
    .maths = maths,
    /* its INT8 copies of A and B per modulus and their products: about 4 n x n floats at 8 moduli,
     * 8 at 16 */
    .scratch_matrices = 8,
};

/* Each --math's setting, in the order of maths[]: how many moduli, and the fast mode or not. */
static const struct {
    unsigned moduli;
    bool fast;
} settings[] = {{8, false}, {8, true}, {7, true}, {14, true}, {15, true}, {15, false}, {16, false}};
#define MOST_MODULI 16 /* the workspace does not know the setting: it holds the largest */

/* Its workspace, as the library asks, for the most moduli any setting uses. */
static size_t workspace_bytes(int padded, const struct step_config *config)
{
    (void)config;
    return gemmul8::workSize<false, gemmul8::Backend::INT8>(padded, padded, padded, MOST_MODULI);
}

/* The run's cuBLAS handle (GEMMul8 calls cuBLAS's INT8 GEMM through it), outside the timed phases. */
struct step_state {
    cublasHandle_t handle;
};

static void setup(struct step_run *run)
{
    struct step_state *state = (struct step_state *)run->state;
    CUBLAS_CHECK(cublasCreate(&state->handle));
}

/* Row-major C = A B is column-major C^T = B^T A^T: B first, then A, as for cuBLAS. The library
 * waits for its stream between its phases (it times them on the host): that is part of its
 * time here, as it is for any program that calls it. */
static void launch(const struct step_run *run)
{
    const struct step_state *state = (const struct step_state *)run->state;
    const struct dev_mats *m = &run->mats;
    const unsigned moduli = settings[run->math - maths].moduli;
    const bool fast = settings[run->math - maths].fast;
    if (run->math->element == ELEMENT_FP64) {
        const double one = 1.0, zero = 0.0;
        gemmul8::gemm<double, gemmul8::Backend::INT8>(state->handle, CUBLAS_OP_N, CUBLAS_OP_N, m->n, m->n, m->n, &one,
                                                      m->b64, m->ldb, m->a64, m->lda, &zero, m->c64, m->ldc, moduli,
                                                      fast, run->workspace);
    } else {
        const float one = 1.0f, zero = 0.0f;
        gemmul8::gemm<float, gemmul8::Backend::INT8>(state->handle, CUBLAS_OP_N, CUBLAS_OP_N, m->n, m->n, m->n, &one,
                                                     m->b, m->ldb, m->a, m->lda, &zero, m->c, m->ldc, moduli, fast,
                                                     run->workspace);
    }
    CUDA_CHECK(cudaGetLastError());
}

static void teardown(struct step_run *run)
{
    const struct step_state *state = (const struct step_state *)run->state;
    CUBLAS_CHECK(cublasDestroy(state->handle));
}

static const struct step_ops ops = {.workspace_bytes = workspace_bytes, .state_bytes = sizeof(struct step_state),
                                    .setup = setup, .launch = launch, .teardown = teardown};

/* The steps' shared host function (common/padded.c), with a tile of 1: pitched rows, no padding. */
MATMULT_GPU_PADDED(1, ops)
