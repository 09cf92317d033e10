/* Ozaki scheme II on the CPU, exactly as ozaki.h (in the step's folder) defines it: the scaled integers, their
 * residues, one exact integer product per modulus, the remainder theorem, one rounding to FP32.
 * What it checks (TAP), and what it measures (notes), by default:
 *
 *   1. the remainder theorem gives back the integer product A' B' exactly, for every number of
 *      moduli, on random and extreme inputs (the integer product computed directly, in 128 bits);
 *   2. ozaki_to_float rounds once, to nearest: against a long double conversion (exact for
 *      m < 2^64), normal, subnormal and overflowing results;
 *   3. the plan keeps k 2^(alpha + beta) below P / 2, and takes the largest such alpha + beta;
 *      the GPU's forms of the residue (32-bit) and of the reconstruction (32-bit limbs) equal the
 *      reference forms bit for bit;
 *   4. the errors: for each input family of the harness, n and number of moduli, the largest
 *      componentwise error |c - ab| / (|A| |B|) against the fp32 bound of common/check.c, beside a
 *      plain FP32 loop (one rounding per multiply-add, as an FP32 GEMM does). Which families
 *      pass at which count is printed; --expect "N family..." makes it a test: the listed
 *      families pass at N moduli at every n measured.
 *
 *   --moduli LIST   numbers of moduli for the table (default "5 6 7 8 9 10 11 12"; 1 ... 14)
 *   --sizes LIST    n for the table (default "1 2 3 7 17 33 100 256"; n at most 1024)
 *   --trials T      matrices per family and n (default 2, at most 1000)
 *   --expect "N f1 f2 ..."  a TAP line per family: within the bound at N moduli, every n
 *   --save-cases DIR  write, for each family and n of the table, the first trial's A and B and the
 *                     handled C (--handled below: handled_gemm at the default count for n,
 *                     ozaki_default_moduli; the products' C (ozaki_model) wherever every row and column meets the rule)
 *                     as DIR/FAMILY_nN/a.npy, b.npy and c_model.npy, and handled_gemm's counts as
 *                     DIR/FAMILY_nN/counts.txt, one line "rows_past=R cols_past=C pairs_past=P
 *                     refused=F elements=E": a GPU step that computes the handled step must give
 *                     that C bit for bit (and those counts)
 *
 * --save-spans DIR: full n x n matrices of the span families, for a GPU step's tests and timings, as
 *   DIR/span-FAMILY-A|B-sSIGMA[-ties]_nN (FAMILY zero, small (d = 0), normal: A's rows spanning (A) and
 *   B's columns (B); graded, inverse: A's rows), DIR/inverse100_nN (A's rows over 100 binades, B's
 *   columns inversely) and DIR/twobytwo_n2 (the two-by-two [[1, 2^-120], [1, 2^-120]] x [[0, 0], [1, 1]],
 *   when 2 is a size): a.npy and b.npy, and at n <= 300 also c_model.npy and counts.txt as --save-cases
 *   writes them. Every row of A is one span_build call's A side, every column of B another's B side, so
 *   every element pairs the family's row with its column; seeds fixed per family, side, span, variant
 *   and n. Checks (TAP): the files are there; at n <= 300 every element of the handled C within the fp32
 *   bound or no worse than the FP32 loop, and equal to the element-wise form at sampled elements.
 *   --sizes LIST    n (here up to 8192; C only up to 300; default the table's)
 *   --spans LIST    the spans sigma in binades (default "6 12 18 24 30"; 1 ... 126: normal floats)
 *   --ties          also the ties variant (every rounding a tie, where the span allows one): -ties
 *
 * --span-search: the span rule (below, before ozaki_element): where a row of A or a column of B spans
 *   too many binades for its alpha (beta) bits, the fp32 bound can fail; the rule says exactly where.
 *   The search crafts rows and columns at the rule's edge and on both sides (spans 6 ... 30 binades;
 *   the largest element's partner zero, small or normal; graded along k; both operands) at every
 *   n = 1 ... 300, and the zero family at 1000 ... 16384, and checks: no case past the bound where the
 *   rule holds; every crafted worst case past the bound where it fails; the first span past the bound
 *   the edge + 1 (the rule is the edge, not a margin below it).
 * --span-leads: what to do with rows and columns past the rule: (b) the edge at each count of moduli,
 *   (a) bands of exponents each scaled on its own, summed exactly before the one rounding, (c) an
 *   FP32 loop for the elements past the rule; their errors on cases far past the edge and the
 *   harness's families.
 * --handled: the step with the rule as a gate (the specification a GPU step is checked against bit for
 *   bit; the algorithm: the comment before handled_gemm): where every row and column meets the rule, C
 *   is the products' C (ozaki_model); otherwise each element past it goes through a check after the products (a 7-bit INT8
 *   product for a lower bound of |A||B|), and those it refuses through an FP32 loop. Checks, at
 *   n = 1 ... --span-n (at most 1024): the whole C equals the element-wise form, the products' C (ozaki_model) where every
 *   row and column meets the rule, and every element of every family (the harness's, sampled past
 *   n = 16; the search's spans; 100 binades scaled inversely; the two-by-two) within the fp32
 *   bound or no worse than the FP32 loop; prints how many elements (R) and the gate refuse.
 *   --handled-long LIST  also the harness's families at these n (sampled 16 x 16), the fraction refused
 *   --span-slack B (with --handled) the control: W rounded up and E trusted 2^B times more (must fail)
 *   --span-n N       the search's largest n (default 300)
 *   --span-moduli M  M moduli at every n (default: the default count for n)
 *   --span-slack B   the control: judge with a rule that trusts every span B binades more (the
 *                    search must then fail)
 * Exit 0, 1 when a line failed, 2 on bad usage. */
#include "matrix.h"
#include "ozaki.h"
#include "tap.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_N 1024 /* the largest n the model takes: O(count n^3) integer work on one core */

static void *checked_calloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size);
    if (!p) {
        fprintf(stderr, "ozaki_model: out of memory\n");
        exit(2);
    }
    return p;
}

/* Steps 1 ... 5 for n x n row-major a and b: c, and (when direct is not NULL) the integer
 * product A' B' computed directly, in 128 bits, for check 1. NaN and Inf take no part (their
 * rows and columns are an FP32 GEMM's NaN or Inf, as step 14's special_values makes them). */
static void ozaki_model(const float *a, const float *b, float *c, int n, const struct ozaki_plan *plan,
                        __int128 *direct)
{
    int *ea = checked_calloc((size_t)n, sizeof *ea), *fb = checked_calloc((size_t)n, sizeof *fb);
    int64_t *as = checked_calloc((size_t)n * n, sizeof *as), *bs = checked_calloc((size_t)n * n, sizeof *bs);
    for (int i = 0; i < n; i++) {
        float m = 0.0f;
        for (int k = 0; k < n; k++)
            if (isfinite(a[(size_t)i * n + k]))
                m = fmaxf(m, fabsf(a[(size_t)i * n + k]));
        ea[i] = ozaki_exponent(m);
    }
    for (int j = 0; j < n; j++) {
        float m = 0.0f;
        for (int k = 0; k < n; k++)
            if (isfinite(b[(size_t)k * n + j]))
                m = fmaxf(m, fabsf(b[(size_t)k * n + j]));
        fb[j] = ozaki_exponent(m);
    }
    for (int i = 0; i < n; i++)
        for (int k = 0; k < n; k++) {
            const float x = a[(size_t)i * n + k];
            as[(size_t)i * n + k] = isfinite(x) ? ozaki_scaled(x, plan->alpha - ea[i]) : 0;
        }
    for (int k = 0; k < n; k++)
        for (int j = 0; j < n; j++) {
            const float y = b[(size_t)k * n + j];
            bs[(size_t)k * n + j] = isfinite(y) ? ozaki_scaled(y, plan->beta - fb[j]) : 0;
        }
    int8_t *ar = checked_calloc((size_t)n * n, 1), *br = checked_calloc((size_t)n * n, 1);
    int *r = checked_calloc((size_t)n * n * plan->count, sizeof *r);
    for (int l = 0; l < plan->count; l++) {
        const int p = plan->p[l];
        for (size_t x = 0; x < (size_t)n * n; x++) {
            ar[x] = (int8_t)ozaki_residue(as[x], p);
            br[x] = (int8_t)ozaki_residue(bs[x], p);
        }
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                int32_t w = 0; /* exact: n 128^2 < 2^31 */
                for (int k = 0; k < n; k++)
                    w += (int32_t)ar[(size_t)i * n + k] * br[(size_t)k * n + j];
                r[((size_t)i * n + j) * plan->count + l] = (w % p + p) % p;
            }
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            c[(size_t)i * n + j] = ozaki_reconstruct(plan, r + ((size_t)i * n + j) * plan->count,
                                                     ea[i] + fb[j] - plan->alpha - plan->beta);
    if (direct)
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                __int128 s = 0;
                for (int k = 0; k < n; k++)
                    s += (__int128)as[(size_t)i * n + k] * bs[(size_t)k * n + j];
                direct[(size_t)i * n + j] = s;
            }
    /* NaN and Inf, as an FP32 GEMM has them (step 14's special_values, on the CPU). */
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            int nan = 0, pos = 0, neg = 0, special = 0;
            for (int k = 0; k < n; k++) {
                const float x = a[(size_t)i * n + k], y = b[(size_t)k * n + j];
                if (isfinite(x) && isfinite(y))
                    continue;
                special = 1;
                const float t = x * y;
                nan |= isnan(t);
                pos |= t == INFINITY;
                neg |= t == -INFINITY;
            }
            if (!special)
                continue;
            const float finite = c[(size_t)i * n + j];
            pos |= finite == INFINITY;
            neg |= finite == -INFINITY;
            c[(size_t)i * n + j] = nan || (pos && neg) ? NAN : pos ? INFINITY : -INFINITY;
        }
    free(ea), free(fb), free(as), free(bs), free(ar), free(br), free(r);
}

/* The plain FP32 loop: one rounding per multiply-add, k in order. */
static void fp32_loop(const float *a, const float *b, float *c, int n)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            float s = 0.0f;
            for (int k = 0; k < n; k++)
                s = fmaf(a[(size_t)i * n + k], b[(size_t)k * n + j], s);
            c[(size_t)i * n + j] = s;
        }
}

/* The largest componentwise error of c over the elements whose reference is finite and whose
 * |A| |B| is not 0. */
static double comp_err(const float *a, const float *b, const float *c, int n)
{
    double *ref = checked_calloc((size_t)n, sizeof *ref), *abs_ref = checked_calloc((size_t)n, sizeof *abs_ref);
    double worst = 0.0;
    for (int i = 0; i < n; i++) {
        reference_row(a, b, n, i, ref, abs_ref);
        for (int j = 0; j < n; j++) {
            if (!isfinite(ref[j]) || !(abs_ref[j] > 0.0))
                continue;
            const double e = isfinite(c[(size_t)i * n + j]) ? fabs(c[(size_t)i * n + j] - ref[j]) / abs_ref[j]
                                                              : INFINITY;
            if (e > worst)
                worst = e;
        }
    }
    free(ref), free(abs_ref);
    return worst;
}

/* A list of integers in 1 ... top, separated by spaces or commas, at most max of them: their
 * count, or -1 for anything else (a word, 0, a value past top, too many). */
static int parse_list(const char *text, int *out, int max, long top)
{
    int count = 0;
    char *end;
    for (const char *s = text; *s;) {
        while (*s == ' ' || *s == ',')
            s++;
        if (!*s)
            break;
        const long v = strtol(s, &end, 10);
        if (end == s || v < 1 || v > top || count == max || (*end && *end != ' ' && *end != ','))
            return -1;
        out[count++] = (int)v;
        s = end;
    }
    return count;
}

/* Check 1: the remainder theorem against the direct integer product, every count of moduli. */
static void check_crt(void)
{
    uint64_t state = 7;
    const int sizes[] = {1, 2, 7, 33, 100};
    const enum input_dist dists[] = {DIST_UNIFORM, DIST_WIDE, DIST_MIXED, DIST_HUGE, DIST_SUBNORMAL};
    for (int count = 1; count <= OZAKI_MAX_MODULI; count++) {
        int checked = 0, wrong = 0, planned = 0;
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
            const int n = sizes[s];
            struct ozaki_plan plan;
            if (ozaki_plan_make(count, n, &plan) != 0)
                continue;
            planned++;
            for (size_t d = 0; d < sizeof dists / sizeof *dists; d++) {
                float *a = checked_calloc((size_t)n * n, sizeof *a), *b = checked_calloc((size_t)n * n, sizeof *b);
                float *c = checked_calloc((size_t)n * n, sizeof *c);
                __int128 *direct = checked_calloc((size_t)n * n, sizeof *direct);
                matgen_dist(dists[d], 'A', a, n, n, n, &state);
                matgen_dist(dists[d], 'B', b, n, n, n, &state);
                ozaki_model(a, b, c, n, &plan, direct);
                /* Recompute each element's float from the direct product: it must be c's. */
                for (int i = 0; i < n; i++)
                    for (int j = 0; j < n; j++) {
                        const __int128 v = direct[(size_t)i * n + j];
                        float ea_m = 0.0f, fb_m = 0.0f;
                        for (int k = 0; k < n; k++) {
                            ea_m = fmaxf(ea_m, fabsf(a[(size_t)i * n + k]));
                            fb_m = fmaxf(fb_m, fabsf(b[(size_t)k * n + j]));
                        }
                        const int e = ozaki_exponent(ea_m) + ozaki_exponent(fb_m) - plan.alpha - plan.beta;
                        const float want = ozaki_to_float((ozaki_u128)(v < 0 ? -v : v), v < 0, e);
                        const float got = c[(size_t)i * n + j];
                        checked++;
                        if (memcmp(&want, &got, sizeof got) != 0 && !(want == 0.0f && got == 0.0f))
                            wrong++;
                    }
                free(a), free(b), free(c), free(direct);
            }
        }
        if (planned)
            ok(wrong == 0 && checked > 0, "%d moduli: the remainder theorem gives the integer product back, %d of %d "
               "elements (n = 1 ... 100, five families)", count, checked - wrong, checked);
        else
            ok(count < 2, "%d moduli: no plan (P too small for any n measured), as expected only for one modulus",
               count);
    }
}

/* Check 2: one rounding to FP32. */
static void check_to_float(void)
{
    uint64_t state = 11;
    int checked = 0, wrong = 0;
    for (int t = 0; t < 200000; t++) {
        const int bits = 1 + (int)(rand31(&state) % 64);
        uint64_t m = ((uint64_t)rand31(&state) << 33) ^ ((uint64_t)rand31(&state) << 2) ^ rand31(&state);
        m = bits == 64 ? m | (1ull << 63) : (m & ((1ull << bits) - 1)) | (1ull << (bits - 1));
        if (t % 3 == 0) /* exact halfway cases: a 1 followed by zeros past the 24th bit */
            m = (m >> (bits > 25 ? bits - 25 : 0) | 1) << (bits > 25 ? bits - 25 : 0);
        const int e = -220 + (int)(rand31(&state) % 360);
        const float want = (float)ldexpl((long double)m, e); /* exact in long double, one rounding */
        const float got = ozaki_to_float(m, t & 1, e);
        const float want_signed = t & 1 ? -want : want;
        checked++;
        if (memcmp(&want_signed, &got, sizeof got) != 0)
            wrong++;
    }
    ok(wrong == 0, "ozaki_to_float rounds once to nearest: %d of %d random m < 2^64 at 2^-220 ... 2^140 (halfway "
       "cases, subnormals and overflow among them)", checked - wrong, checked);
}

/* A random 128-bit number below 2^bits (bits 1 ... 127), its top bit set. */
static ozaki_u128 rand_bits(uint64_t *state, int bits)
{
    ozaki_u128 m = 0;
    for (int i = 0; i < 5; i++)
        m = (m << 31) ^ rand31(state);
    m = (m << 31) ^ rand31(state);
    m &= ((ozaki_u128)1 << bits) - 1;
    return m | (ozaki_u128)1 << (bits - 1);
}

