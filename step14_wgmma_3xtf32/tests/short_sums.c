/* Short sums against the fp32 bound: a search for the inputs on which step 14's arithmetic
 * breaks it, on the CPU, with an exact model of that arithmetic.
 *
 * Step 14 multiplies 3xTF32: each input x is split into big = tf32(x) and small = tf32(x - big)
 * (to nearest, ties to even: cvt.rn.tf32.f32 on sm_90), and a_ik b_kj becomes
 * as bb + ab bs + ab bb; the fourth product, as bs, is dropped where k is long. Each 32 of k
 * (a stage) is summed by wgmma k-steps of 8 into fresh accumulators, the small products first
 * (as bs too, where it is kept), then big x big, and added to the running sum in FP32, to
 * nearest. The tensor core's sums are modelled bit for bit by tests/tf32_model.h (measured on
 * the H100 by tests/tensor_core_arith.cu). Rows of A and columns of B are scaled by powers of
 * two outside [2^-50, 2^50), as step 14 does (none of the inputs here is).
 *
 * Each n from 1 to --max-n gets --trials matrices of crafted values: long mantissas just above a
 * power of two, whose split loses the most (x - big near half a TF32 ulp, its low bits cut by
 * small's rounding), drawn from the families below, all of one sign per trial so that the
 * errors of a sum add up. Each product is compared with the exact one (products of floats are
 * exact in double; a sum of at most 64 of them is off by far less than FP32's u), and the
 * largest componentwise error |c - ab| / (|A| |B|) is reported against the fp32 bound of
 * common/check.c for k = n, in units of u = 2^-24.
 *
 *   --fourth-up-to T   keep the fourth product for n <= T (step 14's rule; 0: never)
 *   --expect-fail      a TAP line passes when the search finds inputs beyond the bound (the
 *                      control: without the fourth product it must, or the search finds nothing)
 *   --save-worst DIR   write, for each n, the worst trial's A and B as DIR/nN/a.npy and b.npy and
 *                      the model's C as DIR/nN/c_model.npy, for the GPU test to run step 14 on
 *   --per-stage        model step 15 instead: the shifts found for each stage of 32 of k (each
 *                      row of A's and column of B's largest magnitude within the stage), each
 *                      stage's sum scaled back (ldexpf) before it joins the running sum
 *   --stage-scales     scale the crafted values by a power of two per stage of each row of A
 *                      (2^-70 ... 2^55) and of each column of B (2^-50 ... 2^55), so that stages
 *                      need shifts up, down or none (every product stays normal, no sum
 *                      overflows); with --per-stage this searches step 15's rule
 * Output: TAP, one line per n (or one for the control). Exit 0, 1 when a line failed, 2 on bad
 * usage. */
#include "matrix.h"
#include "tap.h"
#include "tf32_model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define K_STAGE 32 /* k per stage (step 14's BK) */
#define K_STEP 8   /* one wgmma */

/* Step 14's shift: the power of two that brings a row's or column's largest magnitude into
 * [2^-50, 2^50) (1 when it is there already). */
static int shift_for(float m)
{
    if (!(m > 0.0f) || !(m < INFINITY))
        return 0;
    const int e = ilogbf(m);
    return e < -50 ? (-e < 127 ? -e : 127) : e >= 50 ? 49 - e : 0;
}

static void split(float x, float *big, float *small)
{
    *big = tf32_model_float(tf32_round_even(tf32_model_bits(x)));
    *small = tf32_model_float(tf32_round_even(tf32_model_bits(x - *big)));
}

/* Step 15's rule: A's and B's shifts for the stage of k starting at k0, from that stage's values
 * alone (zeros past n), into ea[i] and eb[j]. */
static void stage_shifts(const float *a, const float *b, int n, int k0, int *ea, int *eb)
{
    for (int i = 0; i < n; i++) {
        float m = 0.0f;
        for (int k = k0; k < k0 + K_STAGE && k < n; k++)
            m = fmaxf(m, fabsf(a[(size_t)i * n + k]));
        ea[i] = shift_for(m);
    }
    for (int j = 0; j < n; j++) {
        float m = 0.0f;
        for (int k = k0; k < k0 + K_STAGE && k < n; k++)
            m = fmaxf(m, fabsf(b[(size_t)k * n + j]));
        eb[j] = shift_for(m);
    }
}

