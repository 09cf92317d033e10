/* Ozaki scheme II for FP64 on the CPU, exactly as ozaki64.h (in the step's folder) defines it: the
 * scaled integers, their residues, one exact INT32 product per modulus, the remainder theorem in
 * 192 bits, one rounding to double; the span condition (R) and the check after the products as the
 * gate, an FP64 loop for what they refuse. TAP on stdout; no GPU. It checks:
 *
 *   1. the plan: k 2^(alpha + beta) < P / 2 with alpha + beta the largest that allows (or 124), for
 *      1 ... 20 moduli and k to 131071; the moduli pairwise coprime; P and the q_l step 16's up to 14;
 *   2. the scaled integers: the exact path (the double's bits) and the FPU path equal each other and
 *      rintl of the exact product in long double, bit for bit, on random doubles of every kind
 *      (subnormal to DBL_MAX, ties and near ties) at every width 1 ... 62; their residues (step 16's
 *      ozaki_residue) equal the remainder of C's %, the 7-bit magnitude bytes floorl's;
 *   3. the INT32 sums reduced by step 16's multiply-high (ozaki_mod) equal %, for all 20 moduli;
 *   4. the one rounding to double against gcc's (double) of unsigned __int128 times ldexp (normal
 *      results, overflow) and a long double's rounding (subnormal ones, 0); the hardware form equal;
 *   5. the remainder theorem: C' back exactly from its residues, |C'| < P / 2 at and near the ends,
 *      every count 2 ... 20; the fast form (step 19's quotient estimate, widened) equal to the exact
 *      one bit for bit on random residue vectors (any x in [0, P)), near ties of the rounding, near
 *      +-P / 2, exponents from below the subnormals to past overflow;
 *   6. the search: every input family of the harness's FP64 generator (matgen_dist64) and crafted
 *      ones (rows and columns at the span limit of (R) and one binade past it, made of ties or of
 *      values just short of a step; ties everywhere; magnitudes near 2^1023 and 2^-1000, subnormal
 *      inputs; spans up to 120 binades with zeros), k = 1 ... 64 (and long sums, sampled), 14 ... 20
 *      moduli: each element of C against the exact product (integers on a grid of 2^-2150, where
 *      every product of doubles is exact): no element that (R) or the check accepts is past
 *      k u |A||B| (2^-1075 more where C is subnormal: its one rounding's half step); the refused
 *      ones (an FP64 loop computes them) counted; the fast reconstruction equal to the exact one on
 *      every element; and what the default count (ozaki64_default_moduli) rests on;
 *   7. controls, which must fail: one modulus too few for the plan's alpha + beta; truncation instead
 *      of rounding in the scaling; a gate and check that trust every span one binade more.
 *
 *   --quick          fewer cases: 4 a size, long sums 100, 181, 8192 and 16384 only (what make test runs)
 *   --counts LO HI   the counts of moduli searched (default 14 20)
 *   --trials T       cases a size (default 8, long sums 2)
 *   --long "K ..."   the long sums (default 100 128 181 256 512 1000 4096 8192 16384; 65 ... 131071, at most 16)
 *   --seed S
 *
 * --save-cases DIR: instead of the above, 8. the whole step (whole_step: step20.cu's passes in its
 *   kernels' orders, the C it computes bit for bit) on every family of matgen_dist64 (seed 0, A then
 *   B: the step's own -n N --dist FAMILY) at each n of --sizes and on four crafted cases (lines_n40,
 *   special_n33, mixed_n600, wide_n1100), written as DIR/NAME/a.npy, b.npy, c_model.npy (float64, C order) and
 *   counts.txt ("moduli=M alpha=A beta=B rows_past=R cols_past=C refused=F elements=E special=S":
 *   the step's run report's numbers, and the elements of NaN/Inf lines). TAP: the GPU's forms equal
 *   the reference forms on every element; every element the products give within n u |A||B|; the
 *   files written, no NaN in C. tests/same_as_model.t matches the step's C against them byte for byte.
 *   --sizes "N ..."  the families' n (default 1 2 3 7 17 33 64 100 127 128 257; 1 ... 1024, at most 32)
 * Exit 0, 1 when a line failed, 2 on bad usage. */
#include "matrix.h"
#include "ozaki64.h"
#include "tap.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>


static uint64_t rand64(uint64_t *state)
{
    return (uint64_t)rand31(state) << 33 ^ (uint64_t)rand31(state) << 2 ^ rand31(state);
}

static int rand_in(uint64_t *state, int lo, int hi) /* lo ... hi */
{
    return lo + (int)(rand64(state) % (uint64_t)(hi - lo + 1));
}

static double rand_m(uint64_t *state) /* [1, 2), 52 random fraction bits */
{
    return 1.0 + (double)(rand64(state) >> 12) * 0x1p-52;
}

static double rand_sign(uint64_t *state, double x)
{
    return rand31(state) & 1 ? -x : x;
}

/* ---- Exact sums: fixed-point integers, the least bit 2^-2150 ----
 * A double is +-M 2^E, M < 2^53, E in -1074 ... 971: a product's least bit is at least 2^-2148 and
 * the product below 2^2048, so a sum of up to 2^17 products lies below bit 2065 + 2150 of 68 64 bits. */
#define BIG_LIMBS 68
#define BIG_LOW (-2150)

struct big {
    uint64_t w[BIG_LIMBS];
};

static void big_add_at(struct big *b, ozaki_u128 v, int at) /* b += v 2^at, at >= 0 */
{
    const int l = at / 64, s = at % 64;
    const uint64_t parts[3] = {(uint64_t)v << s, s ? (uint64_t)(v >> (64 - s)) : (uint64_t)(v >> 64),
                               s ? (uint64_t)(v >> (128 - s)) : 0};
    uint64_t carry = 0;
    for (int i = 0; l + i < BIG_LIMBS && (i < 3 || carry); i++) {
        const ozaki_u128 t = (ozaki_u128)b->w[l + i] + (i < 3 ? parts[i] : 0) + carry;
        b->w[l + i] = (uint64_t)t;
        carry = (uint64_t)(t >> 64);
    }
}

static int big_less(const struct big *a, const struct big *b)
{
    for (int i = BIG_LIMBS - 1; i >= 0; i--)
        if (a->w[i] != b->w[i])
            return a->w[i] < b->w[i];
    return 0;
}

static void big_combine(struct big *a, const struct big *b, int subtract) /* a += b, or a -= b (a >= b) */
{
    uint64_t carry = 0;
    for (int i = 0; i < BIG_LIMBS; i++) {
        if (subtract) {
            const uint64_t d = a->w[i] - b->w[i] - carry;
            carry = a->w[i] < b->w[i] || (a->w[i] == b->w[i] && carry);
            a->w[i] = d;
        } else {
            const ozaki_u128 t = (ozaki_u128)a->w[i] + b->w[i] + carry;
            a->w[i] = (uint64_t)t;
            carry = (uint64_t)(t >> 64);
        }
    }
}

static void big_times(struct big *a, uint64_t m)
{
    uint64_t carry = 0;
    for (int i = 0; i < BIG_LIMBS; i++) {
        const ozaki_u128 t = (ozaki_u128)a->w[i] * m + carry;
        a->w[i] = (uint64_t)t;
        carry = (uint64_t)(t >> 64);
    }
}

/* b as a double, roughly (its top 128 bits), times 2^-BIG_LOW less: for ratios only */
static double big_approx(const struct big *b, int *exponent)
{
    int top = BIG_LIMBS - 1;
    while (top > 0 && !b->w[top])
        top--;
    *exponent = 64 * (top - 1);
    return (double)b->w[top] * 0x1p64 + (top ? (double)b->w[top - 1] : 0.0);
}

/* x = +-M 2^E (M < 2^53; 0: M = 0) */
static void split_double(double x, uint64_t *M, int *E)
{
    uint64_t b;
    memcpy(&b, &x, 8);
    const int biased = (int)(b >> 52 & 0x7ff);
    *M = (b & ((1ull << 52) - 1)) | (uint64_t)(biased != 0) << 52;
    *E = biased ? biased - 1075 : -1074;
}

/* One element's exact facts: the sum's positive and negative parts, and W = (|A||B|)_ij. */
struct exact {
    struct big pos, neg, W;
};

static void exact_element(const double *a, const double *b, int k, struct exact *x)
{
    memset(x, 0, sizeof *x);
    for (int t = 0; t < k; t++) {
        uint64_t Ma, Mb;
        int Ea, Eb;
        split_double(a[t], &Ma, &Ea);
        split_double(b[t], &Mb, &Eb);
        if (Ma && Mb)
            big_add_at(signbit(a[t]) != signbit(b[t]) ? &x->neg : &x->pos, (ozaki_u128)Ma * Mb, Ea + Eb - BIG_LOW);
    }
    x->W = x->pos;
    big_combine(&x->W, &x->neg, 0);
}

/* Whether |c - AB| <= k u W exactly (|c - AB| 2^53 <= k W), and where c is subnormal (|c| <= 2^-1022)
 * at most 2^-1075 more: there the one rounding errs by up to half the subnormals' step, however
 * small W is (a single correctly rounded product does). *ratio = |c - AB| / that bound, roughly (0
 * where both are 0, infinite for a non-finite c). */
static int within_bound(const struct exact *x, double c, int k, double *ratio)
{
    if (!isfinite(c)) {
        *ratio = INFINITY;
        return 0;
    }
    struct big L = x->pos, R = x->neg;
    uint64_t M;
    int E;
    split_double(c, &M, &E);
    if (M)
        big_add_at(signbit(c) ? &L : &R, M, E - BIG_LOW); /* AB - c = (pos + |c|) - neg, or pos - (neg + c) */
    const int swap = big_less(&L, &R);
    struct big lhs = swap ? R : L, rhs = x->W;
    big_combine(&lhs, swap ? &L : &R, 1);
    big_times(&lhs, 1ull << 53);
    big_times(&rhs, (uint64_t)k);
    if (fabs(c) <= 0x1p-1022)
        big_add_at(&rhs, 1, -1075 + 53 - BIG_LOW);
    int el, er;
    const double l = big_approx(&lhs, &el), r = big_approx(&rhs, &er);
    *ratio = l == 0.0 ? 0.0 : r == 0.0 ? INFINITY : ldexp(l / r, el - er);
    return !big_less(&rhs, &lhs);
}

/* ---- 1. The plan ---- */

static int gcd(int a, int b)
{
    return b ? gcd(b, a % b) : a;
}

