/* Step 19's arithmetic (fast_arithmetic.h) against step 16's (ozaki.h), bit for bit, on the CPU: the
 * same functions the kernels run. TAP on stdout; no GPU.
 *  1. Residues in single precision: for every width of the scaled values (1 ... SPLIT_MAX_BITS bits)
 *     and every modulus, each byte equals ozaki_residue(ozaki_scaled(x, bits - e), p), on floats
 *     made to be hard: exact ties of the rounding to an integer, the largest magnitude of the row
 *     itself, subnormals, rows so small that their scale is past FP32's range, NaN and Inf (0).
 *  2. The remainder theorem in 64 bits: for every plan of 2 ... 8 moduli recon64_make accepts,
 *     reconstruct64 equals ozaki_reconstruct on integer products at and inside the plan's bound
 *     k 2^(alpha + beta), ties of the rounding to FP32 and exponents from subnormal to overflow;
 *     and recon64_make accepts the plans of the default count (8 moduli) for every k = n the step
 *     can take (1 ... 131071). Control: without the margin (a product just inside P / 2), the
 *     64-bit form goes wrong, so the check can fail. */
#include <stdio.h>
#include <stdlib.h>

#include "fast_arithmetic.h"
#include "matrix.h"
#include "tap.h"

static uint32_t rand32(uint64_t *state)
{
    return rand31(state) << 1 ^ rand31(state);
}

/* A float for row exponent e (|x| < 2^e): a random significand at a random exponent below e, or
 * one made to land on a tie (x 2^(bits - e) = an integer + 1/2), or the row's largest, or special. */
static float test_value(uint64_t *state, int e, int bits, int kind)
{
    float x;
    if (kind == 0) { /* anywhere below 2^e, down to subnormal */
        const int below = 1 + (int)(rand31(state) % 60);
        x = (float)ldexp(1.0 + rand31(state) * 0x1p-31, e - below);
    } else if (kind == 1) { /* a tie: (2m + 1) / 2 at scale 2^(bits - e), for |m| below 2^(bits - 1) */
        const int64_t m = bits > 1 ? (int64_t)(rand32(state) % (1u << (bits - 1 < 23 ? bits - 1 : 23))) : 0;
        x = (float)ldexp((double)(2 * m + 1), e - bits - 1);
    } else if (kind == 2) { /* the largest magnitude below 2^e */
        x = (float)ldexp(1.0 - 0x1p-24, e);
    } else if (kind == 3) { /* just past a tie, either way */
        const int64_t m = (int64_t)(rand32(state) % (1u << (bits < 20 ? bits : 20)));
        x = (float)ldexp((double)(2 * m + 1), e - bits - 1);
        x = nextafterf(x, rand31(state) % 2 ? INFINITY : 0.0f);
    } else {
        const float special[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 0x1p-149f};
        x = special[rand31(state) % 6];
    }
    if (!(fabsf(x) < (float)ldexp(1.0, e)) && isfinite(x))
        x = 0.0f; /* rounding to FP32 reached 2^e, or below the smallest subnormal */
    return rand31(state) % 2 ? -x : x;
}

