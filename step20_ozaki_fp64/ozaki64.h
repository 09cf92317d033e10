/* Ozaki scheme II for FP64: step 16's arithmetic (ozaki.h, included and reused: the moduli, the
 * residues, the reduction of the INT32 sums, the directed roundings, the check after the products)
 * widened from FP32 to FP64. One copy for the GPU step and its exact CPU model
 * (tests/ozaki64_model.c here). What the wider type changes:
 *
 *  1. Scale: row i of A by 2^(alpha - e_i), 2^(e_i - 1) <= max_k |a_ik| < 2^e_i, rounded to the
 *     nearest integer, ties to even: |A'_ik| <= 2^alpha with alpha up to 62, so that A' is an int64
 *     (step 16: 53, double's precision). The exponents span FP64's range: 2^(alpha - e_i) can lie
 *     past double's, so the scaling is read from the double's bits (ozaki64_scaled) or done in two
 *     exact steps by the FPU (ozaki64_scaled_fpu): the same integer.
 *  2. C' = A' B' is exact while k 2^(alpha + beta) < P / 2 (step 16's condition): 124 bits and
 *     log2 k more need 16 to 19 moduli (log2 P after 14 ... 20 moduli: 110.2, 117.8, 125.4, 133.0,
 *     140.5, 147.9, 155.4), so P and the q_l take three 64-bit limbs.
 *  3. Residues (ozaki_residue takes any int64; ozaki64_residue_byte, the same byte on the FP64
 *     units) and INT32 products mod p: step 16's.
 *  4. The remainder theorem in 192 bits, exactly (ozaki64_reconstruct), or as step 19's recon64 does
 *     it in 64, widened (ozaki64_reconstruct_fast): the quotient t from y / P's estimate in double,
 *     C' = y - t P modulo 2^192, no division and no compare; up to 15 moduli on the FP64 units, in
 *     40-bit chunks, and modulo 2^128.
 *  5. C = C' 2^(e_i + f_j - alpha - beta) rounded once to double: normal, subnormal, 0, overflow.
 * The only errors are 1's roundings and 5's. The bound to keep is the fp64 class's, n u |A||B| with
 * u = 2^-53 (common/check.c's gamma(n) = n u / (1 - n u) is a little wider): the span condition (R)
 * and the check after the products, below, say where the products' C keeps it. */
#ifndef OZAKI64_H
#define OZAKI64_H

#include "../step16_ozaki_int8/ozaki.h"

#define OZAKI64_MAX_MODULI 20 /* P < 2^155.4: C' and sum r_l q_l (< 20 256 P < 2^169) fit 192 bits */
/* alpha, beta at most 62: a scaled value, |v| <= 2^62, is an int64, which step 16's residues take.
 * A 63rd bit (a sign beside a 64-bit magnitude) would accept under 1% more of the wide family's
 * elements at k <= 8, about 0.1% at 9 ... 64, none from k = 100. */
#define OZAKI64_MAX_BITS 62
#define OZAKI64_MAX_K 131071 /* k 128^2 < 2^31: the INT32 sums are exact */
#define OZAKI64_UNIT_ROUNDOFF 0x1p-53 /* u, FP64's unit roundoff */

/* The default count for sums of k products, from the model's search (tests/ozaki64_model.c: the
 * harness's seven FP64 families and five crafted ones, k = 1 ... 64 and 100 ... 16384 sampled, 14 ...
 * 20 moduli). No element that (R) or the check accepts is past k u |A||B| at any of those counts: the
 * count moves only how many elements are refused (an FP64 loop computes them) and how many pass (R)
 * alone. Below k = 100, 17 moduli (alpha = beta = 62, the most, up to k = 247) refuse fewer than 16
 * (wide: 7.5% against 8.3% at k <= 8, 0.9% against 1.3% at 9 ... 64; rowscale alike), and 18 ... 20
 * refuse exactly what 17 refuses. From k = 100 (65 ... 16384 sampled) 15 moduli refuse no element of
 * the six families but mixed, as 16 and 17 do: two INT8 products fewer than 17. Fewer rows and
 * columns pass (R) alone (uniform: 30% against 89% at 16), so the check decides more elements, but
 * the step runs the check's product either way (an eighth of one modulus's product). 14 refuse
 * elements of the wide family at k = 4096 (3% at n = 4096 on an H200), and the FP64 loop that
 * computes them costs more than the modulus saves. From 8192 the search finds none refused; an H200
 * refused 411 of the wide family's 2^26 elements at n = 8192 and 135 of rowscale's, few enough for
 * the check's list, where the FP64 loop takes them a warp each in microseconds; at 16384 none of
 * 2^28 (uniform or wide). The products take a fifteenth less.
 * Mixed (200 binades in a row) is refused at 50 ... 90% at every count: splitting rows, not
 * moduli, would help. */
