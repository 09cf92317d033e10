/* Ozaki scheme II's arithmetic, one copy for the GPU step and its exact CPU model
 * (tests/ozaki_model.c here): FP32 products from exact integer products and the Chinese remainder
 * theorem.
 *
 *  1. Scale: row i of A by 2^(alpha - e_i), where 2^(e_i - 1) <= max_k |a_ik| < 2^e_i, and round
 *     to the nearest integer: |A'_ik| <= 2^alpha. Column j of B the same with beta and f_j.
 *  2. The integer product C' = A' B' is exact as long as |C'| < P / 2, P the product of the
 *     moduli: k 2^(alpha + beta) < P / 2 is the plan's condition (ozaki_plan_make).
 *  3. For each modulus p: A' mod p and B' mod p as INT8 (symmetric residues, |r| <= 128), their
 *     product in INT32 (exact: k 128^2 < 2^31 for k < 131072), reduced mod p.
 *  4. The remainder theorem: C' = sum_l r_l q_l mod P, q_l = (P / p_l) ((P / p_l)^-1 mod p_l),
 *     as an unsigned 128-bit integer, taken symmetric (C' < 0 where the sum's remainder is
 *     past P / 2).
 *  5. C = C' 2^(e_i + f_j - alpha - beta), rounded once to FP32 (to nearest, ties to even).
 * The only errors: the rounding in 1 (at most half a unit of 2^(e_i - alpha) per element of A,
 * of 2^(f_j - beta) per element of B) and the one in 5. */
#ifndef OZAKI_H
#define OZAKI_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#ifdef __CUDACC__
#define OZAKI_HD __host__ __device__ static inline
#else
#define OZAKI_HD static inline
#endif

/* Up to 14 moduli: then P < 2^112 and the sum of step 4 (below 14 * 256 * P) stays below
 * 2^128 without a reduction on the way. */
#define OZAKI_MAX_MODULI 14
#define OZAKI_MAX_BITS 106 /* alpha + beta: each at most 53 (double's precision) */
/* The default count depends on k = n, the length of the sums, in two levels: 10 moduli below 128
 * products, 8 from there. In the CPU model both keep the errors within the fp32 bound and no
 * larger than a plain FP32 loop's on the uniform, wide, subnormal, tiny, rowscale and huge inputs
 * at every n measured (results/ozaki-model.txt; tests/ozaki.t checks it); 9 would do from
 * n = 17. Short sums need more: the bound, about 9 sqrt(k) u |A||B|, is tightest at small k, and
 * in a short sum one element's rounding to an integer can carry the whole sum. The mixed family
 * (80 binades in one row) is beyond these counts at small n. */
#define OZAKI_DEFAULT_MODULI_SHORT 10
#define OZAKI_DEFAULT_MODULI_LONG 8
#define OZAKI_LONG_SUMS 128

typedef unsigned __int128 ozaki_u128;

/* The default number of moduli for sums of k products. */
OZAKI_HD int ozaki_default_moduli(int k)
{
    return k < OZAKI_LONG_SUMS ? OZAKI_DEFAULT_MODULI_SHORT : OZAKI_DEFAULT_MODULI_LONG;
}

/* What the kernels need, computed once on the host (ozaki_plan_make), passed by value. */
struct ozaki_plan {
    int count;                    /* moduli used */
    int p[OZAKI_MAX_MODULI];      /* the moduli */
    uint32_t magic[OZAKI_MAX_MODULI]; /* ozaki_mod_magic(p[l]): remainders without a division */
    int alpha, beta;              /* bits of A' and of B' (beyond the sign) */
    uint64_t q_lo[OZAKI_MAX_MODULI], q_hi[OZAKI_MAX_MODULI]; /* q_l, two 64-bit halves */
    uint64_t P_lo, P_hi;          /* P */
    double inv_P;                 /* 1 / P, for the quotient's estimate */
};

OZAKI_HD ozaki_u128 ozaki_u128_make(uint64_t lo, uint64_t hi)
{
    return ((ozaki_u128)hi << 64) | lo;
}