/* Check 4: what the GPU runs equals the 128-bit reference, bit for bit: ozaki_residue32 equals
 * ozaki_residue below 2^32; ozaki_reconstruct_limbs equals ozaki_reconstruct on random residues
 * and on integers made to be hard to round (ties to even, a tie broken only by the lowest bit of
 * a number longer than 64 bits), both signs, exponents from subnormal to overflow, every count. */
static void check_limbs(void)
{
    uint64_t state = 29;
    long checked = 0, wrong = 0;
    for (int l = 0; l < OZAKI_MAX_MODULI; l++)
        for (int t = 0; t < 20000; t++) {
            const int64_t u = t < 4 ? (int64_t[]){0, 1, 0xffffffffll, 0x80000000ll}[t]
                                    : (int64_t)(((uint64_t)rand31(&state) << 1 ^ rand31(&state)) & 0xffffffffu);
            for (int sign = 0; sign < 2; sign++) {
                const int64_t v = sign ? -u : u;
                checked++;
                wrong += ozaki_residue32(v, ozaki_modulus(l)) != ozaki_residue(v, ozaki_modulus(l));
            }
        }
    ok(wrong == 0, "ozaki_residue32 equals ozaki_residue below 2^32: %ld of %ld values, every modulus",
       checked - wrong, checked);
    checked = wrong = 0;
    for (uint32_t bits = 0; bits < 0x7f800000u; bits += bits < 0x10000u ? 1 : 997) {
        float m;
        memcpy(&m, &bits, 4); /* every positive subnormal below 2^-133, then every 997th float to the largest */
        int e;
        frexp((double)m, &e);
        checked++;
        wrong += ozaki_exponent(m) != (m > 0.0f ? e : 0) || ozaki_pow2(e) != ldexp(1.0, e);
    }
    ok(wrong == 0 && ozaki_exponent(INFINITY) == 0 && ozaki_exponent(NAN) == 0 && ozaki_exponent(0x1p-149f) == -148 &&
       ozaki_exponent(0x1.fffffep127f) == 128, "ozaki_exponent (from the bits) equals frexp's exponent, ozaki_pow2 ldexp's "
       "power: %ld of %ld floats, subnormal to the largest", checked - wrong, checked);
    checked = wrong = 0;
    for (int l = 0; l < OZAKI_MAX_MODULI; l++) {
        const int p = ozaki_modulus(l);
        const uint32_t magic = ozaki_mod_magic(p);
        for (int64_t t = 0; t < 400000; t++) {
            /* every v near 0 and near the ends +-(2^31 - 1), random ones between */
            const int64_t v = t < 100000 ? t - 50000 : t < 200000 ? 2147483647 - (t - 100000)
                            : t < 300000 ? -2147483647 + (t - 200000)
                                         : (int64_t)((uint64_t)rand31(&state) << 1 ^ rand31(&state)) - 2147483648ll;
            if (v < -2147483647)
                continue;
            checked++;
            wrong += ozaki_mod((int)v, p, magic) != (int)(((v % p) + p) % p);
        }
    }
    ok(wrong == 0, "ozaki_mod (no division) equals v mod p for |v| < 2^31: %ld of %ld values, every modulus",
       checked - wrong, checked);
    checked = wrong = 0;
    for (int count = 2; count <= OZAKI_MAX_MODULI; count++) {
        struct ozaki_plan plan;
        if (ozaki_plan_make(count, 1000, &plan) != 0)
            continue;
        const ozaki_u128 P = ozaki_u128_make(plan.P_lo, plan.P_hi);
        int log2_P = 0;
        while (((ozaki_u128)1 << (log2_P + 1)) <= P)
            log2_P++;
        for (int t = 0; t < 150000; t++) {
            int r[OZAKI_MAX_MODULI] = {0};
            const int e = (int)(rand31(&state) % 460) - 300;
            if (t % 2 == 0) {
                for (int l = 0; l < count; l++) {
                    const int p = plan.p[l], kind = t / 2 % 4;
                    r[l] = kind == 0 ? (int)(rand31(&state) % p) : kind == 1 ? 0 : kind == 2 ? p - 1
                                                                                     : (int)(rand31(&state) % 3);
                }
            } else {
                /* An integer m < P / 2 of a random length, signed, made a tie or a near tie half the time. */
                const int bits = 1 + (int)(rand31(&state) % (uint32_t)(log2_P - 1));
                ozaki_u128 m = rand_bits(&state, bits);
                if (bits > 26 && t % 4 == 1) {
                    const int below = bits - 25; /* bits under the 24 kept and the rounding bit */
                    m = (m >> (below + 1) << 1 | 1) << below;
                    if (rand31(&state) % 2)
                        m |= 1; /* just above the tie, by the last bit */
                }
                const ozaki_u128 x = rand31(&state) % 2 ? P - m : m;
                for (int l = 0; l < count; l++)
                    r[l] = (int)(x % (ozaki_u128)plan.p[l]);
            }
            const float want = ozaki_reconstruct(&plan, r, e), got = ozaki_reconstruct_limbs(&plan, r, OZAKI_MAX_MODULI, e);
            checked++;
            if (memcmp(&want, &got, sizeof got) != 0)
                wrong++;
        }
    }
    ok(wrong == 0, "ozaki_reconstruct_limbs equals ozaki_reconstruct: %ld of %ld (2 ... %d moduli; random residues, "
       "ties and near ties, both signs, 2^-300 ... 2^159)", checked - wrong, checked, OZAKI_MAX_MODULI);
}

/* Check 3: the plan's condition, and that one more bit would break it. */
static void check_plans(void)
{
    int bad = 0, plans = 0;
    for (int count = 2; count <= OZAKI_MAX_MODULI; count++)
        for (int k = 1; k <= 131072; k = k * 3 + 1) {
            struct ozaki_plan plan;
            if (ozaki_plan_make(count, k, &plan) != 0)
                continue;
            plans++;
            const ozaki_u128 P = ozaki_u128_make(plan.P_lo, plan.P_hi);
            const int s = plan.alpha + plan.beta;
            const ozaki_u128 bound = (ozaki_u128)k << s;
            if (!(bound * 2 < P) || (s < OZAKI_MAX_BITS && bound * 4 < P) || plan.beta - plan.alpha > 1 ||
                plan.beta < plan.alpha)
                bad++;
        }
    ok(bad == 0 && plans > 0, "the plan: k 2^(alpha + beta) < P / 2, and not with one bit more unless at %d bits "
       "(%d plans)", OZAKI_MAX_BITS, plans);
}

/* ---- The span rule: when the scaling to integers keeps the fp32 bound (--span-search, --span-leads)
 *
 * Row i of A is scaled to the step 2^(e_i - alpha), so an element loses at most half a step, and
 * nothing when it is already a multiple of the step. Relative to the row's smallest nonzero
 * magnitude, in the binade [2^E, 2^(E + 1)), half a step is at most
 *     rho_A = 2^(sigma - alpha),  sigma = (e_i - 1) - E, the row's span in binades,
 * and rho_A = 0 when the smallest element's last bit is at least the step (then every element's
 * is). Column j of B the same with beta: rho_B. Every product a b comes out as a b (1 + d) with
 * |d| <= rho_A + rho_B + rho_A rho_B, their sum is exact, the one rounding adds at most u |sum|:
 *     |c_ij - (AB)_ij| <= ((1 + u)(1 + rho_A)(1 + rho_B) - 1) (|A||B|)_ij,
 * so the fp32 bound holds wherever the left factor is at most the bound (the rule). A sum whose
 * only nonzero product pairs the row's smallest element with the column's, each rounded down by
 * half a step, and whose rounding to FP32 drops almost half a unit, comes within rho^2 of the
 * factor: past the rule there are inputs that break the bound, and --span-search finds them. */

#define UNIT_ROUNDOFF OZAKI_UNIT_ROUNDOFF /* u, FP32's unit roundoff */
#define SPAN_MIN 6            /* the spans the search crafts, in binades */
#define SPAN_MAX 30
#define SPAN_FILL 8           /* elements between a row's largest and smallest, at random places */

/* One element of C, a row a of A times a column b of B (k values each, contiguous), through steps
 * 1 ... 5 exactly as ozaki_model computes it: the same exponents, integers, residues, INT32 sums
 * and reconstruction. Products with a zero factor are skipped: their residues add 0 to every sum.
 * (check_element compares it with ozaki_model bit for bit.) */
static float ozaki_element(const float *a, const float *b, int k, const struct ozaki_plan *plan)
{
    float ma = 0.0f, mb = 0.0f;
    for (int l = 0; l < k; l++) {
        if (isfinite(a[l]))
            ma = fmaxf(ma, fabsf(a[l]));
        if (isfinite(b[l]))
            mb = fmaxf(mb, fabsf(b[l]));
    }
    const int e = ozaki_exponent(ma), f = ozaki_exponent(mb);
    int32_t w[OZAKI_MAX_MODULI] = {0}; /* exact: k 128^2 < 2^31 */
    for (int l = 0; l < k; l++) {
        const int64_t x = isfinite(a[l]) ? ozaki_scaled(a[l], plan->alpha - e) : 0;
        const int64_t y = isfinite(b[l]) ? ozaki_scaled(b[l], plan->beta - f) : 0;
        if (x == 0 || y == 0)
            continue;
        for (int m = 0; m < plan->count; m++)
            w[m] += (int32_t)(int8_t)ozaki_residue(x, plan->p[m]) * (int8_t)ozaki_residue(y, plan->p[m]);
    }
    int r[OZAKI_MAX_MODULI];
    for (int m = 0; m < plan->count; m++)
        r[m] = (w[m] % plan->p[m] + plan->p[m]) % plan->p[m];
    return ozaki_reconstruct(plan, r, e + f - plan->alpha - plan->beta);
}

/* rho for one row of A (column of B) of k values scaled to `bits` bits: 0 when its smallest
 * nonzero finite magnitude's last bit, 2^max(E - 23, -149), is at least the step 2^(e - bits);
 * else 2^(sigma - bits), at most 1 (an element rounded to 0 loses itself, no more). *span gets
 * sigma = (e - 1) - E, the span in binades (0 for a row within one binade). */
static double span_loss(const float *v, int k, int bits, int *span)
{
    float big = 0.0f, small = INFINITY;
    for (int l = 0; l < k; l++)
        if (isfinite(v[l]) && v[l] != 0.0f) {
            big = fmaxf(big, fabsf(v[l]));
            small = fminf(small, fabsf(v[l]));
        }
    if (span)
        *span = 0;
    if (big == 0.0f)
        return 0.0;
    const int e = ozaki_exponent(big), low = ozaki_exponent(small) - 1; /* low = floor(log2 smallest) */
    if (span)
        *span = e - 1 - low;
    return ozaki_span_rho(big, small, bits);
}

/* The rule's left side, (1 + u)(1 + rho_A)(1 + rho_B) - 1, without the cancellation (ozaki.h's, the
 * GPU's). */
static double span_excess(double rho_a, double rho_b)
{
    return ozaki_span_excess(rho_a, rho_b);
}

/* The widest span a row (column) of `bits` bits may have while the other side is exact: bits + the
 * largest integer lambda with span_excess(2^lambda, 0) <= bound (lambda >= -21: the bound is at
 * least 9u). */
static int span_edge(int bits, double bound)
{
    int lambda = 0;
    while (span_excess(ldexp(1.0, lambda), 0.0) > bound)
        lambda--;
    return bits + lambda;
}

/* A random float in [2^E, 2^(E + 1)), sign random when `signed_` is set. */
static float in_binade(int E, int signed_, uint64_t *state)
{
    const float x = ldexpf((float)(0x800000u | (rand31(state) & 0x7fffffu)), E - 23);
    return signed_ && (rand31(state) & 1) ? -x : x;
}

/* A float in [2^E, 2^(E + 1)) that the scaling to the step 2^g rounds down by exactly half a step:
 * 2^E + j 2^g + 2^(g - 1) with j even (a tie; rint takes the even multiple, 2^E + j 2^g). 0 where
 * there is none: every float of the binade on the step (g - 1 < E - 23, or below 2^-149). */
static float tie_below(int E, int g, int j)
{
    if (g - 1 < E - 23 || g - 1 < -149 || E - g < 1)
        return 0.0f;
    const double x = ldexp(1.0, E) + j * ldexp(1.0, g) + ldexp(1.0, g - 1);
    return x < ldexp(1.0, E + 1) && (double)(float)x == x ? (float)x : 0.0f;
}

/* The crafted worst single product: x, the smallest element of one side (binade E_x, step 2^g_x),
 * and y, its partner (binade E_y, step 2^g_y). Each is rounded down by half a step where it can be
 * (a tie), to 2^E (1 + i 2^(g - E)) with i even, and i is chosen so that the product of the two
 * rounded values drops just under half a unit in the rounding to FP32: three errors in one
 * direction. The product's bits below the unit are i_x i_y 2^-(K + 1) units, K = D_x + D_y - 22 with
 * D = E - g - 1 (an on-step y: i_x i_y 2^-(D_x + 1), i_y any); i_x i_y just under 2^K puts them
 * just under half, and factors near 2^(K/2) keep both values near 2^E, so each keeps almost all of
 * its loss (half a step over 2^E). Random values where neither side can lose anything. */
static void crafted_pair(int Ex, int gx, int Ey, int gy, float *x, float *y, uint64_t *state)
{
    const int tie_x = tie_below(Ex, gx, 2) != 0.0f, tie_y = tie_below(Ey, gy, 2) != 0.0f;
    if (!tie_x && tie_y) {
        crafted_pair(Ey, gy, Ex, gx, y, x, state);
        return;
    }
    if (!tie_x) {
        *x = in_binade(Ex, 0, state);
        *y = in_binade(Ey, 0, state);
        return;
    }
    const int D = Ex - gx - 1;
    if (!tie_y) {
        /* x to 2^Ex (1 + 2^-D), y = 2^Ey (1 + t 2^-23) on its step: below the unit t 2^-D units */
        *x = tie_below(Ex, gx, 2);
        *y = (float)(ldexp(1.0, Ey) * (1.0 + (ldexp(1.0, D - 1) - 1.0) * 0x1p-23));
        return;
    }
    /* both ties: i_x = 2 i, i_y = 2 t, i t odd and just under 2^m, m = K - 2; among the i near
     * 2^(m / 2), the pair whose product errs most (each error computed exactly in double) */
    const int K = D + (Ey - gy - 1) - 22, m = K - 2;
    *x = tie_below(Ex, gx, 2);
    *y = tie_below(Ey, gy, 0);
    if (m < 0 || m > 28) /* K <= 20 here (D, D_y <= 21); 28 keeps 2 t an int */
        return;
    const int64_t top = ((int64_t)1 << m) - 1, mid = (int64_t)1 << (m / 2);
    double worst = -1.0;
    for (int64_t i = mid - 33 > 1 ? (mid - 33) | 1 : 1; i <= mid + 33; i += 2) {
        int64_t t = top / i;
        t -= t % 2 == 0;
        const float xi = tie_below(Ex, gx, (int)(2 * i)), yt = t >= 1 ? tie_below(Ey, gy, (int)(2 * t)) : 0.0f;
        if (xi == 0.0f || yt == 0.0f)
            continue;
        const double rx = xi - ldexp(1.0, gx - 1), ry = yt - ldexp(1.0, gy - 1); /* the rounded values */
        const double err = ((double)xi * yt - (float)(rx * ry)) / ((double)xi * yt);
        if (err > worst)
            worst = err, *x = xi, *y = yt;
    }
}

