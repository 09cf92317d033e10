/* 3xTF32's pieces shared by the steps that use wgmma (14 and 15): the split of a value into
 * two TF32 parts, the power-of-two shift that keeps a row's or column's split clear of
 * underflow and overflow (step 12's rule), and the pass that gives C the NaN and Inf an FP32
 * GEMM gives where an input holds one. CUDA C, included by .cu files only, after step.h and
 * tf32_mma.h. */
#ifndef THREE_TF32_H
#define THREE_TF32_H

#include <math.h>

/* big = tf32(x), rounded to nearest; small = tf32(x - big): x - big is exact in FP32. */
__device__ static void split(float x, float *big, float *small)
{
    if (!isfinite(x)) /* its row or column is marked; the last pass gives C its NaN or Inf */
        x = 0.0f;
    *big = __uint_as_float(to_tf32_exact(x));
    *small = __uint_as_float(to_tf32_exact(x - *big));
}

/* The power of two that brings a row's or column's largest magnitude m into the range where
 * the split loses nothing to underflow or overflow: below 2^-50 up to [1, 2) (at most 2^127),
 * from 2^50 down to [2^49, 2^50); else 1 (the exponent 0). */
__device__ static int shift_for(float m)
{
    if (!(m > 0.0f) || !(m < INFINITY))
        return 0;
    const int e = ilogbf(m);
    return e < -50 ? min(-e, 127) : e >= 50 ? 49 - e : 0;
}

/* 2^e as a float, for e in -126 ... 127 (every shift above): multiplying by it is ldexpf's
 * correctly rounded x 2^e in one instruction. */
__device__ static __forceinline__ float pow2f(int e)
{
    return __int_as_float((127 + e) << 23);
}

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