/* The count of significant bits of a nonzero 32-bit number. */
OZAKI_HD int ozaki_bit_length(uint32_t x)
{
#ifdef __CUDA_ARCH__
    return 32 - __clz((int)x);
#else
    return 32 - __builtin_clz(x);
#endif
}

/* e with 2^(e - 1) <= m < 2^e, for the largest magnitude m of a row or column (0: e = 0), read
 * from the float's bits (frexp's e, in a few integer instructions): a normal m = 1.f 2^(E - 127)
 * has e = E - 126, a subnormal m = f 2^-149 the bit length of f less 149. */
OZAKI_HD int ozaki_exponent(float m)
{
    if (!(m > 0.0f) || !isfinite(m))
        return 0;
    uint32_t bits;
    memcpy(&bits, &m, 4);
    const int biased = (int)(bits >> 23);
    return biased ? biased - 126 : ozaki_bit_length(bits) - 149;
}

/* 2^s as a double, built from its bits, for s in -1022 ... 1023 (a scale 2^(alpha - e) lies in
 * -75 ... 201). */
OZAKI_HD double ozaki_pow2(int s)
{
    const uint64_t bits = (uint64_t)(s + 1023) << 52;
    double d;
    memcpy(&d, &bits, 8);
    return d;
}

/* x scale rounded to the nearest integer (ties to even), exactly: scale is a power of two (a
 * row's 2^(alpha - e_i), computed once per row), x scale stays within double's range (no
 * underflow: the smallest is 2^-149 2^-90), so the product is exact, and the result is at
 * most 2^53 in magnitude. */
OZAKI_HD int64_t ozaki_scaled_by(float x, double scale)
{
    return (int64_t)rint((double)x * scale);
}

OZAKI_HD int64_t ozaki_scaled(float x, int shift)
{
    return ozaki_scaled_by(x, ozaki_pow2(shift));
}

/* The moduli, pairwise coprime, each at most 256 so that a symmetric residue fits INT8; the
 * largest first: P grows by almost 8 bits with each (each the largest number coprime to those
 * before it). A function, not a table, so that a kernel's loop over l, unrolled, divides by
 * constants (a multiplication and a shift each). FP32 takes the first OZAKI_MAX_MODULI; step 20
 * (FP64) all 20. */
OZAKI_HD int ozaki_modulus(int l)
{
    switch (l) {
    case 0: return 256;
    case 1: return 255;
    case 2: return 253;
    case 3: return 251;
    case 4: return 247;
    case 5: return 241;
    case 6: return 239;
    case 7: return 233;
    case 8: return 229;
    case 9: return 227;
    case 10: return 223;
    case 11: return 217;
    case 12: return 211;
    case 13: return 199;
    case 14: return 197;
    case 15: return 193;
    case 16: return 191;
    case 17: return 181;
    case 18: return 179;
    default: return 173;
    }
}

/* m^-1 mod p (m coprime to p): p is at most 256, so trying 1, 2, 3 ... is quick and plain. */
static inline int ozaki_inverse(int m, int p)
{
    int y = 1;
    while ((m * y) % p != 1)
        y++;
    return y;
}

/* v mod p as the symmetric residue: -128 ... 127 for p = 256, -(p - 1) / 2 ... (p - 1) / 2 for
 * odd p. |v| (below 2^53 here, 2^62 in step 20) in two 32-bit halves, |v| = hi 2^32 + lo: |v| mod p
 * = ((hi mod p) (2^32 mod p) + lo mod p) mod p, every term below 2^17, so 32-bit arithmetic is exact
 * (a 64-bit remainder is a long subroutine on a GPU). */
OZAKI_HD int ozaki_residue(int64_t v, int p)
{
    const uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    const uint32_t hi = (uint32_t)(u >> 32), lo = (uint32_t)u, two32 = (uint32_t)((1ull << 32) % (uint32_t)p);
    const uint32_t m = ((hi % (uint32_t)p) * two32 + lo % (uint32_t)p) % (uint32_t)p;
    int r = v < 0 ? -(int)m : (int)m; /* -(p - 1) ... p - 1 */
    if (r >= (p + 1) / 2)
        r -= p;
    else if (r < -(p / 2))
        r += p;
    return r;
}