/* c = a b as step 14 computes it (n x n, row-major), the fourth product kept when fourth; with
 * per_stage, as step 15 does (shifts per stage, each stage's sum scaled back). */
static void step14_model(const float *a, const float *b, float *c, int n, int fourth, int per_stage)
{
    const int kp = (n + K_STAGE - 1) / K_STAGE * K_STAGE; /* zeros past n take no part */
    float *ab = calloc((size_t)n * kp, sizeof *ab), *as = calloc((size_t)n * kp, sizeof *as);
    float *bb = calloc((size_t)n * kp, sizeof *bb), *bs = calloc((size_t)n * kp, sizeof *bs); /* K-major */
    int *ea = calloc((size_t)n, sizeof *ea), *eb = calloc((size_t)n, sizeof *eb);
    const int stages = kp / K_STAGE;
    int *sa = calloc((size_t)n * stages, sizeof *sa), *sb = calloc((size_t)n * stages, sizeof *sb); /* step 15 */
    if (!ab || !as || !bb || !bs || !ea || !eb || !sa || !sb) {
        fprintf(stderr, "short_sums: out of memory\n");
        exit(2);
    }
    if (per_stage) {
        for (int st = 0; st < stages; st++) {
            stage_shifts(a, b, n, st * K_STAGE, ea, eb);
            for (int i = 0; i < n; i++)
                sa[(size_t)i * stages + st] = ea[i];
            for (int j = 0; j < n; j++)
                sb[(size_t)j * stages + st] = eb[j];
        }
        for (int i = 0; i < n; i++)
            for (int k = 0; k < n; k++)
                split(ldexpf(a[(size_t)i * n + k], sa[(size_t)i * stages + k / K_STAGE]), &ab[(size_t)i * kp + k],
                      &as[(size_t)i * kp + k]);
        for (int j = 0; j < n; j++)
            for (int k = 0; k < n; k++)
                split(ldexpf(b[(size_t)k * n + j], sb[(size_t)j * stages + k / K_STAGE]), &bb[(size_t)j * kp + k],
                      &bs[(size_t)j * kp + k]);
    } else {
        for (int i = 0; i < n; i++) {
            float m = 0.0f;
            for (int k = 0; k < n; k++)
                m = fmaxf(m, fabsf(a[(size_t)i * n + k]));
            ea[i] = shift_for(m);
            for (int k = 0; k < n; k++)
                split(ldexpf(a[(size_t)i * n + k], ea[i]), &ab[(size_t)i * kp + k], &as[(size_t)i * kp + k]);
        }
        for (int j = 0; j < n; j++) {
            float m = 0.0f;
            for (int k = 0; k < n; k++)
                m = fmaxf(m, fabsf(b[(size_t)k * n + j]));
            eb[j] = shift_for(m);
            for (int k = 0; k < n; k++)
                split(ldexpf(b[(size_t)k * n + j], eb[j]), &bb[(size_t)j * kp + k], &bs[(size_t)j * kp + k]);
        }
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            float sum = 0.0f;
            for (int k0 = 0; k0 < kp; k0 += K_STAGE) {
                float acc = 0.0f; /* scale-d 0 on the stage's first wgmma: no c */
                const float *x_big = ab + (size_t)i * kp + k0, *x_small = as + (size_t)i * kp + k0;
                const float *y_big = bb + (size_t)j * kp + k0, *y_small = bs + (size_t)j * kp + k0;
                for (int s = 0; s < K_STAGE; s += K_STEP) {
                    if (fourth)
                        acc = tf32_mma_k8(acc, x_small + s, y_small + s);
                    acc = tf32_mma_k8(acc, x_small + s, y_big + s);
                    acc = tf32_mma_k8(acc, x_big + s, y_small + s);
                }
                for (int s = 0; s < K_STAGE; s += K_STEP)
                    acc = tf32_mma_k8(acc, x_big + s, y_big + s);
                if (per_stage) /* step 15: the stage's sum back to the inputs' scale, one ldexpf */
                    acc = ldexpf(acc, -sa[(size_t)i * stages + k0 / K_STAGE] - sb[(size_t)j * stages + k0 / K_STAGE]);
                sum += acc; /* FP32, to nearest */
            }
            c[(size_t)i * n + j] = per_stage ? sum : ldexpf(sum, -ea[i] - eb[j]);
        }
    free(ab);
    free(as);
    free(bb);
    free(bs);
    free(ea);
    free(eb);
    free(sa);
    free(sb);
}

