/* Ozaki scheme II on the CPU, exactly as ozaki.h (this step's) defines it: the scaled integers, their
 * residues, one exact integer product per modulus, the remainder theorem, one rounding to FP32.
 * What it checks (TAP), and what it measures (notes):
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
 *                     model's C at the default count for n (ozaki_default_moduli) as
 *                     DIR/FAMILY_nN/a.npy, b.npy and c_model.npy: a GPU step that computes Ozaki
 *                     scheme II as ozaki.h defines it must give that C bit for bit
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

/* --save-cases: A, B and the model's C at the default count for n (ozaki_default_moduli), for a GPU step to match bit for bit. */
static void save_case(const char *dir, enum input_dist dist, const float *a, const float *b, int n)
{
    struct ozaki_plan plan;
    if (ozaki_plan_make(ozaki_default_moduli(n), n, &plan) != 0)
        return;
    float *c = checked_calloc((size_t)n * n, sizeof *c);
    ozaki_model(a, b, c, n, &plan, NULL);
    char path[4096];
    mkdir(dir, 0777);
    snprintf(path, sizeof path, "%s/%s_n%d", dir, dist_name(dist), n);
    mkdir(path, 0777);
    const char *names[3] = {"a.npy", "b.npy", "c_model.npy"};
    const float *mats[3] = {a, b, c};
    for (int x = 0; x < 3; x++) {
        char file[4200];
        snprintf(file, sizeof file, "%s/%s", path, names[x]);
        if (save_npy(file, mats[x], n, n) != 0) {
            fprintf(stderr, "ozaki_model: cannot write %s\n", file);
            exit(2);
        }
    }
    free(c);
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

int main(int argc, char **argv)
{
    int moduli[32], sizes[32];
    /* One place kept free in moduli for --expect's count. The model is O(count n^3) on one core:
     * n stops at MAX_N. */
    int n_moduli = parse_list("5 6 7 8 9 10 11 12", moduli, 31, OZAKI_MAX_MODULI);
    int n_sizes = parse_list("1 2 3 7 17 33 100 256", sizes, 32, MAX_N);
    int trials = 2, trials_value = 0, expect_count = -1;
    const char *expect_text = NULL, *save_dir = NULL;
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(argv[i], "--moduli") && v)
            n_moduli = parse_list(argv[++i], moduli, 31, OZAKI_MAX_MODULI);
        else if (!strcmp(argv[i], "--sizes") && v)
            n_sizes = parse_list(argv[++i], sizes, 32, MAX_N);
        else if (!strcmp(argv[i], "--trials") && v)
            trials = parse_list(argv[++i], &trials_value, 1, 1000) == 1 ? trials_value : -1;
        else if (!strcmp(argv[i], "--expect") && v)
            expect_text = argv[++i];
        else if (!strcmp(argv[i], "--save-cases") && v)
            save_dir = argv[++i];
        else if (!strcmp(argv[i], "--help")) {
            printf("usage: ozaki_model [--moduli LIST] [--sizes LIST] [--trials T] [--expect \"N FAMILY...\"] "
                   "[--save-cases DIR]\n(see the comment at the top of its source, ozaki_model.c)\n");
            return 0;
        } else {
            fprintf(stderr, "ozaki_model: unknown option or missing value: %s (try --help)\n", argv[i]);
            return 2;
        }
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
                if (save_dir && t == 0)
                    save_case(save_dir, (enum input_dist)d, a, b, n);
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