/* The same for |v| < 2^32 (alpha or beta at most 31): one 32-bit remainder by p. */
OZAKI_HD int ozaki_residue32(int64_t v, int p)
{
    const uint32_t u = (uint32_t)(v < 0 ? -v : v), m = u % (uint32_t)p;
    int r = v < 0 ? -(int)m : (int)m;
    if (r >= (p + 1) / 2)
        r -= p;
    else if (r < -(p / 2))
        r += p;
    return r;
}

/* v mod p in [0, p) for |v| < 2^31 (an INT32 sum of k < 131072 products of residues), p <= 256,
 * without a division: with magic = ceil(2^39 / p), |v| magic / 2^39 exceeds |v| / p by less than
 * 2^31 / 2^39 = 2^-8 <= 1 / p, too little to carry the quotient past its floor. */
OZAKI_HD uint32_t ozaki_mod_magic(int p)
{
    return (uint32_t)(((1ull << 39) + (uint64_t)p - 1) / (uint64_t)p);
}

OZAKI_HD int ozaki_mod(int v, int p, uint32_t magic)
{
    const uint32_t u = v < 0 ? 0u - (uint32_t)v : (uint32_t)v;
#ifdef __CUDA_ARCH__
    const uint32_t q = __umulhi(u, magic) >> 7; /* the high word: no 64-bit register pair */
#else
    const uint32_t q = (uint32_t)(((uint64_t)u * magic) >> 39);
#endif
    const int r = (int)(u - q * (uint32_t)p); /* |v| mod p */
    return v < 0 && r ? p - r : r;
}

/* The count of significant bits of a nonzero 128-bit number. */
OZAKI_HD int ozaki_bit_length128(ozaki_u128 m)
{
    const uint64_t hi = (uint64_t)(m >> 64), lo = (uint64_t)m;
#ifdef __CUDA_ARCH__
    return hi ? 128 - __clzll((long long)hi) : 64 - __clzll((long long)lo);
#else
    return hi ? 128 - __builtin_clzll(hi) : 64 - __builtin_clzll(lo);
#endif
}

/* m 2^e rounded once to FP32 (to nearest, ties to even): subnormal results rounded to their
 * own precision, overflow to infinity. */
OZAKI_HD float ozaki_to_float(ozaki_u128 m, int negative, int e)
{
    if (m == 0)
        return 0.0f;
    const int bits = ozaki_bit_length128(m);
    const int top = bits - 1 + e; /* m 2^e lies in [2^top, 2^(top + 1)) */
    if (top > 127)
        return negative ? -INFINITY : INFINITY;
    const int precision = top >= -126 ? 24 : 24 - (-126 - top); /* fewer bits below 2^-126 */
    const int shift = bits - precision;                         /* bits to drop */
    uint64_t q;
    if (shift <= 0) {
        q = (uint64_t)m;
    } else if (shift > bits) {
        q = 0; /* below half the smallest subnormal */
    } else {
        q = (uint64_t)(m >> shift);
        const ozaki_u128 rest = m & (((ozaki_u128)1 << shift) - 1), half = (ozaki_u128)1 << (shift - 1);
        if (rest > half || (rest == half && (q & 1)))
            q++;
    }
    const int scale = e + (shift > 0 ? shift : 0);
    /* q has at most 24 bits (25 when rounding carried into a new power of two): q 2^scale is a
     * float, and two exact scalings reach it. */
    const float f = ldexpf(ldexpf((float)q, scale / 2), scale - scale / 2);
    return negative ? -f : f;
}