/* The families: 2^e (1 + h 2^-10 + l 2^-23), h the 10 bits TF32 keeps, l the 13 it cannot. */
enum family { JUST_ABOVE_HALF, JUST_BELOW_HALF, ANY_LOW_BITS, MIXED_HALVES, FAMILIES };
static const char *const family_names[FAMILIES] = {"low bits just above half a TF32 ulp",
                                                   "just below half", "any low bits", "either side of half"};

static float crafted(enum family f, uint64_t *state)
{
    const uint32_t r = rand31(state), r2 = rand31(state);
    /* h: near a power of two (0 ... 7) most often, where a TF32 ulp is largest relative to x */
    const uint32_t h = r % 4 ? r2 % 8 : r2 % 1024;
    const uint32_t spread = 1u + rand31(state) % 0x400; /* how far from half, in FP32 ulps */
    uint32_t l;
    switch (f) {
    case JUST_ABOVE_HALF: l = 0x1000 + rand31(state) % spread; break;
    case JUST_BELOW_HALF: l = 0x1000 - 1 - rand31(state) % spread; break;
    case ANY_LOW_BITS: l = rand31(state) % 0x2000; break;
    default: l = rand31(state) % 2 ? 0x1000 + rand31(state) % spread : 0x1000 - 1 - rand31(state) % spread; break;
    }
    const int e = (int)(rand31(state) % 5) - 2;
    return ldexpf(tf32_model_float(0x3f800000u | h << 13 | l), e);
}

static void save_matrix(const char *dir, const char *name, const float *m, int n)
{
    char path[2100];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (save_npy(path, m, n, n) != 0) {
        fprintf(stderr, "short_sums: cannot write %s\n", path);
        exit(2);
    }
}

