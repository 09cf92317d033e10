/* Step 19's arithmetic: step 16's residues and remainder theorem (ozaki.h) in the instructions a GPU
 * has many of, one copy for the kernels and for the exact CPU check beside them
 * (tests/fast_arithmetic.c). Both give what ozaki.h gives, bit for bit, inside the ranges said here;
 * outside them the step takes step 16's kernels.
 *
 * Residues in single precision. Step 16 scales a value in double, rounds it to an integer v (|v| <=
 * 2^bits) and takes v mod p with integer divisions: three conversions to and from 64-bit types an
 * element, which a Hopper SM does 16 at a time, against 128 single-precision operations. Here v is
 * split as vh 2^S + vl with both parts small, and each residue is t - p round(t / p) for
 * t = vh (2^S mod p) + vl: five single-precision operations, every one exact.
 *
 * The remainder theorem in 64 bits. With at most 8 moduli, P < 2^64 and the integer product C'
 * (|C'| < P / 2) fits a signed 64-bit integer. sum r_l q_l = t P + C' for one integer t, so
 * C' = sum r_l q_l - t P modulo 2^64, where the products wrap; t is the nearest integer to
 * sum r_l (q_l / P), which double precision gets right while |C'| / P stays 2^-38 inside 1/2. */
#ifndef FAST_ARITHMETIC_H
#define FAST_ARITHMETIC_H

#include "../step16_ozaki_int8/ozaki.h"

/* 1.5 2^23: for |x| <= 2^22, x + it is x rounded to an integer (to nearest, ties to even: the
 * floats there are 1 apart), and its bits are 0x4b400000 + that integer. */
#define SPLIT_MAGIC 12582912.0f
#define SPLIT_MAGIC_BITS 0x4b400000u
/* The widest scaled values (bits) the split keeps exact: |t| < 2^23 below. */
#define SPLIT_MAX_BITS 37

/* What the residues of one side need (A with alpha bits, Bt with beta), once per run. */
struct split_plan {
    int S;                         /* v = vh 2^S + vl */
    float two_S;                   /* 2^S */
    float c[OZAKI_MAX_MODULI];     /* 2^S mod p_l, symmetric: |c| <= 127 */
};

/* S for scaled values of `bits` bits: |vh| <= 2^(bits - S) <= 2^22 and |vl| <= 2^(S - 1) <= 2^22 keep
 * the two roundings exact, |t| <= 127 2^(bits - S) + 2^(S - 1) < 2^23 keeps round(t / p) exact, and
 * S >= 8 makes v mod 256 = vl mod 256. -1 past SPLIT_MAX_BITS. */
static inline int split_plan_make(int bits, int count, struct split_plan *sp)
{
    if (bits < 1 || bits > SPLIT_MAX_BITS)
        return -1;
    sp->S = bits - 15 > 8 ? bits - 15 : 8;
    sp->two_S = (float)ozaki_pow2(sp->S);
    for (int l = 0; l < OZAKI_MAX_MODULI; l++)
        sp->c[l] = l < count ? (float)ozaki_residue((int64_t)1 << sp->S, ozaki_modulus(l)) : 0.0f;
    return 0;
}

/* A row's (column's) scalings, from the exponent e of its largest magnitude: x1 = x pre (2^64 for
 * rows so small that 2^(bits - e) is past FP32's range, else 1); x1 high = x 2^(bits - e - S);
 * x1 whole = x 2^(bits - e), the scaled value itself. All powers of two. */
struct split_scale {
    float pre, high, whole;
};

OZAKI_HD struct split_scale split_scale_of(int e, int bits, const struct split_plan *sp)
{
    const int g = bits - e, pre = g > 100 ? 64 : 0; /* g <= 37 + 148 */
    const struct split_scale s = {(float)ozaki_pow2(pre), (float)ozaki_pow2(g - pre - sp->S),
                                  (float)ozaki_pow2(g - pre)};
    return s;
}