#define OZAKI64_DEFAULT_MODULI_SHORT 17
#define OZAKI64_DEFAULT_MODULI_LONG 15
#define OZAKI64_DEFAULT_MODULI_LONGEST 14
#define OZAKI64_LONG_SUMS 100
#define OZAKI64_LONGEST_SUMS 8192

OZAKI_HD int ozaki64_default_moduli(int k)
{
    return k < OZAKI64_LONG_SUMS      ? OZAKI64_DEFAULT_MODULI_SHORT
           : k < OZAKI64_LONGEST_SUMS ? OZAKI64_DEFAULT_MODULI_LONG
                                      : OZAKI64_DEFAULT_MODULI_LONGEST;
}

/* ---- 192-bit unsigned integers: three 64-bit limbs, least significant first ---- */

struct ozaki64_u192 {
    uint64_t w[3];
};

/* acc += x r modulo 2^192 (r below 2^64): one 64 x 64 -> 128-bit product a limb. */
OZAKI_HD void ozaki64_mac(struct ozaki64_u192 *acc, const struct ozaki64_u192 *x, uint64_t r)
{
    uint64_t carry = 0;
    for (int i = 0; i < 3; i++) {
        const ozaki_u128 s = (ozaki_u128)x->w[i] * r + acc->w[i] + carry;
        acc->w[i] = (uint64_t)s;
        carry = (uint64_t)(s >> 64);
    }
}

/* a - b modulo 2^192 */
OZAKI_HD struct ozaki64_u192 ozaki64_sub(const struct ozaki64_u192 *a, const struct ozaki64_u192 *b)
{
    struct ozaki64_u192 d;
    uint64_t borrow = 0;
    for (int i = 0; i < 3; i++) {
        d.w[i] = a->w[i] - b->w[i] - borrow;
        borrow = a->w[i] < b->w[i] || (a->w[i] == b->w[i] && borrow);
    }
    return d;
}

OZAKI_HD int ozaki64_less(const struct ozaki64_u192 *a, const struct ozaki64_u192 *b)
{
    for (int i = 2; i >= 0; i--)
        if (a->w[i] != b->w[i])
            return a->w[i] < b->w[i];
    return 0;
}

/* The count of significant bits (0 for 0), from step 16's 128-bit count. */
OZAKI_HD int ozaki64_bit_length(const struct ozaki64_u192 *m)
{
    if (m->w[2])
        return 128 + ozaki_bit_length128(m->w[2]);
    return m->w[0] | m->w[1] ? ozaki_bit_length128(ozaki_u128_make(m->w[0], m->w[1])) : 0;
}

/* The 64 bits of m from bit s up (s in 0 ... 191), and whether any bit below s is set. */
OZAKI_HD uint64_t ozaki64_bits_from(const struct ozaki64_u192 *m, int s)
{
    /* the limbs chosen by selects, not by an index, so that a GPU keeps m in registers */
    const int l = s / 64, b = s % 64;
    const uint64_t low = l == 0 ? m->w[0] : l == 1 ? m->w[1] : m->w[2];
    const uint64_t high = l == 0 ? m->w[1] : l == 1 ? m->w[2] : 0;
    return b ? low >> b | high << (64 - b) : low;
}

OZAKI_HD int ozaki64_any_below(const struct ozaki64_u192 *m, int s)
{
    for (int l = 0; l < 3 && 64 * l < s; l++)
        if (m->w[l] & (s - 64 * l >= 64 ? ~0ull : (1ull << (s - 64 * l)) - 1))
            return 1;
    return 0;
}

/* ---- Step 1: the scaled integers ---- */

/* e with 2^(e - 1) <= m < 2^e for a magnitude m, frexp's (0 for 0, Inf and NaN): -1073 ... 1024. Once
 * a row, so the library's exact frexp rather than step 16's reading of the bits. */
OZAKI_HD int ozaki64_exponent(double m)
{
    int e = 0;
    if (m > 0.0 && isfinite(m))
        frexp(m, &e);
    return e;
}

/* x 2^s in two steps, each a power of two ozaki_pow2 can build (s in -2044 ... 2046; a row's scale
 * 2^(bits - e) lies in 2^-1023 ... 2^1135, past double's range). Exact unless a step underflows,
 * and then the result is below 2^-1022 after both. */
OZAKI_HD double ozaki64_times_pow2(double x, int s)
{
    return x * ozaki_pow2(s / 2) * ozaki_pow2(s - s / 2);
}