static void check_plans(void)
{
    int coprime = 1;
    for (int l = 0; l < OZAKI64_MAX_MODULI; l++)
        for (int m = 0; m < l; m++)
            coprime &= gcd(ozaki_modulus(l), ozaki_modulus(m)) == 1 && ozaki_modulus(l) < ozaki_modulus(m);
    ok(coprime && ozaki_modulus(0) == 256, "the 20 moduli: 256 down, pairwise coprime, each below the one before");

    long plans = 0, bad = 0;
    for (int count = 1; count <= OZAKI64_MAX_MODULI; count++)
        for (int k = 1; k <= OZAKI64_MAX_K; k += k < 300 ? 1 : 997) {
            struct ozaki64_plan plan;
            if (ozaki64_plan_make(count, k, &plan) != 0)
                continue;
            plans++;
            const int s = plan.alpha + plan.beta;
            bad += !ozaki64_fits(&plan.P, k, s) || (s < 2 * OZAKI64_MAX_BITS && ozaki64_fits(&plan.P, k, s + 1)) ||
                   plan.beta > OZAKI64_MAX_BITS || plan.beta - plan.alpha > 1 || plan.beta < plan.alpha;
        }
    struct ozaki64_plan plan;
    ok(bad == 0 && plans > 1000 && ozaki64_plan_make(0, 1, &plan) == -1 && ozaki64_plan_make(21, 1, &plan) == -1 &&
       ozaki64_plan_make(20, OZAKI64_MAX_K + 1, &plan) == -1, "the plan: k 2^(alpha + beta) < P / 2, not with one bit "
       "more unless at %d bits, beta - alpha 0 or 1 (%ld plans, 1 ... 20 moduli, k sampled to %d)",
       2 * OZAKI64_MAX_BITS, plans, OZAKI64_MAX_K);

    /* Step 16's plans (up to 14 moduli) have the same P and q_l: the FP64 plan widens them. */
    int same = 1;
    for (int count = 1; count <= OZAKI_MAX_MODULI; count++) {
        struct ozaki_plan p16;
        if (ozaki_plan_make(count, 1, &p16) != 0 || ozaki64_plan_make(count, 1, &plan) != 0) {
            same &= count == 1;
            continue;
        }
        same &= plan.P.w[0] == p16.P_lo && plan.P.w[1] == p16.P_hi && plan.P.w[2] == 0;
        for (int l = 0; l < count; l++)
            same &= plan.q[l].w[0] == p16.q_lo[l] && plan.q[l].w[1] == p16.q_hi[l] && plan.q[l].w[2] == 0 &&
                    plan.magic[l] == p16.magic[l];
    }
    ok(same, "P, the q_l and the magic numbers are step 16's for 2 ... %d moduli", OZAKI_MAX_MODULI);

    printf("# alpha / beta by count of moduli (columns) and k (rows); log2 P:\n#       k");
    for (int c = 14; c <= OZAKI64_MAX_MODULI; c++)
        printf(" %7d", c);
    printf("\n#  log2 P");
    for (int c = 14; c <= OZAKI64_MAX_MODULI; c++) {
        ozaki64_plan_make(c, 1, &plan);
        printf(" %7.2f", log2(ozaki64_to_double(&plan.P, 0, 0)));
    }
    printf("\n");
    const int ks[] = {1, 2, 16, 64, 127, 128, 247, 248, 1024, 4096, 16384, 131071};
    for (size_t i = 0; i < sizeof ks / sizeof *ks; i++) {
        printf("# %7d", ks[i]);
        for (int c = 14; c <= OZAKI64_MAX_MODULI; c++)
            if (ozaki64_plan_make(c, ks[i], &plan) == 0)
                printf("   %2d/%2d", plan.alpha, plan.beta);
            else
                printf(" %7s", "-");
        printf("\n");
    }
}

/* ---- 2, 3. Scaled integers, residues, bytes, the reduction of the INT32 sums ---- */

/* A random finite double of any kind: subnormal, near the bottom, near 1, near the top, anything. */
static double rand_double(uint64_t *state)
{
    for (;;) {
        uint64_t b = rand64(state);
        const int kind = rand_in(state, 0, 4);
        const uint64_t sign_fraction = b & 0x800fffffffffffffull;
        if (kind == 0)
            b = sign_fraction;
        else if (kind == 1)
            b = sign_fraction | (uint64_t)rand_in(state, 1, 60) << 52;
        else if (kind == 2)
            b = sign_fraction | (uint64_t)rand_in(state, 1023 - 80, 1023 + 80) << 52;
        else if (kind == 3)
            b = sign_fraction | (uint64_t)rand_in(state, 2046 - 60, 2046) << 52;
        if (rand_in(state, 0, 3) == 0) /* few significant bits: ties and exact cases */
            b &= ~((1ull << rand_in(state, 0, 52)) - 1);
        double d;
        memcpy(&d, &b, 8);
        if (isfinite(d))
            return d;
    }
}

/* The symmetric residue of v mod p by C's %, for comparison. */
static int residue_by_percent(int64_t v, int p)
{
    const int r = (int)((v % p + p) % p);
    return 2 * r >= p ? r - p : r; /* 128 is -128 for 256, (p + 1) / 2 is its negative for odd p */
}

static void check_scaling(long cases, uint64_t seed)
{
    uint64_t state = seed * 1000 + 2;
    long bad_fpu = 0, bad_exact = 0, bad_residue = 0, bad_byte = 0;
    for (long i = 0; i < cases; i++) {
        const double x = rand_double(&state);
        /* a row exponent at or above x's own, the largest often */
        const int ex = x == 0.0 ? rand_in(&state, -1073, 1024) : ozaki64_exponent(fabs(x));
        const int pick = rand_in(&state, 0, 3), e = pick == 0 ? 1024 : pick == 1 ? ex : ex + rand_in(&state, 0, 120);
        const int row_e = e > 1024 ? 1024 : e, bits = 1 + (int)(i % OZAKI64_MAX_BITS), shift = bits - row_e;
        double y = x;
        if (rand_in(&state, 0, 2) == 0 && x != 0.0) { /* a tie of the rounding to an integer, or next to one */
            const long double v = ldexpl((long double)fabs(x), shift);
            const long double tie = floorl(v) + 0.5L;
            const double t = (double)ldexpl(tie, -shift); /* rounded back: a tie where it is a double */
            y = copysign(t, x);
            if (rand_in(&state, 0, 1))
                y = nextafter(y, rand_in(&state, 0, 1) ? INFINITY : 0.0);
            if (!(fabs(y) < ldexp(1.0, row_e)))
                y = x;
        }
        const int64_t exact = ozaki64_scaled(y, shift), fpu = ozaki64_scaled_fpu(y, shift);
        const int64_t want = (int64_t)rintl(ldexpl((long double)y, shift)); /* exact, then one rounding */
        if (exact != fpu && bad_fpu++ < 3)
            printf("# %a, shift %d: %lld by the bits, %lld by the FPU\n", y, shift, (long long)exact, (long long)fpu);
        if (exact != want && bad_exact++ < 3)
            printf("# %a, shift %d: %lld, not %lld\n", y, shift, (long long)exact, (long long)want);
        for (int l = 0; l < OZAKI64_MAX_MODULI; l++)
            bad_residue += ozaki_residue(exact, ozaki_modulus(l)) != residue_by_percent(exact, ozaki_modulus(l));
        bad_byte += ozaki64_magnitude_byte(y, row_e) != (int)floorl(ldexpl(fabsl((long double)y), 7 - row_e));
    }
    ok(bad_fpu == 0 && bad_exact == 0, "scaled integers: the bits' path, the FPU's and rintl of the exact value in "
       "long double agree, %ld random doubles (subnormal to DBL_MAX, ties and near ties) at 1 ... %d bits",
       cases, OZAKI64_MAX_BITS);
    ok(bad_residue == 0, "their residues (step 16's ozaki_residue, two 32-bit halves) equal %%'s, all 20 moduli");
    ok(bad_byte == 0, "the check's 7-bit magnitude bytes equal floorl of the exact value");
    const int by_hand = ozaki64_scaled(2.5, 1 - 2) == 1 && ozaki64_scaled(1.5, 0) == 2 && ozaki64_scaled(-2.5, 0) == -2 &&
                        ozaki64_scaled(3.5, 0) == 4 && ozaki64_scaled(0x1.fffffffffffffp-1, 62) == (1ll << 62) - (1ll << 9) &&
                        ozaki64_scaled(0x1.fffffffffffffp1023, 62 - 1024) == (1ll << 62) - (1ll << 9) &&
                        ozaki64_scaled(0x1p-1074, 62 + 1073) == 1ll << 61 && ozaki64_scaled(0x1p-1074, 62 - 1024) == 0 &&
                        ozaki64_scaled(INFINITY, 0) == 0 && ozaki64_scaled_fpu(NAN, 0) == 0 &&
                        ozaki64_scaled_fpu(0x1p-1074, 62 - 1024) == 0 && ozaki64_scaled(-0.0, 5) == 0;
    ok(by_hand, "scaled integers by hand: ties to even, the row of DBL_MAX, the smallest subnormal, NaN and Inf");
}

static void check_mod(uint64_t seed)
{
    uint64_t state = seed * 1000 + 3;
    long checked = 0, bad = 0;
    for (int l = 0; l < OZAKI64_MAX_MODULI; l++) {
        const int p = ozaki_modulus(l);
        const uint32_t magic = ozaki_mod_magic(p);
        for (long t = 0; t < 60000; t++) {
            const int64_t v = t < 20000 ? t - 10000 : t < 25000 ? 2147483647 - (t - 20000)
                            : t < 30000 ? -2147483647 + (t - 25000) : (int64_t)(rand64(&state) % 4294967295ull) - 2147483647;
            checked++;
            bad += ozaki_mod((int)v, p, magic) != (int)((v % p + p) % p);
        }
    }
    ok(bad == 0, "the INT32 sums reduced by step 16's multiply-high (ozaki_mod) equal %%: %ld values, all 20 moduli, "
       "the ends +-(2^31 - 1) among them", checked);
}

/* ---- 4. One rounding to double ---- */

/* The reference for m 2^e, m below 2^192: gcc's correctly rounded (double) of an unsigned __int128,
 * then ldexp (exact for normal results); m past 2^128 first shifted into 128 bits with the bits
 * below folded into the last (75 bits under the rounding point: they only break ties). For results
 * below 2^-1022 (where ldexp would round again) m < 2^64 in long double, exactly, and one rounding. */
static double reference_double(const struct ozaki64_u192 *m, int e, int *usable)
{
    const int bits = ozaki64_bit_length(m), drop = bits > 128 ? bits - 128 : 0;
    *usable = 1;
    if (bits - 1 + e < -1022) {
        *usable = bits <= 64;
        return (double)ldexpl((long double)m->w[0], e);
    }
    ozaki_u128 v = ozaki_u128_make(m->w[0], m->w[1]);
    if (drop)
        v = ozaki_u128_make(ozaki64_bits_from(m, drop), ozaki64_bits_from(m, drop + 64)) |
            (ozaki_u128)ozaki64_any_below(m, drop);
    return ldexp((double)v, e + drop);
}

static struct ozaki64_u192 rand_u192(uint64_t *state, int bits) /* below 2^bits, bits 1 ... 192 */
{
    struct ozaki64_u192 m = {{rand64(state), rand64(state), rand64(state)}};
    for (int i = 0; i < 3; i++)
        m.w[i] = bits <= 64 * i ? 0 : bits - 64 * i >= 64 ? m.w[i] : m.w[i] & ((1ull << (bits - 64 * i)) - 1);
    return m;
}

/* m made a tie (or next to one) of the rounding to 53 bits: the bits below the 54th from the top
 * 100...0, then maybe the last one set */