/* Step 4 and 5 for one element: residues r[l] in [0, p_l), the exponent e_i + f_j - alpha - beta. */
OZAKI_HD float ozaki_reconstruct(const struct ozaki_plan *plan, const int *r, int e)
{
    ozaki_u128 x = 0;
    for (int l = 0; l < plan->count; l++)
        x += (ozaki_u128)(uint64_t)r[l] * ozaki_u128_make(plan->q_lo[l], plan->q_hi[l]);
    const ozaki_u128 P = ozaki_u128_make(plan->P_lo, plan->P_hi);
    /* x < count 256 P: its quotient by P, estimated in double and corrected. */
    ozaki_u128 t = (ozaki_u128)(uint64_t)((double)x * plan->inv_P);
    ozaki_u128 tp = t * P;
    while (tp > x) {
        tp -= P;
        t--;
    }
    x -= tp;
    while (x >= P)
        x -= P;
    /* x in [0, P): C' = x, or x - P when x is past the middle. */
    if (x > P / 2)
        return ozaki_to_float(P - x, 1, e);
    return ozaki_to_float(x, 0, e);
}

/* The 32-bit limb i of a 128-bit number held as two 64-bit halves (0: least significant). */
OZAKI_HD uint32_t ozaki_limb(uint64_t lo, uint64_t hi, int i)
{
    return (uint32_t)((i < 2 ? lo : hi) >> (32 * (i % 2)));
}

/* ozaki_reconstruct, equal to it bit for bit (tests/ozaki_model.c checks millions of cases), in
 * the instructions a GPU has: 32 x 32 -> 64-bit multiply-adds instead of 128-bit products, the
 * quotient estimated from four limbs in double, and the rounding to FP32 by the hardware's own
 * conversion of the top 64 bits (the bits below folded into the last one: they only decide a
 * tie, 40 bits further up) with the exponent added to the float's bits. Results that are
 * subnormal or overflow take ozaki_to_float's exact path. */
OZAKI_HD float ozaki_reconstruct_limbs(const struct ozaki_plan *plan, const int *r, int most, int e)
{
    /* x = sum r_l q_l, limb by limb: each column below 14 * 255 * 2^32 < 2^44. most (at least
     * plan->count, a constant where the function is inlined) lets a compiler unroll the loop and
     * keep r in registers; past plan->count q_l is 0 (ozaki_plan_make), so r[l] adds nothing. */
    uint64_t acc[4] = {0, 0, 0, 0};
    for (int l = 0; l < most; l++)
        for (int i = 0; i < 4; i++)
            acc[i] += (uint64_t)(uint32_t)r[l] * ozaki_limb(plan->q_lo[l], plan->q_hi[l], i);
    uint32_t x[4];
    uint64_t carry = 0;
    for (int i = 0; i < 4; i++) {
        const uint64_t s = acc[i] + carry;
        x[i] = (uint32_t)s;
        carry = s >> 32;
    }
    /* x < count 256 P: its quotient t by P (below 3584) estimated in double, then t P in limbs. */
    const double xd = (((double)x[3] * 4294967296.0 + (double)x[2]) * 4294967296.0 + (double)x[1]) * 4294967296.0 +
                      (double)x[0];
    const uint32_t t = (uint32_t)(xd * plan->inv_P);
    uint32_t tp[4];
    carry = 0;
    for (int i = 0; i < 4; i++) {
        const uint64_t s = (uint64_t)t * ozaki_limb(plan->P_lo, plan->P_hi, i) + carry;
        tp[i] = (uint32_t)s;
        carry = s >> 32;
    }
    /* The estimate is off by at most one or two: corrected with 128-bit compares and subtractions. */
    ozaki_u128 X = ozaki_u128_make(((uint64_t)x[1] << 32) | x[0], ((uint64_t)x[3] << 32) | x[2]);
    ozaki_u128 TP = ozaki_u128_make(((uint64_t)tp[1] << 32) | tp[0], ((uint64_t)tp[3] << 32) | tp[2]);
    const ozaki_u128 P = ozaki_u128_make(plan->P_lo, plan->P_hi);
    while (TP > X)
        TP -= P;
    X -= TP;
    while (X >= P)
        X -= P;
    const int negative = X > P / 2;
    const ozaki_u128 m = negative ? P - X : X;
    if (m == 0)
        return 0.0f;
    const uint64_t hi = (uint64_t)(m >> 64), lo = (uint64_t)m;
    const int bits = ozaki_bit_length128(m);
    const int top = bits - 1 + e; /* m 2^e in [2^top, 2^(top + 1)) */
    if (top < -126 || top > 126)
        return ozaki_to_float(m, negative, e);
    /* The top 64 bits (m < P / 2 < 2^112: shift below 48), in 64-bit shifts. */
    const int shift = bits > 64 ? bits - 64 : 0;
    const uint64_t v = shift ? (hi << (64 - shift)) | (lo >> shift) | (uint64_t)((lo << (64 - shift)) != 0) : lo;
#ifdef __CUDA_ARCH__
    const float f = __ull2float_rn(v);
#else
    const float f = (float)v; /* to nearest, ties to even: the default rounding */
#endif
    /* f 2^(e + shift) is normal (its exponent top or top + 1): added to f's exponent field. */
    uint32_t bits_of_f;
    memcpy(&bits_of_f, &f, 4);
    bits_of_f += (uint32_t)(e + shift) << 23;
    bits_of_f |= (uint32_t)negative << 31;
    float out;
    memcpy(&out, &bits_of_f, 4);
    return out;
}

