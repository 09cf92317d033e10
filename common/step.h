/* The contract between a step and the harness. A step's .cu file defines
 * step_info and matmult_gpu (the article's matmultCUDA); common/step_main.c does
 * everything else: options, inputs, timing passes, the check and the report. */
#ifndef STEP_H
#define STEP_H

#include "gpu.h"
#include "matrix.h"

#ifdef __cplusplus
extern "C" {
#endif

struct step_info {
    const char *program; /* "step05" */
    const char *lesson;  /* a few words: what this step changes */
    int compensated;     /* 1 if the kernel uses Kahan summation */
    /* Dynamic shared memory one block needs at size n, or NULL when none. */
    size_t (*dynamic_smem_bytes)(int n);
};
extern const struct step_info step_info;

/* Allocate device matrices, copy A and B in, multiply, copy C back, free; fill in
 * the end-to-end phases of run and, when kernel_reps > 0, the kernel's median time.
 * Host matrices are n x n with leading dimensions lda, ldb, ldc (in elements). */
void matmult_gpu(const float *a, int lda, const float *b, int ldb, float *c, int ldc, int n,
                 int kernel_reps, struct gpu_run *run);

/* Kahan steps: 2.5e-7 at every n. Compensated summation of non-negative terms
 * errs by at most about 2u = 1.2e-7 (u = 2^-24, Higham, Accuracy and Stability,
 * 4.3), 3u = 1.8e-7 if the products are rounded separately.
 * Plain summation: the worst-case bound gamma(n+1) = (n+1)u / (1 - (n+1)u), which
 * grows with n (6.0e-5 at n = 1000; the article measured 2.0e-6). */
#define KAHAN_TOLERANCE 2.5e-7
double step_tolerance(int compensated, int n);

#ifdef __cplusplus
}
#endif
#endif