/* Lead (d), a check after the products, for the rows and columns past the rule: the scaling's error
 * is at most E = h ||b||_1 + g ||a||_1 + h g k (h, g: half the row's and the column's step, 0 where
 * every element is on it), the one rounding adds u (|a||b| + E), so the bound holds wherever
 * (1 + u) E <= (bound - u) W for any W <= |a||b|. W here: the sum of the magnitudes truncated to 7
 * bits below each row's and column's largest, what one more INT8 product (on bytes 0 ... 127)
 * gives exactly. Elements it refuses go to the FP32 path. */
static int posterior_ok(const float *a, const float *b, int k, const struct ozaki_plan *plan, double bound)
{
    float ma = 0.0f, mb = 0.0f;
    double a1 = 0.0, b1 = 0.0;
    for (int l = 0; l < k; l++) {
        ma = fmaxf(ma, fabsf(a[l]));
        mb = fmaxf(mb, fabsf(b[l]));
        a1 += fabs((double)a[l]);
        b1 += fabs((double)b[l]);
    }
    if (ma == 0.0f || mb == 0.0f)
        return 1;
    const int e = ozaki_exponent(ma), f = ozaki_exponent(mb);
    const double h = span_loss(a, k, plan->alpha, NULL) > 0.0 ? ldexp(1.0, e - plan->alpha - 1) : 0.0;
    const double g = span_loss(b, k, plan->beta, NULL) > 0.0 ? ldexp(1.0, f - plan->beta - 1) : 0.0;
    int64_t low = 0; /* exact: k 127^2 < 2^31 */
    for (int l = 0; l < k; l++)
        low += (int64_t)floor(fabs((double)a[l]) * ldexp(1.0, 7 - e)) *
               (int64_t)floor(fabs((double)b[l]) * ldexp(1.0, 7 - f));
    const double err = h * b1 + g * a1 + h * g * k;
    return (1.0 + UNIT_ROUNDOFF) * err <= (bound - UNIT_ROUNDOFF) * ldexp((double)low, e + f - 14);
}

/* The search's families. Each crafts one row x of the spanning side and one column y of the other
 * (for side B, x is B's column and y A's row): x's largest element in [1, 2), its smallest in the
 * binade 2^-sigma, the other elements of x anywhere between (the rule reads them too) with partner
 * 0 unless the family says otherwise. */
enum span_family {
    FAMILY_ZERO,    /* the largest element's partner 0: the small products carry the sum */
    FAMILY_SMALL,   /* its partner 2^-(sigma + d), d = -2 ... 2: a large and a small product alike */
    FAMILY_NORMAL,  /* every partner in [1, 2): the largest product dominates */
    FAMILY_GRADED,  /* x graded along k, 2^0 down to 2^-sigma; every partner in [1, 2) */
    FAMILY_INVERSE, /* A's row graded down, B's column up: every product the same size, both spans sigma */
    FAMILY_BOTH,    /* A's row spans sigma_A, B's column sigma_B; one product pairs their smallest */
    SPAN_FAMILIES
};
static const char *const span_family_name[SPAN_FAMILIES] = {"zero", "small", "normal", "graded", "inverse", "both"};

/* What the search found for one family and side. */
struct span_stats {
    long safe, safe_broken, unsafe, unsafe_broken;
    double worst_safe; /* the largest error / bound where the rule holds */
    int worst_n, worst_sa, worst_sb;
    long crafted_past, crafted_past_broken; /* crafted cases where the rule fails: how many break */
    long checked, checked_broken;           /* where it fails, the cases the check (d) accepts; past the bound */
    int first_min, first_max; /* over n: the first span that breaks, less the edge (one-sided families) */
    int first_n;              /* n where first_max was found */
    long no_break_n;          /* n (>= 2) where no span up to SPAN_MAX broke */
};

static void span_stats_init(struct span_stats *s)
{
    memset(s, 0, sizeof *s);
    s->first_min = 1 << 20;
    s->first_max = -(1 << 20);
}

/* One case: the model's c against the double reference, and the rule read from the data. Returns 1
 * when the case breaks the bound. */
static int span_case(const float *a, const float *b, int k, const struct ozaki_plan *plan, double bound, int crafted,
                     int slack, struct span_stats *s)
{
    const float c = ozaki_element(a, b, k, plan);
    double ref = 0.0, abs_ref = 0.0; /* as reference_row sums them: k in order, in double */
    for (int l = 0; l < k; l++) {
        ref += (double)a[l] * (double)b[l];
        abs_ref += fabs((double)a[l]) * fabs((double)b[l]);
    }
    if (!(abs_ref > 0.0))
        return 0;
    const double err = isfinite(c) ? fabs((double)c - ref) / abs_ref : INFINITY;
    int sa, sb;
    const double rho_a = span_loss(a, k, plan->alpha, &sa), rho_b = span_loss(b, k, plan->beta, &sb);
    const int broken = !(err <= bound);
    if (span_excess(ldexp(rho_a, -slack), ldexp(rho_b, -slack)) <= bound) { /* slack: the control's wrong rule */
        s->safe++;
        s->safe_broken += broken;
        if (err / bound > s->worst_safe) {
            s->worst_safe = err / bound;
            s->worst_n = k, s->worst_sa = sa, s->worst_sb = sb;
        }
    } else {
        s->unsafe++;
        s->unsafe_broken += broken;
        if (posterior_ok(a, b, k, plan, bound)) {
            s->checked++;
            s->checked_broken += broken;
        }
        if (crafted) {
            s->crafted_past++;
            s->crafted_past_broken += broken;
        }
    }
    return broken;
}

/* Builds family f's case for side `side` (0: the spanning vector is A's row, 1: B's column), span
 * sigma (sigma_b: B's, for FAMILY_BOTH), variant v (0: crafted worst, 1: ties, 2 ...: random), into
 * a and b (k values). Returns 0 when the variant does not apply. */
static int span_build(enum span_family f, int side, int k, int sigma, int sigma_b, int v, int d,
                      const struct ozaki_plan *plan, float *a, float *b, uint64_t *state)
{
    float *x = side ? b : a, *y = side ? a : b;
    const int bits_x = side ? plan->beta : plan->alpha, bits_y = side ? plan->alpha : plan->beta;
    const int gx = 1 - bits_x, gy = 1 - bits_y; /* the steps: every largest element is in [1, 2) */
    for (int l = 0; l < k; l++)
        x[l] = y[l] = 0.0f;
    if (f == FAMILY_GRADED || f == FAMILY_INVERSE) {
        for (int l = 0; l < k; l++) {
            const int s = k > 1 ? (int)lround((double)sigma * l / (k - 1)) : 0;
            /* ties: every element rounded down by half a step, all positive, the errors adding up */
            const float tie_x = v == 1 ? tie_below(-s, gx, 0) : 0.0f;
            x[l] = tie_x != 0.0f ? tie_x : in_binade(-s, v >= 2, state);
            if (f == FAMILY_GRADED) {
                y[l] = in_binade(0, v >= 2, state);
            } else {
                const float tie_y = v == 1 ? tie_below(s - sigma, gy, 0) : 0.0f;
                y[l] = tie_y != 0.0f ? tie_y : in_binade(s - sigma, v >= 2, state);
            }
        }
        return v <= 2;
    }
    if (f == FAMILY_BOTH) {
        if (k < 3 || side)
            return 0;
        /* A = [M, m, 0, fill...], B = [0, mb, Mb, fill...]: one product, m mb */
        a[0] = in_binade(0, 0, state);
        b[2] = in_binade(0, 0, state);
        if (v == 0)
            crafted_pair(-sigma, 1 - plan->alpha, -sigma_b, 1 - plan->beta, &a[1], &b[1], state);
        else if (v == 1) {
            a[1] = tie_below(-sigma, 1 - plan->alpha, 0);
            b[1] = tie_below(-sigma_b, 1 - plan->beta, 0);
            if (a[1] == 0.0f || b[1] == 0.0f)
                return 0;
        } else {
            a[1] = in_binade(-sigma, 1, state);
            b[1] = in_binade(-sigma_b, 1, state);
        }
        for (int t = 0; t < SPAN_FILL && k > 3; t++) { /* fill, each with partner 0: only the rule sees it */
            const int l = 3 + (int)(rand31(state) % (uint32_t)(k - 3));
            if (l % 2)
                a[l] = in_binade(-(int)(rand31(state) % (uint32_t)(sigma + 1)), 1, state), b[l] = 0.0f;
            else
                b[l] = in_binade(-(int)(rand31(state) % (uint32_t)(sigma_b + 1)), 1, state), a[l] = 0.0f;
        }
        return v <= 2;
    }
    if (f == FAMILY_INVERSE || (f != FAMILY_SMALL && d != 0))
        return 0;
    if (k == 1) {
        /* one element: no span; the product of two random floats */
        if (v != 0 || f != FAMILY_ZERO)
            return 0;
        x[0] = in_binade(-sigma, 1, state);
        y[0] = in_binade(0, 1, state);
        return 1;
    }
    /* x = [M, m, fill...]: M in [1, 2), m in 2^-sigma; y[1], m's partner, in [1, 2) */
    x[0] = in_binade(0, v >= 2, state);
    if (v == 0) {
        if (f != FAMILY_ZERO)
            return 0;
        crafted_pair(-sigma, gx, 0, gy, &x[1], &y[1], state);
    } else {
        const float tie = v == 1 ? tie_below(-sigma, gx, 0) : 0.0f;
        if (v == 1 && tie == 0.0f)
            return 0;
        x[1] = v == 1 ? tie : in_binade(-sigma, 1, state);
        y[1] = in_binade(0, v >= 2, state);
    }
    if (f == FAMILY_SMALL) {
        const float tie = v == 1 ? tie_below(-(sigma + d), gy, 0) : 0.0f;
        y[0] = tie != 0.0f ? tie : in_binade(-(sigma + d), v >= 2, state);
    } else if (f == FAMILY_NORMAL) {
        y[0] = in_binade(0, v >= 2, state);
    }
    if (f == FAMILY_NORMAL)
        for (int l = 2; l < k; l++) {
            x[l] = in_binade(-(int)(rand31(state) % (uint32_t)(sigma + 1)), 1, state);
            y[l] = in_binade(0, 1, state);
        }
    else
        for (int t = 0; t < SPAN_FILL && k > 2; t++) /* fill with partner 0: only the rule sees it */
            x[2 + rand31(state) % (uint32_t)(k - 2)] =
                in_binade(-(int)(rand31(state) % (uint32_t)(sigma + 1)), 1, state);
    return v <= 2;
}

/* The search's check of itself: ozaki_element equals ozaki_model bit for bit, on the harness's
 * families and on matrices whose first row and column are the search's crafted ones. */
static void check_element(void)
{
    uint64_t state = 41;
    long checked = 0, wrong = 0;
    const int sizes[] = {1, 2, 3, 7, 17, 33};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        const int n = sizes[s];
        struct ozaki_plan plan;
        if (ozaki_plan_make(ozaki_default_moduli(n), n, &plan) != 0)
            continue;
        float *a = checked_calloc((size_t)n * n, sizeof *a), *b = checked_calloc((size_t)n * n, sizeof *b);
        float *c = checked_calloc((size_t)n * n, sizeof *c), *row = checked_calloc((size_t)n, sizeof *row);
        float *col = checked_calloc((size_t)n, sizeof *col), *x = checked_calloc((size_t)n, sizeof *x);
        float *y = checked_calloc((size_t)n, sizeof *y);
        for (int t = 0; t < DIST_COUNT + 2 * SPAN_FAMILIES; t++) {
            const enum input_dist dist = t < DIST_COUNT ? (enum input_dist)t : DIST_UNIFORM;
            matgen_dist(dist, 'A', a, n, n, n, &state);
            matgen_dist(dist, 'B', b, n, n, n, &state);
            if (t >= DIST_COUNT) { /* a crafted row of A and column of B at the edge's neighbourhood */
                const int f = (t - DIST_COUNT) % SPAN_FAMILIES, side = (t - DIST_COUNT) / SPAN_FAMILIES;
                const int sigma = span_edge(side ? plan.beta : plan.alpha, precision_bound(PRECISION_FP32, 0, n)) +
                                  (int)(rand31(&state) % 3);
                if (!span_build((enum span_family)f, side, n, sigma, sigma - 1, f == FAMILY_GRADED ? 1 : 0, 0, &plan,
                                x, y, &state))
                    continue;
                for (int l = 0; l < n; l++)
                    a[l] = x[l], b[(size_t)l * n] = y[l];
            }
            ozaki_model(a, b, c, n, &plan, NULL);
            for (int i = 0; i < n; i++)
                for (int j = 0; j < n; j++) {
                    for (int l = 0; l < n; l++)
                        row[l] = a[(size_t)i * n + l], col[l] = b[(size_t)l * n + j];
                    const float got = ozaki_element(row, col, n, &plan), want = c[(size_t)i * n + j];
                    checked++;
                    wrong += memcmp(&got, &want, sizeof got) != 0;
                }
        }
        free(a), free(b), free(c), free(row), free(col), free(x), free(y);
    }
    ok(wrong == 0 && checked > 0, "ozaki_element (one element, as the search runs it) equals ozaki_model bit for bit: "
       "%ld of %ld elements (n = 1 ... 33, the harness's families and crafted rows)", checked - wrong, checked);
}

/* The plan and the bound for n at `count` moduli (0: the default for n). */
static int span_plan(int n, int count, struct ozaki_plan *plan, double *bound)
{
    *bound = precision_bound(PRECISION_FP32, 0, n);
    return ozaki_plan_make(count ? count : ozaki_default_moduli(n), n, plan);
}

/* Long sums, past the search's n: the zero family alone, spans around the edge. */
static const int span_long_sizes[] = {1000, 4096, 8192, 16384};
#define SPAN_LONG_SIZES (int)(sizeof span_long_sizes / sizeof *span_long_sizes)

/* The search at one n: families (all, or FAMILY_ZERO alone when zero_only), sides, spans sigma_lo ...
 * sigma_hi (FAMILY_BOTH: B's around the joint edge) and variants, into stats (initialised here). */
static void span_search_n(int n, const struct ozaki_plan *plan, double bound, int sigma_lo, int sigma_hi, int zero_only,
                          int slack, struct span_stats stats[SPAN_FAMILIES][2])
{
    float *a = checked_calloc((size_t)n, sizeof *a), *b = checked_calloc((size_t)n, sizeof *b);
    uint64_t state = 0x5ba2ull * (uint64_t)n + 1;
    for (int f = 0; f < SPAN_FAMILIES; f++)
        for (int side = 0; side < 2; side++) {
            struct span_stats *st = &stats[f][side];
            span_stats_init(st);
            if (zero_only && f != FAMILY_ZERO)
                continue;
            const int edge = span_edge(side ? plan->beta : plan->alpha, bound);
            int first = 0;
            for (int sigma = sigma_lo; sigma <= sigma_hi; sigma++) {
                /* FAMILY_BOTH: B's spans around the joint edge for this sigma (the widest that keeps
                 * the rule with A's rho), and the range's ends */
                int spans_b[6] = {0}, n_spans_b = 1;
                if (f == FAMILY_BOTH) {
                    const double rho_a = sigma <= plan->alpha - 24 ? 0.0 : ldexp(1.0, sigma - plan->alpha);
                    int edge_b = -1;
                    for (int t = 0; t <= 60; t++)
                        if (span_excess(rho_a, t <= plan->beta - 24 ? 0.0 : ldexp(1.0, t - plan->beta)) <= bound)
                            edge_b = t;
                    const int wanted[6] = {sigma_lo, edge_b - 1, edge_b, edge_b + 1, edge_b + 2, sigma_hi};
                    n_spans_b = 0;
                    for (int t = 0; t < 6; t++)
                        if (wanted[t] >= sigma_lo && wanted[t] <= sigma_hi &&
                            (n_spans_b == 0 || wanted[t] > spans_b[n_spans_b - 1]))
                            spans_b[n_spans_b++] = wanted[t];
                }
                for (int t = 0; t < n_spans_b; t++)
                    for (int d = -1; d <= 1; d++)
                        for (int v = 0; v <= 2; v++) {
                            if (!span_build((enum span_family)f, side, n, sigma, spans_b[t], v, d, plan, a, b, &state))
                                continue;
                            const int crafted = v == 0 && (f == FAMILY_ZERO || f == FAMILY_BOTH);
                            if (span_case(a, b, n, plan, bound, crafted, slack, st) && !first)
                                first = sigma;
                        }
            }
            if (f == FAMILY_BOTH || n < 2 || st->safe + st->unsafe == 0)
                continue;
            if (first) {
                st->first_min = st->first_max = first - edge;
                st->first_n = n;
            } else {
                st->no_break_n = 1;
            }
        }
    free(a), free(b);
}