static void make_tie(struct ozaki64_u192 *m, uint64_t *state)
{
    const int bits = ozaki64_bit_length(m);
    if (bits < 56)
        return;
    const int below = bits - 54; /* bits under the 53 kept and the rounding bit */
    for (int i = 0; i < below; i++)
        m->w[i / 64] &= ~(1ull << (i % 64));
    m->w[below / 64] |= 1ull << (below % 64);
    if (rand_in(state, 0, 1))
        m->w[0] |= 1;
}

static void check_to_double(long cases, uint64_t seed)
{
    uint64_t state = seed * 1000 + 4;
    long bad = 0, bad_fast = 0, compared = 0, subnormal = 0, compared128 = 0;
    for (long i = 0; i < cases; i++) {
        struct ozaki64_u192 m = rand_u192(&state, rand_in(&state, 1, 160));
        if (i % 2)
            make_tie(&m, &state);
        const int bits = ozaki64_bit_length(&m);
        /* results from below the smallest subnormal to past overflow, the ends often */
        const int top = i % 4 == 0 ? rand_in(&state, -1080, -1015) : i % 4 == 1 ? rand_in(&state, 1015, 1026)
                                                                   : rand_in(&state, -1100, 1100);
        const int e = top - (bits ? bits - 1 : 0), negative = (int)(i / 3 % 2);
        int usable;
        const double want = reference_double(&m, e, &usable), got = ozaki64_to_double(&m, negative, e);
        const double want_signed = negative ? -want : want;
        if (usable) {
            compared++;
            subnormal += fabs(want) < 0x1p-1022;
            if (memcmp(&got, &want_signed, 8) != 0 && bad++ < 3)
                printf("# %d bits, 2^%d: %a, not %a\n", bits, e, got, want_signed);
        }
        const double fast = ozaki64_to_double_fast(&m, negative, e);
        bad_fast += memcmp(&got, &fast, 8) != 0;
        if (!m.w[2]) { /* and the two-limb form's, 128 bits and below */
            const double fast128 = ozaki64_to_double128(m.w[0], m.w[1], negative, e);
            bad_fast += memcmp(&got, &fast128, 8) != 0;
            compared128++;
        }
    }
    const struct ozaki64_u192 one = {{1, 0, 0}}, three = {{3, 0, 0}}, top53 = {{(1ull << 53) - 1, 0, 0}};
    const struct ozaki64_u192 top54 = {{(1ull << 54) - 1, 0, 0}}, wide = {{~0ull, ~0ull, 1}};
    const int edges = ozaki64_to_double(&one, 0, 1023) == 0x1p1023 && isinf(ozaki64_to_double(&one, 0, 1024)) &&
                      ozaki64_to_double(&one, 0, -1074) == 0x1p-1074 && ozaki64_to_double(&one, 0, -1075) == 0.0 &&
                      ozaki64_to_double(&three, 0, -1076) == 0x1p-1074 && ozaki64_to_double(&three, 0, -1075) == 0x1p-1073 &&
                      ozaki64_to_double(&top53, 0, 971) == 0x1.fffffffffffffp1023 &&
                      isinf(ozaki64_to_double(&top54, 1, 970)) && signbit(ozaki64_to_double(&top54, 1, 970)) &&
                      ozaki64_to_double(&wide, 0, -129) == 1.0 && ozaki64_to_double_fast(&wide, 1, -129) == -1.0 &&
                      ozaki64_to_double(&top53, 0, -1074 - 53) == 0x1p-1074;
    ok(bad == 0 && compared > cases / 2 && subnormal > cases / 20, "one rounding to double equals gcc's (double) of "
       "unsigned __int128 with ldexp, and long double's below 2^-1022: %ld of %ld values below 2^160 (%ld subnormal; "
       "ties and near ties; 0 and overflow among them)", compared - bad, compared, subnormal);
    ok(bad_fast == 0 && compared128 > cases / 2, "the hardware conversion's forms of it (ozaki64_to_double_fast, and "
       "ozaki64_to_double128 on two limbs) equal it bit for bit: %ld values, %ld of them below 2^128", cases, compared128);
    ok(edges, "rounding by hand: 2^1023, overflow, 2^-1074, half of it (to even: 0), 3 2^-1076, 3 2^-1075, DBL_MAX, "
       "2^1024 - 2^970, 129 bits of ones, just under 2^-1074");
}

/* ---- 5. The remainder theorem ---- */

/* (+-m) mod p in [0, p) */
static uint32_t residue_of(const struct ozaki64_u192 *m, int negative, int p)
{
    ozaki_u128 r = 0;
    for (int i = 2; i >= 0; i--)
        r = (r << 64 | m->w[i]) % (ozaki_u128)p;
    return negative && r ? (uint32_t)(p - (int)r) : (uint32_t)r;
}

static void check_reconstruction(long cases, uint64_t seed)
{
    uint64_t state = seed * 1000 + 5;
    long checked = 0, bad = 0, fast_checked = 0, bad_fast = 0;
    for (int count = 2; count <= OZAKI64_MAX_MODULI; count++) {
        struct ozaki64_plan plan;
        ozaki64_plan_make(count, 1, &plan);
        const int P_bits = ozaki64_bit_length(&plan.P);
        const struct ozaki64_u192 one = {{1, 0, 0}}, zero = {{0, 0, 0}};
        for (long i = 0; i < cases / OZAKI64_MAX_MODULI; i++) {
            /* C' anywhere below P / 2, the ends (0, 1, P / 2 - 1, P / 2 - small), ties of the rounding */
            struct ozaki64_u192 c = rand_u192(&state, rand_in(&state, 1, P_bits - 1));
            while (!ozaki64_less(&c, &plan.P_half))
                c.w[rand_in(&state, 0, 2)] >>= 1;
            if (i % 8 == 1 && ozaki64_bit_length(&c) <= P_bits - 2) /* then still below P / 2 */
                make_tie(&c, &state);
            if (i < 4) {
                c = i == 0 ? zero : i == 1 ? one : ozaki64_sub(&plan.P_half, &one);
                const uint64_t room = plan.P_half.w[1] | plan.P_half.w[2] ? 1u << 20 : plan.P_half.w[0] - 1;
                const struct ozaki64_u192 small = {{1 + rand64(&state) % room, 0, 0}};
                if (i == 3)
                    c = ozaki64_sub(&plan.P_half, &small);
            }
            const int negative = rand_in(&state, 0, 1) && (c.w[0] | c.w[1] | c.w[2]);
            uint32_t r[OZAKI64_MAX_MODULI];
            struct ozaki64_u192 x = {{0, 0, 0}};
            for (int l = 0; l < count; l++) {
                r[l] = residue_of(&c, negative, plan.p[l]);
                ozaki64_mac(&x, &plan.q[l], r[l]);
            }
            int got_negative;
            const struct ozaki64_u192 got = ozaki64_reduce(&plan, x, &got_negative);
            checked++;
            bad += memcmp(&got, &c, sizeof c) != 0 || got_negative != negative;
            const int e = rand_in(&state, -1250, 1100);
            const double want = ozaki64_reconstruct(&plan, r, e), fast = ozaki64_reconstruct_fast(&plan, r, e);
            const double direct = ozaki64_to_double(&c, negative, e);
            fast_checked++;
            bad_fast += memcmp(&want, &fast, 8) != 0 || memcmp(&want, &direct, 8) != 0;
            /* any residues at all: x anywhere in [0, P), the half P / 2 among them */
            for (int l = 0; l < count; l++)
                r[l] = i % 16 == 5 ? residue_of(&plan.P_half, 0, plan.p[l]) : (uint32_t)rand_in(&state, 0, plan.p[l] - 1);
            const double want2 = ozaki64_reconstruct(&plan, r, e), fast2 = ozaki64_reconstruct_fast(&plan, r, e);
            fast_checked++;
            bad_fast += memcmp(&want2, &fast2, 8) != 0;
        }
    }
    struct ozaki64_plan chunked, past;
    ozaki64_plan_make(OZAKI64_CHUNKED_MODULI, 1, &chunked);
    ozaki64_plan_make(OZAKI64_CHUNKED_MODULI + 1, 1, &past);
    ok(ozaki64_bit_length(&chunked.P) <= 3 * OZAKI64_CHUNK_BITS && ozaki64_bit_length(&past.P) > 3 * OZAKI64_CHUNK_BITS &&
           OZAKI64_CHUNKED_MODULI * 255.0 * 0x1p40 < 0x1p52 && ozaki64_chunked(&chunked) && !ozaki64_chunked(&past),
       "P < 2^120 up to %d moduli (%d bits), not from %d (%d bits): where three 40-bit chunks hold each q_l, and each "
       "chunk's sum (below %d 255 2^40 < 2^52) is exact in a double", OZAKI64_CHUNKED_MODULI,
       ozaki64_bit_length(&chunked.P), OZAKI64_CHUNKED_MODULI + 1, ozaki64_bit_length(&past.P), OZAKI64_CHUNKED_MODULI);
    ok(bad == 0, "the remainder theorem in 192 bits gives C' back from its residues: %ld of %ld (2 ... 20 moduli, "
       "|C'| < P / 2, 0, 1 and the ends, both signs)", checked - bad, checked);
    ok(bad_fast == 0, "the fast reconstruction (the quotient from sum r_l w_l, C' modulo 2^192; up to 15 moduli "
       "the FP64 units' 40-bit chunks, C' modulo 2^128) equals the exact one "
       "bit for bit: %ld of %ld (those, and random residue vectors: x anywhere in [0, P), P / 2 itself; 2^-1250 ... "
       "2^1100)", fast_checked - bad_fast, fast_checked);
}

/* ---- 6. The search ---- */

/* The widest span of a line with `bits` bits that (R) keeps at k with the other side exact: every
 * span up to bits - 53 (rho = 0), and those with 2^(sigma - bits) within (R). */
static int span_edge(int k, int bits)
{
    int sigma = bits - 53;
    while (sigma + 1 < bits && ozaki64_span_ok(ozaki_pow2(sigma + 1 - bits), 0.0, k))
        sigma++;
    return sigma;
}

/* The families: the harness's seven (matgen_dist64), then the crafted ones. */
enum { F_EDGE = DIST_COUNT, F_TIES, F_OVERFLOW, F_UNDERFLOW, F_SPANS, FAMILIES };
static const char *const crafted_name[FAMILIES - DIST_COUNT] = {"edge", "ties", "overflow", "underflow", "spans"};
static const char *const crafted_text[FAMILIES - DIST_COUNT] = {
    "lines at (R)'s span limit and one binade either side, the other side exact: ties, or just short of a step",
    "every element a tie of its scaling (or its line's largest), spans to the limit + 4, both sides",
    "one side +-(1 + U) 2^(1023 - 0..20) (rows at DBL_MAX), the other +-(1 + U) 2^-(16..24)",
    "one side +-(1 + U) 2^-(990..1022), a quarter subnormal, the other +-(1 + U) 2^(20..40)",
    "+-m 2^-(0..120), a third zeros; or a row's largest whose partner is 0, the rest +-m 2^-(0..100)"};

static const char *family_name(int f)
{
    return f < DIST_COUNT ? dist_name((enum input_dist)f) : crafted_name[f - DIST_COUNT];
}

#define LINES 8 /* rows of A and columns of B per case: C is LINES x LINES */
#define BANDS 3 /* k = 1 ... 8, 9 ... OZAKI64_LONG_SUMS - 1, and from there (the default count's two) */
static int band_of(int k)
{
    return k <= 8 ? 0 : k < OZAKI64_LONG_SUMS ? 1 : 2;
}