OZAKI_HD float split_fma(float x, float y, float z)
{
#ifdef __CUDA_ARCH__
    return __fmaf_rn(x, y, z);
#else
    return fmaf(x, y, z);
#endif
}

/* v = rint(x 2^(bits - e)), split: *vh and *vl (integers, as floats) with v = vh 2^S + vl; the
 * return value is vl + SPLIT_MAGIC, whose low byte is v mod 256. NaN and Inf count as 0 (they take
 * no part: step 14's pass). The rounding is v's: vh 2^S is even, so rounding the rest to nearest,
 * ties to even, rounds the whole. */
OZAKI_HD float split_value(float x, struct split_scale s, const struct split_plan *sp, float *vh, float *vl)
{
    const float x0 = fabsf(x) <= 3.40282347e38f ? x : 0.0f;
    const float x1 = x0 * s.pre;                               /* exact: pre > 1 only for tiny rows */
    const float high = split_fma(x1, s.high, SPLIT_MAGIC) - SPLIT_MAGIC; /* rint(v / 2^S), |.| <= 2^22 */
    const float rest = split_fma(-high, sp->two_S, x1 * s.whole); /* exact: |rest| <= 2^(S - 1) */
    const float low_magic = rest + SPLIT_MAGIC;
    *vh = high;
    *vl = low_magic - SPLIT_MAGIC;
    return low_magic;
}

/* The symmetric residue of v = vh 2^S + vl mod p (odd), as SPLIT_MAGIC + r: its low byte is r as
 * an INT8. c = 2^S mod p, inv_p = 1 / p rounded to FP32 (its error moves t / p by less than
 * 1 / (2p) for |t| < 2^23, and t / p is never nearer than that to a half: p is odd). */
OZAKI_HD float split_residue(float vh, float vl, float c, float p, float inv_p)
{
    const float t = split_fma(vh, c, vl);                                /* exact: |t| < 2^23 */
    const float q = split_fma(t, inv_p, SPLIT_MAGIC) - SPLIT_MAGIC;      /* round(t / p) */
    return split_fma(-q, p, t) + SPLIT_MAGIC;                            /* t - q p, |.| <= (p - 1) / 2 */
}

/* The residue mod the l-th modulus from split_value's parts, as SPLIT_MAGIC + r: the low byte of its
 * bits is r as an INT8 (two's complement). */
OZAKI_HD float split_residue_magic(int l, float vh, float vl, float low_magic, const struct split_plan *sp)
{
    const int p = ozaki_modulus(l);
    return p == 256 ? low_magic : split_residue(vh, vl, sp->c[l], (float)p, 1.0f / (float)p);
}

OZAKI_HD uint32_t split_residue_byte(int l, float vh, float vl, float low_magic, const struct split_plan *sp)
{
    const float r_magic = split_residue_magic(l, vh, vl, low_magic, sp);
    uint32_t bits;
    memcpy(&bits, &r_magic, 4);
    return bits & 0xffu;
}

/* ---- The remainder theorem in 64 bits ---- */

#define RECON64_MAX_MODULI 8 /* the product of the 8 largest moduli is below 2^64 */

struct recon64 {
    int count;
    uint64_t P;
    uint64_t q[RECON64_MAX_MODULI]; /* ozaki.h's q_l (below P) */
    double w[RECON64_MAX_MODULI];   /* q_l / P, within 2^-53 */
};

/* The 64-bit form for a plan, where it is exact for every product the plan allows: count <= 8 and
 * |C'| <= k 2^(alpha + beta) at least 2^-37 P inside P / 2 (see reconstruct64). 0, or -1 where not. */