/* --span-search: every family, side, span (SPAN_MIN ... SPAN_MAX binades) and variant at n = 1 ...
 * max_n, and the zero family at the long sizes, at `count` moduli (0: the default for each n).
 * slack > 0 (--span-slack, the control) judges with a rule that trusts every span by that many
 * binades more: the search must then find cases past the bound on its "safe" side. */
static void span_search(int max_n, int count, int slack)
{
    struct span_stats stats[SPAN_FAMILIES][2];
    for (int f = 0; f < SPAN_FAMILIES; f++)
        for (int side = 0; side < 2; side++)
            span_stats_init(&stats[f][side]);
    printf("# the rule's edge, one side exact: the widest span of a row of A (column of B) that keeps the bound\n");
    printf("# %6s %7s %6s %5s %9s %10s %10s\n", "n", "moduli", "alpha", "beta", "bound/u", "edge of A", "edge of B");
    const int shown[] = {1, 2, 3, 7, 13, 17, 33, 51, 100, 127, 128, 204, 256, 300, 1000, 4096, 8192, 16384};
    for (size_t s = 0; s < sizeof shown / sizeof *shown; s++) {
        struct ozaki_plan plan;
        double bound;
        if (span_plan(shown[s], count, &plan, &bound) != 0)
            continue;
        printf("# %6d %7d %6d %5d %9.2f %10d %10d\n", shown[s], plan.count, plan.alpha, plan.beta,
               bound / UNIT_ROUNDOFF, span_edge(plan.alpha, bound), span_edge(plan.beta, bound));
    }
#pragma omp parallel for schedule(dynamic, 1)
    for (int t = 0; t < max_n + SPAN_LONG_SIZES; t++) {
        /* the long sizes first: the longest single runs */
        const int n = t < SPAN_LONG_SIZES ? span_long_sizes[SPAN_LONG_SIZES - 1 - t] : max_n - (t - SPAN_LONG_SIZES);
        struct ozaki_plan plan;
        double bound;
        if (span_plan(n, count, &plan, &bound) != 0)
            continue;
        struct span_stats local[SPAN_FAMILIES][2];
        if (t < SPAN_LONG_SIZES) {
            const int edge = span_edge(plan.alpha < plan.beta ? plan.alpha : plan.beta, bound);
            span_search_n(n, &plan, bound, edge - 4, edge + 5, 1, slack, local);
        } else {
            span_search_n(n, &plan, bound, SPAN_MIN, SPAN_MAX, 0, slack, local);
        }
#pragma omp critical
        for (int f = 0; f < SPAN_FAMILIES; f++)
            for (int side = 0; side < 2; side++) {
                struct span_stats *to = &stats[f][side], *from = &local[f][side];
                to->safe += from->safe, to->safe_broken += from->safe_broken;
                to->unsafe += from->unsafe, to->unsafe_broken += from->unsafe_broken;
                to->crafted_past += from->crafted_past, to->crafted_past_broken += from->crafted_past_broken;
                to->checked += from->checked, to->checked_broken += from->checked_broken;
                to->no_break_n += from->no_break_n;
                /* ties to the larger n: the text does not depend on the threads' order */
                if (from->worst_safe > to->worst_safe ||
                    (from->worst_safe == to->worst_safe && from->worst_safe > 0.0 && from->worst_n > to->worst_n)) {
                    to->worst_safe = from->worst_safe;
                    to->worst_n = from->worst_n, to->worst_sa = from->worst_sa, to->worst_sb = from->worst_sb;
                }
                if (from->first_min < to->first_min)
                    to->first_min = from->first_min;
                if (from->first_max > to->first_max ||
                    (from->first_max == to->first_max && from->first_n > to->first_n)) {
                    to->first_max = from->first_max;
                    to->first_n = from->first_n;
                }
            }
    }
    char moduli[64];
    snprintf(moduli, sizeof moduli, count ? "%d moduli" : "the default moduli", count);
    if (slack)
        snprintf(moduli + strlen(moduli), sizeof moduli - strlen(moduli), ", the rule trusted %d binade%s more", slack,
                 slack > 1 ? "s" : "");
    long total = 0, checked = 0, checked_broken = 0, unsafe = 0;
    for (int f = 0; f < SPAN_FAMILIES; f++)
        for (int side = 0; side < 2; side++) {
            const struct span_stats *st = &stats[f][side];
            if (st->safe + st->unsafe == 0)
                continue;
            total += st->safe + st->unsafe;
            char what[200];
            snprintf(what, sizeof what, "%s (%s), n = 1 ... %d%s, %s", span_family_name[f],
                     f == FAMILY_BOTH ? "A's row and B's column span" : f == FAMILY_INVERSE
                     ? (side ? "B's column graded down, A's row up" : "A's row graded down, B's column up")
                     : side ? "B's column spans" : "A's row spans", max_n,
                     f == FAMILY_ZERO ? " and 1000, 4096, 8192, 16384" : "", moduli);
            ok(st->safe > 0 && st->safe_broken == 0, "the span rule, %s: %ld cases where it holds, %ld past the fp32 "
               "bound (the worst %.4f of it: n = %d, spans %d and %d)", what, st->safe, st->safe_broken, st->worst_safe,
               st->worst_n, st->worst_sa, st->worst_sb);
            printf("#   where the rule fails: %ld cases, %ld past the bound", st->unsafe, st->unsafe_broken);
            if (f != FAMILY_BOTH && st->first_max > -(1 << 20))
                printf("; the first span past the bound: the edge + %d ... + %d (+ %d at n = %d)", st->first_min,
                       st->first_max, st->first_max, st->first_n);
            if (st->no_break_n)
                printf("; none up to %d binades at %ld sizes", SPAN_MAX, st->no_break_n);
            printf("; the check (d) accepts %ld of them, %ld past the bound\n", st->checked, st->checked_broken);
            checked += st->checked, checked_broken += st->checked_broken, unsafe += st->unsafe;
            if (f == FAMILY_ZERO || f == FAMILY_BOTH)
                ok(st->crafted_past > 0 && st->crafted_past_broken == st->crafted_past, "the span rule, %s: every "
                   "crafted worst case where the rule fails is past the bound, %ld of %ld (the search can fail)",
                   what, st->crafted_past_broken, st->crafted_past);
            if (f == FAMILY_ZERO)
                ok(st->first_min == 1 && st->first_max == 1, "the span rule, %s: the first span past the bound is "
                   "the edge + 1 at every n from 2 (found: + %d ... + %d): the rule is the edge", what, st->first_min,
                   st->first_max);
        }
    ok(checked_broken == 0 && checked > 0, "the check after the products (lead (d)), every family: of the %ld cases "
       "past the rule it accepts %ld, %ld of them past the fp32 bound", unsafe, checked, checked_broken);
    printf("# %ld cases in all\n", total);
}

/* The named cases: rows spanning 100 binades with B's columns scaled inversely (every
 * product the same size), and A = [[1, 2^-120], [1, 2^-120]], B = [[0, 0], [1, 1]]: one product,
 * 2^-120, whose factor from A rounds to 0. The rule must refuse them, and the model break the bound. */
static void span_named(int count)
{
    const int sizes[] = {2, 7, 33, 300, 1000};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        const int n = sizes[s];
        struct ozaki_plan plan;
        double bound;
        if (span_plan(n, count, &plan, &bound) != 0)
            continue;
        float *a = checked_calloc((size_t)n, sizeof *a), *b = checked_calloc((size_t)n, sizeof *b);
        uint64_t state = 77;
        struct span_stats st;
        span_stats_init(&st);
        double worst = 0.0;
        for (int v = 1; v <= 2; v++) {
            span_build(FAMILY_INVERSE, 0, n, 100, 0, v, 0, &plan, a, b, &state);
            span_case(a, b, n, &plan, bound, 0, 0, &st);
            const float c = ozaki_element(a, b, n, &plan);
            double ref = 0.0, abs_ref = 0.0;
            for (int l = 0; l < n; l++)
                ref += (double)a[l] * b[l], abs_ref += fabs((double)a[l] * b[l]);
            worst = fmax(worst, fabs(c - ref) / abs_ref);
        }
        ok(st.safe == 0 && st.unsafe_broken == st.unsafe, "100 binades, B scaled inversely, n = %d: the rule refuses "
           "it, and the model's error is %.3g (%.3g times the bound)", n, worst, worst / bound);
        free(a), free(b);
    }
    struct ozaki_plan plan;
    double bound;
    if (span_plan(2, count, &plan, &bound) == 0) {
        const float a[2] = {1.0f, 0x1p-120f}, b[2] = {0.0f, 1.0f};
        const float c = ozaki_element(a, b, 2, &plan);
        const double err = fabs(c - 0x1p-120) / 0x1p-120;
        ok(span_excess(span_loss(a, 2, plan.alpha, NULL), span_loss(b, 2, plan.beta, NULL)) > bound && err > bound,
           "A = [[1, 2^-120], [1, 2^-120]], B = [[0, 0], [1, 1]]: the rule refuses it, and the model gives %g for "
           "2^-120 (error %g)", c, err);
    }
}

/* ---- The leads for rows and columns past the rule (--span-leads) ---- */

/* Steps 4 and 5's first half: the remainder theorem's integer, as a magnitude and a sign (what
 * ozaki_reconstruct rounds; here kept exact, to be added to other bands' products first). */
static ozaki_u128 crt_integer(const struct ozaki_plan *plan, const int *r, int *negative)
{
    const ozaki_u128 P = ozaki_u128_make(plan->P_lo, plan->P_hi);
    ozaki_u128 x = 0;
    for (int l = 0; l < plan->count; l++)
        x = (x + (ozaki_u128)(uint64_t)r[l] * ozaki_u128_make(plan->q_lo[l], plan->q_hi[l])) % P;
    *negative = x > P / 2;
    return *negative ? P - x : x;
}

/* An exact sum of band products: a two's complement integer of BIG_WORDS 64-bit words, times
 * 2^(its lowest exponent). The products' scales differ by at most two float ranges (2 x 277
 * binades) and each is below 2^112: 896 bits hold any sum of them. */
#define BIG_WORDS 14

static void big_add(uint64_t *big, ozaki_u128 mag, int negative, int shift)
{
    uint64_t t[BIG_WORDS] = {0};
    const int q = shift / 64, r = shift % 64;
    const uint64_t lo = (uint64_t)mag, hi = (uint64_t)(mag >> 64);
    const uint64_t parts[3] = {lo << r, r ? hi << r | lo >> (64 - r) : hi, r ? hi >> (64 - r) : 0};
    for (int i = 0; i < 3 && q + i < BIG_WORDS; i++)
        t[q + i] = parts[i];
    for (int i = 0, carry = 1; negative && i < BIG_WORDS; i++) { /* -t: every bit flipped, plus one */
        t[i] = ~t[i] + (uint64_t)carry;
        carry = carry && t[i] == 0;
    }
    unsigned carry = 0;
    for (int i = 0; i < BIG_WORDS; i++) {
        const ozaki_u128 s = (ozaki_u128)big[i] + t[i] + carry;
        big[i] = (uint64_t)s;
        carry = (unsigned)(s >> 64);
    }
}

/* big 2^e rounded once to FP32: its top 64 bits, the bits below folded into the last one (they only
 * decide a tie, 40 bits further up), rounded by ozaki_to_float. */
static float big_to_float(uint64_t *big, int e)
{
    const int negative = (int)(big[BIG_WORDS - 1] >> 63);
    if (negative)
        for (int i = 0, carry = 1; i < BIG_WORDS; i++) {
            big[i] = ~big[i] + (uint64_t)carry;
            carry = carry && big[i] == 0;
        }
    int top = BIG_WORDS - 1;
    while (top >= 0 && big[top] == 0)
        top--;
    if (top < 0)
        return 0.0f;
    const int bits = 64 * top + 64 - __builtin_clzll(big[top]), shift = bits > 64 ? bits - 64 : 0;
    const int s = shift / 64, r = shift % 64;
    uint64_t m = big[s] >> r | (r && s + 1 < BIG_WORDS ? big[s + 1] << (64 - r) : 0);
    int sticky = r && (big[s] & ((1ull << r) - 1)) != 0;
    for (int i = 0; i < s; i++)
        sticky |= big[i] != 0;
    return ozaki_to_float((ozaki_u128)(m | (uint64_t)sticky), negative, e + shift);
}

/* Lead (a), bands: row a of A split by exponent into bands of width_a + 1 binades counted down from
 * its largest element (band p: floor(log2 |x|) from e - 1 - p (width_a + 1) down width_a more),
 * each band scaled on its own, to the step 2^(e - p (width_a + 1) - alpha); column b of B the same.
 * Every pair of bands is one exact integer product (residues, INT32 sums, remainder theorem, as in
 * ozaki_element), the products are added exactly at their scales and rounded once. *bands_a and
 * *bands_b: the bands counted from the largest and smallest magnitudes (what a GPU sizes from),
 * *pairs: the pairs with a nonzero product (the INT8 products a GPU would run: pairs x count). */
static float band_element(const float *a, const float *b, int k, const struct ozaki_plan *plan, int width_a,
                          int width_b, int *bands_a, int *bands_b, int *pairs)
{
    float ma = 0.0f, mb = 0.0f;
    for (int l = 0; l < k; l++) {
        ma = fmaxf(ma, fabsf(a[l]));
        mb = fmaxf(mb, fabsf(b[l]));
    }
    *bands_a = *bands_b = *pairs = 0;
    if (ma == 0.0f || mb == 0.0f)
        return 0.0f;
    const int e = ozaki_exponent(ma), f = ozaki_exponent(mb);
    int sa, sb;
    span_loss(a, k, plan->alpha, &sa);
    span_loss(b, k, plan->beta, &sb);
    *bands_a = sa / (width_a + 1) + 1;
    *bands_b = sb / (width_b + 1) + 1;
    uint64_t big[BIG_WORDS] = {0};
    const int low = e - (*bands_a - 1) * (width_a + 1) + f - (*bands_b - 1) * (width_b + 1) - plan->alpha - plan->beta;
    for (int p = 0; p < *bands_a; p++)
        for (int q = 0; q < *bands_b; q++) {
            const int ep = e - p * (width_a + 1), fq = f - q * (width_b + 1);
            int32_t w[OZAKI_MAX_MODULI] = {0};
            int any = 0;
            for (int l = 0; l < k; l++) {
                if (a[l] == 0.0f || b[l] == 0.0f || (e - ozaki_exponent(fabsf(a[l]))) / (width_a + 1) != p ||
                    (f - ozaki_exponent(fabsf(b[l]))) / (width_b + 1) != q)
                    continue;
                const int64_t x = ozaki_scaled(a[l], plan->alpha - ep), y = ozaki_scaled(b[l], plan->beta - fq);
                if (x == 0 || y == 0)
                    continue;
                any = 1;
                for (int m = 0; m < plan->count; m++)
                    w[m] += (int32_t)(int8_t)ozaki_residue(x, plan->p[m]) * (int8_t)ozaki_residue(y, plan->p[m]);
            }
            if (!any)
                continue;
            ++*pairs;
            int r[OZAKI_MAX_MODULI], negative;
            for (int m = 0; m < plan->count; m++)
                r[m] = (w[m] % plan->p[m] + plan->p[m]) % plan->p[m];
            const ozaki_u128 mag = crt_integer(plan, r, &negative);
            big_add(big, mag, negative, ep + fq - plan->alpha - plan->beta - low);
        }
    return big_to_float(big, low);
}