/* x 2^shift rounded to the nearest integer, ties to even, exactly, from x's bits: x = +-M 2^E with
 * M < 2^53, so the scaled value is M 2^(E + shift), a shift of M and a rounding of the bits shifted
 * out. shift = bits - e for a row (column) with |x| < 2^e: |result| <= 2^bits <= 2^62. NaN and Inf
 * give 0 (they take no part: step 14's pass). */
OZAKI_HD int64_t ozaki64_scaled(double x, int shift)
{
    uint64_t b;
    memcpy(&b, &x, 8);
    const int biased = (int)(b >> 52 & 0x7ff);
    if (biased == 0x7ff)
        return 0;
    const uint64_t M = (b & ((1ull << 52) - 1)) | (uint64_t)(biased != 0) << 52;
    const int to = (biased ? biased - 1075 : -1074) + shift; /* the value is M 2^to */
    uint64_t v;
    if (to >= 0) {
        v = M << to;
    } else if (to < -54) {
        v = 0; /* below a quarter */
    } else {
        const uint64_t rest = M & ((1ull << -to) - 1), half = 1ull << (-to - 1);
        v = M >> -to;
        v += rest > half || (rest == half && (v & 1));
    }
    return b >> 63 ? -(int64_t)v : (int64_t)v;
}

/* The same by the floating-point unit: x 2^shift in two exact steps (ozaki64_times_pow2: where a
 * step underflows the value is below 2^-1022, which rounds to 0 either way), then rint, to nearest,
 * ties to even. Bit for bit ozaki64_scaled (the model checks it). */
OZAKI_HD int64_t ozaki64_scaled_fpu(double x, int shift)
{
    return isfinite(x) ? (int64_t)rint(ozaki64_times_pow2(x, shift)) : 0;
}

/* ---- Step 3's residues on the FP64 units ----
 * A 64-bit integer remainder is a long subroutine on a GPU, so the residues of a scaled value v (an
 * integer in a double, |v| <= 2^62: at most 53 significant bits) come from the FP64 units. v is
 * split once: vh = rint(v 2^-30), vl = v - vh 2^30 (exact, |vl| <= 2^29). For each odd modulus p,
 * t = vh (2^30 mod p) + vl is congruent to v and exact (|t| < 2^40 < 2^53), and so is T = t + M,
 * M = 1.5 2^52, whose low 32 bits are t's (two's complement). z = t / p + M rounded once (a fused
 * multiply-add) holds rint(t / p) in its low bits: t (1/p) errs from t / p by less than 2^-20, and
 * t / p lies at least 1 / (2p) >= 2^-9 from a half-integer. So r = t - p rint(t / p), in 32-bit
 * integers, is the symmetric residue, |r| <= (p - 1) / 2: step 16's ozaki_residue. For p = 256:
 * v = vl mod 2^30, and the residue in -128 ... 127 is vl's low byte. The CPU model checks it
 * against ozaki_residue of ozaki64_scaled on every element it makes. */
#define OZAKI64_MAGIC_52 0x1.8p52

struct ozaki64_split {
    double vh, vl_magic; /* vh, and vl + M (exact) */
};

OZAKI_HD struct ozaki64_split ozaki64_split_of(double v)
{
    const double vh = rint(v * 0x1p-30);
    const struct ozaki64_split s = {vh, fma(-vh, 0x1p30, v) + OZAKI64_MAGIC_52};
    return s;
}

OZAKI_HD uint32_t ozaki64_low_word(double x)
{
    uint64_t b;
    memcpy(&b, &x, 8);
    return (uint32_t)b;
}

/* The residue of the split value mod p, as a byte (two's complement). */
OZAKI_HD uint32_t ozaki64_residue_byte(struct ozaki64_split s, int p)
{
    if (p == 256)
        return ozaki64_low_word(s.vl_magic) & 0xffu;
    const double T = fma(s.vh, (double)((1u << 30) % (unsigned)p), s.vl_magic); /* t + M, exact */
    const double z = fma(T - OZAKI64_MAGIC_52, 1.0 / p, OZAKI64_MAGIC_52);       /* rint(t / p) + M */
    return (ozaki64_low_word(T) - (uint32_t)p * ozaki64_low_word(z)) & 0xffu;
}

/* ---- The plan ---- */

#define OZAKI64_CHUNK_BITS 40 /* the FP64 units' form of step 4: see ozaki64_chunked */