static void check_residues(void)
{
    uint64_t state = 19;
    long checked = 0, wrong = 0;
    for (int bits = 1; bits <= SPLIT_MAX_BITS; bits++) {
        struct split_plan sp;
        if (split_plan_make(bits, OZAKI_MAX_MODULI, &sp) != 0) {
            wrong++;
            continue;
        }
        for (int t = 0; t < 40000; t++) {
            /* row exponents from the largest (2^128) to the smallest (2^-148), the extremes often */
            const int e = t % 7 == 0 ? 128 : t % 7 == 1 ? -148 : -148 + (int)(rand31(&state) % 277);
            const float x = test_value(&state, e, bits, (int)(rand31(&state) % 5));
            const struct split_scale s = split_scale_of(e, bits, &sp);
            float vh, vl;
            const float low_magic = split_value(x, s, &sp, &vh, &vl);
            const int64_t v = isfinite(x) ? ozaki_scaled(x, bits - e) : 0;
            for (int l = 0; l < OZAKI_MAX_MODULI; l++) {
                const int want = ozaki_residue(v, ozaki_modulus(l));
                const int got = (int)(int8_t)(uint8_t)split_residue_byte(l, vh, vl, low_magic, &sp);
                checked++;
                if (got != want && wrong++ < 5)
                    printf("# x = %a, e = %d, bits = %d, p = %d: %d, not %d\n", (double)x, e, bits,
                           ozaki_modulus(l), got, want);
            }
        }
    }
    ok(wrong == 0, "residues in single precision equal ozaki_residue of the scaled value: %ld of %ld (1 ... %d bits, "
       "every modulus; ties, near ties, the row's largest, subnormal rows, NaN and Inf)", checked - wrong, checked,
       SPLIT_MAX_BITS);
    struct split_plan sp;
    ok(split_plan_make(SPLIT_MAX_BITS + 1, 8, &sp) == -1, "past %d bits the split is refused", SPLIT_MAX_BITS);
}

/* An integer product for the plan: random within the bound, the bound itself, or a tie of the
 * rounding to FP32; both signs. */
static int64_t test_product(uint64_t *state, uint64_t bound, int t)
{
    uint64_t m = (((uint64_t)rand32(state) << 32) | rand32(state)) % (bound + 1);
    if (t % 8 == 0)
        m = bound;
    else if (t % 8 == 1)
        m >>= rand31(state) % 64;
    else if (t % 8 == 2 && m >> 26) { /* a tie, or just past one, at 24 bits */
        const int length = 64 - __builtin_clzll(m), below = length - 25;
        m = (m >> (below + 1) << 1 | 1) << below;
        if (rand31(state) % 2)
            m |= 1;
    }
    return rand31(state) % 2 ? -(int64_t)m : (int64_t)m;
}

static void residues_of(const struct ozaki_plan *plan, int64_t c, int *r, uint32_t *ru)
{
    for (int l = 0; l < OZAKI_MAX_MODULI; l++) {
        const int p = plan->p[l];
        r[l] = l < plan->count ? (int)(((c % p) + p) % p) : 0;
    }
    for (int l = 0; l < RECON64_MAX_MODULI; l++)
        ru[l] = (uint32_t)r[l];
}

