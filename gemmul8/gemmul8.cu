/* The peer of step 16: GEMMul8 (RIKEN R-CCS, MIT licence), the fastest public Ozaki scheme II,
 * its SGEMM emulation on INT8 tensor cores through cuBLAS's INT8 GEMM, on the same harness,
 * options and output as the steps. Three settings (--math), each its own row in the results:
 * the accurate mode with 8 moduli, the fast mode with 8 and with 7 (its fastest; fewer bits
 * kept, and a cheaper bound of each row's scale). GEMMul8 is a C++ library, built from its
 * source into third_party/ (gemmul8.mk); everything else is the harness's. */
#include "step.h"

#include <cublas_v2.h>
#include "cublas_check.h"
#include <gemmul8.hpp>
#include <stdio.h>
#include <stdlib.h>

/* Judged by the fp32 class, as step 16 is: what the peer claims to emulate. */
static const struct step_math maths[] = {
    {.name = "accurate-8", .row_name = "gemmul8_accurate8", .precision = PRECISION_FP32,
     .lesson = "GEMMul8's SGEMM emulation, accurate mode, 8 moduli"},
    {.name = "fast-8", .row_name = "gemmul8_fast8", .precision = PRECISION_FP32,
     .lesson = "GEMMul8's SGEMM emulation, fast mode, 8 moduli"},
    {.name = "fast-7", .row_name = "gemmul8_fast7", .precision = PRECISION_FP32,
     .lesson = "GEMMul8's SGEMM emulation, fast mode, 7 moduli"},
    {.name = NULL},
};
/* The one compute capability the library was compiled for (gemmul8.mk passes GEMMUL8_ARCH). */
#ifndef GEMMUL8_CC
#define GEMMUL8_CC 90
#endif

const struct step_info step_info = {
    .program = "gemmul8",
    .lesson = "GEMMul8: SGEMM emulated by Ozaki scheme II on INT8 tensor cores (the peer of step 16)",
    .chapter = "reference",
    .min_cc = GEMMUL8_CC,
    .needs = "the GEMMul8 library as built here, for one compute capability (make gemmul8-lib GEMMUL8_ARCH=NN builds "
             "another)",
    .maths = maths,
    .scratch_matrices = 4, /* its INT8 copies of A and B per modulus and their products: about 4 n x n floats at 8 */
};

/* Each --math's setting, in the order of maths[]: how many moduli, and the fast mode or not. */
static const struct {
    unsigned moduli;
    bool fast;
} settings[] = {{8, false}, {8, true}, {7, true}};
#define MOST_MODULI 8

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
    const float one = 1.0f, zero = 0.0f;
    gemmul8::gemm<float, gemmul8::Backend::INT8>(state->handle, CUBLAS_OP_N, CUBLAS_OP_N, m->n, m->n, m->n, &one,
                                                 m->b, m->ldb, m->a, m->lda, &zero, m->c, m->ldc,
                                                 settings[run->math - maths].moduli, settings[run->math - maths].fast,
                                                 run->workspace);
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