/* ---- Where the scaling keeps the fp32 bound, and the check for where it may not (the README's
 * "Where it stops" derives both; tests/ozaki_model.c searches them) ----
 *
 * A row scaled to `bits` bits below its largest magnitude big (exponent e) rounds each element to
 * the step 2^(e - bits). Relative to the row's smallest nonzero magnitude small, in [2^low, 2^(low + 1)),
 * the rounding errs by at most rho = 2^(sigma - bits), sigma = e - 1 - low the row's span in binades;
 * 0 where small's last bit, 2^max(low - 23, -149), is already at least the step; at most 1 (an
 * element rounded to 0 loses itself). big = 0 (no nonzero): 0. */
#define OZAKI_UNIT_ROUNDOFF 0x1p-24 /* u, FP32's unit roundoff */

/* The rule from exponents, for any type (step 20 takes it for FP64): e, big's; low = floor(log2 small);
 * last, the exponent of small's last bit. */
OZAKI_HD double ozaki_span_rho_of(int e, int low, int last, int bits)
{
    if (last >= e - bits)
        return 0.0;
    return e - 1 - low >= bits ? 1.0 : ozaki_pow2(e - 1 - low - bits);
}

OZAKI_HD double ozaki_span_rho(float big, float small, int bits)
{
    if (!(big > 0.0f) || !(small < INFINITY))
        return 0.0;
    const int e = ozaki_exponent(big), low = ozaki_exponent(small) - 1; /* low = floor(log2 small) */
    return ozaki_span_rho_of(e, low, low - 23 > -149 ? low - 23 : -149, bits);
}

/* The condition (R) for a row with rho_a and a column with rho_b: every element of C they make is
 * within (1 + u)(1 + rho_a)(1 + rho_b) - 1 of |A||B|, so (R) is this <= T(n), the fp32 bound. Computed
 * without the cancellation, in the same roundings on both processors (no fused multiply-add). */
OZAKI_HD double ozaki_span_excess(double rho_a, double rho_b)
{
#ifdef __CUDA_ARCH__
    return __dadd_rn(__dadd_rn(__dadd_rn(rho_a, rho_b), __dmul_rn(rho_a, rho_b)),
                     __dmul_rn(__dmul_rn(OZAKI_UNIT_ROUNDOFF, __dadd_rn(1.0, rho_a)), __dadd_rn(1.0, rho_b)));
#else
    return rho_a + rho_b + rho_a * rho_b + OZAKI_UNIT_ROUNDOFF * (1.0 + rho_a) * (1.0 + rho_b);
#endif
}

/* Directed roundings in double: the GPU has them as instructions; here exactly, from the rounded
 * result and its error (TwoSum, fma). */