/* What the kernels need, computed once on the host (ozaki64_plan_make), passed by value. */
struct ozaki64_plan {
    int count;                                 /* moduli used */
    int alpha, beta;                           /* bits of A' and of B' (beyond the sign) */
    int p[OZAKI64_MAX_MODULI];                 /* ozaki_modulus(l); 1 past count */
    uint32_t magic[OZAKI64_MAX_MODULI];        /* ozaki_mod_magic(p[l]) */
    struct ozaki64_u192 q[OZAKI64_MAX_MODULI]; /* q_l = (P / p_l) ((P / p_l)^-1 mod p_l); 0 past count */
    double w[OZAKI64_MAX_MODULI];              /* q_l / P, within 3.1 2^-53 (three roundings); 0 past count */
    double chunk[OZAKI64_MAX_MODULI][3];       /* q_l's 40-bit chunks (ozaki64_chunked: its low 120 bits) */
    double chunk_over_P[3];                    /* 2^(40 h) / P, within 2.1 2^-53 */
    struct ozaki64_u192 P, P_half;             /* P, and P / 2 (P is even: 256 is a modulus) */
    double inv_P;                              /* 1 / P, for the exact path's quotient estimate */
};

/* m 2^e rounded once to double (to nearest, ties to even); defined below. */
OZAKI_HD double ozaki64_to_double(const struct ozaki64_u192 *m, int negative, int e);

/* k 2^s < P / 2, that is 2k 2^s < P (s at most 124: 2k 2^(s mod 64) fits 128 bits). */
static inline int ozaki64_fits(const struct ozaki64_u192 *P, int k, int s)
{
    const ozaki_u128 v = (ozaki_u128)(2 * (uint64_t)k) << (s % 64);
    struct ozaki64_u192 x = {{0, 0, 0}};
    x.w[s / 64] = (uint64_t)v;
    x.w[s / 64 + 1] = (uint64_t)(v >> 64);
    return ozaki64_less(&x, P);
}

/* The plan for `count` moduli and sums of k products: P and the q_l as step 16 makes them, in 192
 * bits, then alpha + beta as large as k 2^(alpha + beta) < P / 2 allows, at most 2 OZAKI64_MAX_BITS,
 * split evenly (beta takes the odd bit). 0, or -1 where count is outside 1 ... 20, k outside
 * 1 ... OZAKI64_MAX_K, or fewer than 2 bits are left. */
static inline int ozaki64_plan_make(int count, int k, struct ozaki64_plan *plan)
{
    if (count < 1 || count > OZAKI64_MAX_MODULI || k < 1 || k > OZAKI64_MAX_K)
        return -1;
    memset(plan, 0, sizeof *plan);
    struct ozaki64_u192 P = {{1, 0, 0}};
    for (int l = 0; l < count; l++) {
        const struct ozaki64_u192 before = P;
        P.w[0] = P.w[1] = P.w[2] = 0;
        ozaki64_mac(&P, &before, (uint64_t)ozaki_modulus(l));
    }
    plan->count = count;
    plan->P = P;
    for (int i = 0; i < 3; i++)
        plan->P_half.w[i] = P.w[i] >> 1 | (i < 2 ? P.w[i + 1] << 63 : 0);
    const double P_double = ozaki64_to_double(&P, 0, 0);
    plan->inv_P = 1.0 / P_double;
    for (int l = 0; l < OZAKI64_MAX_MODULI; l++) {
        plan->p[l] = 1;
        if (l >= count)
            continue;
        const int p = ozaki_modulus(l);
        /* M = P / p, a limb at a time from the top, and M mod p */
        struct ozaki64_u192 M;
        ozaki_u128 rest = 0;
        for (int i = 2; i >= 0; i--) {
            const ozaki_u128 part = rest << 64 | P.w[i];
            M.w[i] = (uint64_t)(part / (ozaki_u128)p);
            rest = part % (ozaki_u128)p;
        }
        int m = 0;
        for (int i = 2; i >= 0; i--)
            m = (int)(((ozaki_u128)m << 64 | M.w[i]) % (ozaki_u128)p);
        ozaki64_mac(&plan->q[l], &M, (uint64_t)ozaki_inverse(m, p)); /* below (P / p) p: no reduction */
        plan->p[l] = p;
        plan->magic[l] = ozaki_mod_magic(p);
        plan->w[l] = ozaki64_to_double(&plan->q[l], 0, 0) / P_double;
        for (int h = 0; h < 3; h++)
            plan->chunk[l][h] = (double)(ozaki64_bits_from(&plan->q[l], OZAKI64_CHUNK_BITS * h) &
                                         ((1ull << OZAKI64_CHUNK_BITS) - 1));
    }
    for (int h = 0; h < 3; h++)
        plan->chunk_over_P[h] = ozaki_pow2(OZAKI64_CHUNK_BITS * h) / P_double;
    int s = -1;
    while (s < 2 * OZAKI64_MAX_BITS && ozaki64_fits(&P, k, s + 1))
        s++;
    return ozaki_split_bits(s, &plan->alpha, &plan->beta);
}

