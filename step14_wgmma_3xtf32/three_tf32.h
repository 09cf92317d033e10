/* 3xTF32's pieces shared by the steps that use wgmma (14 and 15): the split of a value into
 * two TF32 parts, the power-of-two shift that keeps a row's or column's split clear of
 * underflow and overflow (step 12's rule), and (special_values.h) the pass that gives C the NaN
 * and Inf an FP32 GEMM gives where an input holds one. CUDA C, included by .cu files only, after
 * step.h and tf32_mma.h. */
#ifndef THREE_TF32_H
#define THREE_TF32_H

#include <math.h>

#include "special_values.h"

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

#endif