static void check_reconstruction(void)
{
    uint64_t state = 64;
    long checked = 0, wrong = 0, plans = 0;
    for (int count = 2; count <= RECON64_MAX_MODULI; count++)
        for (int k = 1; k < 131072; k = k < 16 ? k + 1 : k * 5 / 4 + 3) {
            struct ozaki_plan plan;
            struct recon64 rc;
            if (ozaki_plan_make(count, k, &plan) != 0 || recon64_make(&plan, k, &rc) != 0)
                continue;
            plans++;
            const uint64_t bound = (uint64_t)k << (plan.alpha + plan.beta);
            for (int t = 0; t < 4000; t++) {
                const int64_t c = test_product(&state, bound, t);
                int r[OZAKI_MAX_MODULI];
                uint32_t ru[RECON64_MAX_MODULI];
                residues_of(&plan, c, r, ru);
                const int e = -300 + (int)(rand31(&state) % 460);
                const float want = ozaki_reconstruct(&plan, r, e), got = reconstruct64(&rc, ru, e);
                checked++;
                if (memcmp(&want, &got, 4) != 0 && wrong++ < 5)
                    printf("# %d moduli, k = %d, C' = %lld, e = %d: %a, not %a\n", count, k, (long long)c, e,
                           (double)got, (double)want);
            }
        }
    ok(wrong == 0 && plans > 100, "reconstruct64 equals ozaki_reconstruct: %ld of %ld products (%ld plans of 2 ... %d "
       "moduli; at and inside each bound, ties, both signs, 2^-300 ... 2^159)", checked - wrong, checked, plans,
       RECON64_MAX_MODULI);

    /* The edges of FP32's range: runs of ones (they round up into the next power of two) and
     * their neighbours, placed so that the result's top bit is at 2^-150 ... 2^-124 and 2^124 ...
     * 2^129: rounding across 2^-126, into the subnormals, across overflow. */
    struct ozaki_plan edge_plan;
    struct recon64 edge;
    ozaki_plan_make(8, 1000, &edge_plan);
    recon64_make(&edge_plan, 1000, &edge);
    long edges = 0, edge_wrong = 0;
    for (int length = 1; length <= 50; length++)
        for (int d = -2; d <= 2; d++) {
            const uint64_t m = ((1ull << length) - 1) + (uint64_t)(d + 2) * (length > 3) - 2 * (length > 3);
            for (int top = -152; top <= 130; top += top == -122 ? 244 : 1)
                for (int sign = 0; sign < 2; sign++) {
                    const int64_t c = sign ? -(int64_t)m : (int64_t)m;
                    const int e = top - (length - 1);
                    int r[OZAKI_MAX_MODULI];
                    uint32_t ru[RECON64_MAX_MODULI];
                    residues_of(&edge_plan, c, r, ru);
                    const float want = ozaki_reconstruct(&edge_plan, r, e), got = reconstruct64(&edge, ru, e);
                    edges++;
                    if (memcmp(&want, &got, 4) != 0 && edge_wrong++ < 5)
                        printf("# edge: C' = %lld, e = %d: %a, not %a\n", (long long)c, e, (double)got, (double)want);
                }
        }
    ok(edge_wrong == 0, "reconstruct64 equals ozaki_reconstruct at FP32's edges: %ld of %ld (runs of ones and their "
       "neighbours, top bits 2^-152 ... 2^-122 and 2^122 ... 2^130, both signs)", edges - edge_wrong, edges);

    int refused = 0, first = 0;
    for (int k = 1; k < 131072; k++) {
        struct ozaki_plan plan;
        struct recon64 rc;
        if (ozaki_plan_make(OZAKI_DEFAULT_MODULI_LONG, k, &plan) != 0 || recon64_make(&plan, k, &rc) != 0)
            if (refused++ == 0)
                first = k;
    }
    ok(refused == 0, "the 64-bit form holds for the default %d moduli at every k = 1 ... 131071 (%d refused, the "
       "first at k = %d)", OZAKI_DEFAULT_MODULI_LONG, refused, first);

    /* The control: products just inside P / 2, past the margin, must go wrong somewhere. */
    struct ozaki_plan plan;
    struct recon64 rc;
    ozaki_plan_make(8, 1000, &plan);
    rc.count = plan.count, rc.P = plan.P_lo;
    for (int l = 0; l < RECON64_MAX_MODULI; l++) {
        rc.q[l] = plan.q_lo[l];
        rc.w[l] = (double)(uint64_t)(((ozaki_u128)plan.q_lo[l] << 64) / plan.P_lo) * 0x1p-64;
    }
    int wrong_past = 0;
    for (uint64_t d = 0; d < 4096; d++) {
        const int64_t c = (int64_t)(plan.P_lo / 2 - d) * (d % 2 ? -1 : 1);
        int r[OZAKI_MAX_MODULI];
        uint32_t ru[RECON64_MAX_MODULI];
        residues_of(&plan, c, r, ru);
        const float want = ozaki_reconstruct(&plan, r, 0), got = reconstruct64(&rc, ru, 0);
        wrong_past += memcmp(&want, &got, 4) != 0;
    }
    ok(wrong_past > 0 && recon64_make(&plan, (int)(plan.P_lo >> (plan.alpha + plan.beta + 1)) + 1, &rc) == -1,
       "control: products within 4096 of P / 2, past the margin: %d of 4096 wrong in 64 bits, and recon64_make "
       "refuses a k that allows them", wrong_past);
}

int main(void)
{
    check_residues();
    check_reconstruction();
    return done_testing();
}
