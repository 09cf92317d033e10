/* A CPU model of the TF32 tensor core's arithmetic on Hopper, bit for bit, as measured by
 * tests/tensor_core_arith.cu on the H100 (the method: Fasi, Higham, Mikaitis and Pranesh,
 * "Numerical behavior of NVIDIA tensor cores", PeerJ Computer Science 7:e330, 2021; Khattak
 * and Mikaitis, "Accurate models of NVIDIA tensor cores", arXiv:2512.07004, 2025, model the H100
 * too). One wgmma k-step, d = c + a_0 b_0 + ... + a_7 b_7:
 *   - each operand keeps its top 19 bits (TF32: the sign, 8 exponent bits, 10 fraction bits);
 *     the low 13 are cut off, not rounded;
 *   - the eight products are exact (11 x 11 significant bits fit in 22);
 *   - the nine terms (c and the products) are aligned to the largest exponent among them, as
 *     the hardware sees it (e_a + e_b for a product, before the product is normalised), and
 *     each keeps its bits down to 2^(that exponent - 25): what lies below is cut off (toward
 *     zero);
 *   - the sum of what is kept is exact, then rounded toward zero to FP32's 24 bits.
 * Plain C (the tests' CPU programs include it too); finite inputs away from FP32's overflow
 * and underflow thresholds, as the callers use it. */
#ifndef TF32_MODEL_H
#define TF32_MODEL_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#ifndef TF32_MODEL_ALIGN_BITS
#define TF32_MODEL_ALIGN_BITS 25 /* below 2^top: FP32's 23 fraction bits and 2 more */
#endif

static inline uint32_t tf32_model_bits(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static inline float tf32_model_float(uint32_t u)
{
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* FP32 bits to TF32 bits, to nearest with ties away from zero (cvt.rna.tf32.f32): add half
 * of the 13 bits that go, then clear them (a carry moves into the exponent, as it should). */
static inline uint32_t tf32_round_away(uint32_t u)
{
    return (u + 0x1000u) & 0xffffe000u;
}

/* To nearest with ties to even: half minus one, plus the lowest bit that stays. */
static inline uint32_t tf32_round_even(uint32_t u)
{
    return (u + 0x0fffu + ((u >> 13) & 1u)) & 0xffffe000u;
}

static inline float tf32_truncate(float x)
{
    return tf32_model_float(tf32_model_bits(x) & 0xffffe000u);
}

/* x rounded toward zero to 24 significant bits (x is exact in double: the callers' sums). */
static inline double tf32_model_rz24(double x)
{
    if (x == 0.0)
        return 0.0;
    int e;
    frexp(x, &e); /* |x| in [2^(e-1), 2^e) */
    const double q = ldexp(1.0, e - 24);
    return trunc(x / q) * q;
}

/* One k-step of the TF32 tensor core: c + sum a_k b_k over k = 0 ... 7. The alignment point is
 * the largest of the terms' exponents as the hardware sees them before it normalises: e_a + e_b
 * for a product (which may itself reach 2^(e_a + e_b + 2)), e_c for c; zero terms take no part. */
static inline float tf32_mma_k8(float c, const float *a, const float *b)
{
    double term[9];
    int top = INT32_MIN;
    term[0] = c;
    if (c != 0.0f)
        top = ilogbf(c);
    for (int k = 0; k < 8; k++) {
        const float x = tf32_truncate(a[k]), y = tf32_truncate(b[k]);
        term[k + 1] = (double)x * (double)y; /* exact: 22 significant bits */
        if (x != 0.0f && y != 0.0f && ilogbf(x) + ilogbf(y) > top)
            top = ilogbf(x) + ilogbf(y);
    }
    if (top == INT32_MIN)
        return c; /* no term but zeros */
    /* Each term keeps its multiples of 2^(top - ALIGN_BITS), cut toward zero: integers below
     * 2^(ALIGN_BITS + 2), nine of which sum exactly in a double. */
    const double q = ldexp(1.0, top - TF32_MODEL_ALIGN_BITS);
    double sum = 0.0;
    for (int i = 0; i < 9; i++)
        sum += trunc(term[i] / q);
    return (float)(tf32_model_rz24(sum) * q);
}

#endif