/* The plain FP32 loop for one element (fp32_loop's order). */
static float fp32_element(const float *a, const float *b, int k)
{
    float s = 0.0f;
    for (int l = 0; l < k; l++)
        s = fmaf(a[l], b[l], s);
    return s;
}

/* |c - ab| / (|a||b|) in double, as comp_err measures it; -1 where |a||b| is 0. */
static double element_err(const float *a, const float *b, int k, float c)
{
    double ref = 0.0, abs_ref = 0.0;
    for (int l = 0; l < k; l++) {
        ref += (double)a[l] * b[l];
        abs_ref += fabs((double)a[l]) * fabs((double)b[l]);
    }
    if (!(abs_ref > 0.0))
        return -1.0;
    return isfinite(c) ? fabs(c - ref) / abs_ref : INFINITY;
}

/* The widest band (and the split of the bound between A and B): the largest lambda with
 * span_excess(2^lambda, 2^lambda) <= bound; a band of A may then span alpha + lambda binades, one of B
 * beta + lambda. */
static int span_split(double bound)
{
    int lambda = 0;
    while (span_excess(ldexp(1.0, lambda), ldexp(1.0, lambda)) > bound)
        lambda--;
    return lambda;
}

/* What each lead gives on one element: the worst error / bound so far, per lead. */
struct lead_stats {
    double plain, more, bands, fallback, checked, loop; /* worst error / bound */
    long cases, past_rule, refused;            /* elements; past the rule (fallback's share); refused by (d) */
    long accepted_past;                        /* (d) accepted, yet the step past the bound: must stay 0 */
    long one_band, one_band_differ;            /* elements in one band each side; their C unlike the step's */
    int bands_a, bands_b, pairs;               /* the most bands and band pairs one element needed */
};

static void lead_case(const float *a, const float *b, int k, const struct ozaki_plan *plan,
                      const struct ozaki_plan *plan_more, double bound, struct lead_stats *s)
{
    const double loop = element_err(a, b, k, fp32_element(a, b, k));
    if (loop < 0.0)
        return;
    const int lambda = span_split(bound);
    int ba, bb, pairs;
    const float banded = band_element(a, b, k, plan, plan->alpha + lambda, plan->beta + lambda, &ba, &bb, &pairs);
    const int fits = span_excess(span_loss(a, k, plan->alpha, NULL), span_loss(b, k, plan->beta, NULL)) <= bound;
    const float plain = ozaki_element(a, b, k, plan);
    const float fallback = fits ? plain : fp32_element(a, b, k);
    const int accepted = fits || posterior_ok(a, b, k, plan, bound);
    const double plain_err = element_err(a, b, k, plain);
    s->checked = fmax(s->checked, element_err(a, b, k, accepted ? plain : fp32_element(a, b, k)) / bound);
    s->refused += !accepted;
    s->accepted_past += accepted && plain_err > bound && plain_err > loop;
    s->plain = fmax(s->plain, plain_err / bound);
    s->more = fmax(s->more, element_err(a, b, k, ozaki_element(a, b, k, plan_more)) / bound);
    s->bands = fmax(s->bands, element_err(a, b, k, banded) / bound);
    s->fallback = fmax(s->fallback, element_err(a, b, k, fallback) / bound);
    s->loop = fmax(s->loop, loop / bound);
    s->cases++;
    s->past_rule += !fits;
    if (ba == 1 && bb == 1) { /* what fits pays nothing: the same C, bit for bit */
        s->one_band++;
        s->one_band_differ += memcmp(&banded, &plain, sizeof plain) != 0;
    }
    s->bands_a = ba > s->bands_a ? ba : s->bands_a;
    s->bands_b = bb > s->bands_b ? bb : s->bands_b;
    s->pairs = pairs > s->pairs ? pairs : s->pairs;
}

static void lead_print(const char *what, int n, const struct lead_stats *s, int *bad_bands, int *bad_fallback,
                       long *one_band, long *one_band_differ, long *accepted_past)
{
    *one_band += s->one_band;
    *one_band_differ += s->one_band_differ;
    *accepted_past += s->accepted_past;
    printf("# %-24s %5d %9.3g %9.3g %9.3g %5d x %-3d %9.3g %5.0f%% %9.3g %5.0f%% %9.3g\n", what, n, s->plain, s->more,
           s->bands, s->bands_a, s->bands_b, s->fallback, s->cases ? 100.0 * s->past_rule / s->cases : 0.0, s->checked,
           s->cases ? 100.0 * s->refused / s->cases : 0.0, s->loop);
    /* a lead fails where it is past the bound and worse than the plain FP32 loop (at n = 1 and 2 a
     * subnormal result can put one correctly rounded product past it) */
    *bad_bands += s->bands > 1.0 && s->bands > s->loop;
    *bad_fallback += (s->fallback > 1.0 && s->fallback > s->loop) || (s->checked > 1.0 && s->checked > s->loop);
}

#define LEAD_SAMPLE 12 /* rows of A and columns of B sampled at long sums */

/* --span-leads: (b) the edge at each count of moduli; (a) bands and (c) an FP32 path for what is past
 * the rule, beside the plain step and OZAKI_MAX_MODULI moduli, on the search's families far past the
 * edge, the named cases and the harness's families (the mixed one spans 80 binades). */
static void span_leads(int count)
{
    const int sizes[] = {1, 2, 7, 33, 100, 300, 1000, 8192};
    printf("# (b) the edge (one side exact; the widest span of A's rows) at each count of moduli\n# %7s", "moduli");
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        printf(" %7s%-5d", "n = ", sizes[s]);
    printf("\n");
    for (int m = 5; m <= OZAKI_MAX_MODULI; m++) {
        printf("# %7d", m);
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
            struct ozaki_plan plan;
            double bound;
            if (span_plan(sizes[s], m, &plan, &bound) != 0) {
                printf(" %12s", "-");
                continue;
            }
            printf(" %5d (a%2d)", span_edge(plan.alpha, bound), plan.alpha);
        }
        printf("\n");
    }
    printf("# (a) bands of width alpha + lambda (lambda: the bound split evenly), (c) an FP32 loop for the "
           "elements past the rule, (d) the same after the check (d) refuses them: worst error / bound, and the "
           "share of elements sent to FP32\n");
    printf("# %-24s %5s %9s %9s %9s %11s %9s %6s %9s %6s %9s\n", "case", "n", "plain", "14 moduli", "bands",
           "bands A x B", "(c)", "share", "(d)", "share", "FP32 loop");
    int bad_bands = 0, bad_fallback = 0, rows = 0;
    long one_band = 0, one_band_differ = 0, accepted_past = 0;
    const int lead_sizes[] = {2, 7, 33, 300, 1000};
    const int spans[] = {24, 30, 50, 60, 100}; /* products stay at 2^-100 or above: in FP32's range */
    for (size_t s = 0; s < sizeof lead_sizes / sizeof *lead_sizes; s++) {
        const int n = lead_sizes[s];
        struct ozaki_plan plan, plan_more;
        double bound;
        if (span_plan(n, count, &plan, &bound) != 0 || ozaki_plan_make(OZAKI_MAX_MODULI, n, &plan_more) != 0)
            continue;
        float *a = checked_calloc((size_t)n, sizeof *a), *b = checked_calloc((size_t)n, sizeof *b);
        uint64_t state = 99 + (uint64_t)n;
        for (int f = 0; f < SPAN_FAMILIES; f++) {
            if (f == FAMILY_NORMAL || f == FAMILY_GRADED)
                continue; /* within the bound anyway: the largest products dominate */
            for (size_t t = 0; t < sizeof spans / sizeof *spans; t++) {
                if (f == FAMILY_BOTH && 2 * spans[t] > 100)
                    continue; /* m mb = 2^-(2 span) */
                struct lead_stats st = {0};
                for (int side = 0; side < (f >= FAMILY_INVERSE ? 1 : 2); side++)
                    for (int d = -1; d <= 1; d++)
                        for (int v = 0; v <= 2; v++)
                            if (span_build((enum span_family)f, side, n, spans[t], spans[t], v, d, &plan, a, b, &state))
                                lead_case(a, b, n, &plan, &plan_more, bound, &st);
                if (!st.cases)
                    continue;
                char what[64];
                snprintf(what, sizeof what, "%s, span %d", span_family_name[f], spans[t]);
                lead_print(what, n, &st, &bad_bands, &bad_fallback, &one_band, &one_band_differ, &accepted_past);
                rows++;
            }
        }
        free(a), free(b);
    }
    {
        struct ozaki_plan plan, plan_more;
        double bound;
        if (span_plan(2, count, &plan, &bound) == 0 && ozaki_plan_make(OZAKI_MAX_MODULI, 2, &plan_more) == 0) {
            const float a[2] = {1.0f, 0x1p-120f}, b[2] = {0.0f, 1.0f};
            struct lead_stats st = {0};
            lead_case(a, b, 2, &plan, &plan_more, bound, &st);
            lead_print("[1, 2^-120] . [0, 1]", 2, &st, &bad_bands, &bad_fallback, &one_band, &one_band_differ,
                       &accepted_past);
            rows++;
        }
    }
    /* the harness's families, every element of C */
    const int harness_sizes[] = {1, 2, 7, 33};
    for (int d = 0; d < DIST_COUNT; d++)
        for (size_t s = 0; s < sizeof harness_sizes / sizeof *harness_sizes; s++) {
            const int n = harness_sizes[s];
            struct ozaki_plan plan, plan_more;
            double bound;
            if (span_plan(n, count, &plan, &bound) != 0 || ozaki_plan_make(OZAKI_MAX_MODULI, n, &plan_more) != 0)
                continue;
            float *a = checked_calloc((size_t)n * n, sizeof *a), *b = checked_calloc((size_t)n * n, sizeof *b);
            float *row = checked_calloc((size_t)n, sizeof *row), *col = checked_calloc((size_t)n, sizeof *col);
            uint64_t state = 1000u * (uint64_t)n + (uint64_t)d;
            struct lead_stats st = {0};
            for (int trial = 0; trial < 2; trial++) {
                matgen_dist((enum input_dist)d, 'A', a, n, n, n, &state);
                matgen_dist((enum input_dist)d, 'B', b, n, n, n, &state);
                for (int i = 0; i < n; i++)
                    for (int j = 0; j < n; j++) {
                        for (int l = 0; l < n; l++)
                            row[l] = a[(size_t)i * n + l], col[l] = b[(size_t)l * n + j];
                        lead_case(row, col, n, &plan, &plan_more, bound, &st);
                    }
            }
            char what[64];
            snprintf(what, sizeof what, "harness: %s", dist_name((enum input_dist)d));
            lead_print(what, n, &st, &bad_bands, &bad_fallback, &one_band, &one_band_differ, &accepted_past);
            rows++;
            free(a), free(b), free(row), free(col);
        }
    /* The gate at long sums: the harness's families, sampled rows of A and columns of B (the model is one
     * element at a time): how many the rule alone would send to FP32, and how many the check (d) refuses. */
    printf("# the gate on the harness's families at long sums (%d rows of A x %d columns of B sampled): the share of "
           "rows and columns past the rule's edge, of elements past the rule, of elements (d) refuses; the step's "
           "worst error / bound, and with (d)\n", LEAD_SAMPLE, LEAD_SAMPLE);
    printf("# %-10s %5s %8s %8s %8s %8s %9s %9s\n", "family", "n", "rows", "columns", "elements", "(d)", "plain",
           "(d)");
    const int long_sizes[] = {128, 1000, 4096, 8192};
    for (int d = 0; d < DIST_COUNT; d++)
        for (size_t s = 0; s < sizeof long_sizes / sizeof *long_sizes; s++) {
            const int n = long_sizes[s];
            struct ozaki_plan plan;
            double bound;
            if (span_plan(n, count, &plan, &bound) != 0)
                continue;
            float *a = checked_calloc((size_t)LEAD_SAMPLE * n, sizeof *a);
            float *b = checked_calloc((size_t)n * LEAD_SAMPLE, sizeof *b);
            float *col = checked_calloc((size_t)n, sizeof *col);
            uint64_t state = 7000u * (uint64_t)n + (uint64_t)d;
            matgen_dist((enum input_dist)d, 'A', a, n, LEAD_SAMPLE, n, &state);
            matgen_dist((enum input_dist)d, 'B', b, LEAD_SAMPLE, n, LEAD_SAMPLE, &state);
            const double edge_a = ldexp(1.0, span_edge(plan.alpha, bound) - plan.alpha);
            const double edge_b = ldexp(1.0, span_edge(plan.beta, bound) - plan.beta);
            int rows_past = 0, cols_past = 0;
            long pairs_past = 0, refused = 0, pairs = 0;
            double plain = 0.0, checked = 0.0;
            for (int j = 0; j < LEAD_SAMPLE; j++) {
                for (int l = 0; l < n; l++)
                    col[l] = b[(size_t)l * LEAD_SAMPLE + j];
                cols_past += span_loss(col, n, plan.beta, NULL) > edge_b;
            }
            for (int i = 0; i < LEAD_SAMPLE; i++) {
                const float *row = a + (size_t)i * n;
                const double rho_a = span_loss(row, n, plan.alpha, NULL);
                rows_past += rho_a > edge_a;
                for (int j = 0; j < LEAD_SAMPLE; j++) {
                    for (int l = 0; l < n; l++)
                        col[l] = b[(size_t)l * LEAD_SAMPLE + j];
                    const int fits = span_excess(rho_a, span_loss(col, n, plan.beta, NULL)) <= bound;
                    const int accepted = fits || posterior_ok(row, col, n, &plan, bound);
                    const float c = ozaki_element(row, col, n, &plan);
                    const double err = element_err(row, col, n, c);
                    const double loop = element_err(row, col, n, fp32_element(row, col, n));
                    if (err < 0.0)
                        continue;
                    pairs++;
                    pairs_past += !fits;
                    refused += !accepted;
                    plain = fmax(plain, err / bound);
                    checked = fmax(checked, (accepted ? err : loop) / bound);
                    accepted_past += accepted && err > bound && err > loop;
                }
            }
            printf("# %-10s %5d %7.0f%% %7.0f%% %7.0f%% %7.0f%% %9.3g %9.3g\n", dist_name((enum input_dist)d), n,
                   100.0 * rows_past / LEAD_SAMPLE, 100.0 * cols_past / LEAD_SAMPLE,
                   pairs ? 100.0 * pairs_past / pairs : 0.0, pairs ? 100.0 * refused / pairs : 0.0, plain, checked);
            free(a), free(b), free(col);
        }
    ok(bad_bands == 0 && rows > 0, "lead (a), bands: every case within the fp32 bound or no worse than the FP32 loop "
       "(%d case groups, %d past)", rows, bad_bands);
    ok(one_band > 0 && one_band_differ == 0, "lead (a), bands: where a row and a column each fit one band, C equals "
       "the step's bit for bit (%ld of %ld elements)", one_band - one_band_differ, one_band);
    ok(bad_fallback == 0 && rows > 0, "leads (c) and (d), the FP32 loop past the rule or past the check: every case "
       "within the fp32 bound or no worse than the FP32 loop (%d case groups, %d past)", rows, bad_fallback);
    ok(accepted_past == 0, "lead (d): the check accepts no element that the step puts past the bound (%ld)",
       accepted_past);
}