/* ---- Step 5: one rounding to double ---- */

/* m 2^e rounded once to double, to nearest, ties to even, from the bits: the result's last bit
 * has the exponent last = max(top - 52, -1074), top the exponent of m 2^e's leading bit (below
 * 2^-1022 the subnormals' coarser step); q = m 2^(e - last) rounded to an integer (at most 2^53),
 * and the double's bits are ((last + 1074) << 52) + q: a rounding up that carries (q = 2^53, or
 * 2^52 from the subnormals) moves into the exponent field, up to infinity's bits. Past 2^1024:
 * infinity. negative: the sign. */
OZAKI_HD double ozaki64_to_double(const struct ozaki64_u192 *m, int negative, int e)
{
    const int bits = ozaki64_bit_length(m), top = bits - 1 + e;
    uint64_t out = 0;
    if (bits && top > 1023) {
        out = 0x7ff0000000000000ull;
    } else if (bits) {
        const int last = top - 52 > -1074 ? top - 52 : -1074, drop = last - e; /* bits of m dropped */
        uint64_t q = 0;
        if (drop <= 0) {
            q = m->w[0] << -drop; /* m has at most 53 bits */
        } else if (drop <= bits) {
            q = ozaki64_bits_from(m, drop);
            const int above_half = (int)(ozaki64_bits_from(m, drop - 1) & 1);
            q += above_half && ((q & 1) || ozaki64_any_below(m, drop - 1));
        } /* else below half the smallest subnormal: 0 */
        out = ((uint64_t)(last + 1074) << 52) + q;
    }
    out |= (uint64_t)(negative != 0) << 63;
    double d;
    memcpy(&d, &out, 8);
    return d;
}

/* d 2^s, negative when negative is set, for a positive d whose product stays normal: s added to the
 * exponent field, no rounding. */
OZAKI_HD double ozaki64_shift_normal(double d, int s, int negative)
{
    uint64_t b;
    memcpy(&b, &d, 8);
    b += (uint64_t)(int64_t)s << 52;
    b |= (uint64_t)(negative != 0) << 63;
    memcpy(&d, &b, 8);
    return d;
}

/* v converted to double (to nearest, ties to even) by the hardware, then shifted by 2^s: the
 * result must be normal. */
OZAKI_HD double ozaki64_convert_shifted(uint64_t v, int s, int negative)
{
#ifdef __CUDA_ARCH__
    return ozaki64_shift_normal(__ull2double_rn(v), s, negative);
#else
    return ozaki64_shift_normal((double)v, s, negative);
#endif
}

/* The same, bit for bit, by the hardware's conversion where the result is normal (top in
 * -1022 ... 1022, so that the exponent, top or top + 1 after the rounding, stays in range): the top
 * 64 bits of m with the bits below folded into the last (they only break a tie, 11 bits further up)
 * converted to nearest, then scaled. The rest (0, subnormal, overflow) takes the exact path. */
OZAKI_HD double ozaki64_to_double_fast(const struct ozaki64_u192 *m, int negative, int e)
{
    const int bits = ozaki64_bit_length(m), top = bits - 1 + e, drop = bits > 64 ? bits - 64 : 0;
    if (!bits || top < -1022 || top > 1022)
        return ozaki64_to_double(m, negative, e);
    const uint64_t v = drop ? ozaki64_bits_from(m, drop) | (uint64_t)ozaki64_any_below(m, drop) : m->w[0];
    return ozaki64_convert_shifted(v, e + drop, negative);
}

/* ---- Step 4: the remainder theorem ---- */

/* C' = x mod P, taken symmetric, for x = sum r_l q_l (below 20 256 P): the quotient estimated in
 * double (within 2^-38 of x / P < 5120), less one so that it is never above the true one, then
 * corrected upwards. |C'| is returned, *negative where C' < 0 (x mod P past P / 2; never at it). */
OZAKI_HD struct ozaki64_u192 ozaki64_reduce(const struct ozaki64_plan *plan, struct ozaki64_u192 x, int *negative)
{
    const double x_double = ((double)x.w[2] * 0x1p64 + (double)x.w[1]) * 0x1p64 + (double)x.w[0];
    const double t = floor(x_double * plan->inv_P);
    struct ozaki64_u192 tP = {{0, 0, 0}};
    ozaki64_mac(&tP, &plan->P, t >= 1.0 ? (uint64_t)t - 1 : 0);
    x = ozaki64_sub(&x, &tP);
    while (!ozaki64_less(&x, &plan->P))
        x = ozaki64_sub(&x, &plan->P);
    *negative = ozaki64_less(&plan->P_half, &x);
    return *negative ? ozaki64_sub(&plan->P, &x) : x;
}

