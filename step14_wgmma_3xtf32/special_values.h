/* The pass that gives C the NaN and Inf an FP32 GEMM gives where an input holds one, after a
 * product that leaves them out (steps 14 and 15 split around them, step 16 scales around them).
 * CUDA C, included by .cu files only, after step.h. */
#ifndef SPECIAL_VALUES_H
#define SPECIAL_VALUES_H

#include <math.h>

/* The elements of C in a marked row or column: every one is NaN or Inf in an FP32 GEMM. Its
 * terms a_ik b_kj with a NaN or an Inf decide which: NaN if one is NaN (Inf x 0 included) or if
 * both +Inf and -Inf occur, else that Inf (NaN again if the finite part overflowed the other
 * way). Nothing to do, and nothing done, when no input holds one. */
#define SPECIAL_ROWS 64 /* rows of blocks in its grid */
__global__ static void special_values(const float *a, size_t lda, const float *b, size_t ldb, float *c, size_t ldc,
                                      const int *row_special, const int *col_special, const int *any_special, int n)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (!*any_special || j >= n)
        return;
    for (int i = blockIdx.y; i < n; i += gridDim.y) {
        if (!(row_special[i] || col_special[j]))
            continue;
        int nan = 0, pos = 0, neg = 0;
        for (int k = 0; k < n; k++) {
            const float x = a[(size_t)i * lda + k], y = b[(size_t)k * ldb + j];
            if (isfinite(x) && isfinite(y))
                continue;
            const float t = x * y;
            nan |= isnan(t);
            pos |= t == INFINITY;
            neg |= t == -INFINITY;
        }
        const float finite = c[(size_t)i * ldc + j];
        pos |= finite == INFINITY;
        neg |= finite == -INFINITY;
        c[(size_t)i * ldc + j] = nan || (pos && neg) ? NAN : pos ? INFINITY : -INFINITY;
    }
}

/* The pass after the product: a few blocks that return at once when no input holds a NaN or
 * an Inf; rows by stride. */
static void special_values_launch(const struct dev_mats *m, const int *row_special, const int *col_special,
                                  const int *any_special)
{
    special_values<<<dim3((m->n + 255) / 256, m->n < SPECIAL_ROWS ? m->n : SPECIAL_ROWS), 256>>>(
        m->a, m->lda, m->b, m->ldb, m->c, m->ldc, row_special, col_special, any_special, m->n);
}

#endif