/* ---- The handled step (--handled): the span rule as a gate, a check after the products, an FP32 path ----
 *
 * The specification a GPU step is checked against bit for bit. For C = A B (n x n, row-major):
 *   1. The maxima pass, per row i of A (column j of B), over its finite elements: the largest magnitude
 *      (its exponent e_i: ozaki_exponent) and the smallest nonzero magnitude; from them rho (span_loss,
 *      ozaki_span_rho, at alpha bits for A, beta for B) and the half step: h_i = 2^(e_i - alpha - 1)
 *      where rho_i > 0, else 0 (g_j the same for B's columns, at beta bits). A bound above the 1-norm of
 *      the scaled row, ||a'_i||_1 (ozaki_norm_bound), from the sum of its magnitudes in double, added in
 *      the GPU's order (abs_sum); ||b'_j||_1 the same.
 *   2. C = the products' C (ozaki_model), every element.
 *   3. (R) per pair: span_excess(rho_i, rho_j) <= T(n) (T = precision_bound(FP32, n)), in double. When
 *      every row and column meets it against the other side's largest rho, nothing more runs: C is
 *      the products' C (ozaki_model) bit for bit.
 *   4. Otherwise one more INT8 product, of bytes 0 ... 127: a''_ik = floor(|a_ik| 2^(7 - e_i)),
 *      b''_kj = floor(|b_kj| 2^(7 - f_j)) (0 for non-finite), W_ij = sum a''_ik b''_kj over the first
 *      ozaki_check_terms(n) values of k (all of them up to n = 512) in INT32 (exact: n 127^2 < 2^31),
 *      W_low = W 2^(e_i + f_j - 14) (exact in double) <= (|A||B|)_ij.
 *   5. Element (i, j) whose pair fails (R) is accepted where (ozaki_check_accepts, everything relative
 *      to 2^(e_i + f_j), the same comparison exactly)
 *         mul_ru(1 + u, E) <= mul_rd(sub_rd(T, u), W) 2^-14,
 *         E = add_ru(add_ru(h_i ||b'_j||_1, g_j ||a'_i||_1), h_i g_j n)
 *      (each product exact: powers of two times a double); u = 2^-24. The GPU tests the pair's (R)
 *      as rho_j <= ozaki_span_limit(rho_i), the same verdict.
 *      Every rounding is directed so the test is conservative: E up, W_low exact, the right side down.
 *      All double: __dadd_ru, __dmul_ru, __dmul_rd on a GPU (here emulated exactly with TwoSum / fma
 *      and nextafter, in ozaki.h).
 *   6. A refused element is the FP32 loop: s = 0.0f; for k = 0 ... n-1: s = fmaf(a_ik, b_kj, s).
 *      Elements with a non-finite factor in their sum keep step 2's NaN/Inf (the special pass). */
static double add_ru(double x, double y)
{
    return ozaki_add_up(x, y);
}

/* Step 1's sums of magnitudes (finite values; to nearest, in double), in the GPU's orders: a row of A
 * by a warp, lane l over t = l, l + 32, ... in ascending order, the lanes then paired (d = 16, 8, ...,
 * 1: partial[l] += partial[l + d]); a column of B by chunks of 64 values, each summed in order, the
 * chunks' sums then added in order. */
#define ROW_LANES 32
#define COL_CHUNK 64
static double abs_sum(const float *v, int k, size_t stride, int is_row)
{
    if (is_row) {
        double partial[ROW_LANES];
        for (int l = 0; l < ROW_LANES; l++) {
            partial[l] = 0.0;
            for (int t = l; t < k; t += ROW_LANES)
                if (isfinite(v[(size_t)t * stride]))
                    partial[l] += fabs((double)v[(size_t)t * stride]);
        }
        for (int d = ROW_LANES / 2; d >= 1; d /= 2)
            for (int l = 0; l < d; l++)
                partial[l] += partial[l + d];
        return partial[0];
    }
    double sum = 0.0;
    for (int c = 0; c < k; c += COL_CHUNK) {
        double chunk = 0.0;
        for (int t = c; t < c + COL_CHUNK && t < k; t++)
            if (isfinite(v[(size_t)t * stride]))
                chunk += fabs((double)v[(size_t)t * stride]);
        sum += chunk;
    }
    return sum;
}

/* Step 1 for one row of A or column of B (k values, `stride` apart). */
struct handled_line {
    int e;       /* ozaki_exponent of the largest finite magnitude */
    double rho;  /* span_loss */
    double half; /* h (g) relative to 2^e: half the step where rho > 0, else 0 (ozaki_half_step) */
    double norm; /* at least ||a'||_1 relative to 2^e, the scaled row's 1-norm (ozaki_norm_bound) */
};

static struct handled_line handled_line(const float *v, int k, size_t stride, int bits, int is_row, float *scratch)
{
    struct handled_line line = {0, 0.0, 0.0, 0.0};
    float m = 0.0f;
    for (int l = 0; l < k; l++) {
        const float x = v[(size_t)l * stride];
        scratch[l] = x;
        if (isfinite(x))
            m = fmaxf(m, fabsf(x));
    }
    line.e = ozaki_exponent(m);
    line.rho = span_loss(scratch, k, bits, NULL);
    line.half = ozaki_half_step(line.rho, bits);
    line.norm = ozaki_norm_bound(abs_sum(v, k, stride, is_row), k, line.e, line.half);
    return line;
}

/* Steps 4 and 5 for one element: 1 where it is accepted. */
static int handled_gate(const float *a, const float *b, size_t stride_b, int k, const struct handled_line *row,
                        const struct handled_line *col, double bound, int slack)
{
    int32_t w = 0; /* exact: k 127^2 < 2^31 */
    const int terms = ozaki_check_terms(k) < k ? ozaki_check_terms(k) : k;
    for (int l = 0; l < terms; l++) {
        const float x = a[l], y = b[(size_t)l * stride_b];
        if (!isfinite(x) || !isfinite(y))
            continue;
        /* slack > 0, the control: bytes rounded up, a W that is no lower bound */
        const double xs = fabs((double)x) * ldexp(1.0, 7 - row->e), ys = fabs((double)y) * ldexp(1.0, 7 - col->e);
        w += (int32_t)(slack ? ceil(xs) : floor(xs)) * (int32_t)(slack ? ceil(ys) : floor(ys));
    }
    if (!slack)
        return ozaki_check_accepts(w, row->half, col->half, row->norm, col->norm, k,
                                   ozaki_sub_down(bound, UNIT_ROUNDOFF));
    /* the control: a check that trusts E 2^slack times more, with W rounded up (it must fail) */
    const double err = ldexp(add_ru(add_ru(row->half * col->norm, col->half * row->norm), row->half * col->half * k),
                             -slack);
    return (1.0 + UNIT_ROUNDOFF) * err <= (bound - UNIT_ROUNDOFF) * ldexp((double)w, -14);
}

/* Step 6. */
static float handled_fp32(const float *a, const float *b, size_t stride_b, int k)
{
    float s = 0.0f;
    for (int l = 0; l < k; l++)
        s = fmaf(a[l], b[(size_t)l * stride_b], s);
    return s;
}

struct handled_counts {
    long rows_past, cols_past;   /* rows (columns) whose rho fails (R) against the other side exact */
    long elements, pairs_past;   /* elements, and those whose pair fails (R) */
    long refused;                /* refused by the gate: the FP32 path */
    int fast;                    /* every pair met (R): C is the products' C (ozaki_model) */
};

/* The whole C, the handled way (steps 1 ... 6). */
static void handled_gemm(const float *a, const float *b, float *c, int n, const struct ozaki_plan *plan, double bound,
                         int slack, struct handled_counts *count)
{
    struct handled_line *rows = checked_calloc((size_t)n, sizeof *rows), *cols = checked_calloc((size_t)n, sizeof *cols);
    float *scratch = checked_calloc((size_t)n, sizeof *scratch);
    double rho_a = 0.0, rho_b = 0.0;
    memset(count, 0, sizeof *count);
    for (int i = 0; i < n; i++) {
        rows[i] = handled_line(a + (size_t)i * n, n, 1, plan->alpha, 1, scratch);
        rho_a = fmax(rho_a, rows[i].rho);
        count->rows_past += span_excess(rows[i].rho, 0.0) > bound;
    }
    for (int j = 0; j < n; j++) {
        cols[j] = handled_line(b + j, n, (size_t)n, plan->beta, 0, scratch);
        rho_b = fmax(rho_b, cols[j].rho);
        count->cols_past += span_excess(0.0, cols[j].rho) > bound;
    }
    ozaki_model(a, b, c, n, plan, NULL);
    count->elements = (long)n * n;
    count->fast = span_excess(rho_a, rho_b) <= bound;
    if (!count->fast)
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                if (span_excess(rows[i].rho, cols[j].rho) <= bound)
                    continue;
                count->pairs_past++;
                const float *row = a + (size_t)i * n, *col = b + j;
                if (handled_gate(row, col, (size_t)n, n, &rows[i], &cols[j], bound, slack))
                    continue;
                count->refused++;
                int special = 0;
                for (int l = 0; l < n; l++)
                    special |= !isfinite(row[l]) || !isfinite(col[(size_t)l * n]);
                if (!special)
                    c[(size_t)i * n + j] = handled_fp32(row, col, (size_t)n, n);
            }
    free(rows), free(cols), free(scratch);
}

/* One element the handled way, from its row and column alone (k values each, contiguous; finite):
 * what handled_gemm gives at (i, j). *refused and *past get the gate's and (R)'s verdicts. */
static float handled_element(const float *a, const float *b, int k, const struct ozaki_plan *plan, double bound,
                             int slack, int *past, int *refused, float *scratch)
{
    const struct handled_line row = handled_line(a, k, 1, plan->alpha, 1, scratch);
    const struct handled_line col = handled_line(b, k, 1, plan->beta, 0, scratch);
    *past = span_excess(row.rho, col.rho) > bound;
    *refused = *past && !handled_gate(a, b, 1, k, &row, &col, bound, slack);
    return *refused ? handled_fp32(a, b, 1, k) : ozaki_element(a, b, k, plan);
}

/* What the search found for one family. */
struct handled_stats {
    long elements, past, refused, broken, worse_than_loop;
    double worst;   /* the largest error / bound */
    int worst_n;
    char worst_case[160];
};

/* One element c of row a times column b (k values, b's `stride_b` apart) checked: against the double
 * reference (as reference_row sums it), within the bound or no worse than the FP32 loop (at tiny n a
 * subnormal C can put one correctly rounded sum past it). */
static void handled_judge(const float *a, const float *b, size_t stride_b, int k, float c, double bound,
                          struct handled_stats *s, const char *what)
{
    double ref = 0.0, abs_ref = 0.0;
    for (int l = 0; l < k; l++) {
        const double y = b[(size_t)l * stride_b];
        ref += (double)a[l] * y;
        abs_ref += fabs((double)a[l]) * fabs(y);
    }
    s->elements++;
    if (!(abs_ref > 0.0))
        return;
    const double err = isfinite(c) ? fabs((double)c - ref) / abs_ref : INFINITY;
    if (err / bound > s->worst) {
        s->worst = err / bound;
        s->worst_n = k;
        snprintf(s->worst_case, sizeof s->worst_case, "%s", what);
    }
    if (!(err <= bound)) {
        const double loop = fabs((double)handled_fp32(a, b, stride_b, k) - ref) / abs_ref;
        if (err <= loop)
            s->worse_than_loop++; /* past the bound, as the FP32 loop is: counted, allowed */
        else
            s->broken++;
    }
}

/* handled_element's C for one row and column (contiguous), judged; with (R)'s and the gate's verdicts. */
static void handled_check(const float *a, const float *b, int k, const struct ozaki_plan *plan, double bound,
                          int slack, struct handled_stats *s, float *scratch, const char *what)
{
    int past, refused;
    const float c = handled_element(a, b, k, plan, bound, slack, &past, &refused, scratch);
    s->past += past;
    s->refused += refused;
    handled_judge(a, b, 1, k, c, bound, s, what);
}

enum { HANDLED_DIST = 0, HANDLED_SPAN = DIST_COUNT, HANDLED_WIDE100 = HANDLED_SPAN + 2 * SPAN_FAMILIES,
       HANDLED_GROUPS };

static void handled_group_name(int g, char *out, size_t size)
{
    if (g < HANDLED_SPAN)
        snprintf(out, size, "%s", dist_name((enum input_dist)g));
    else if (g < HANDLED_WIDE100)
        snprintf(out, size, "span %s (%s)", span_family_name[(g - HANDLED_SPAN) / 2],
                 (g - HANDLED_SPAN) % 2 ? "B's columns" : "A's rows");
    else
        snprintf(out, size, "100 binades, B inverse");
}

/* --handled: every family at n = 1 ... max_n, each element checked; full matrices (handled_gemm
 * against handled_element and ozaki_model) at n <= 12. */