static inline int recon64_make(const struct ozaki_plan *plan, int k, struct recon64 *r)
{
    if (plan->count > RECON64_MAX_MODULI || plan->P_hi != 0)
        return -1;
    const ozaki_u128 P = plan->P_lo, bound = (ozaki_u128)k << (plan->alpha + plan->beta + 1); /* 2 k 2^s */
    if (bound * ((ozaki_u128)1 << 37) > P * (((ozaki_u128)1 << 37) - 1))
        return -1;
    r->count = plan->count;
    r->P = plan->P_lo;
    for (int l = 0; l < RECON64_MAX_MODULI; l++) {
        const uint64_t q = l < plan->count ? plan->q_lo[l] : 0;
        r->q[l] = q;
        r->w[l] = (double)(uint64_t)(((ozaki_u128)q << 64) / P) * 0x1p-64; /* two roundings: within 2^-53 */
    }
    return 0;
}

/* The rare results (0, subnormal, or past FP32's range): step 16's exact rounding, out of line, so
 * that the common path stays short where a kernel inlines sixteen of them. */
#ifdef __CUDACC__
__host__ __device__ static __noinline__
#else
static
#endif
float recon64_rare(int64_t c, int e)
{
    return ozaki_to_float((ozaki_u128)(c < 0 ? 0 - (uint64_t)c : (uint64_t)c), c < 0, e);
}

/* The sums for one element, a modulus at a time (l in order: every caller adds in the same order):
 * f += r w_l (the quotient's estimate), y += r q_l modulo 2^64. */
OZAKI_HD void recon64_add(const struct recon64 *rc, int l, uint32_t r, double *f, uint64_t *y)
{
#ifdef __CUDA_ARCH__
    const double rd = __hiloint2double(0x43300000, (int)r) - 0x1p52; /* r exactly, no conversion unit */
    *f = __fma_rn(rd, rc->w[l], *f);
#else
    *f = fma((double)r, rc->w[l], *f);
#endif
    *y += (uint64_t)r * rc->q[l];
}

/* From the sums, C' and step 16's one rounding to FP32 times 2^e. f = sum r_l w_l errs by less
 * than 8 255 2^-53 (the w) + 8 2^-42 (eight roundings below 2^11) < 2^-38.8, so t = round(f) is
 * exact while |C'| / P <= 1/2 - 2^-38: recon64_make's condition. Then C' = y - t P = y + t (2^64 - P)
 * modulo 2^64. g = C' rounded to FP32 is step 16's rounding wherever g 2^e is normal (its biased
 * exponent E + e in 1 ... 254): the exponent is added to g's bits. Where a result lies just below
 * 2^-126 and rounds up to it, rounding at the subnormals' coarser step gives 2^-126 too; every other
 * result (0, subnormal, past FP32's range) takes recon64_rare. */
OZAKI_HD float recon64_finish(const struct recon64 *rc, double f, uint64_t y, int e)
{
    const double t_magic = f + 0x1.8p52; /* f < 2^11: its integer in the low word */
    uint64_t t_bits;
    memcpy(&t_bits, &t_magic, 8);
    const int64_t c = (int64_t)(y + (uint64_t)(uint32_t)t_bits * (0 - rc->P));
#ifdef __CUDA_ARCH__
    const float g = __ll2float_rn(c);
#else
    const float g = (float)c; /* to nearest, ties to even */
#endif
    uint32_t g_bits;
    memcpy(&g_bits, &g, 4);
    const int biased = (int)(g_bits >> 23 & 0xffu) + e; /* 0 where c = 0 */
    if ((unsigned)(biased - 1) > 253u || c == 0)
        return recon64_rare(c, e);
    g_bits += (uint32_t)e << 23;
    float out;
    memcpy(&out, &g_bits, 4);
    return out;
}

/* C' from the residues r[l] in [0, p_l), rounded: ozaki_reconstruct's result. */
OZAKI_HD float reconstruct64(const struct recon64 *rc, const uint32_t *r, int e)
{
    double f = 0.0;
    uint64_t y = 0;
    for (int l = 0; l < RECON64_MAX_MODULI; l++)
        recon64_add(rc, l, r[l], &f, &y);
    return recon64_finish(rc, f, y, e);
}

#endif