OZAKI_HD double ozaki_add_up(double x, double y)
{
#ifdef __CUDA_ARCH__
    return __dadd_ru(x, y);
#else
    const double s = x + y, z = s - x, err = (x - (s - z)) + (y - z); /* s + err = x + y exactly */
    return err > 0.0 ? nextafter(s, INFINITY) : s;
#endif
}

/* x y rounded up (up = 1) or down (up = 0). */
OZAKI_HD double ozaki_mul_directed(double x, double y, int up)
{
#ifdef __CUDA_ARCH__
    return up ? __dmul_ru(x, y) : __dmul_rd(x, y);
#else
    const double p = x * y, err = fma(x, y, -p); /* p + err = x y exactly */
    return up && err > 0.0 ? nextafter(p, INFINITY) : !up && err < 0.0 ? nextafter(p, -INFINITY) : p;
#endif
}

OZAKI_HD double ozaki_mul_up(double x, double y)
{
    return ozaki_mul_directed(x, y, 1);
}

OZAKI_HD double ozaki_mul_down(double x, double y)
{
    return ozaki_mul_directed(x, y, 0);
}

OZAKI_HD double ozaki_sub_down(double x, double y)
{
    return -ozaki_add_up(-x, y);
}

/* The check after the products, for an element whose row and column fail (R). Each scaled element
 * a' = A' 2^(e - alpha) is within h (half the row's step, 0 where rho is 0) of a, each b' within g, so
 * a b - a' b' = (a - a') b + a' (b - b') and the scaling's error is at most
 *     E = h ||b_j||_1 + g ||a'_i||_1 <= h ||b'_j||_1 + g ||a'_i||_1 + h g k,
 * with the 1-norms of the scaled rows and columns (bounded above: ozaki_norm_bound). The one rounding adds
 * u (|A||B| + E), so the bound T holds where (1 + u) E <= (T - u) W_low for any W_low <= (|A||B|)_ij:
 * w, an INT32 sum of products of the magnitudes truncated to 7 bits below their row's (2^e_i) and
 * column's (2^f_j) largest, over the first ozaki_check_terms(k) terms (each >= 0: fewer terms, still
 * a lower bound), is one: W_low = w 2^(e_i + f_j - 14). Everything is computed relative to
 * 2^(e_i + f_j) (a power of two: the same comparison, exactly), so h = 2^(-alpha - 1) or 0 and
 * W_low = w 2^-14. Every rounding leans against acceptance. */

/* The terms the check's product sums: an eighth of k, in whole steps of 128 (the GPU's tile), and at
 * least 512: its cost an eighth of one modulus's product, and enough terms that on dense inputs the
 * lower bound stays within a small factor of |A||B| (a sixteenth refused one element in 5,000 of
 * the wide family at n = 4096). */
#define OZAKI_CHECK_SHARE 8
#define OZAKI_CHECK_STEP 128
#define OZAKI_CHECK_LEAST 512
OZAKI_HD int ozaki_check_terms(int k)
{
    const int share = ((k + OZAKI_CHECK_SHARE - 1) / OZAKI_CHECK_SHARE + OZAKI_CHECK_STEP - 1) / OZAKI_CHECK_STEP *
                      OZAKI_CHECK_STEP;
    return share > OZAKI_CHECK_LEAST ? share : OZAKI_CHECK_LEAST;
}

/* At least ||a'||_1 / 2^e, the 1-norm of a line's scaled values relative to its 2^e, from abs_sum, the
 * sum of its k magnitudes as computed in double (to nearest, in any order: below the true sum by at
 * most (k - 1) 2^-53 of it, so abs_sum (1 + k 2^-52) is above it), and half, its half step relative to
 * 2^e: each scaled value is within half of the value it scales (|a'| <= |a| + h). Rounded up. */
OZAKI_HD double ozaki_norm_bound(double abs_sum, int k, int e, double half)
{
    const double sum_up = ozaki_mul_up(abs_sum, 1.0 + (double)k * 0x1p-52);
    return ozaki_add_up(sum_up * ozaki_pow2(-e), (double)k * half); /* each product exact */
}