static void handled_search(int max_n, int slack)
{
    struct handled_stats stats[HANDLED_GROUPS];
    memset(stats, 0, sizeof stats);
    long full_elements = 0, full_differ = 0, fast_cases = 0, fast_differ = 0, slow_cases = 0;
    long rows_past = 0, cols_past = 0, lines = 0, gemm_refused = 0;
#pragma omp parallel for schedule(dynamic, 1)
    for (int t = 0; t < max_n; t++) {
        const int n = max_n - t;
        struct ozaki_plan plan;
        double bound;
        if (span_plan(n, 0, &plan, &bound) != 0)
            continue;
        struct handled_stats local[HANDLED_GROUPS];
        memset(local, 0, sizeof local);
        long l_full = 0, l_differ = 0, l_fast = 0, l_fast_differ = 0, l_slow = 0, l_rows = 0, l_cols = 0, l_lines = 0;
        long l_refused = 0;
        float *a = checked_calloc((size_t)n * n, sizeof *a), *b = checked_calloc((size_t)n * n, sizeof *b);
        float *c = checked_calloc((size_t)n * n, sizeof *c), *products_only = checked_calloc((size_t)n * n, sizeof *products_only);
        float *row = checked_calloc((size_t)n, sizeof *row), *col = checked_calloc((size_t)n, sizeof *col);
        float *scratch = checked_calloc((size_t)n, sizeof *scratch);
        uint64_t state = 0x4a11ull * (uint64_t)n + 3;
        char what[160];
        /* the harness's families: 2 trials, every element up to n = 16, else 8 rows by 8 columns */
        for (int d = 0; d < DIST_COUNT; d++)
            for (int trial = 0; trial < 2; trial++) {
                matgen_dist((enum input_dist)d, 'A', a, n, n, n, &state);
                matgen_dist((enum input_dist)d, 'B', b, n, n, n, &state);
                const int every = n <= 16, picks = every ? n : 8;
                for (int pi = 0; pi < picks; pi++)
                    for (int pj = 0; pj < picks; pj++) {
                        const int i = every ? pi : (int)(rand31(&state) % (uint32_t)n);
                        const int j = every ? pj : (int)(rand31(&state) % (uint32_t)n);
                        for (int l = 0; l < n; l++)
                            row[l] = a[(size_t)i * n + l], col[l] = b[(size_t)l * n + j];
                        snprintf(what, sizeof what, "%s, n = %d, trial %d, row %d, column %d",
                                 dist_name((enum input_dist)d), n, trial, i, j);
                        handled_check(row, col, n, &plan, bound, slack, &local[d], scratch, what);
                    }
                if (n <= 12) { /* the whole C: handled_gemm equals handled_element; where fast, the products' C (ozaki_model) */
                    struct handled_counts counts;
                    handled_gemm(a, b, c, n, &plan, bound, slack, &counts);
                    ozaki_model(a, b, products_only, n, &plan, NULL);
                    l_rows += counts.rows_past, l_cols += counts.cols_past, l_lines += 2L * n;
                    l_refused += counts.refused;
                    if (counts.fast) {
                        l_fast++;
                        l_fast_differ += memcmp(c, products_only, (size_t)n * n * sizeof *c) != 0;
                    } else {
                        l_slow++;
                    }
                    for (int i = 0; i < n; i++)
                        for (int j = 0; j < n; j++) {
                            int past, refused;
                            for (int l = 0; l < n; l++)
                                row[l] = a[(size_t)i * n + l], col[l] = b[(size_t)l * n + j];
                            const float e = handled_element(row, col, n, &plan, bound, slack, &past, &refused, scratch);
                            l_full++;
                            l_differ += memcmp(&e, &c[(size_t)i * n + j], sizeof e) != 0;
                        }
                }
            }
        /* the span families (the search's: spans 6 ... 30, partners zero, small, normal; graded; inverse;
         * both), both sides, every variant */
        for (int f = 0; f < SPAN_FAMILIES; f++)
            for (int side = 0; side < 2; side++)
                for (int sigma = SPAN_MIN; sigma <= SPAN_MAX; sigma++)
                    for (int d = -1; d <= 1; d++)
                        for (int v = 0; v <= 2; v++) {
                            const int sigma_b = sigma - 1 + d;
                            if (!span_build((enum span_family)f, side, n, sigma, sigma_b, v, d, &plan, row, col, &state))
                                continue;
                            snprintf(what, sizeof what, "span %s, side %s, n = %d, span %d (B's %d), variant %d, d %d",
                                     span_family_name[f], side ? "B" : "A", n, sigma, sigma_b, v, d);
                            handled_check(row, col, n, &plan, bound, slack, &local[HANDLED_SPAN + 2 * f + side], scratch,
                                          what);
                        }
        for (int v = 1; v <= 2; v++) /* 100 binades, B's column scaled inversely: every product near 1 */
            if (span_build(FAMILY_INVERSE, 0, n, 100, 0, v, 0, &plan, row, col, &state)) {
                snprintf(what, sizeof what, "100 binades inverse, n = %d, variant %d", n, v);
                handled_check(row, col, n, &plan, bound, slack, &local[HANDLED_WIDE100], scratch, what);
            }
        free(a), free(b), free(c), free(products_only), free(row), free(col), free(scratch);
#pragma omp critical
        {
            for (int g = 0; g < HANDLED_GROUPS; g++) {
                struct handled_stats *to = &stats[g], *from = &local[g];
                to->elements += from->elements, to->past += from->past, to->refused += from->refused;
                to->broken += from->broken, to->worse_than_loop += from->worse_than_loop;
                if (from->worst > to->worst || (from->worst == to->worst && from->worst_n > to->worst_n))
                    to->worst = from->worst, to->worst_n = from->worst_n,
                    memcpy(to->worst_case, from->worst_case, sizeof to->worst_case);
            }
            full_elements += l_full, full_differ += l_differ, fast_cases += l_fast, fast_differ += l_fast_differ;
            slow_cases += l_slow, rows_past += l_rows, cols_past += l_cols, lines += l_lines, gemm_refused += l_refused;
        }
    }
    ok(full_elements > 0 && full_differ == 0, "handled: the whole C (handled_gemm) equals the element-wise form bit "
       "for bit, %ld of %ld elements (the harness's families, n = 1 ... 12)", full_elements - full_differ,
       full_elements);
    ok(fast_cases > 0 && fast_differ == 0, "handled: where every row and column meets (R), C is the products' C (ozaki_model) bit for bit "
       "(%ld of %ld such matrices; %ld others went through the gate)", fast_cases - fast_differ, fast_cases,
       slow_cases);
    printf("# full matrices, n = 1 ... 12: %ld of %ld rows and columns past (R) with the other side exact; "
           "%ld elements refused by the gate\n", rows_past + cols_past, lines, gemm_refused);
    printf("# %-34s %9s %9s %9s %9s %8s\n", "family", "elements", "past (R)", "refused", "refused%", "worst/T");
    for (int g = 0; g < HANDLED_GROUPS; g++) {
        const struct handled_stats *s = &stats[g];
        char name[64];
        handled_group_name(g, name, sizeof name);
        printf("# %-34s %9ld %9ld %9ld %8.3f%% %8.3f\n", name, s->elements, s->past, s->refused,
               s->elements ? 100.0 * s->refused / s->elements : 0.0, s->worst);
    }
    for (int g = 0; g < HANDLED_GROUPS; g++) {
        const struct handled_stats *s = &stats[g];
        char name[64];
        if (s->elements == 0)
            continue; /* a family without this side (both: A's rows alone) */
        handled_group_name(g, name, sizeof name);
        ok(s->elements > 0 && s->broken == 0, "handled, %s, n = 1 ... %d: %ld elements within the fp32 bound or no "
           "worse than the FP32 loop, %ld past (%ld refused to the FP32 path, %ld as the loop is; the worst %.4g of the "
           "bound: %s)", name, max_n, s->elements - s->broken, s->broken, s->refused, s->worse_than_loop, s->worst,
           s->worst_case[0] ? s->worst_case : "none");
    }
    /* The two-by-two: one product, 2^-120, whose factor from A rounds to 0 in the products alone. */
    struct ozaki_plan plan;
    double bound;
    if (span_plan(2, 0, &plan, &bound) == 0) {
        const float a[4] = {1.0f, 0x1p-120f, 1.0f, 0x1p-120f}, b[4] = {0.0f, 0.0f, 1.0f, 1.0f};
        float c[4], products_only[4];
        struct handled_counts counts;
        handled_gemm(a, b, c, 2, &plan, bound, slack, &counts);
        ozaki_model(a, b, products_only, 2, &plan, NULL);
        double worst = 0.0;
        for (int x = 0; x < 4; x++)
            worst = fmax(worst, fabs(c[x] - 0x1p-120) / 0x1p-120);
        ok(worst <= bound && counts.refused == 4, "handled, A = [[1, 2^-120], [1, 2^-120]], B = [[0, 0], [1, 1]]: "
           "C = %g everywhere (the products alone: %g), error %.3g of the bound; %ld rows and %ld columns past (R), %ld of "
           "4 elements refused", c[0], products_only[0], worst / bound, counts.rows_past, counts.cols_past, counts.refused);
    }
}

/* --handled-long LIST: the harness's families at long sums (n past the search's), one trial each, 16
 * rows by 16 columns sampled: each element checked, and the fraction (R) and the gate refuse, the
 * cost driver; at `count` moduli (--span-moduli; 0: the default count for n). */
static void handled_long(const int *sizes, int n_sizes, int count)
{
    struct handled_stats stats[32][DIST_COUNT];
    memset(stats, 0, sizeof stats);
#pragma omp parallel for schedule(dynamic, 1)
    for (int t = 0; t < n_sizes * DIST_COUNT; t++) {
        const int n = sizes[t / DIST_COUNT];
        const enum input_dist d = (enum input_dist)(t % DIST_COUNT);
        struct ozaki_plan plan;
        double bound;
        if (span_plan(n, count, &plan, &bound) != 0)
            continue;
        float *a = checked_calloc((size_t)n * n, sizeof *a), *b = checked_calloc((size_t)n * n, sizeof *b);
        float *row = checked_calloc((size_t)n, sizeof *row), *col = checked_calloc((size_t)n, sizeof *col);
        float *scratch = checked_calloc((size_t)n, sizeof *scratch);
        uint64_t state = 0x10a9ull * (uint64_t)n + (uint64_t)d;
        matgen_dist(d, 'A', a, n, n, n, &state);
        matgen_dist(d, 'B', b, n, n, n, &state);
        char what[160];
        for (int pi = 0; pi < 16; pi++)
            for (int pj = 0; pj < 16; pj++) {
                const int i = (int)(rand31(&state) % (uint32_t)n), j = (int)(rand31(&state) % (uint32_t)n);
                for (int l = 0; l < n; l++)
                    row[l] = a[(size_t)i * n + l], col[l] = b[(size_t)l * n + j];
                snprintf(what, sizeof what, "%s, n = %d, row %d, column %d", dist_name(d), n, i, j);
                handled_check(row, col, n, &plan, bound, 0, &stats[t / DIST_COUNT][d], scratch, what);
            }
        free(a), free(b), free(row), free(col), free(scratch);
    }
    printf("# long sums, 256 sampled elements per family and n, %s: %% past (R), %% refused by the gate, worst "
           "error / T\n", count ? (count == 1 ? "1 modulus" : "the moduli --span-moduli gives") : "the default moduli");
    printf("# %-10s", "family");
    for (int s = 0; s < n_sizes; s++)
        printf("   n = %-17d", sizes[s]);
    printf("\n");
    for (int d = 0; d < DIST_COUNT; d++) {
        printf("# %-10s", dist_name((enum input_dist)d));
        long elements = 0, broken = 0, refused = 0;
        for (int s = 0; s < n_sizes; s++) {
            const struct handled_stats *st = &stats[s][d];
            printf("   %5.1f%% %5.1f%% %8.3g", st->elements ? 100.0 * st->past / st->elements : 0.0,
                   st->elements ? 100.0 * st->refused / st->elements : 0.0, st->worst);
            elements += st->elements, broken += st->broken, refused += st->refused;
        }
        printf("\n");
        ok(elements > 0 && broken == 0, "handled, %s, long sums: %ld sampled elements within the fp32 bound or no "
           "worse than the FP32 loop, %ld past (%ld refused to the FP32 path)", dist_name((enum input_dist)d),
           elements - broken, broken, refused);
    }
}

/* ---- Cases for a GPU step (--save-cases, --save-spans): A, B and the handled C, to match bit for bit ---- */

#define SPANS_MAX_N 8192   /* --save-spans: A and B in memory (512 MB at 8192), no C past MAX_N */
#define SPANS_MODEL_N 300  /* --save-spans computes the handled C up to this n (O(count n^3) on the CPU) */
#define SPANS_MAX_SPAN 126 /* span_build's smallest binade, -sigma: a normal float */

/* DIR/NAME/FILE into out; exit 2 when it does not fit. */
static void case_path(char *out, size_t size, const char *dir, const char *name, const char *file)
{
    if (snprintf(out, size, "%s/%s%s%s", dir, name, file ? "/" : "", file ? file : "") >= (int)size) {
        fprintf(stderr, "ozaki_model: path too long: %s/%s\n", dir, name);
        exit(2);
    }
}

/* A case as DIR/NAME/a.npy and b.npy; with `model`, also handled_gemm's C (the default count for n,
 * span_plan's bound) as c_model.npy, into c, and its counts as counts.txt, into *counts. */
static void save_case(const char *dir, const char *name, const float *a, const float *b, int n, int model, float *c,
                      struct handled_counts *counts)
{
    char path[4096], file[4200];
    case_path(path, sizeof path, dir, name, NULL);
    mkdir(dir, 0777);
    mkdir(path, 0777);
    const char *names[3] = {"a.npy", "b.npy", "c_model.npy"};
    const float *mats[3] = {a, b, c};
    if (model) {
        struct ozaki_plan plan;
        double bound;
        if (span_plan(n, 0, &plan, &bound) != 0) {
            fprintf(stderr, "ozaki_model: no plan at the default count for n = %d\n", n);
            exit(2);
        }
        handled_gemm(a, b, c, n, &plan, bound, 0, counts);
    }
    for (int x = 0; x < (model ? 3 : 2); x++) {
        case_path(file, sizeof file, dir, name, names[x]);
        if (save_npy(file, mats[x], n, n) != 0) {
            fprintf(stderr, "ozaki_model: cannot write %s\n", file);
            exit(2);
        }
    }
    if (!model)
        return;
    case_path(file, sizeof file, dir, name, "counts.txt");
    FILE *out = fopen(file, "w");
    if (!out || fprintf(out, "rows_past=%ld cols_past=%ld pairs_past=%ld refused=%ld elements=%ld\n", counts->rows_past,
                        counts->cols_past, counts->pairs_past, counts->refused, counts->elements) < 0 || fclose(out)) {
        fprintf(stderr, "ozaki_model: cannot write %s\n", file);
        exit(2);
    }
}

/* One --save-spans case: a span family (kind 0), 100 binades scaled inversely (1) or the
 * two-by-two (2). */
struct spans_case {
    int kind, family, side, sigma, v, n;
    char name[80];
    int written, files_ok;           /* written (the family applies at n); every file there after */
    struct handled_counts counts;    /* n <= SPANS_MODEL_N */
    struct handled_stats stats;      /* every element of its C judged */
    long sampled, sampled_differ;    /* elements against handled_element */
};

/* Every row of A from one span_build call, every column of B from another (x and y: side 0, x is A's
 * row; side 1, B's column), so every pair (i, j) has the family's structure; 0 where the variant does
 * not apply at n. */
static int spans_matrices(const struct spans_case *sc, const struct ozaki_plan *plan, float *a, float *b, float *row,
                          float *col)
{
    const int n = sc->n;
    if (sc->kind == 2) {
        const float a2[4] = {1.0f, 0x1p-120f, 1.0f, 0x1p-120f}, b2[4] = {0.0f, 0.0f, 1.0f, 1.0f};
        memcpy(a, a2, sizeof a2), memcpy(b, b2, sizeof b2);
        return 1;
    }
    /* a fixed seed per family, side, span, variant and n */
    uint64_t state = 0x5eedull << 40 ^ (uint64_t)sc->n << 20 ^ (uint64_t)sc->kind << 19 ^ (uint64_t)sc->family << 16 ^
                     (uint64_t)sc->side << 14 ^ (uint64_t)sc->sigma << 6 ^ (uint64_t)sc->v;
    for (int i = 0; i < n; i++) {
        if (!span_build((enum span_family)sc->family, sc->side, n, sc->sigma, sc->sigma, sc->v, 0, plan, row, col,
                        &state))
            return 0;
        memcpy(a + (size_t)i * n, row, (size_t)n * sizeof *a);
    }
    for (int j = 0; j < n; j++) {
        span_build((enum span_family)sc->family, sc->side, n, sc->sigma, sc->sigma, sc->v, 0, plan, row, col, &state);
        for (int l = 0; l < n; l++)
            b[(size_t)l * n + j] = col[l];
    }
    return 1;
}

/* A file there, at least `bytes` long. */
static int file_there(const char *dir, const char *name, const char *file, long bytes)
{
    char path[4200];
    struct stat st;
    case_path(path, sizeof path, dir, name, file);
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= bytes;
}

/* --save-spans DIR: full n x n matrices of the span families (zero, small with d = 0, normal: A's rows
 * spanning and B's columns; graded, inverse: A's rows), each span of `spans`, random (v = 2) and with
 * `ties` also ties (v = 1), and the named cases, as DIR/span-FAMILY-A|B-sSIGMA[-ties]_nN,
 * DIR/inverse100_nN and DIR/twobytwo_n2: a.npy and b.npy, and up to n = SPANS_MODEL_N the handled C
 * (c_model.npy) and counts.txt. Checks the files, and that C within the bound or no worse than the FP32
 * loop (handled_judge), and equal to handled_element at sampled elements. */