/* What the model computes differently in the controls. */
enum variant { AS_IS, TRUNCATED, TRUSTING };

/* A row of A or a column of B (k values), prepared for a plan as the step's passes would: its
 * exponent, rho, half step and 1-norm bound, the residues of its scaled values, the check's bytes. */
struct line {
    int e;
    double rho, half, norm;
    int8_t *res; /* [l * k + t] */
    uint8_t *bytes;
};

struct stats {
    long elements[BANDS], refused[BANDS], passed_R[BANDS]; /* refused: by (R) and the check both */
    long violations;                                /* accepted and past k u |A||B|: must stay 0 */
    long unchecked_past;                            /* the products' C past the bound, no gate */
    long fast_differ, mod_differ, fpu_differ;
    long subnormal; /* accepted elements with a subnormal C (judged with 2^-1075 more) */
    long longest_elements, longest_refused; /* from k = OZAKI64_LONGEST_SUMS (the default's third count) */
    double worst[BANDS]; /* the largest |C - AB| / (k u |A||B|) among accepted elements */
    double worst_final;  /* the same with the refused ones from the FP64 loop */
    double worst_all;    /* the largest of worst[], and the k where it was found */
    int worst_k;
};

static void stats_add(struct stats *to, const struct stats *from)
{
    to->longest_elements += from->longest_elements;
    to->longest_refused += from->longest_refused;
    for (int b = 0; b < BANDS; b++) {
        to->elements[b] += from->elements[b];
        to->refused[b] += from->refused[b];
        to->passed_R[b] += from->passed_R[b];
        if (from->worst[b] > to->worst[b])
            to->worst[b] = from->worst[b];
    }
    to->violations += from->violations;
    to->unchecked_past += from->unchecked_past;
    to->fast_differ += from->fast_differ;
    to->mod_differ += from->mod_differ;
    to->fpu_differ += from->fpu_differ;
    to->subnormal += from->subnormal;
    if (from->worst_final > to->worst_final)
        to->worst_final = from->worst_final;
    if (from->worst_all > to->worst_all || (from->worst_all == to->worst_all && from->worst_k > to->worst_k))
        to->worst_all = from->worst_all, to->worst_k = from->worst_k;
}

static void prepare_line(const double *v, int k, int bits, const struct ozaki64_plan *plan, enum variant variant,
                         struct line *L, struct stats *st)
{
    double big = 0.0, small = INFINITY, abs_sum = 0.0;
    for (int t = 0; t < k; t++) {
        const double m = fabs(v[t]);
        big = m > big ? m : big;
        small = m > 0.0 && m < small ? m : small;
    }
    L->e = ozaki64_exponent(big);
    L->rho = ozaki64_span_rho(big, small, bits);
    L->half = ozaki_half_step(L->rho, bits);
    if (variant == TRUSTING) /* the control: steps believed half as wide */
        L->rho /= 2, L->half /= 2;
    for (int t = 0; t < k; t++)
        abs_sum += ozaki64_times_pow2(fabs(v[t]), -L->e);
    L->norm = ozaki64_norm_bound(abs_sum, k, L->half);
    for (int t = 0; t < k; t++) {
        int64_t s = ozaki64_scaled(v[t], bits - L->e);
        st->fpu_differ += s != ozaki64_scaled_fpu(v[t], bits - L->e);
        if (variant == TRUNCATED) /* the control: toward zero */
            s = (int64_t)ozaki64_times_pow2(v[t], bits - L->e);
        for (int l = 0; l < plan->count; l++)
            L->res[l * k + t] = (int8_t)ozaki_residue(s, plan->p[l]);
        L->bytes[t] = (uint8_t)ozaki64_magnitude_byte(v[t], L->e);
    }
}

/* The plain FP64 loop (one fma per term, k in order): what computes the refused elements. */
static double fp64_loop(const double *a, const double *b, int k)
{
    double c = 0.0;
    for (int t = 0; t < k; t++)
        c = fma(a[t], b[t], c);
    return c;
}

/* The same by a warp (step20.cu's warp_dot): lane l's sum of the terms k = l, l + 32, ... (one fma
 * each, k in order), then the 32 sums pairwise, lane l and l + d for d = 16, 8, 4, 2, 1. */
static double fp64_loop_warp(const double *a, const double *b, int k)
{
    double lane[32];
    for (int l = 0; l < 32; l++) {
        lane[l] = 0.0;
        for (int t = l; t < k; t += 32)
            lane[l] = fma(a[t], b[t], lane[l]);
    }
    for (int d = 16; d > 0; d /= 2)
        for (int l = 0; l < d; l++)
            lane[l] = lane[l] + lane[l + d];
    return lane[0];
}

/* The larger error of the two loops' orders, in units of k u |A||B| (both are what the GPU may run). */
static double loop_worst_of(const struct exact *x, const double *a, const double *b, int k)
{
    double by_thread, by_warp;
    within_bound(x, fp64_loop(a, b, k), k, &by_thread);
    within_bound(x, fp64_loop_warp(a, b, k), k, &by_warp);
    return by_thread > by_warp ? by_thread : by_warp;
}

/* Scratch for one case, in one block: A's rows and B's columns (contiguous, k each), B as the
 * generator makes it, the prepared lines, the exact facts. */
struct work {
    void *block;
    double *a, *bt, *b;
    struct line rows[LINES], cols[LINES];
    struct exact ex[LINES * LINES];
};

static void work_init(struct work *w, int k)
{
    const size_t values = (size_t)LINES * k, line_bytes = (size_t)(OZAKI64_MAX_MODULI + 1) * k;
    w->block = calloc(1, 3 * values * sizeof(double) + 2 * LINES * line_bytes);
    if (!w->block) {
        fprintf(stderr, "ozaki64_model: no memory for k = %d\n", k);
        exit(2);
    }
    w->a = w->block, w->bt = w->a + values, w->b = w->bt + values;
    int8_t *next = (int8_t *)(w->b + values);
    for (int i = 0; i < 2 * LINES; i++, next += line_bytes) {
        struct line *L = i < LINES ? &w->rows[i] : &w->cols[i - LINES];
        L->res = next;
        L->bytes = (uint8_t *)next + (size_t)OZAKI64_MAX_MODULI * k;
    }
}

/* The model's C for the case in w under plan (variant: the controls), element by element against
 * the exact product, into st. */
static void run_case(struct work *w, int k, const struct ozaki64_plan *plan, enum variant variant, struct stats *st)
{
    for (int i = 0; i < LINES; i++) {
        prepare_line(w->a + (size_t)i * k, k, plan->alpha, plan, variant, &w->rows[i], st);
        prepare_line(w->bt + (size_t)i * k, k, plan->beta, plan, variant, &w->cols[i], st);
    }
    const int terms = ozaki_check_terms(k) < k ? ozaki_check_terms(k) : k, band = band_of(k);
    for (int i = 0; i < LINES; i++)
        for (int j = 0; j < LINES; j++) {
            const struct line *R = &w->rows[i], *C = &w->cols[j];
            uint32_t r[OZAKI64_MAX_MODULI];
            for (int l = 0; l < plan->count; l++) {
                int32_t s = 0; /* exact: k 128^2 < 2^31 */
                for (int t = 0; t < k; t++)
                    s += (int32_t)R->res[l * k + t] * C->res[l * k + t];
                r[l] = (uint32_t)ozaki_mod(s, plan->p[l], plan->magic[l]);
                st->mod_differ += (int)r[l] != (s % plan->p[l] + plan->p[l]) % plan->p[l];
            }
            const int e = R->e + C->e - plan->alpha - plan->beta;
            const double c = ozaki64_reconstruct(plan, r, e), fast = ozaki64_reconstruct_fast(plan, r, e);
            st->fast_differ += memcmp(&c, &fast, 8) != 0;
            const int passes = ozaki64_span_ok(R->rho, C->rho, k);
            int accepted = passes;
            if (!accepted) {
                int32_t bytes = 0; /* exact: 16384 127^2 < 2^31 */
                for (int t = 0; t < terms; t++)
                    bytes += (int32_t)R->bytes[t] * C->bytes[t];
                accepted = ozaki64_check_accepts(bytes, R->half, C->half, R->norm, C->norm, k);
            }
            double ratio, final_ratio;
            const int within = within_bound(&w->ex[i * LINES + j], c, k, &ratio);
            st->elements[band]++;
            st->passed_R[band] += passes;
            st->longest_elements += k >= OZAKI64_LONGEST_SUMS;
            st->longest_refused += k >= OZAKI64_LONGEST_SUMS && !accepted;
            st->unchecked_past += !within;
            if (accepted) {
                st->violations += !within;
                st->subnormal += c != 0.0 && fabs(c) <= 0x1p-1022;
                if (ratio > st->worst[band])
                    st->worst[band] = ratio;
                if (ratio > st->worst_all)
                    st->worst_all = ratio, st->worst_k = k;
                final_ratio = ratio;
            } else {
                st->refused[band]++;
                final_ratio = loop_worst_of(&w->ex[i * LINES + j], w->a + (size_t)i * k, w->bt + (size_t)j * k, k);
            }
            if (final_ratio > st->worst_final)
                st->worst_final = final_ratio;
        }
}

/* A tie of the scaling to the step 2^(1 - bits) (lines whose largest is in [1, 2)) near 2^-s:
 * (2i + 1) 2^-bits, i random, in the binade of 2^-s where it fits 53 bits; else a random value there. */
static double tie_near(int s, int bits, uint64_t *state)
{
    const int room = bits - s; /* (2i + 1) lies in [2^room, 2^(room + 1)) */
    if (room > 52)
        return ldexp(rand_m(state), -s);
    if (room < 1)
        return ldexp(1.0, -bits);
    const uint64_t odd = (1ull << room) + (rand64(state) % (1ull << room) | 1);
    return ldexp((double)odd, -bits);
}

/* One crafted line of the edge family at span sigma with `bits` bits (its largest, x[0], in [1, 2)):
 * the rest in the binade 2^-sigma, each a tie (rounded down by half a step: kind 0) or a step less
 * an ulp above a multiple of the step (rounded up by an ulp; truncation loses almost a step: kind
 * 1), near 2^-sigma (where the step is the largest share of the value). Its partner: small
 * integers, exact at any width, 0 beside x[0] in half the cases (the small elements carry the sum). */
static void edge_line(double *x, double *y, int k, int sigma, int bits, int kind, uint64_t *state)
{
    x[0] = rand_m(state);
    y[0] = rand_in(state, 0, 1) ? 0.0 : 1.0;
    const double low = ldexp(1.0, -sigma), step = ldexp(1.0, 1 - bits), ulp = ldexp(1.0, -sigma - 52);
    for (int t = 1; t < k; t++) {
        const double j = (double)(2 * rand_in(state, 0, 3)); /* an even multiple: ties round down */
        const double v = low + j * step + (kind == 0 ? step / 2 : step - ulp);
        x[t] = step / 2 >= ulp && v < 2 * low ? v : ldexp(rand_m(state), -sigma);
        y[t] = (double)rand_in(state, 1, 3);
    }
}