/* Steps 4 and 5 for one element, the reference: residues r[l] in [0, p_l), e = e_i + f_j - alpha -
 * beta. */
OZAKI_HD double ozaki64_reconstruct(const struct ozaki64_plan *plan, const uint32_t *r, int e)
{
    struct ozaki64_u192 x = {{0, 0, 0}};
    for (int l = 0; l < plan->count; l++)
        ozaki64_mac(&x, &plan->q[l], r[l]);
    int negative;
    const struct ozaki64_u192 m = ozaki64_reduce(plan, x, &negative);
    return ozaki64_to_double(&m, negative, e);
}

/* The fast form, a modulus at a time (l in order, as every caller adds): f += r w_l, the quotient's
 * estimate, and y += r q_l modulo 2^192. */
OZAKI_HD void ozaki64_recon_add(const struct ozaki64_plan *plan, int l, uint32_t r, double *f, struct ozaki64_u192 *y)
{
    *f = fma((double)r, plan->w[l], *f);
    ozaki64_mac(y, &plan->q[l], r);
}

/* From the sums, C' and its rounding, ozaki64_reconstruct's result bit for bit. y = sum r_l q_l =
 * t P + C' with |C'| < P / 2. f errs from y / P by less than 20 255 3.1 2^-53 (the w_l) + 20 2^-41 (the
 * fma's roundings below 2^13) < 2^-36, so where f lies at least 2^-30 inside a half-integer,
 * t = rint(f) is y / P's nearest integer and C' = y - t P modulo 2^192 (|C'| < 2^155: the top bit is
 * its sign). Otherwise (C' within about 2^-30 P of +-P / 2: only inputs that fill the plan's bits
 * get there) y is reduced exactly. */
OZAKI_HD double ozaki64_recon_finish(const struct ozaki64_plan *plan, double f, struct ozaki64_u192 y, int e)
{
    const double t = rint(f);
    int negative;
    if (!(fabs(f - t) <= 0.5 - 0x1p-30)) {
        const struct ozaki64_u192 m = ozaki64_reduce(plan, y, &negative);
        return ozaki64_to_double(&m, negative, e);
    }
    struct ozaki64_u192 tP = {{0, 0, 0}};
    ozaki64_mac(&tP, &plan->P, (uint64_t)t);
    struct ozaki64_u192 c = ozaki64_sub(&y, &tP);
    negative = (int)(c.w[2] >> 63);
    if (negative) {
        const struct ozaki64_u192 zero = {{0, 0, 0}};
        c = ozaki64_sub(&zero, &c);
    }
    return ozaki64_to_double_fast(&c, negative, e);
}

/* ---- The same on the FP64 units, for 15 moduli or fewer ----
 * There P < 2^120 (2^117.8 at 15), and so |C'| < P / 2 < 2^119:
 *  - each q_l is three 40-bit chunks q_l,h, and each chunk's sum A_h = sum_l r_l q_l,h, below
 *    15 255 2^40 < 2^52, is exact in a double, built by fused multiply-adds (three a modulus);
 *  - y = A_0 + A_1 2^40 + A_2 2^80 exactly, and y / P's estimate f = sum_h A_h (2^(40 h) / P) in
 *    double, within 2^-38: three operations, not one a modulus;
 *  - C' = y - t P modulo 2^128, two 64-bit limbs (ozaki64_recon_finish128). */
#define OZAKI64_CHUNKED_MODULI 15

OZAKI_HD int ozaki64_chunked(const struct ozaki64_plan *plan)
{
    return plan->count <= OZAKI64_CHUNKED_MODULI;
}

/* The high 64 bits of a b. */
OZAKI_HD uint64_t ozaki64_mul_high(uint64_t a, uint64_t b)
{
#ifdef __CUDA_ARCH__
    return __umul64hi(a, b);
#else
    return (uint64_t)((ozaki_u128)a * b >> 64);
#endif
}

OZAKI_HD int ozaki64_bit_length64(uint64_t v)
{
#ifdef __CUDA_ARCH__
    return 64 - __clzll((long long)v);
#else
    return v ? 64 - __builtin_clzll(v) : 0;
#endif
}

/* m = hi 2^64 + lo times 2^e, rounded once to double: ozaki64_to_double_fast for two limbs (its top
 * 64 bits, the bits below folded into the last, converted by the hardware where the result is
 * normal; the exact path elsewhere). */