/* h (g) relative to 2^e: half the step where rho > 0, else 0. */
OZAKI_HD double ozaki_half_step(double rho, int bits)
{
    return rho > 0.0 ? ozaki_pow2(-bits - 1) : 0.0;
}

/* The check for one element: h, g, the norms relative to their 2^e (above), w the 7-bit product,
 * bound_less_u = T - u rounded down (ozaki_sub_down). 1: accepted. */
OZAKI_HD int ozaki_check_accepts(int32_t w, double h, double g, double norm_a, double norm_b, int k,
                                 double bound_less_u)
{
    /* each product exact: powers of two times a double, far from underflow */
    const double err = ozaki_add_up(ozaki_add_up(h * norm_b, g * norm_a), h * g * (double)k);
    return ozaki_mul_up(1.0 + OZAKI_UNIT_ROUNDOFF, err) <= ozaki_mul_down(bound_less_u, (double)w) * 0x1p-14;
}

/* The widest rho of a column that still meets (R) with a row of rho_a: rho is 0, 1 or a power of two
 * 2^-1 ... 2^-60, and ozaki_span_excess grows with it, so (R) holds for the pair exactly where the
 * column's rho is at most this; -1 where not even an exact column does. */
OZAKI_HD double ozaki_span_limit(double rho_a, double bound)
{
    if (!(ozaki_span_excess(rho_a, 0.0) <= bound))
        return -1.0;
    for (int x = 0; x >= -60; x--)
        if (ozaki_span_excess(rho_a, ozaki_pow2(x)) <= bound)
            return ozaki_pow2(x);
    return 0.0;
}

/* alpha + beta = s split evenly, beta taking the odd bit: 0, or -1 where s < 2 (no bits left for k). */
static inline int ozaki_split_bits(int s, int *alpha, int *beta)
{
    if (s < 2)
        return -1;
    *alpha = s / 2;
    *beta = s - s / 2;
    return 0;
}

/* The plan for `count` moduli and sums of k products: P and the q_l, then alpha + beta as large
 * as k 2^(alpha + beta) < P / 2 allows, split evenly (beta takes the odd bit). Returns 0, or -1
 * when count is out of 1 ... OZAKI_MAX_MODULI or no bits are left for k (k too long for P). */
static inline int ozaki_plan_make(int count, int k, struct ozaki_plan *plan)
{
    if (count < 1 || count > OZAKI_MAX_MODULI || k < 1)
        return -1;
    ozaki_u128 P = 1;
    for (int l = 0; l < count; l++)
        P *= (ozaki_u128)ozaki_modulus(l);
    plan->count = count;
    for (int l = 0; l < count; l++) {
        const int p = ozaki_modulus(l);
        const ozaki_u128 M = P / (ozaki_u128)p;
        const ozaki_u128 q = M * (ozaki_u128)ozaki_inverse((int)(M % (ozaki_u128)p), p) % P;
        plan->p[l] = p;
        plan->magic[l] = ozaki_mod_magic(p);
        plan->q_lo[l] = (uint64_t)q;
        plan->q_hi[l] = (uint64_t)(q >> 64);
    }
    for (int l = count; l < OZAKI_MAX_MODULI; l++) {
        plan->p[l] = 1;
        plan->magic[l] = 0;
        plan->q_lo[l] = plan->q_hi[l] = 0;
    }
    plan->P_lo = (uint64_t)P;
    plan->P_hi = (uint64_t)(P >> 64);
    plan->inv_P = 1.0 / ((double)plan->P_hi * 0x1p64 + (double)plan->P_lo);
    /* The largest s with k 2^s < P / 2, that is k 2^(s + 1) < P, and at most 106: alpha and beta
     * at most 53, so that the scaled values stay exact in double (ozaki_scaled). */
    int s = -1;
    while (s < OZAKI_MAX_BITS && ((ozaki_u128)k << (s + 2)) < P)
        s++;
    return ozaki_split_bits(s, &plan->alpha, &plan->beta);
}

#endif