/* Case f at k into w (A's rows w->a, B's columns w->bt), for the plan (the crafted families edge
 * and ties depend on its alpha and beta), and the exact facts of every element. */
static void make_case(int f, int k, int trial, const struct ozaki64_plan *plan, struct work *w, uint64_t *state)
{
    const int swap = trial % 2; /* the crafted side: A's rows, or B's columns */
    double *x = swap ? w->bt : w->a, *y = swap ? w->a : w->bt;
    const int bits_x = swap ? plan->beta : plan->alpha, bits_y = swap ? plan->alpha : plan->beta;
    if (f < DIST_COUNT) {
        matgen_dist64((enum input_dist)f, 'A', w->a, (size_t)k, LINES, k, state);
        matgen_dist64((enum input_dist)f, 'B', w->b, LINES, k, LINES, state);
        for (int t = 0; t < k; t++)
            for (int j = 0; j < LINES; j++)
                w->bt[(size_t)j * k + t] = w->b[(size_t)t * LINES + j];
    } else if (f == F_EDGE) {
        const int edge = span_edge(k, bits_x);
        for (int i = 0; i < LINES; i++) {
            const int sigma = edge + i % 3 - 1 > 0 ? edge + i % 3 - 1 : 0;
            edge_line(x + (size_t)i * k, y + (size_t)i * k, k, sigma, bits_x, i / 3 % 2, state);
        }
    } else if (f == F_TIES) {
        for (int side = 0; side < 2; side++) {
            double *v = side ? y : x;
            const int bits = side ? bits_y : bits_x, top = span_edge(k, bits) + 4;
            for (int i = 0; i < LINES; i++)
                for (int t = 0; t < k; t++) {
                    const int s = t == i % k ? 0 : rand_in(state, 0, top < 100 ? top : 100);
                    v[(size_t)i * k + t] = rand_sign(state, t == i % k ? rand_m(state) : tie_near(s, bits, state));
                }
        }
    } else {
        for (int i = 0; i < LINES; i++)
            for (int t = 0; t < k; t++) {
                double *xv = &x[(size_t)i * k + t], *yv = &y[(size_t)i * k + t];
                if (f == F_OVERFLOW) {
                    *xv = rand_sign(state, ldexp(rand_m(state), 1023 - rand_in(state, 0, 20)));
                    *yv = rand_sign(state, ldexp(rand_m(state), -rand_in(state, 16, 24)));
                } else if (f == F_UNDERFLOW) {
                    *xv = rand_in(state, 0, 3) ? ldexp(rand_m(state), -rand_in(state, 990, 1022))
                                               : ldexp((double)(rand64(state) >> rand_in(state, 12, 63)), -1074);
                    *xv = rand_sign(state, *xv);
                    *yv = rand_sign(state, ldexp(rand_m(state), rand_in(state, 20, 40)));
                } else if (trial % 4 < 2) { /* spans */
                    *xv = rand_in(state, 0, 2) ? rand_sign(state, ldexp(rand_m(state), -rand_in(state, 0, 120))) : 0.0;
                    *yv = rand_in(state, 0, 2) ? rand_sign(state, ldexp(rand_m(state), -rand_in(state, 0, 120))) : 0.0;
                } else { /* the row's largest has no partner: the small elements carry the sum */
                    *xv = t == 0 ? rand_m(state) : rand_sign(state, ldexp(rand_m(state), -rand_in(state, 0, 100)));
                    *yv = t == 0 || rand_in(state, 0, 1) ? 0.0 : rand_sign(state, rand_m(state));
                }
            }
    }
    for (int i = 0; i < LINES; i++)
        for (int j = 0; j < LINES; j++)
            exact_element(w->a + (size_t)i * k, w->bt + (size_t)j * k, k, &w->ex[i * LINES + j]);
}

/* What the search covers: k = 1 ... 64, every one, and the long sums listed. */
#define MAX_LONG 16
struct search {
    uint64_t seed; /* the random cases' (--seed) */
    int count_lo, count_hi, trials, trials_long, longs;
    int long_k[MAX_LONG];
};

static int search_k(const struct search *s, int i) /* the i-th k, 0 past the last */
{
    return i < 64 ? i + 1 : i < 64 + s->longs ? s->long_k[i - 64] : 0;
}

/* The plan for count moduli at k, or for the control's plan: one modulus fewer, alpha and beta kept. */
static int plan_for(int count, int k, int fewer, struct ozaki64_plan *plan)
{
    struct ozaki64_plan full;
    if (ozaki64_plan_make(count, k, &full) != 0 || (fewer && ozaki64_plan_make(count - 1, k, plan) != 0))
        return -1;
    if (!fewer)
        *plan = full;
    plan->alpha = full.alpha, plan->beta = full.beta;
    return 0;
}

/* Family f at every k of the search and every count, into st[count] (initialised by the caller);
 * count 0: the default count for each k (the controls). loop: the FP64 loop's own worst. */
static void search_family(int f, const struct search *s, enum variant variant, int fewer, struct stats *st,
                          double *loop)
{
    int sizes = 0;
    while (search_k(s, sizes))
        sizes++;
#pragma omp parallel for schedule(dynamic, 1)
    for (int i = sizes - 1; i >= 0; i--) { /* the long sums first: the longest single runs */
        const int k = search_k(s, i), trials = k > 64 ? s->trials_long : s->trials;
        struct work w;
        work_init(&w, k);
        struct stats local[OZAKI64_MAX_MODULI + 1];
        memset(local, 0, sizeof local);
        double loop_worst = 0.0;
        for (int trial = 0; trial < trials; trial++) {
            uint64_t state = s->seed ^ (uint64_t)f << 48 ^ (uint64_t)k << 24 ^ (uint64_t)trial << 8 ^ (uint64_t)variant;
            rand31(&state);
            int made = 0;
            for (int count = s->count_lo; count <= s->count_hi; count++) {
                struct ozaki64_plan plan;
                const int c = count ? count : ozaki64_default_moduli(k);
                if (plan_for(c, k, fewer, &plan) != 0)
                    continue;
                if (!made || f == F_EDGE || f == F_TIES) { /* those two are made for the plan's widths */
                    uint64_t case_state = state;
                    make_case(f, k, trial, &plan, &w, &case_state);
                    made = 1;
                    for (int e = 0; e < LINES * LINES; e++) {
                        const double ratio =
                            loop_worst_of(&w.ex[e], w.a + (size_t)(e / LINES) * k, w.bt + (size_t)(e % LINES) * k, k);
                        loop_worst = ratio > loop_worst ? ratio : loop_worst;
                    }
                }
                run_case(&w, k, &plan, variant, &local[count]);
            }
        }
        free(w.block);
#pragma omp critical
        {
            for (int count = s->count_lo; count <= s->count_hi; count++)
                stats_add(&st[count], &local[count]);
            *loop = loop_worst > *loop ? loop_worst : *loop;
        }
    }
}

static double share(long part, long whole)
{
    return whole ? 100.0 * part / whole : 0.0;
}

static void search(const struct search *s)
{
    printf("# the search: C is %d x %d per case, k = 1 ... 64 x %d cases and k = ", LINES, LINES, s->trials);
    for (int i = 0; i < s->longs; i++)
        printf("%d%s", s->long_k[i], i + 1 < s->longs ? ", " : "");
    printf(" x %d; |C - AB| against k u |A||B| exactly; the families:\n", s->trials_long);
    for (int f = 0; f < FAMILIES; f++)
        printf("#   %-10s %s\n", family_name(f),
               f < DIST_COUNT ? dist_description64((enum input_dist)f) : crafted_text[f - DIST_COUNT]);
    printf("# by k (1-8, 9-%d, from %d): refused, the share (R) and the check both refuse (an FP64 loop computes\n"
           "# them); (R), the share (R) alone accepts; worst, the largest |C - AB| / (k u |A||B|) of an accepted\n"
           "# element (all: at k). final: the worst with the refused ones from the FP64 loop (whose own roundings\n"
           "# below 2^-1022 may add k 2^-1075: tiny, underflow); past: elements of the products' C past the bound\n"
           "# were there no gate\n", OZAKI64_LONG_SUMS - 1, OZAKI64_LONG_SUMS);
    printf("# %-9s %5s %8s | %6s %6s %6s | %5s %5s %5s | %6s %6s %6s %5s | %6s %6s\n", "family", "count", "elements",
           "ref%", "", "", "(R)%", "", "", "worst", "", "", "at k", "final", "past");
    long refused[FAMILIES][OZAKI64_MAX_MODULI + 1][BANDS] = {{{0}}};
    long longest_elements = 0, longest_refused = 0; /* the default's third count, its k, the six families */
    for (int f = 0; f < FAMILIES; f++) {
        struct stats st[OZAKI64_MAX_MODULI + 1];
        memset(st, 0, sizeof st);
        double loop = 0.0;
        search_family(f, s, AS_IS, 0, st, &loop);
        struct stats all;
        memset(&all, 0, sizeof all);
        for (int count = s->count_lo; count <= s->count_hi; count++) {
            const struct stats *t = &st[count];
            printf("# %-9s %5d %8ld | %6.2f %6.2f %6.2f | %5.1f %5.1f %5.1f | %6.4f %6.4f %6.4f %5d | %6.4f %6ld\n",
                   family_name(f), count, t->elements[0] + t->elements[1] + t->elements[2],
                   share(t->refused[0], t->elements[0]), share(t->refused[1], t->elements[1]),
                   share(t->refused[2], t->elements[2]), share(t->passed_R[0], t->elements[0]),
                   share(t->passed_R[1], t->elements[1]), share(t->passed_R[2], t->elements[2]), t->worst[0],
                   t->worst[1], t->worst[2], t->worst_k, t->worst_final, t->unchecked_past);
            stats_add(&all, t);
            memcpy(refused[f][count], t->refused, sizeof t->refused);
            if (count == OZAKI64_DEFAULT_MODULI_LONGEST && f < DIST_COUNT && f != DIST_MIXED) {
                longest_elements += t->longest_elements;
                longest_refused += t->longest_refused;
            }
        }
        printf("#   (the FP64 loop alone: worst %.4f)\n", loop);
        const long elements = all.elements[0] + all.elements[1] + all.elements[2];
        ok(all.violations == 0 && elements > 0, "%s: no element (R) or the check accepts is past k u |A||B|: %ld "
           "elements at %d ... %d moduli, the worst %.4f of it (k = %d), %.2f%% refused; %ld subnormal (2^-1075 "
           "more)", family_name(f), elements, s->count_lo, s->count_hi, all.worst_all, all.worst_k,
           share(all.refused[0] + all.refused[1] + all.refused[2], elements), all.subnormal);
        ok(all.fast_differ == 0 && all.mod_differ == 0 && all.fpu_differ == 0, "%s: the fast reconstruction, the "
           "multiply-high reduction and the FPU's scaling equal the exact forms on every element and value "
           "(%ld, %ld, %ld differ)", family_name(f), all.fast_differ, all.mod_differ, all.fpu_differ);
    }

    /* What ozaki64_default_moduli rests on (ozaki64.h says it): where the search has the counts. */
    const int shorter = OZAKI64_DEFAULT_MODULI_SHORT, longer = OZAKI64_DEFAULT_MODULI_LONG;
    if (s->count_lo > longer || s->count_hi <= shorter) {
        printf("# (the default count's grounds need counts %d ... %d searched)\n", longer, shorter + 1);
        return;
    }
    long more_differ = 0, fewer_short = 0, default_short = 0, long_refused = 0;
    for (int f = 0; f < FAMILIES; f++)
        for (int b = 0; b < 2; b++) {
            for (int count = shorter + 1; count <= s->count_hi; count++)
                more_differ += refused[f][count][b] != refused[f][shorter][b];
            if (f < DIST_COUNT) {
                fewer_short += refused[f][longer][b];
                default_short += refused[f][shorter][b];
            }
        }
    for (int f = 0; f < DIST_COUNT; f++)
        if (f != DIST_MIXED)
            long_refused += refused[f][longer][2] + refused[f][shorter][2];
    ok(more_differ == 0, "the default count below k = %d: %d ... %d moduli refuse exactly what %d refuse (alpha = beta = "
       "%d), every family", OZAKI64_LONG_SUMS, shorter + 1, s->count_hi, shorter, OZAKI64_MAX_BITS);
    ok(default_short < fewer_short, "the default count below k = %d: %d moduli refuse fewer elements of the harness's "
       "families than %d (%ld against %ld)", OZAKI64_LONG_SUMS, shorter, longer, default_short, fewer_short);
    ok(s->longs == 0 || long_refused == 0, "the default count from k = %d: %d moduli, like %d, refuse no element of the "
       "harness's families but mixed (%ld refused, k = %d ... %d)", OZAKI64_LONG_SUMS, longer, shorter, long_refused,
       s->longs ? s->long_k[0] : 0, s->longs ? s->long_k[s->longs - 1] : 0);
    ok(longest_elements > 0 && longest_refused == 0, "the default count from k = %d: %d moduli refuse none of the "
       "search's elements of the harness's families but mixed (%ld refused of %ld; rarer refusals, under one "
       "in k, are what the check's list and the FP64 loop's warps are for)", OZAKI64_LONGEST_SUMS, OZAKI64_DEFAULT_MODULI_LONGEST,
       longest_refused, longest_elements);
}