static void save_spans(const char *dir, const int *sizes, int n_sizes, const int *spans, int n_spans, int ties)
{
    static const int families[] = {FAMILY_ZERO, FAMILY_SMALL, FAMILY_NORMAL, FAMILY_GRADED, FAMILY_INVERSE};
    const int n_families = (int)(sizeof families / sizeof *families);
    const int n_cases_max = n_sizes * (n_families * 2 * n_spans * 2 + 2);
    struct spans_case *cases = checked_calloc((size_t)n_cases_max, sizeof *cases);
    int n_cases = 0;
    for (int s = 0; s < n_sizes; s++) {
        for (int f = 0; f < n_families; f++)
            for (int side = 0; side < (families[f] == FAMILY_GRADED || families[f] == FAMILY_INVERSE ? 1 : 2); side++)
                for (int t = 0; t < n_spans; t++)
                    for (int v = 2; v >= (ties ? 1 : 2); v--) {
                        struct spans_case *sc = &cases[n_cases++];
                        sc->kind = 0, sc->family = families[f], sc->side = side, sc->sigma = spans[t], sc->v = v;
                        sc->n = sizes[s];
                        snprintf(sc->name, sizeof sc->name, "span-%s-%s-s%d%s_n%d", span_family_name[families[f]],
                                 side ? "B" : "A", spans[t], v == 1 ? "-ties" : "", sizes[s]);
                    }
        struct spans_case *sc = &cases[n_cases++];
        sc->kind = 1, sc->family = FAMILY_INVERSE, sc->side = 0, sc->sigma = 100, sc->v = 2, sc->n = sizes[s];
        snprintf(sc->name, sizeof sc->name, "inverse100_n%d", sizes[s]);
        if (sizes[s] == 2) {
            sc = &cases[n_cases++];
            sc->kind = 2, sc->n = 2;
            snprintf(sc->name, sizeof sc->name, "twobytwo_n2");
        }
    }
    mkdir(dir, 0777);
#pragma omp parallel for schedule(dynamic, 1)
    for (int t = 0; t < n_cases; t++) {
        struct spans_case *sc = &cases[t];
        const int n = sc->n, model = n <= SPANS_MODEL_N && n <= MAX_N;
        struct ozaki_plan plan;
        double bound;
        if (span_plan(n, 0, &plan, &bound) != 0)
            continue; /* not written: the files' check fails */
        float *a = checked_calloc((size_t)n * n, sizeof *a), *b = checked_calloc((size_t)n * n, sizeof *b);
        float *c = model ? checked_calloc((size_t)n * n, sizeof *c) : NULL;
        float *row = checked_calloc((size_t)n, sizeof *row), *col = checked_calloc((size_t)n, sizeof *col);
        float *scratch = checked_calloc((size_t)n, sizeof *scratch);
        if (spans_matrices(sc, &plan, a, b, row, col)) {
            sc->written = 1;
            save_case(dir, sc->name, a, b, n, model, c, &sc->counts);
            const long bytes = 4L * n * n; /* the data alone; the header comes on top */
            sc->files_ok = file_there(dir, sc->name, "a.npy", bytes) && file_there(dir, sc->name, "b.npy", bytes) &&
                           (!model || (file_there(dir, sc->name, "c_model.npy", bytes) &&
                                       file_there(dir, sc->name, "counts.txt", 1)));
        }
        if (sc->written && model) {
            char what[160];
            for (int i = 0; i < n; i++)
                for (int j = 0; j < n; j++) {
                    snprintf(what, sizeof what, "%s, row %d, column %d", sc->name, i, j);
                    handled_judge(a + (size_t)i * n, b + j, (size_t)n, n, c[(size_t)i * n + j], bound, &sc->stats,
                                  what);
                }
            /* every element up to n = 8, else 64 at random: handled_element from the row and column alone */
            uint64_t state = 0xe1e3ull + (uint64_t)t;
            const int every = n <= 8;
            for (int p = 0; p < (every ? n * n : 64); p++) {
                const int i = every ? p / n : (int)(rand31(&state) % (uint32_t)n);
                const int j = every ? p % n : (int)(rand31(&state) % (uint32_t)n);
                for (int l = 0; l < n; l++)
                    row[l] = a[(size_t)i * n + l], col[l] = b[(size_t)l * n + j];
                int past, refused;
                const float e = handled_element(row, col, n, &plan, bound, 0, &past, &refused, scratch);
                sc->sampled++;
                sc->sampled_differ += memcmp(&e, &c[(size_t)i * n + j], sizeof e) != 0;
            }
        }
        free(a), free(b), free(c), free(row), free(col), free(scratch);
    }
    int written = 0, files_ok = 0, modelled = 0;
    long sampled = 0, sampled_differ = 0;
    struct handled_stats all;
    memset(&all, 0, sizeof all);
    printf("# %-30s %6s %6s %9s %9s %9s %8s\n", "case", "rows", "cols", "pairs", "refused", "elements", "worst/T");
    for (int t = 0; t < n_cases; t++) {
        const struct spans_case *sc = &cases[t];
        written += sc->written;
        files_ok += sc->written && sc->files_ok;
        if (!sc->written) {
            printf("# %-30s not written: the variant does not apply at n = %d\n", sc->name, sc->n);
            continue;
        }
        if (!(sc->n <= SPANS_MODEL_N && sc->n <= MAX_N)) {
            printf("# %-30s A and B only (no C past n = %d)\n", sc->name, SPANS_MODEL_N);
            continue;
        }
        modelled++;
        const struct handled_counts *k = &sc->counts;
        const struct handled_stats *s = &sc->stats;
        printf("# %-30s %6ld %6ld %9ld %9ld %9ld %8.3f\n", sc->name, k->rows_past, k->cols_past, k->pairs_past,
               k->refused, k->elements, s->worst);
        all.elements += s->elements, all.broken += s->broken, all.worse_than_loop += s->worse_than_loop;
        all.past += k->pairs_past, all.refused += k->refused;
        if (s->worst > all.worst)
            all.worst = s->worst, memcpy(all.worst_case, s->worst_case, sizeof all.worst_case);
        sampled += sc->sampled, sampled_differ += sc->sampled_differ;
    }
    ok(written > 0 && files_ok == written, "--save-spans: %d cases written under %s, each with a.npy and b.npy (and "
       "c_model.npy and counts.txt at n <= %d): %d with every file there", written, dir, SPANS_MODEL_N, files_ok);
    if (modelled) {
        ok(all.elements > 0 && all.broken == 0, "--save-spans: handled_gemm's C of the %d cases at n <= %d, %ld "
           "elements within the fp32 bound or no worse than the FP32 loop, %ld past (%ld pairs past (R), %ld refused to "
           "the FP32 path, %ld as the loop is; the worst %.4g of the bound: %s)", modelled, SPANS_MODEL_N,
           all.elements - all.broken, all.broken, all.past, all.refused, all.worse_than_loop, all.worst,
           all.worst_case[0] ? all.worst_case : "none");
        ok(sampled > 0 && sampled_differ == 0, "--save-spans: handled_gemm's C equals handled_element (the row and "
           "column alone) bit for bit, %ld of %ld sampled elements", sampled - sampled_differ, sampled);
    } else {
        printf("# no case at n <= %d: no C computed, nothing more to check\n", SPANS_MODEL_N);
    }
    free(cases);
}

int main(int argc, char **argv)
{
    int moduli[32], sizes[32];
    /* One place kept free in moduli for --expect's count. The model is O(count n^3) on one core:
     * n stops at MAX_N. */
    int n_moduli = parse_list("5 6 7 8 9 10 11 12", moduli, 31, OZAKI_MAX_MODULI);
    int n_sizes = parse_list("1 2 3 7 17 33 100 256", sizes, 32, MAX_N);
    int trials = 2, trials_value = 0, expect_count = -1;
    const char *expect_text = NULL, *save_dir = NULL, *spans_dir = NULL;
    int spans[32], n_spans = parse_list("6 12 18 24 30", spans, 32, SPANS_MAX_SPAN), spans_given = 0, ties = 0;
    int span_mode = 0, span_n = 300, span_count = 0, span_slack = 0, value = 0, long_sizes[32], n_long = 0;
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(argv[i], "--moduli") && v)
            n_moduli = parse_list(argv[++i], moduli, 31, OZAKI_MAX_MODULI);
        else if (!strcmp(argv[i], "--sizes") && v)
            n_sizes = parse_list(argv[++i], sizes, 32, SPANS_MAX_N); /* past MAX_N: --save-spans alone */
        else if (!strcmp(argv[i], "--trials") && v)
            trials = parse_list(argv[++i], &trials_value, 1, 1000) == 1 ? trials_value : -1;
        else if (!strcmp(argv[i], "--expect") && v)
            expect_text = argv[++i];
        else if (!strcmp(argv[i], "--save-cases") && v)
            save_dir = argv[++i];
        else if (!strcmp(argv[i], "--save-spans") && v && strncmp(v, "--", 2) != 0)
            spans_dir = argv[++i];
        else if (!strcmp(argv[i], "--spans") && v)
            n_spans = parse_list(argv[++i], spans, 32, SPANS_MAX_SPAN), spans_given = 1;
        else if (!strcmp(argv[i], "--ties"))
            ties = spans_given = 1;
        else if (!strcmp(argv[i], "--span-search") || !strcmp(argv[i], "--span-leads"))
            span_mode = !strcmp(argv[i], "--span-search") ? 1 : 2;
        else if (!strcmp(argv[i], "--handled"))
            span_mode = 3;
        else if (!strcmp(argv[i], "--handled-long") && v)
            n_long = parse_list(argv[++i], long_sizes, 32, 131071);
        else if (!strcmp(argv[i], "--span-n") && v)
            span_n = parse_list(argv[++i], &value, 1, 100000) == 1 ? value : -1;
        else if (!strcmp(argv[i], "--span-slack") && v)
            span_slack = parse_list(argv[++i], &value, 1, 60) == 1 ? value : -1;
        else if (!strcmp(argv[i], "--span-moduli") && v)
            span_count = parse_list(argv[++i], &value, 1, OZAKI_MAX_MODULI) == 1 ? value : -1;
        else if (!strcmp(argv[i], "--help")) {
            printf("usage: ozaki_model [--moduli LIST] [--sizes LIST] [--trials T] [--expect \"N FAMILY...\"] "
                   "[--save-cases DIR]\n       ozaki_model --span-search|--span-leads|--handled [--span-n N] [--span-moduli M] "
                   "[--span-slack B]\n       ozaki_model --save-spans DIR [--sizes LIST] [--spans LIST] [--ties]\n"
                   "(see the comment at the top of its source, ozaki_model.c)\n");
            return 0;
        } else {
            fprintf(stderr, "ozaki_model: unknown option or missing value: %s (try --help)\n", argv[i]);
            return 2;
        }
    }
    if (span_n < 1 || span_count < 0 || span_slack < 0) {
        fprintf(stderr, "ozaki_model: --span-n takes n in 1 ... 100000, --span-moduli a count in 1 ... %d, "
                "--span-slack 1 ... 60 binades\n", OZAKI_MAX_MODULI);
        return 2;
    }
    if (spans_dir) {
        if (span_mode || save_dir || expect_text) {
            fprintf(stderr, "ozaki_model: --save-spans runs alone (not with --save-cases, --expect or a span mode)\n");
            return 2;
        }
        if (n_sizes <= 0 || n_spans <= 0) {
            fprintf(stderr, "ozaki_model: --save-spans takes --sizes n in 1 ... %d and --spans 1 ... %d binades (at "
                    "most 32 of each)\n", SPANS_MAX_N, SPANS_MAX_SPAN);
            return 2;
        }
        save_spans(spans_dir, sizes, n_sizes, spans, n_spans, ties);
        return done_testing();
    }
    if (spans_given) {
        fprintf(stderr, "ozaki_model: --spans and --ties go with --save-spans\n");
        return 2;
    }
    for (int s = 0; s < n_sizes; s++)
        if (sizes[s] > MAX_N)
            n_sizes = -1; /* only --save-spans goes past MAX_N */
    if (span_mode == 1) {
        check_element();
        span_search(span_n, span_count, span_slack);
        span_named(span_count);
        return done_testing();
    }
    if (span_mode == 2) {
        span_leads(span_count);
        return done_testing();
    }
    if (span_mode == 3) {
        if (span_n > MAX_N) {
            fprintf(stderr, "ozaki_model: --handled takes --span-n in 1 ... %d\n", MAX_N);
            return 2;
        }
        if (n_long < 0) {
            fprintf(stderr, "ozaki_model: --handled-long takes n in 1 ... 131071, at most 32 of them\n");
            return 2;
        }
        handled_search(span_n, span_slack);
        if (n_long > 0)
            handled_long(long_sizes, n_long, span_count);
        return done_testing();
    }
    if (n_moduli <= 0 || n_sizes <= 0 || trials < 1) {
        fprintf(stderr, "ozaki_model: --moduli takes counts in 1 ... %d, --sizes n in 1 ... %d (at most 32 of "
                        "each), --trials 1 ... 1000\n", OZAKI_MAX_MODULI, MAX_N);
        return 2;
    }
    int expect_family[DIST_COUNT] = {0};
    if (expect_text) {
        char word[64];
        int used, first = 1;
        for (const char *s = expect_text; sscanf(s, "%63s%n", word, &used) == 1; s += used) {
            if (first) {
                expect_count = atoi(word);
                first = 0;
                continue;
            }
            int found = 0;
            for (int d = 0; d < DIST_COUNT; d++)
                if (!strcmp(word, dist_name((enum input_dist)d)))
                    expect_family[d] = found = 1;
            if (!found) {
                fprintf(stderr, "ozaki_model: --expect: no input family %s\n", word);
                return 2;
            }
        }
        if (expect_count < 1 || expect_count > OZAKI_MAX_MODULI) {
            fprintf(stderr, "ozaki_model: --expect: a number of moduli in 1 ... %d first\n", OZAKI_MAX_MODULI);
            return 2;
        }
        int listed = 0;
        for (int i = 0; i < n_moduli; i++)
            listed |= moduli[i] == expect_count;
        if (!listed)
            moduli[n_moduli++] = expect_count;
    }

    check_crt();
    check_to_float();
    check_plans();
    check_limbs();

    /* The table: worst componentwise error over the trials, in units of the fp32 bound. */
    printf("# worst componentwise error / fp32 bound (<= 1 passes); 'loop': a plain FP32 loop\n");
    printf("# %-10s %6s %8s", "family", "n", "loop");
    for (int m = 0; m < n_moduli; m++)
        printf("  %6d", moduli[m]);
    printf("   (moduli)\n");
    int family_fails[DIST_COUNT] = {0};
    for (int d = 0; d < DIST_COUNT; d++)
        for (int s = 0; s < n_sizes; s++) {
            const int n = sizes[s];
            const double bound = precision_bound(PRECISION_FP32, 0, n);
            float *a = checked_calloc((size_t)n * n, sizeof *a), *b = checked_calloc((size_t)n * n, sizeof *b);
            float *c = checked_calloc((size_t)n * n, sizeof *c);
            double loop = 0.0, worst[32] = {0};
            for (int t = 0; t < trials; t++) {
                uint64_t state = 1000u * (uint64_t)n + 17u * (uint64_t)t + (uint64_t)d;
                matgen_dist((enum input_dist)d, 'A', a, n, n, n, &state);
                matgen_dist((enum input_dist)d, 'B', b, n, n, n, &state);
                fp32_loop(a, b, c, n);
                loop = fmax(loop, comp_err(a, b, c, n));
                if (save_dir && t == 0) {
                    char name[64];
                    struct handled_counts counts;
                    snprintf(name, sizeof name, "%s_n%d", dist_name((enum input_dist)d), n);
                    save_case(save_dir, name, a, b, n, 1, c, &counts);
                }
                for (int m = 0; m < n_moduli; m++) {
                    struct ozaki_plan plan;
                    if (ozaki_plan_make(moduli[m], n, &plan) != 0) {
                        worst[m] = INFINITY;
                        continue;
                    }
                    ozaki_model(a, b, c, n, &plan, NULL);
                    worst[m] = fmax(worst[m], comp_err(a, b, c, n));
                }
            }
            printf("# %-10s %6d %8.2g", dist_name((enum input_dist)d), n, loop / bound);
            for (int m = 0; m < n_moduli; m++) {
                printf("  %6.2g", worst[m] / bound);
                /* A failure: past the bound, and worse than the plain loop (at n = 1 a subnormal C
                 * can put even one correctly rounded product past it). */
                if (moduli[m] == expect_count && !(worst[m] <= bound) && !(worst[m] <= loop))
                    family_fails[d]++;
            }
            printf("\n");
            free(a), free(b), free(c);
        }
    if (expect_text)
        for (int d = 0; d < DIST_COUNT; d++)
            if (expect_family[d])
                ok(family_fails[d] == 0,
                   "%s inputs, %d moduli: within the fp32 bound (or no worse than the plain FP32 loop) at every n "
                   "measured", dist_name((enum input_dist)d), expect_count);
    return done_testing();
}