OZAKI_HD double ozaki64_to_double128(uint64_t lo, uint64_t hi, int negative, int e)
{
    const int bits = hi ? 64 + ozaki64_bit_length64(hi) : ozaki64_bit_length64(lo), top = bits - 1 + e;
    if (!bits || top < -1022 || top > 1022) {
        const struct ozaki64_u192 m = {{lo, hi, 0}};
        return ozaki64_to_double(&m, negative, e);
    }
    const int drop = bits > 64 ? bits - 64 : 0, keep = 64 - drop; /* hi's bits kept: keep, 0 ... 63 */
    uint64_t v = lo;
    if (drop == 64)
        v = hi | (uint64_t)(lo != 0);
    else if (drop)
        v = hi << keep | lo >> drop | (uint64_t)(lo << keep != 0);
    return ozaki64_convert_shifted(v, e + drop, negative);
}

/* ozaki64_recon_finish below 2^128 (P < 2^127): y = y_hi 2^64 + y_lo is sum r_l q_l modulo 2^128,
 * f its quotient's estimate within 2^-36. 0 and *out set; or 1, *out untouched, where f lies too
 * near a half-integer: then the caller reduces the sum exactly (ozaki64_reconstruct), which needs
 * y's bits above 2^128. */
OZAKI_HD int ozaki64_recon_finish128(const struct ozaki64_plan *plan, double f, uint64_t y_lo, uint64_t y_hi, int e,
                                     double *out)
{
    const double t_double = rint(f);
    if (!(fabs(f - t_double) <= 0.5 - 0x1p-30))
        return 1;
    const uint64_t t = (uint64_t)t_double; /* below 20 256 */
    const uint64_t tP_lo = t * plan->P.w[0], tP_hi = ozaki64_mul_high(t, plan->P.w[0]) + t * plan->P.w[1];
    uint64_t lo = y_lo - tP_lo, hi = y_hi - tP_hi - (uint64_t)(y_lo < tP_lo);
    const int negative = (int)(hi >> 63);
    if (negative) { /* |C'|: the two's complement of (hi, lo) */
        hi = ~hi + (uint64_t)(lo == 0);
        lo = 0 - lo;
    }
    *out = ozaki64_to_double128(lo, hi, negative, e);
    return 0;
}

/* A whole number below 2^52, held in a double, as an integer: its low bits after 2^52 is added
 * (exact), the floating-point unit's work instead of a conversion. */
OZAKI_HD uint64_t ozaki64_whole(double x)
{
    x += 0x1p52;
    uint64_t b;
    memcpy(&b, &x, 8);
    return b & ((1ull << 52) - 1);
}

/* The chunked form's finish: y modulo 2^128 and f from the three sums (15 moduli or fewer). */
OZAKI_HD int ozaki64_chunks_finish(const struct ozaki64_plan *plan, const double A[3], int e, double *out)
{
    const double f = fma(A[2], plan->chunk_over_P[2], fma(A[1], plan->chunk_over_P[1], A[0] * plan->chunk_over_P[0]));
    const uint64_t a0 = ozaki64_whole(A[0]), a1 = ozaki64_whole(A[1]), a2 = ozaki64_whole(A[2]);
    const uint64_t lo = a0 + (a1 << 40), hi = (a1 >> 24) + (a2 << 16) + (uint64_t)(lo < a0);
    return ozaki64_recon_finish128(plan, f, lo, hi, e, out);
}

OZAKI_HD double ozaki64_reconstruct_fast(const struct ozaki64_plan *plan, const uint32_t *r, int e)
{
    if (ozaki64_chunked(plan)) {
        double A[3] = {0.0, 0.0, 0.0}, out;
        for (int l = 0; l < plan->count; l++)
            for (int h = 0; h < 3; h++)
                A[h] = fma((double)r[l], plan->chunk[l][h], A[h]);
        return ozaki64_chunks_finish(plan, A, e, &out) ? ozaki64_reconstruct(plan, r, e) : out;
    }
    double f = 0.0;
    struct ozaki64_u192 y = {{0, 0, 0}};
    for (int l = 0; l < plan->count; l++)
        ozaki64_recon_add(plan, l, r[l], &f, &y);
    return ozaki64_recon_finish(plan, f, y, e);
}