/* ---- 7. Controls: each must find elements past the bound, or the search could not ---- */

static void controls(const struct search *s)
{
    struct search c = *s;
    c.count_lo = c.count_hi = 0; /* the default count for each k */
    c.longs = 0;
    struct {
        const char *what;
        int family, fewer;
        enum variant variant;
    } const runs[] = {
        {"one modulus fewer than the default, alpha and beta kept (C' past P / 2 wraps)", DIST_UNIFORM, 1, AS_IS},
        {"one modulus fewer than the default, alpha and beta kept (C' past P / 2 wraps)", DIST_WIDE, 1, AS_IS},
        {"the scaling truncated toward zero instead of rounded to nearest", F_EDGE, 0, TRUNCATED},
        {"(R) and the check trusting every span one binade more (rho and the half steps halved)", F_EDGE, 0, TRUSTING},
    };
    for (size_t r = 0; r < sizeof runs / sizeof *runs; r++) {
        struct stats st[OZAKI64_MAX_MODULI + 1];
        memset(st, 0, sizeof st);
        double loop = 0.0;
        search_family(runs[r].family, &c, runs[r].variant, runs[r].fewer, st, &loop);
        const long elements = st[0].elements[0] + st[0].elements[1];
        ok(st[0].violations > 0, "control, %s, %s family: %ld of %ld accepted elements past k u |A||B| (the worst "
           "%.3g of it, k = %d)", runs[r].what, family_name(runs[r].family), st[0].violations, elements,
           st[0].worst_all, st[0].worst_k);
    }
}

/* ---- 8. The whole step (--save-cases): step20.cu's passes on the CPU, bit for bit ----
 *
 * What step20.cu computes for each element of C (n x n, k = n, the matrices padded to 256 with
 * zeros), in the order its kernels compute it, so that its C is this C byte for byte:
 *   row_facts and residues_a64: a row's largest finite magnitude, smallest nonzero, NaN/Inf, and its
 *     sum of magnitudes relative to 2^e in chunks of 1024 k (thread t adds k = k0 + 4 t + q in q
 *     order; each warp's lanes pair up, xor 16, 8, 4, 2, 1, every lane adding its partner's value to
 *     its own; thread 0 adds the eight warps' lane 0 from 0.0), which span_facts adds chunk by chunk;
 *   col_extremes and residues_bt64: a column's extremes, and its sum in chunks of 128 k (thread ty
 *     adds k = k0 + 32 g + 4 ty + q in (g, q) order, the chunk the eight threads' sums in ty order),
 *     which span_facts adds chunk by chunk, the padding's chunks among them;
 *   span_facts (line_fact64): rho, half step, the widest column rho (R) allows (ozaki64_span_limit), norm;
 *   residues_a64 and residues_bt64: each scaled value's residues by the FP64 units' formula
 *     (ozaki64_split_of, ozaki64_residue_byte), the check's magnitude bytes of the first check_terms terms;
 *   the products (exact INT32 sums, reduced by ozaki_mod) and reconstruct64 (ozaki64_reconstruct_fast:
 *     its chunk sums, or its 32-bit limbs, are the same numbers);
 *   residue_products<true>'s check_epilogue (step 16's, bound -1: check_needed holds): an element is
 *     refused where its 7-bit sum w is below its row's least accepted w against the tile's columns
 *     (least_accepted), its column's rho is past its row's limit, and ozaki_check_accepts fails;
 *   fp64_loop: the refused elements and every element of a row or column holding NaN or Inf. While
 *     the check's list holds every refused element (at most padded of them) those not in such a line
 *     are a warp each (fp64_loop_warp's order); the rest one fused multiply-add a term from 0.0, k in
 *     order.
 * The model also computes the reference forms beside the GPU's (ozaki_residue of ozaki64_scaled,
 * ozaki64_reconstruct, the verdict without least_accepted's shortcut) and counts where they differ:
 * nowhere, or the GPU's forms are not what ozaki64.h proves. */
#define STEP_TILE 256      /* step20.cu's padding (step 16's TILE) */
#define STEP_THREADS 256   /* residues_a64's block */
#define STEP_A_CHUNK 1024  /* residues_a64's k per block: A64_K */
#define STEP_CHUNK 128     /* residues_bt64's k per block: BT64_K */
#define STEP_CHECK_BN 256  /* the check's tile of columns: BN */

static double double_of_bits(uint64_t bits)
{
    double d;
    memcpy(&d, &bits, 8);
    return d;
}

/* The FP64 units' residue (ozaki64.h), as the int8 the products read. */
static int residue_like_gpu(double v, int p)
{
    const uint32_t byte = ozaki64_residue_byte(ozaki64_split_of(v), p);
    return byte >= 128 ? (int)byte - 256 : (int)byte;
}

/* least_accepted (step 16's ozaki_passes.h), on the CPU's directed roundings */
static int least_accepted_like_gpu(double h, double g, double norm_a, double norm_b, int k, double bound_less_u)
{
    const double err = ozaki_add_up(ozaki_add_up(h * norm_b, g * norm_a), h * g * (double)k);
    const double need = ozaki_mul_up(1.0 + OZAKI_UNIT_ROUNDOFF, err);
    const double guess = ceil(need * 0x1p14 / bound_less_u);
    if (!(guess < 2147483647.0))
        return INT_MAX;
    int w = (int)guess;
    while (w > 0 && ozaki_mul_down(bound_less_u, (double)(w - 1)) * 0x1p-14 >= need)
        w--;
    while (w < INT_MAX && !(ozaki_mul_down(bound_less_u, (double)w) * 0x1p-14 >= need))
        w++;
    return w;
}

/* A row of A or a column of B as the step's passes see it. */
struct step_line {
    double big, small, abs_sum; /* largest finite magnitude, smallest nonzero (0.0: none), the sum */
    int e, special, past;       /* big's exponent, NaN/Inf in the line, (R) fails even with an exact partner */
    double rho, half, limit, norm;
};

/* note_magnitude over the line (row_facts, col_extremes): the extremes as bits */
static void line_extremes(const double *v, size_t stride, int n, struct step_line *L)
{
    uint64_t most = 0, least = ~0ull;
    L->special = 0;
    for (int k = 0; k < n; k++) {
        const double m = fabs(v[(size_t)k * stride]);
        uint64_t bits;
        memcpy(&bits, &m, 8);
        if (isfinite(m)) {
            most = bits > most ? bits : most;
            if (bits && bits < least)
                least = bits;
        } else {
            L->special = 1;
        }
    }
    L->big = double_of_bits(most);
    L->small = least == ~0ull ? 0.0 : double_of_bits(least);
    L->e = ozaki64_exponent(L->big);
}

/* residues_a64's sums of a row, chunk by chunk of 1024 k over the padded k, as span_facts adds them:
 * in a chunk, thread t's four terms (k = 1024 c + 4 t + q) in order; each warp's butterfly (lane l
 * adds lane l ^ d's value to its own, d = 16 ... 1, all lanes at once); then the warps' lane 0 in
 * order from 0.0. */
static double row_sum_like_gpu(const double *row, int n, int padded, int e)
{
    double row_sum = 0.0;
    for (int c = 0; c < (padded + STEP_A_CHUNK - 1) / STEP_A_CHUNK; c++) {
        double lane[STEP_THREADS];
        for (int t = 0; t < STEP_THREADS; t++) {
            double s = 0.0;
            for (int q = 0; q < 4; q++) {
                const int k = STEP_A_CHUNK * c + 4 * t + q;
                if (k < n && isfinite(row[k]))
                    s = s + ozaki64_times_pow2(fabs(row[k]), -e);
            }
            lane[t] = s;
        }
        double chunk = 0.0;
        for (int w = 0; w < STEP_THREADS / 32; w++) {
            double *v = lane + 32 * w, next[32];
            for (int d = 16; d > 0; d /= 2) {
                for (int l = 0; l < 32; l++)
                    next[l] = v[l] + v[l ^ d];
                memcpy(v, next, sizeof next);
            }
            chunk = chunk + v[0];
        }
        row_sum = row_sum + chunk;
    }
    return row_sum;
}

/* residues_bt64's sums of column j (B n x n, row-major), chunk by chunk of 128 k over the padded
 * k, as span_facts adds them: in a chunk, thread ty's sixteen terms in (g, q) order, then the
 * eight threads' in ty order. */
static double col_sum_like_gpu(const double *b, int n, int padded, int j, int f)
{
    double col_sum = 0.0;
    for (int c = 0; c < padded / STEP_CHUNK; c++) {
        double chunk = 0.0;
        for (int ty = 0; ty < 8; ty++) {
            double s = 0.0;
            for (int g = 0; g < 4; g++)
                for (int q = 0; q < 4; q++) {
                    const int k = STEP_CHUNK * c + 32 * g + 4 * ty + q;
                    const double x = k < n ? b[(size_t)k * n + j] : 0.0;
                    if (isfinite(x))
                        s = s + ozaki64_times_pow2(fabs(x), -f);
                }
            chunk = chunk + s;
        }
        col_sum = col_sum + chunk;
    }
    return col_sum;
}