int main(int argc, char **argv)
{
    int fourth_up_to = 0, trials = 200, max_n = 64, expect_fail = 0, per_stage = 0, stage_scales = 0;
    uint64_t seed = 1;
    const char *save_dir = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--fourth-up-to") == 0 && i + 1 < argc)
            fourth_up_to = atoi(argv[++i]);
        else if (strcmp(argv[i], "--trials") == 0 && i + 1 < argc)
            trials = atoi(argv[++i]);
        else if (strcmp(argv[i], "--max-n") == 0 && i + 1 < argc)
            max_n = atoi(argv[++i]);
        else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--save-worst") == 0 && i + 1 < argc)
            save_dir = argv[++i];
        else if (strcmp(argv[i], "--expect-fail") == 0)
            expect_fail = 1;
        else if (strcmp(argv[i], "--per-stage") == 0)
            per_stage = 1;
        else if (strcmp(argv[i], "--stage-scales") == 0)
            stage_scales = 1;
        else if (strcmp(argv[i], "--help") == 0) {
            printf("usage: short_sums [--fourth-up-to T] [--trials N] [--max-n N] [--seed S] [--expect-fail] "
                   "[--save-worst DIR] [--per-stage] [--stage-scales]\n(see the comment at the top of its source, short_sums.c)\n");
            return 0;
        } else {
            fprintf(stderr, "short_sums: bad option '%s' (try --help)\n", argv[i]);
            return 2;
        }
    }
    if (trials < 1 || max_n < 1 || max_n > 1024 || fourth_up_to < 0) {
        fprintf(stderr, "short_sums: --trials and --max-n must be positive (--max-n at most 1024)\n");
        return 2;
    }
    const double u = ldexp(1.0, -24);
    uint64_t state = seed;
    int beyond_any = 0, first_beyond = 0;
    double first_beyond_err = 0.0;
    for (int n = 1; n <= max_n; n++) {
        const size_t cells = (size_t)n * n;
        float *a = malloc(cells * sizeof *a), *b = malloc(cells * sizeof *b), *c = malloc(cells * sizeof *c);
        float *worst_a = malloc(cells * sizeof *a), *worst_b = malloc(cells * sizeof *b);
        float *worst_c = malloc(cells * sizeof *c);
        if (!a || !b || !c || !worst_a || !worst_b || !worst_c) {
            fprintf(stderr, "short_sums: out of memory\n");
            return 2;
        }
        double worst = -1.0;
        int worst_family = 0;
        for (int t = 0; t < trials; t++) {
            const enum family f = (enum family)(t % FAMILIES);
            const int negative = t / FAMILIES % 2;
            for (size_t i = 0; i < cells; i++) {
                a[i] = crafted(f, &state);
                b[i] = crafted(f, &state);
                if (negative)
                    a[i] = -a[i];
            }
            if (stage_scales) { /* a power of two per stage of each row of A and column of B */
                for (int r = 0; r < n; r++)
                    for (int k0 = 0; k0 < n; k0 += K_STAGE) {
                        const int ea = -70 + (int)(rand31(&state) % 126), eb = -50 + (int)(rand31(&state) % 106);
                        for (int k = k0; k < k0 + K_STAGE && k < n; k++) {
                            a[(size_t)r * n + k] = ldexpf(a[(size_t)r * n + k], ea);
                            b[(size_t)k * n + r] = ldexpf(b[(size_t)k * n + r], eb);
                        }
                    }
            }
            step14_model(a, b, c, n, n <= fourth_up_to, per_stage);
            double trial_worst = 0.0;
            for (int i = 0; i < n; i++)
                for (int j = 0; j < n; j++) {
                    double exact = 0.0, scale = 0.0;
                    for (int k = 0; k < n; k++) {
                        exact += (double)a[(size_t)i * n + k] * (double)b[(size_t)k * n + j];
                        scale += fabs((double)a[(size_t)i * n + k] * (double)b[(size_t)k * n + j]);
                    }
                    const double err = fabs((double)c[(size_t)i * n + j] - exact) / scale;
                    if (err > trial_worst)
                        trial_worst = err;
                }
            if (trial_worst > worst) {
                worst = trial_worst;
                worst_family = f;
                memcpy(worst_a, a, cells * sizeof *a);
                memcpy(worst_b, b, cells * sizeof *b);
                memcpy(worst_c, c, cells * sizeof *c);
            }
        }
        const double bound = precision_bound(PRECISION_FP32, 0, n);
        const int beyond = worst > bound;
        if (beyond && !beyond_any) {
            first_beyond = n;
            first_beyond_err = worst;
        }
        beyond_any |= beyond;
        if (!expect_fail)
            ok(!beyond, "n = %d, %s product%s%s: worst componentwise error %.2f u within the fp32 bound %.2f u "
               "(%d trials, worst on %s%s)", n, n <= fourth_up_to ? "four" : "three", "s",
               per_stage ? ", shifts per stage (step 15)" : "", worst / u, bound / u, trials,
               family_names[worst_family], stage_scales ? ", scaled per stage" : "");
        else
            printf("# n = %d: worst %.2f u, bound %.2f u%s\n", n, worst / u, bound / u, beyond ? ": beyond" : "");
        if (save_dir) {
            char dir[2048];
            snprintf(dir, sizeof dir, "%s/n%d", save_dir, n);
            mkdir(save_dir, 0777);
            mkdir(dir, 0777);
            save_matrix(dir, "a.npy", worst_a, n);
            save_matrix(dir, "b.npy", worst_b, n);
            save_matrix(dir, "c_model.npy", worst_c, n);
        }
        free(a);
        free(b);
        free(c);
        free(worst_a);
        free(worst_b);
        free(worst_c);
    }
    if (expect_fail)
        ok(beyond_any, "the control: with the fourth product kept only for n <= %d, the search finds inputs beyond "
           "the fp32 bound (first at n = %d: %.2f u)", fourth_up_to, first_beyond, first_beyond_err / u);
    return done_testing();
}