/* ---- Where the scaling keeps the fp64 bound, and the check for where it may not (step 16's
 * analysis, ozaki.h and its README, with u = 2^-53 and T = k u) ----
 *
 * A row scaled to `bits` bits below its largest magnitude big (exponent e) rounds each element to
 * the step 2^(e - bits). Relative to the row's smallest nonzero magnitude small, in [2^low,
 * 2^(low + 1)), that errs by at most rho = 2^(sigma - bits), sigma = e - 1 - low the row's span in
 * binades; 0 where small's last bit, 2^max(low - 52, -1074), is already at least the step (every
 * element is a whole number of steps: sigma <= bits - 53 for normal values); at most 1. */
OZAKI_HD double ozaki64_span_rho(double big, double small, int bits)
{
    if (!(big > 0.0) || !(small > 0.0) || !isfinite(big))
        return 0.0;
    const int e = ozaki64_exponent(big), low = ozaki64_exponent(small) - 1; /* low = floor(log2 small) */
    return ozaki_span_rho_of(e, low, low - 52 > -1074 ? low - 52 : -1074, bits); /* step 16's rule */
}

/* (R) for a row with rho_a and a column with rho_b at sums of k: every element they make is within
 * (1 + u)(1 + rho_a)(1 + rho_b) - 1 of |A||B| (a normal result), so (R) is that <= k u. In double
 * 1 + u is 1 (step 16's ozaki_span_excess would lose u): the seven terms, each 0 or a power of two,
 * are added rounded up instead, so 1 here is (R) for certain. */
OZAKI_HD int ozaki64_span_ok(double rho_a, double rho_b, int k)
{
    const double u = OZAKI64_UNIT_ROUNDOFF, ab = rho_a * rho_b;
    const double terms[6] = {rho_b, ab, u, u * rho_a, u * rho_b, u * ab}; /* each exact */
    double s = rho_a;
    for (int i = 0; i < 6; i++)
        s = ozaki_add_up(s, terms[i]);
    return s <= (double)k * u;
}

/* The widest rho of a column that still meets (R) with a row of rho_a (rho is 0, 1 or a power of
 * two, and (R) weakens as it grows); -1 where not even an exact column does. */
OZAKI_HD double ozaki64_span_limit(double rho_a, int k)
{
    if (!ozaki64_span_ok(rho_a, 0.0, k))
        return -1.0;
    for (int x = 0; x >= -60; x--)
        if (ozaki64_span_ok(rho_a, ozaki_pow2(x), k))
            return ozaki_pow2(x);
    return 0.0;
}

/* The check after the products, for an element whose row and column fail (R): step 16's
 * ozaki_check_accepts, with FP64's T - u = (k - 1) u. Its (1 + u) factor is FP32's u, wider than
 * FP64's: a little more careful, no less right. Its inputs: w, the INT32 sum of the products of the
 * magnitude bytes (ozaki64_magnitude_byte) over the first min(ozaki_check_terms(k), k) terms;
 * h (g), ozaki_half_step(rho, bits) of the row (column); the 1-norms, ozaki64_norm_bound. An element
 * (R) or the check accepts is within k u |A||B| where C is normal, and 2^-1075 more where C is
 * subnormal: the one rounding's half step there (an FP64 loop's k roundings may add k 2^-1075). */
OZAKI_HD int ozaki64_check_accepts(int32_t w, double h, double g, double norm_a, double norm_b, int k)
{
    return ozaki_check_accepts(w, h, g, norm_a, norm_b, k, (double)(k - 1) * OZAKI64_UNIT_ROUNDOFF);
}

/* The check's byte of x in a row (column) with exponent e: |x| truncated to 7 bits below 2^e,
 * floor(|x| 2^(7 - e)) in 0 ... 127 (the scaling exact, or below 2^-1022 where it underflows); 0 for
 * NaN and Inf. */
OZAKI_HD int ozaki64_magnitude_byte(double x, int e)
{
    return isfinite(x) ? (int)ozaki64_times_pow2(fabs(x), 7 - e) : 0;
}

/* At least ||a'||_1 / 2^e, the 1-norm of a line's scaled values relative to its 2^e, from abs_sum,
 * the sum of its ozaki64_times_pow2(|a|, -e) (any order; relative, so that a row near DBL_MAX does
 * not overflow): each term is within 2^-1074 of its value where it underflows, hence k 2^-1074 more,
 * then step 16's bound (its rounding of the sum, k half steps). abs_sum is at least 1/2 (the line's
 * largest term) or 0 (a line of zeros: norm 0), so every operation stays in the normal range, where
 * the CPU's directed roundings are the GPU's bit for bit. */
OZAKI_HD double ozaki64_norm_bound(double abs_sum, int k, double half)
{
    return abs_sum > 0.0 ? ozaki_norm_bound(ozaki_add_up(abs_sum, (double)k * 0x1p-1074), k, 0, half) : 0.0;
}

#endif