/* line_fact64 (step20.cu) */
static void line_fact_like_gpu(struct step_line *L, int n, int bits)
{
    L->rho = ozaki64_span_rho(L->big, L->small, bits);
    L->half = ozaki_half_step(L->rho, bits);
    L->limit = ozaki64_span_limit(L->rho, n);
    L->norm = ozaki64_norm_bound(L->abs_sum, n, L->half);
    L->past = !ozaki64_span_ok(L->rho, 0.0, n);
}

/* What a run of the whole step counts: the run report's numbers, and the model's own. */
struct whole_counts {
    int count, alpha, beta;                     /* the plan */
    long rows_past, cols_past, refused;         /* the run report's */
    long special;                               /* elements of a row or column with NaN or Inf */
    long residue_differ, recon_differ, shortcut_differ; /* the GPU's forms against the reference forms: 0 */
    long judged, past_bound;                    /* the products' elements judged, of them past k u |A||B| */
    double worst;                               /* the largest |C - AB| / (k u |A||B|) of those */
};

/* Per row of C, while the rows run side by side. */
struct row_tally {
    long refused, special, recon_differ, shortcut_differ, judged, past_bound;
    double worst;
};

enum { LOOP_REFUSED = 1, LOOP_SPECIAL = 2 }; /* an element fp64_loop computes, and why */

static void *whole_alloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size);
    if (!p) {
        fprintf(stderr, "ozaki64_model: out of memory\n");
        exit(2);
    }
    return p;
}

static int32_t dot8(const int8_t *x, const int8_t *y, int n)
{
    int32_t s = 0; /* exact: n 128^2 < 2^31 */
    for (int t = 0; t < n; t++)
        s += (int32_t)x[t] * y[t];
    return s;
}

static int32_t dot_bytes(const uint8_t *x, const uint8_t *y, int n)
{
    int32_t s = 0;
    for (int t = 0; t < n; t++)
        s += (int32_t)x[t] * y[t];
    return s;
}

/* step20's C for n x n row-major a and b, into c (n x n), and the counts; judge: every element the
 * products give checked against the exact product (k u |A||B|, 2^-1075 more where C is subnormal).
 * 0, or -1 where the step has no plan for n. */
static int whole_step(const double *a, const double *b, int n, double *c, int judge, struct whole_counts *out)
{
    memset(out, 0, sizeof *out);
    struct ozaki64_plan plan;
    const int count = ozaki64_default_moduli(n);
    if (n < 1 || n > OZAKI64_MAX_K || ozaki64_plan_make(count, n, &plan) != 0)
        return -1;
    out->count = count, out->alpha = plan.alpha, out->beta = plan.beta;
    const int padded = (n + STEP_TILE - 1) / STEP_TILE * STEP_TILE;
    const int check_terms = ozaki_check_terms(n) < padded ? ozaki_check_terms(n) : padded;
    const int terms = check_terms < n ? check_terms : n; /* the bytes past n are 0 */
    const size_t nn = (size_t)n * n;
    struct step_line *rows = whole_alloc((size_t)n, sizeof *rows), *cols = whole_alloc((size_t)n, sizeof *cols);
    double *bt = whole_alloc(nn, sizeof *bt);
    int8_t *ra = whole_alloc((size_t)count * nn, 1), *rb = whole_alloc((size_t)count * nn, 1);
    uint8_t *bytes_a = whole_alloc((size_t)n * terms, 1), *bytes_b = whole_alloc((size_t)n * terms, 1);
    const int tiles = padded / STEP_CHECK_BN;
    double *g_most = whole_alloc((size_t)tiles, sizeof *g_most), *nb_most = whole_alloc((size_t)tiles, sizeof *nb_most);
    struct row_tally *tally = whole_alloc((size_t)n, sizeof *tally);
    long *residue_differ = whole_alloc(2 * (size_t)n, sizeof *residue_differ); /* per line, rows then columns */
    uint8_t *looped = whole_alloc(nn, 1); /* what fp64_loop computes: LOOP_REFUSED, LOOP_SPECIAL */

    /* 1. the lines' facts */
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < n; k++)
            bt[(size_t)i * n + k] = b[(size_t)k * n + i];
        line_extremes(a + (size_t)i * n, 1, n, &rows[i]);
        rows[i].abs_sum = row_sum_like_gpu(a + (size_t)i * n, n, padded, rows[i].e);
        line_fact_like_gpu(&rows[i], n, plan.alpha);
        line_extremes(b + i, (size_t)n, n, &cols[i]);
        cols[i].abs_sum = col_sum_like_gpu(b, n, padded, i, cols[i].e);
        line_fact_like_gpu(&cols[i], n, plan.beta);
    }
    /* 2. the residues and the check's bytes: row i of A (side 0), column i of B (side 1) */
#pragma omp parallel for schedule(static)
    for (int i = 0; i < 2 * n; i++) {
        const int side = i / n, line = i % n;
        const double *v = side ? bt + (size_t)line * n : a + (size_t)line * n;
        const int e = side ? cols[line].e : rows[line].e, bits = side ? plan.beta : plan.alpha;
        int8_t *res = side ? rb : ra;
        uint8_t *bytes = side ? bytes_b : bytes_a;
        for (int k = 0; k < n; k++) {
            const double x = v[k];
            const double scaled = isfinite(x) ? rint(ozaki64_times_pow2(x, bits - e)) : 0.0; /* scaled_split */
            const int64_t exact = ozaki64_scaled(x, bits - e);
            residue_differ[i] += (int64_t)scaled != exact;
            for (int l = 0; l < count; l++) {
                const int r = residue_like_gpu(scaled, plan.p[l]);
                residue_differ[i] += r != ozaki_residue(exact, plan.p[l]);
                res[((size_t)l * n + line) * n + k] = (int8_t)r;
            }
            if (k < terms)
                bytes[(size_t)line * terms + k] = (uint8_t)ozaki64_magnitude_byte(x, e);
        }
    }
    for (int j = 0; j < n; j++) { /* the check's columns' largest half step and norm, per tile of BN */
        const int t = j / STEP_CHECK_BN;
        g_most[t] = fmax(g_most[t], cols[j].half);
        nb_most[t] = fmax(nb_most[t], cols[j].norm);
    }
    const double bound_less_u = (double)(n - 1) * OZAKI64_UNIT_ROUNDOFF;
    /* 3 ... 5, a row of C at a time */
#pragma omp parallel for schedule(dynamic, 1)
    for (int i = 0; i < n; i++) {
        struct row_tally *T = &tally[i];
        const struct step_line *R = &rows[i];
        int least[OZAKI64_MAX_K / STEP_CHECK_BN + 1];
        for (int t = 0; t < tiles; t++)
            least[t] = least_accepted_like_gpu(R->half, g_most[t], R->norm, nb_most[t], n, bound_less_u);
        for (int j = 0; j < n; j++) {
            const struct step_line *C = &cols[j];
            uint32_t r[OZAKI64_MAX_MODULI];
            for (int l = 0; l < count; l++)
                r[l] = (uint32_t)ozaki_mod(dot8(ra + ((size_t)l * n + i) * n, rb + ((size_t)l * n + j) * n, n),
                                           plan.p[l], plan.magic[l]);
            const int e = R->e - plan.alpha - plan.beta + C->e;
            double value = ozaki64_reconstruct_fast(&plan, r, e);
            const double exact = ozaki64_reconstruct(&plan, r, e);
            T->recon_differ += memcmp(&value, &exact, 8) != 0;
            int refused = 0;
            if (C->rho > R->limit) {
                const int32_t w = dot_bytes(bytes_a + (size_t)i * terms, bytes_b + (size_t)j * terms, terms);
                const int accepts = ozaki_check_accepts(w, R->half, C->half, R->norm, C->norm, n, bound_less_u);
                refused = w < least[j / STEP_CHECK_BN] && !accepts;
                T->shortcut_differ += refused != !accepts;
            }
            T->refused += refused;
            const int special = R->special || C->special;
            T->special += special;
            looped[(size_t)i * n + j] = special ? LOOP_SPECIAL : refused ? LOOP_REFUSED : 0;
            if (!refused && !special && judge) {
                struct exact x;
                double ratio;
                exact_element(a + (size_t)i * n, bt + (size_t)j * n, n, &x);
                T->judged++;
                T->past_bound += !within_bound(&x, value, n, &ratio);
                T->worst = ratio > T->worst ? ratio : T->worst;
            }
            c[(size_t)i * n + j] = value;
        }
    }
    /* 5. fp64_loop: a warp an element while the check's list holds every refused one (at most padded),
     * else a thread an element; the lines with NaN or Inf a thread an element */
    long refused_all = 0;
    for (int i = 0; i < n; i++)
        refused_all += tally[i].refused;
#pragma omp parallel for schedule(dynamic, 1)
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            const uint8_t how = looped[(size_t)i * n + j];
            if (how == LOOP_REFUSED && refused_all <= padded)
                c[(size_t)i * n + j] = fp64_loop_warp(a + (size_t)i * n, bt + (size_t)j * n, n);
            else if (how)
                c[(size_t)i * n + j] = fp64_loop(a + (size_t)i * n, bt + (size_t)j * n, n);
        }
    for (int i = 0; i < n; i++) {
        out->rows_past += rows[i].past;
        out->cols_past += cols[i].past;
        out->refused += tally[i].refused;
        out->special += tally[i].special;
        out->residue_differ += residue_differ[i] + residue_differ[n + i];
        out->recon_differ += tally[i].recon_differ;
        out->shortcut_differ += tally[i].shortcut_differ;
        out->judged += tally[i].judged;
        out->past_bound += tally[i].past_bound;
        out->worst = tally[i].worst > out->worst ? tally[i].worst : out->worst;
    }
    free(rows), free(cols), free(bt), free(ra), free(rb), free(bytes_a), free(bytes_b), free(g_most), free(nb_most);
    free(tally), free(residue_differ), free(looped);
    return 0;
}

/* ---- The cases a GPU run is matched against (--save-cases DIR) ---- */

#define CASE_SIZES_MAX 32
#define CASE_N_MAX 1024 /* O(count n^3) integer work on the CPU */
static const int default_case_sizes[] = {1, 2, 3, 7, 17, 33, 64, 100, 127, 128, 257};

/* The crafted cases, after the families: their names and what they hold. */
enum { CASE_LINES, CASE_SPECIAL, CASE_LONG, CASE_CHUNKS, CRAFTED_CASES };
static const char *const crafted_case_name[CRAFTED_CASES] = {"lines_n40", "special_n33", "mixed_n600", "wide_n1100"};
static const int crafted_case_n[CRAFTED_CASES] = {40, 33, 600, 1100};
static const char *const crafted_case_text[CRAFTED_CASES] = {
    "wide inputs with a row of A of zeros (-0.0 among them) and a column of B of zeros, a subnormal row, "
    "a row of one 1.5 and the rest 2^-100 ... 2^-150, a column spanning 2^300 ... 2^-300, a column with one "
    "nonzero, a row near 2^700",
    "wide inputs with A[1][2] = Inf and B[2][3] = -Inf: row 1 and column 3 through the FP64 loop, "
    "no NaN (every other term finite and nonzero)",
    "the mixed family at n = 600: the check sums 512 of the 600 terms; C in 6 x 3 tiles of the check (128 x 256)",
    "the wide family at n = 1100: A's rows summed in two chunks of residues_a64's 1024 k, the second partly padding"};

/* A case's inputs: family f (seed 0, A then B: the step's own -n N --dist F) or a crafted one. */
static void make_whole_case(int f, int n, double *a, double *b)
{
    uint64_t state = 0;
    const enum input_dist dist = f < DIST_COUNT                ? (enum input_dist)f
                                 : f == DIST_COUNT + CASE_LONG ? DIST_MIXED
                                                               : DIST_WIDE;
    matgen_dist64(dist, 'A', a, (size_t)n, n, n, &state);
    matgen_dist64(dist, 'B', b, (size_t)n, n, n, &state);
    if (f == DIST_COUNT + CASE_LINES) {
        for (int k = 0; k < n; k++) {
            a[k] = k % 2 ? -0.0 : 0.0;                                                      /* row 0 */
            b[(size_t)k * n] = 0.0;                                                         /* column 0 */
            a[2 * (size_t)n + k] = rand_sign(&state, ldexp(rand_m(&state), -1040 - rand_in(&state, 0, 30)));
            a[3 * (size_t)n + k] = k == 0 ? 1.5 : rand_sign(&state, ldexp(rand_m(&state), -rand_in(&state, 100, 150)));
            b[(size_t)k * n + 3] = k == 0 ? ldexp(rand_m(&state), 300)
                                          : rand_sign(&state, ldexp(rand_m(&state), -rand_in(&state, 0, 300)));
            b[(size_t)k * n + 5] = k == 7 ? -1.25 : 0.0;
            a[6 * (size_t)n + k] = rand_sign(&state, ldexp(rand_m(&state), 700)); /* times 2^300: no overflow */
        }
    } else if (f == DIST_COUNT + CASE_SPECIAL) {
        a[1 * (size_t)n + 2] = INFINITY;
        b[2 * (size_t)n + 3] = -INFINITY;
    }
}

static int write_whole_case(const char *dir, const char *name, const double *a, const double *b, const double *c, int n,
                            const struct whole_counts *w)
{
    char path[4096], file[4200];
    if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path)
        return -1;
    mkdir(dir, 0777);
    mkdir(path, 0777);
    const char *names[3] = {"a.npy", "b.npy", "c_model.npy"};
    const double *mats[3] = {a, b, c};
    for (int x = 0; x < 3; x++) {
        snprintf(file, sizeof file, "%s/%s", path, names[x]);
        if (save_npy_as(file, mats[x], n, n, ELEMENT_FP64) != 0)
            return -1;
    }
    snprintf(file, sizeof file, "%s/counts.txt", path);
    FILE *out = fopen(file, "w");
    if (!out)
        return -1;
    const int printed = fprintf(out, "moduli=%d alpha=%d beta=%d rows_past=%ld cols_past=%ld refused=%ld elements=%lld "
                                "special=%ld\n", w->count, w->alpha, w->beta, w->rows_past, w->cols_past, w->refused,
                                (long long)n * n, w->special);
    return fclose(out) != 0 || printed < 0 ? -1 : 0;
}

/* Every family at every size, then the crafted cases: the whole step's C written beside A and B, and
 * TAP lines on what the model found. */
static void save_cases(const char *dir, const int *sizes, int n_sizes)
{
    long written = 0, failed = 0, nan_elements = 0, cases = 0;
    printf("# the whole step's cases in %s: family, n, moduli, alpha/beta, rows and columns past (R) alone, "
           "elements refused by the check, elements in NaN/Inf lines\n", dir);
    for (int f = 0; f < DIST_COUNT + CRAFTED_CASES; f++) {
        struct whole_counts all;
        memset(&all, 0, sizeof all);
        char sizes_text[256] = "";
        for (int s = 0; s < (f < DIST_COUNT ? n_sizes : 1); s++) {
            const int n = f < DIST_COUNT ? sizes[s] : crafted_case_n[f - DIST_COUNT];
            char name[80];
            if (f < DIST_COUNT)
                snprintf(name, sizeof name, "%s_n%d", dist_name((enum input_dist)f), n);
            else
                snprintf(name, sizeof name, "%s", crafted_case_name[f - DIST_COUNT]);
            const size_t used = strlen(sizes_text);
            snprintf(sizes_text + used, sizeof sizes_text - used, "%s%d", used ? " " : "", n);
            double *a = whole_alloc((size_t)n * n, sizeof *a), *b = whole_alloc((size_t)n * n, sizeof *b);
            double *c = whole_alloc((size_t)n * n, sizeof *c);
            make_whole_case(f, n, a, b);
            struct whole_counts w;
            cases++;
            if (whole_step(a, b, n, c, 1, &w) != 0) {
                printf("# %s: no plan for n = %d\n", name, n);
                failed++;
            } else {
                for (size_t e = 0; e < (size_t)n * n; e++)
                    nan_elements += isnan(c[e]) != 0;
                if (write_whole_case(dir, name, a, b, c, n, &w) == 0)
                    written++;
                else
                    failed++;
                printf("# %-16s %5d %3d %2d/%2d %5ld %5ld %8ld %6ld\n", name, n, w.count, w.alpha, w.beta, w.rows_past,
                       w.cols_past, w.refused, w.special);
                all.rows_past += w.rows_past, all.cols_past += w.cols_past, all.refused += w.refused;
                all.special += w.special, all.residue_differ += w.residue_differ, all.recon_differ += w.recon_differ;
                all.shortcut_differ += w.shortcut_differ, all.judged += w.judged, all.past_bound += w.past_bound;
                all.worst = w.worst > all.worst ? w.worst : all.worst;
            }
            free(a), free(b), free(c);
        }
        const char *what = f < DIST_COUNT ? dist_name((enum input_dist)f) : crafted_case_name[f - DIST_COUNT];
        if (f >= DIST_COUNT)
            printf("#   (%s: %s)\n", what, crafted_case_text[f - DIST_COUNT]);
        ok(all.residue_differ == 0 && all.recon_differ == 0 && all.shortcut_differ == 0,
           "whole step, %s, n = %s: the GPU's forms equal the reference forms everywhere: the FP64 units' residues "
           "and scaling against ozaki_residue of ozaki64_scaled (%ld differ), the fast reconstruction against "
           "ozaki64_reconstruct (%ld), the check's verdict with least_accepted's shortcut and without (%ld)",
           what, sizes_text, all.residue_differ, all.recon_differ, all.shortcut_differ);
        ok(all.past_bound == 0, "whole step, %s, n = %s: every element the products give (R or the check accepted "
           "it) within n u |A||B| exactly: %ld of %ld, the worst %.4f of it; %ld refused (the FP64 loop), %ld in "
           "NaN/Inf lines", what, sizes_text, all.judged - all.past_bound, all.judged, all.worst, all.refused,
           all.special);
    }
    ok(failed == 0 && written == cases && nan_elements == 0, "--save-cases %s: %ld of %ld cases written, each as "
       "NAME/a.npy, b.npy, c_model.npy (float64, C order) and counts.txt; %ld NaN in the model's C (none: a NaN's "
       "payload is the processor's, no byte to match)", dir, written, cases, nan_elements);
}

int main(int argc, char **argv)
{
    struct search s = {.seed = 20, .count_lo = 14, .count_hi = OZAKI64_MAX_MODULI, .trials = 8, .trials_long = 2, .longs = 9,
                       .long_k = {100, 128, 181, 256, 512, 1000, 4096, 8192, 16384}};
    int quick = 0, trials = 0, sizes_given = 0, longs_given = 0, sizes[CASE_SIZES_MAX];
    int n_sizes = (int)(sizeof default_case_sizes / sizeof *default_case_sizes);
    const char *save_dir = NULL;
    memcpy(sizes, default_case_sizes, sizeof default_case_sizes);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) {
            quick = 1;
        } else if (!strcmp(argv[i], "--trials") && i + 1 < argc) {
            trials = atoi(argv[++i]);
            if (trials < 1 || trials > 1000) {
                fprintf(stderr, "ozaki64_model: --trials 1 ... 1000\n");
                return 2;
            }
        } else if (!strcmp(argv[i], "--long") && i + 1 < argc) {
            s.longs = 0, longs_given = 1;
            for (char *p = argv[++i], *end; *p; p = end) {
                const long k = strtol(p, &end, 10);
                if (end == p || k < 65 || k > OZAKI64_MAX_K || s.longs == MAX_LONG) {
                    fprintf(stderr, "ozaki64_model: --long takes up to %d sizes 65 ... %d\n", MAX_LONG, OZAKI64_MAX_K);
                    return 2;
                }
                s.long_k[s.longs++] = (int)k;
                while (*end == ' ' || *end == ',')
                    end++;
            }
        } else if (!strcmp(argv[i], "--counts") && i + 2 < argc) {
            s.count_lo = atoi(argv[++i]);
            s.count_hi = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
            s.seed = strtoull(argv[++i], NULL, 0);
        } else if (!strcmp(argv[i], "--save-cases") && i + 1 < argc) {
            save_dir = argv[++i];
        } else if (!strcmp(argv[i], "--sizes") && i + 1 < argc) {
            n_sizes = 0, sizes_given = 1;
            for (char *p = argv[++i], *end; *p; p = end) {
                const long n = strtol(p, &end, 10);
                if (end == p || n < 1 || n > CASE_N_MAX || n_sizes == CASE_SIZES_MAX) {
                    fprintf(stderr, "ozaki64_model: --sizes takes up to %d sizes 1 ... %d\n", CASE_SIZES_MAX,
                            CASE_N_MAX);
                    return 2;
                }
                sizes[n_sizes++] = (int)n;
                while (*end == ' ' || *end == ',')
                    end++;
            }
        } else {
            fprintf(stderr, "usage: %s [--quick] [--counts LO HI] [--trials T] [--long \"K ...\"] [--seed S] | "
                    "--save-cases DIR [--sizes \"N ...\"]\n", argv[0]);
            return 2;
        }
    }
    if (!save_dir && sizes_given) {
        fprintf(stderr, "ozaki64_model: --sizes goes with --save-cases\n");
        return 2;
    }
    if (save_dir) {
        save_cases(save_dir, sizes, n_sizes);
        return done_testing();
    }
    if (s.count_lo < 2 || s.count_hi > OZAKI64_MAX_MODULI || s.count_lo > s.count_hi) {
        fprintf(stderr, "ozaki64_model: --counts within 2 ... %d\n", OZAKI64_MAX_MODULI);
        return 2;
    }
    if (quick && !longs_given) /* a long sum of each default count's */
        s.trials = 4, s.longs = 4, s.long_k[0] = 100, s.long_k[1] = 181, s.long_k[2] = OZAKI64_LONGEST_SUMS,
        s.long_k[3] = 2 * OZAKI64_LONGEST_SUMS;
    else if (quick)
        s.trials = 4;
    if (trials)
        s.trials = s.trials_long = trials;
    check_plans();
    check_scaling(quick ? 200000 : 2000000, s.seed);
    check_mod(s.seed);
    check_to_double(quick ? 200000 : 2000000, s.seed);
    check_reconstruction(quick ? 100000 : 1000000, s.seed);
    search(&s);
    controls(&s);
    return done_testing();
}
