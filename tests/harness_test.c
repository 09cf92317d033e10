/* Unit tests of common/: generator, reference, comparison, .npy, parsing, timing.
 * TAP output, run by prove through tests/01-harness.t. No GPU needed. */
#define _GNU_SOURCE /* setenv: the stand-in NVML told to fail */
#include "tap.h"
#include "args.h"
#include "conditions.h"
#include "matrix.h"
#ifdef _OPENMP
#include <omp.h>
#endif
#include "step.h"
#include "timing.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void test_matgen(void)
{
    enum { N = 37, LDA = 41 };
    float a[N * LDA], b[N * LDA];
    uint64_t s1 = 7, s2 = 7, s3 = 8;
    for (int i = 0; i < N * LDA; i++)
        a[i] = b[i] = -1.0f; /* marks the padding columns */
    matgen(a, LDA, N, &s1);
    matgen(b, LDA, N, &s2);
    ok(memcmp(a, b, sizeof a) == 0, "matgen: same seed, same matrix");
    ok(s1 == s2 && s1 != 7, "matgen: the generator state advances");
    int in_range = 1, padding_kept = 1, distinct = 0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < LDA; j++) {
            float v = a[i * LDA + j];
            if (j < N && !(v >= 0.0f && v <= 1.0f))
                in_range = 0;
            if (j >= N && v != -1.0f)
                padding_kept = 0;
            if (j < N && j > 0 && v != a[i * LDA + j - 1])
                distinct++;
        }
    ok(in_range, "matgen: values in [0, 1]");
    ok(padding_kept, "matgen: columns past n of a leading dimension lda are left alone");
    ok(distinct > N * (N - 1) * 9 / 10, "matgen: values are not constant");
    matgen(b, LDA, N, &s3);
    ok(memcmp(a, b, sizeof a) != 0, "matgen: another seed, another matrix");

    uint64_t s = 0;
    uint32_t lo = UINT32_MAX, hi = 0;
    for (int i = 0; i < 100000; i++) {
        uint32_t r = rand31(&s);
        lo = r < lo ? r : lo;
        hi = r > hi ? r : hi;
    }
    ok(hi < (1u << 31) && lo < (1u << 24) && hi > (1u << 31) - (1u << 24), "rand31: covers 0 .. 2^31 - 1");
}

static void test_compare(void)
{
    struct check_result r;
    float c[4] = {1.0f, 2.0f, 3.0f, 4.0f};
    double ref[4] = {1.0, 2.0, 3.0, 4.0};

    check_init(&r);
    compare_values(c, ref, NULL, 4, &r);
    ok(r.max_rel_err == 0.0 && r.sum_rel_err == 0.0 && r.compared == 4, "compare: equal values, zero error");

    c[2] = 3.3f;
    check_init(&r);
    compare_values(c, ref, NULL, 4, &r);
    ok(fabs(r.max_rel_err - 0.1) < 1e-6, "compare: relative error of 3.3 against 3 is 0.1 (got %g)", r.max_rel_err);
    ok(fabs(r.sum_rel_err / r.compared - 0.025) < 1e-6, "compare: average over the elements");
    ok(!check_passes(&r, 1e-6) && check_passes(&r, 0.2), "compare: tolerance decides pass or fail");

    float cz[2] = {0.0f, 0.5f};
    double rz[2] = {0.0, 0.0};
    check_init(&r);
    compare_values(cz, rz, NULL, 2, &r);
    ok(isfinite(r.max_rel_err) && r.max_rel_err == 0.5, "compare: zero reference uses the absolute error, no division by zero");

    float cn[3] = {1.0f, NAN, 1.0f};
    double rn[3] = {1.0, 1.0, 1.0};
    check_init(&r);
    compare_mat(cn, 3, rn, 3, 1, &r); /* 1 x 1 matrix: only the first element */
    ok(check_passes(&r, 1e-6), "compare_mat: n = 1 looks at one element only");
    struct check_result rm;
    float m3[9] = {1, 1, 1, 1, NAN, 1, 1, 1, 1};
    double ones[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    check_init(&rm);
    compare_mat(m3, 3, ones, 3, 3, &rm);
    ok(rm.nonfinite == 1 && rm.first_bad == 4, "compare_mat: a NaN is counted, at its index");
    ok(isinf(rm.max_rel_err) && !check_passes(&rm, 1.0), "compare_mat: a NaN fails at any tolerance");

    m3[4] = INFINITY;
    check_init(&rm);
    compare_mat(m3, 3, ones, 3, 3, &rm);
    ok(rm.nonfinite == 1 && !check_passes(&rm, 1e30), "compare_mat: an Inf fails");

    m3[4] = -INFINITY;
    check_init(&rm);
    compare_mat(m3, 3, ones, 3, 3, &rm);
    ok(rm.nonfinite == 1 && !check_passes(&rm, 1e30), "compare_mat: a -Inf fails");

    float p[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    poison_mat(&p[7], 1);
    ok(is_poison(p[7]) && isnan(p[7]) && !is_poison(NAN), "poison: a NaN pattern of its own, not the usual NaN");
    check_init(&rm);
    compare_mat(p, 3, ones, 3, 3, &rm);
    ok(rm.unwritten == 1 && rm.nonfinite == 0 && rm.first_bad == 7, "compare_mat: an unwritten element is found, at its index");
    ok(!check_passes(&rm, 1e30), "compare_mat: an unwritten element fails");
}

/* C = A B rounded to float from the double reference: within half an ulp. */
static void reference_product(const float *a, const float *b, float *c, int n)
{
    double *row = malloc(sizeof *row * n);
    for (int i = 0; i < n; i++) {
        reference_row(a, b, n, i, row, NULL);
        for (int j = 0; j < n; j++)
            c[(size_t)i * n + j] = (float)row[j];
    }
    free(row);
}

static void test_check_product(void)
{
    const int n = 7;
    float a[49], b[49], c[49];
    uint64_t s = 1;
    matgen(a, n, n, &s);
    matgen(b, n, n, &s);
    double row[7];
    reference_row(a, b, n, 3, row, NULL);
    double direct = 0;
    for (int k = 0; k < n; k++)
        direct += (double)a[3 * n + k] * b[k * n + 5];
    ok(fabs(row[5] - direct) <= 1e-15 * direct, "reference_row: equals the dot product of row 3 and column 5");

    reference_product(a, b, c, n);
    struct check_result r;
    check_product(a, b, c, n, CHECK_FULL, 0, &r);
    ok(r.compared == 49 && r.rows_checked == 7, "check_product full: every element compared");
    ok(r.max_rel_err <= ldexp(1.0, -24), "check_product: the rounded reference is within 2^-24 (%g)", r.max_rel_err);
    ok(check_passes(&r, KAHAN_TOLERANCE), "check_product: passes the Kahan tolerance");

    c[48] *= 1.0f + 1e-5f;
    check_product(a, b, c, n, CHECK_FULL, 0, &r);
    ok(!check_passes(&r, KAHAN_TOLERANCE) && r.max_rel_err > 9e-6, "check_product: a 1e-5 error in the last element fails");

    /* Sample mode on a larger matrix: the last row is always checked, and an
     * unwritten element anywhere is found by the full scan. */
    const int m = 300;
    float *A = malloc(sizeof *A * m * m), *B = malloc(sizeof *B * m * m), *C = malloc(sizeof *C * m * m);
    matgen(A, m, m, &s);
    matgen(B, m, m, &s);
    reference_product(A, B, C, m);
    check_product(A, B, C, m, CHECK_SAMPLE, 42, &r);
    ok(r.rows_checked > 32 && r.rows_checked <= SAMPLE_ROWS && r.compared == r.rows_checked * m,
       "check_product sample: %zu rows of %d compared", r.rows_checked, m);
    ok(check_passes(&r, KAHAN_TOLERANCE), "check_product sample: a correct product passes");
    C[(size_t)(m - 1) * m + 17] += 1.0f;
    check_product(A, B, C, m, CHECK_SAMPLE, 42, &r);
    ok(!check_passes(&r, KAHAN_TOLERANCE), "check_product sample: an error in the last row is caught");
    reference_product(A, B, C, m);
    int unsampled = -1; /* find a row the sample skips */
    for (int i = 1; i < m - 1 && unsampled < 0; i++) {
        C[(size_t)i * m] += 1.0f;
        check_product(A, B, C, m, CHECK_SAMPLE, 42, &r);
        if (check_passes(&r, KAHAN_TOLERANCE))
            unsampled = i;
        C[(size_t)i * m] -= 1.0f;
        reference_product(A, B, C, m);
    }
    ok(unsampled > 0, "check_product sample: some rows are not compared (row %d)", unsampled);
    poison_mat(&C[(size_t)unsampled * m + 3], 1);
    check_product(A, B, C, m, CHECK_SAMPLE, 42, &r);
    ok(r.unwritten == 1 && !check_passes(&r, KAHAN_TOLERANCE), "check_product sample: an unwritten element in an unsampled row fails");
    struct reference ref;
    struct check_result r2;
    ok(make_reference(A, B, m, CHECK_SAMPLE, 42, &ref) == 0, "make_reference: sample of %d rows", ref.nrows);
    check_with_reference(&ref, C, &r2);
    check_product(A, B, C, m, CHECK_SAMPLE, 42, &r);
    ok(r2.rows_checked == r.rows_checked && r2.max_rel_err == r.max_rel_err && r2.unwritten == 1,
       "check_with_reference: the same verdict as check_product");
    free_reference(&ref);
    check_product(A, B, C, m, CHECK_NONE, 42, &r);
    ok(r.unwritten == 1 && r.compared == 0 && !check_passes(&r, KAHAN_TOLERANCE), "check_product none: still scans for unwritten elements");
    free(A);
    free(B);
    free(C);
}

static void test_precision_bound(void)
{
    const double u = ldexp(1.0, -24);
    ok(precision_bound(PRECISION_FP32, 1, 1) == KAHAN_TOLERANCE && precision_bound(PRECISION_FP32, 1, 100000) == KAHAN_TOLERANCE,
       "bound: Kahan steps 2.5e-7 at every n");
    double b1000 = precision_bound(PRECISION_FP32, 0, 1000);
    ok(b1000 > 1.69e-5 && b1000 < 1.71e-5, "bound: fp32 at k = 1000 is about 9 sqrt(1000) u = %.3g", b1000);
    ok(b1000 < 1000 * u / (1 - 1000 * u) / 3, "bound: fp32 is well under the worst case gamma(1000) = 6.0e-5");
    ok(fabs(precision_bound(PRECISION_FP32, 0, 4096) / b1000 - sqrt(4.096)) < 0.01, "bound: fp32 grows as sqrt(k)");
    ok(precision_bound(PRECISION_FP32, 0, 1) >= 2 * u, "bound: k = 1 allows a rounding");
    double t1000 = precision_bound(PRECISION_TF32, 0, 1000);
    ok(fabs(t1000 - (ldexp(1.0, -9) + b1000)) < 1e-12, "bound: tf32 = 2 * 2^-10 + the fp32 bound = %.3g", t1000);
    ok(precision_bound(PRECISION_TF32, 1, 1000) == t1000, "bound: compensation does not make TF32 inputs exact");
    ok(strcmp(precision_name(PRECISION_FP32), "fp32") == 0 && strcmp(precision_name(PRECISION_TF32), "tf32") == 0,
       "precision_name: fp32, tf32");
}

/* FP32 -> TF32 on the CPU, round to nearest with ties away from zero (cvt.rna.tf32.f32):
 * keep 10 of the 23 mantissa bits. */
static float tf32_round(float x)
{
    uint32_t bits;
    memcpy(&bits, &x, sizeof bits);
    bits = (bits + 0x1000u) & 0xffffe000u;
    memcpy(&x, &bits, sizeof x);
    return x;
}

/* C = tf32(A) tf32(B), the products and sums exact (double), rounded once to float: the
 * best a TF32 GEMM can do, its only error the rounding of its inputs. */
static void tf32_product(const float *a, const float *b, float *c, int n)
{
    float *at = malloc(sizeof *at * n * n), *bt = malloc(sizeof *bt * n * n);
    double *row = malloc(sizeof *row * n);
    for (int i = 0; i < n * n; i++) {
        at[i] = tf32_round(a[i]);
        bt[i] = tf32_round(b[i]);
    }
    for (int i = 0; i < n; i++) {
        reference_row(at, bt, n, i, row, NULL);
        for (int j = 0; j < n; j++)
            c[(size_t)i * n + j] = (float)row[j];
    }
    free(at);
    free(bt);
    free(row);
}

static void test_wide_and_classes(void)
{
    enum { N = 200 };
    float a[N * N];
    uint64_t s = 3;
    matgen_wide(a, N, N, N, &s);
    int negative = 0, in_range = 1, low = 0, high = 0;
    for (int i = 0; i < N * N; i++) {
        const float m = fabsf(a[i]);
        negative += a[i] < 0;
        in_range &= m >= ldexpf(1.0f, -8) && m <= ldexpf(1.0f, 9);
        low += m < ldexpf(1.0f, -7);
        high += m >= ldexpf(1.0f, 8);
    }
    ok(negative > N * N * 45 / 100 && negative < N * N * 55 / 100, "matgen_wide: about half negative (%d)", negative);
    ok(in_range, "matgen_wide: magnitudes in [2^-8, 2^9]");
    ok(low > N * N / 17 / 2 && high > N * N / 17 / 2, "matgen_wide: the lowest and the highest binade both occur");
    ok(strcmp(dist_name(DIST_WIDE), "wide") == 0 && strcmp(dist_name(DIST_UNIFORM), "uniform") == 0, "dist_name");

    /* The componentwise error is |c - ref| / (|A| |B|): where the sum cancels to 0 it
     * stays small while the relative error explodes. */
    struct check_result r;
    float c[1] = {1e-6f};
    double ref[1] = {0.0}, absref[1] = {100.0};
    check_init(&r);
    compare_values(c, ref, absref, 1, &r);
    ok(fabs(r.max_comp_err - 1e-8) < 1e-12 && r.max_rel_err > 9e-7, "compare: componentwise error scales by |A||B| (%g)", r.max_comp_err);

    /* The precision classes tell TF32 from FP32 at n = 1000 on wide inputs: an exact product
     * of TF32-rounded inputs fails the fp32 bound and passes the tf32 one; an FP32-accurate
     * result passes the fp32 bound. */
    const int n = 1000;
    float *A = malloc(sizeof *A * n * n), *B = malloc(sizeof *B * n * n), *C = malloc(sizeof *C * n * n);
    matgen_wide(A, n, n, n, &s);
    matgen_wide(B, n, n, n, &s);
    tf32_product(A, B, C, n);
    check_product(A, B, C, n, CHECK_SAMPLE, 0, &r);
    ok(!check_passes(&r, precision_bound(PRECISION_FP32, 0, n)),
       "classes: a TF32 result judged as fp32 fails at n = 1000, wide (%.3g > %.3g)", r.max_comp_err,
       precision_bound(PRECISION_FP32, 0, n));
    ok(check_passes(&r, precision_bound(PRECISION_TF32, 0, n)), "classes: ... and passes as tf32 (%.3g <= %.3g)",
       r.max_comp_err, precision_bound(PRECISION_TF32, 0, n));
    reference_product(A, B, C, n);
    check_product(A, B, C, n, CHECK_SAMPLE, 0, &r);
    ok(check_passes(&r, precision_bound(PRECISION_FP32, 0, n)) && r.max_comp_err <= ldexp(1.0, -24),
       "classes: the correctly rounded product passes as fp32 (%.3g)", r.max_comp_err);
    free(A);
    free(B);
    free(C);
}

/* NaN and Inf among the inputs: C must hold them where an FP32 GEMM would. */
static void test_nonfinite_inputs(void)
{
    const int n = 3;
    float a[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, b[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, c[9];
    a[0] = INFINITY; /* row 0: Inf * 1 = Inf in column 0, Inf * 0 = NaN in columns 1, 2 */
    a[4] = NAN;      /* row 1: NaN everywhere */
    ok(!all_finite(a, 9) && all_finite(b, 9), "all_finite: finds the Inf and the NaN");
    ok(max_abs(a, 9) == 9.0 && max_abs(b, 9) == 1.0, "max_abs: the largest finite magnitude");
    const float expect[9] = {INFINITY, NAN, NAN, NAN, NAN, NAN, 7, 8, 9};
    struct check_result r;
    memcpy(c, expect, sizeof c);
    check_product(a, b, c, n, CHECK_FULL, 0, &r);
    ok(r.nonfinite == 6 && r.expected_nonfinite == 6 && r.wrong_nonfinite == 0 && check_passes(&r, 1e-6),
       "nonfinite inputs: Inf and NaN where an FP32 GEMM puts them pass");
    c[0] = NAN;
    check_product(a, b, c, n, CHECK_FULL, 0, &r);
    ok(!check_passes(&r, 1e30), "nonfinite inputs: NaN where Inf is expected fails");
    memcpy(c, expect, sizeof c);
    c[0] = -INFINITY;
    check_product(a, b, c, n, CHECK_FULL, 0, &r);
    ok(!check_passes(&r, 1e30), "nonfinite inputs: an Inf of the wrong sign fails");
    memcpy(c, expect, sizeof c);
    c[0] = 1e30f;
    check_product(a, b, c, n, CHECK_FULL, 0, &r);
    ok(r.wrong_nonfinite == 1 && !check_passes(&r, 1e30), "nonfinite inputs: a finite value where Inf is expected fails");
    memcpy(c, expect, sizeof c);
    c[8] = INFINITY;
    check_product(a, b, c, n, CHECK_FULL, 0, &r);
    ok(!check_passes(&r, 1e30), "nonfinite inputs: an Inf where the result is finite fails");
    /* Overflow: finite inputs whose exact product is past FLT_MAX give Inf in FP32. */
    float big[1] = {1e30f}, cb[1] = {INFINITY};
    check_product(big, big, cb, 1, CHECK_FULL, 0, &r);
    ok(check_passes(&r, 1e-6), "overflow: Inf where the exact sum is past FLT_MAX passes");
    cb[0] = 3e38f;
    check_product(big, big, cb, 1, CHECK_FULL, 0, &r);
    ok(!check_passes(&r, 1e30), "overflow: a finite value there fails");
}

static void test_load_npy(void)
{
    const float m[6] = {1, 2, 3, 4, 5, -6.5f};
    const char *path = "obj/test_load.npy";
    float *got = NULL;
    int rows = 0, cols = 0;
    char err[256] = "";
    ok(save_npy(path, m, 2, 3) == 0 && load_npy(path, &got, &rows, &cols, err, sizeof err) == 0,
       "load_npy: reads what save_npy wrote (%s)", err);
    ok(rows == 2 && cols == 3 && got && memcmp(got, m, sizeof m) == 0, "load_npy: same shape, same values");
    free(got);
    /* A truncated copy: one line saying so. */
    FILE *in = fopen(path, "rb"), *out = fopen("obj/test_trunc.npy", "wb");
    unsigned char buf[512];
    size_t len = in ? fread(buf, 1, sizeof buf, in) : 0;
    if (out)
        fwrite(buf, 1, len - 3, out);
    if (in)
        fclose(in);
    if (out)
        fclose(out);
    ok(load_npy("obj/test_trunc.npy", &got, &rows, &cols, err, sizeof err) != 0 && strstr(err, "truncated") && !got,
       "load_npy: a truncated file is refused: %s", err);
    ok(load_npy("obj/no_such.npy", &got, &rows, &cols, err, sizeof err) != 0, "load_npy: a missing file: %s", err);
    out = fopen("obj/test_junk.npy", "wb");
    if (out) {
        fputs("not numpy at all", out);
        fclose(out);
    }
    ok(load_npy("obj/test_junk.npy", &got, &rows, &cols, err, sizeof err) != 0 && strstr(err, "not a .npy"),
       "load_npy: not a .npy file: %s", err);
    remove(path);
    remove("obj/test_trunc.npy");
    remove("obj/test_junk.npy");
}

/* A .npy file (format 1.0) of float32 in C order whose header says shape, holding count floats. */
static void write_npy_shape(const char *path, const char *shape, size_t count)
{
    char dict[256];
    int len = snprintf(dict, sizeof dict, "{'descr': '<f4', 'fortran_order': False, 'shape': %s, }", shape);
    size_t header = (size_t)len + 1;
    header += (64 - (10 + header) % 64) % 64;
    FILE *f = fopen(path, "wb");
    if (!f)
        return;
    const unsigned char head[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(header & 0xff),
                                    (unsigned char)(header >> 8)};
    fwrite(head, 1, sizeof head, f);
    fprintf(f, "%s%*s\n", dict, (int)(header - (size_t)len - 1), "");
    for (size_t i = 0; i < count; i++)
        fwrite(&(float){1.5f}, sizeof(float), 1, f);
    fclose(f);
}

/* The shape's message names what is wrong with it: a side past INT_MAX (or past a long) is too
 * large, named with the largest accepted; a side below 1 is no matrix; three sides are not 2-D. */
static void test_npy_shapes(void)
{
    static const struct { const char *shape; size_t count; int loads; const char *says; } cases[] = {
        {"(2, 3)", 6, 1, ""},
        {"(4294967297, 4294967297)", 4, 0, "shape (4294967297, 4294967297) is too large: the largest accepted is "
                                           "2147483647 rows by 2147483647 columns"},
        {"(2147483648, 1)", 4, 0, "shape (2147483648, 1) is too large"},
        {"(1, 99999999999999999999999999999999999999)", 4, 0, "is too large: the largest accepted is 2147483647"},
        {"(2147483647, 2147483647)", 4, 0, "truncated: shape (2147483647, 2147483647) needs"},
        {"(0, 5)", 0, 0, "shape (0, 5): a matrix needs at least one row and one column"},
        {"(5, -1)", 0, 0, "shape (5, -1): a matrix needs at least one row and one column"},
        {"(2, 3, 4)", 24, 0, "expected a 2-D matrix"},
        {"(5,)", 5, 0, "expected a 2-D matrix"},
    };
    const char *path = "obj/test_shape.npy";
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        float *got = NULL;
        int rows = 0, cols = 0;
        char err[256] = "";
        write_npy_shape(path, cases[i].shape, cases[i].count);
        const int loaded = load_npy(path, &got, &rows, &cols, err, sizeof err) == 0;
        ok(loaded == cases[i].loads && (loaded || (strstr(err, cases[i].says) && !got)), "load_npy: shape %s: %s",
           cases[i].shape, loaded ? "loaded" : err);
        free(got);
    }
    remove(path);
}

static void test_npy(void)
{
    const float m[6] = {1, 2, 3, 4, 5, 6.5f};
    const char *path = "obj/test_save.npy";
    ok(save_npy(path, m, 2, 3) == 0, "save_npy: writes %s", path);
    FILE *f = fopen(path, "rb");
    unsigned char buf[256];
    size_t got = f ? fread(buf, 1, sizeof buf, f) : 0;
    if (f)
        fclose(f);
    ok(got >= 10 && memcmp(buf, "\x93NUMPY\x01\x00", 8) == 0, "save_npy: magic and version 1.0");
    size_t hlen = got >= 10 ? buf[8] | (buf[9] << 8) : 0;
    ok((10 + hlen) % 64 == 0 && buf[10 + hlen - 1] == '\n', "save_npy: header padded to 64 bytes, ends in a newline");
    char header[200] = {0};
    memcpy(header, buf + 10, hlen < sizeof header - 1 ? hlen : sizeof header - 1);
    ok(strstr(header, "'descr': '<f4'") && strstr(header, "'fortran_order': False") && strstr(header, "'shape': (2, 3)"),
       "save_npy: float32, row-major, shape (2, 3)");
    ok(got == 10 + hlen + sizeof m && memcmp(buf + 10 + hlen, m, sizeof m) == 0, "save_npy: the data follows, unchanged");
    ok(save_npy("obj/no/such/dir/x.npy", m, 2, 3) != 0, "save_npy: reports a path it cannot write");
    remove(path);
}

static void test_parse(void)
{
    long v = 0;
    ok(parse_long("1000", 1, 100000, &v) == 0 && v == 1000, "parse_long: 1000");
    ok(parse_long("12x", 1, 100000, &v) != 0, "parse_long: rejects trailing junk '12x'");
    ok(parse_long("", 1, 100000, &v) != 0, "parse_long: rejects an empty string");
    ok(parse_long("0", 1, 100000, &v) != 0, "parse_long: rejects 0 when the minimum is 1");
    ok(parse_long("-3", 1, 100000, &v) != 0, "parse_long: rejects -3");
    ok(parse_long("+3", 1, 100000, &v) != 0, "parse_long: rejects a sign");
    ok(parse_long(" 3", 1, 100000, &v) != 0, "parse_long: rejects leading space");
    ok(parse_long("abc", 1, 100000, &v) != 0, "parse_long: rejects words");
    ok(parse_long("1e3", 1, 100000, &v) != 0, "parse_long: rejects '1e3'");
    ok(parse_long("99999999999999999999999", 1, 100000, &v) != 0, "parse_long: rejects overflow");
    ok(parse_long("100001", 1, 100000, &v) != 0, "parse_long: rejects above the maximum");
    /* What check_long says is wrong: too large only for a whole number past the maximum. */
    ok(check_long("2147483647", 1, INT_MAX, &v) == NUMBER_OK && v == INT_MAX, "check_long: INT_MAX is accepted");
    ok(check_long("2147483648", 1, INT_MAX, &v) == NUMBER_TOO_LARGE, "check_long: INT_MAX + 1 is too large");
    ok(check_long("3000000000", 1, INT_MAX, &v) == NUMBER_TOO_LARGE, "check_long: 3000000000 is too large");
    ok(check_long("99999999999999999999999", 1, INT_MAX, &v) == NUMBER_TOO_LARGE,
       "check_long: a number past a long is too large");
    ok(check_long("9223372036854775807", 0, LONG_MAX, &v) == NUMBER_OK && v == LONG_MAX, "check_long: LONG_MAX");
    ok(check_long("9223372036854775808", 0, LONG_MAX, &v) == NUMBER_TOO_LARGE, "check_long: LONG_MAX + 1 is too large");
    ok(check_long("1000001", 1, 1000000, &v) == NUMBER_TOO_LARGE, "check_long: above a small maximum is too large");
    ok(check_long("0", 1, INT_MAX, &v) == NUMBER_NOT_EXPECTED, "check_long: 0 below the minimum is not too large");
    ok(check_long("-99999999999999999999", 1, INT_MAX, &v) == NUMBER_NOT_EXPECTED,
       "check_long: a large negative number is not too large");
    ok(check_long("3000000000x", 1, INT_MAX, &v) == NUMBER_NOT_EXPECTED, "check_long: trailing junk is not too large");
    ok(check_long("+3000000000", 1, INT_MAX, &v) == NUMBER_NOT_EXPECTED, "check_long: a sign is refused as before");
    ok(check_long("", 1, INT_MAX, &v) == NUMBER_NOT_EXPECTED, "check_long: an empty string");
}

static void test_timing(void)
{
    double odd[5] = {5, 1, 4, 2, 3}, even[4] = {4, 1, 3, 2};
    ok(median_of(odd, 5) == 3.0, "median_of: odd count");
    ok(median_of(even, 4) == 2.5, "median_of: even count");
    double t0 = wall_ms(), t1 = wall_ms();
    ok(t1 >= t0 && t0 > 0, "wall_ms: monotonic");
}

/* A program's exact compute capability comes from what its build holds (STEP_ARCHS): the step's
 * own architecture (its folder's STEP_ARCH := sm_90a), or machine code of one architecture with no
 * PTX beside it; a fat binary, or one with PTX, runs on any GPU the build covers. */
static void test_archs_exact_cc(void)
{
    ok(archs_exact_cc("sm_90a") == 90, "archs_exact_cc: sm_90a alone is 9.0 exactly");
    ok(archs_exact_cc("sm_80 sm_90a") == 90, "archs_exact_cc: an sm_90a target among others decides");
    ok(archs_exact_cc("compute_100a") == 100, "archs_exact_cc: compute_100a (PTX of an arch-specific target) too");
    ok(archs_exact_cc("sm_75 sm_80 sm_90 sm_100 sm_120 compute_120") == 0, "archs_exact_cc: the fat binary, none");
    ok(archs_exact_cc("sm_90 compute_90") == 0, "archs_exact_cc: -arch=sm_90 (machine code and PTX), none");
    ok(archs_exact_cc("sm_90") == 90, "archs_exact_cc: machine code of one architecture without PTX (GEMMul8's)");
    ok(archs_exact_cc("sm_80 sm_90") == 0, "archs_exact_cc: machine code of two architectures, none");
    ok(archs_exact_cc("not recorded (built without the Makefile)") == 0 && archs_exact_cc("") == 0,
       "archs_exact_cc: a program built without the Makefile, or nothing said, none");
}

/* The ends of FP32's range (--dist): every value where common/matrix.h says, finite; C's
 * scale (|A| |B|) still in FP32's normal range, where FP32 keeps 24 bits; uniform and wide
 * drawn exactly as before (the recorded results depend on it). */
static void test_range_dists(void)
{
    enum { N = 64 };
    float a[N * N], b[N * N], ref_a[N * N], ref_b[N * N];
    /* [lowest, highest] magnitude of A's and B's nonzero values, as powers of two */
    static const struct { enum input_dist dist; int a_lo, a_hi, b_lo, b_hi; } want[] = {
        {DIST_SUBNORMAL, -161, -130, -11, 20}, {DIST_TINY, -126, -125, -8, 9},
        {DIST_ROWSCALE, -149, -71, 52, 109},  {DIST_MIXED, -60, 21, -20, 61},
        {DIST_HUGE, 126, 128, -70, -59},
    };
    for (size_t w = 0; w < sizeof want / sizeof *want; w++) {
        uint64_t s = 5;
        matgen_dist(want[w].dist, 'A', a, N, N, N, &s);
        matgen_dist(want[w].dist, 'B', b, N, N, N, &s);
        int in_range = 1, subnormal = 0;
        for (int i = 0; i < N * N; i++) {
            const float x = fabsf(a[i]), y = fabsf(b[i]);
            in_range &= isfinite(x) && isfinite(y);
            in_range &= x == 0 || (x >= ldexpf(1, want[w].a_lo) && x < ldexpf(1, want[w].a_hi));
            in_range &= y == 0 || (y >= ldexpf(1, want[w].b_lo) && y < ldexpf(1, want[w].b_hi));
            subnormal += x > 0 && x < 0x1p-126f;
        }
        double smallest = INFINITY;
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++) {
                double sum = 0; /* (|A| |B|)_ij, exact enough in double */
                for (int k = 0; k < N; k++)
                    sum += fabs((double)a[i * N + k]) * fabs((double)b[k * N + j]);
                smallest = fmin(smallest, sum);
            }
        ok(in_range, "--dist %s: A in [2^%d, 2^%d), B in [2^%d, 2^%d), finite", dist_name(want[w].dist), want[w].a_lo,
           want[w].a_hi, want[w].b_lo, want[w].b_hi);
        ok(smallest >= 0x1p-126, "--dist %s: the smallest (|A| |B|)_ij, %g, is a normal float",
           dist_name(want[w].dist), smallest);
        if (want[w].dist == DIST_SUBNORMAL || want[w].dist == DIST_ROWSCALE)
            ok(subnormal > 0, "--dist %s: A holds FP32 subnormals (%d)", dist_name(want[w].dist), subnormal);
    }
    uint64_t s1 = 9, s2 = 9;
    matgen_dist(DIST_UNIFORM, 'A', a, N, N, N, &s1);
    matgen_dist(DIST_WIDE, 'B', b, N, N, N, &s1);
    matgen_rect(ref_a, N, N, N, &s2);
    matgen_wide(ref_b, N, N, N, &s2);
    ok(memcmp(a, ref_a, sizeof a) == 0 && memcmp(b, ref_b, sizeof b) == 0,
       "--dist uniform and wide: the same values as matgen_rect and matgen_wide");
}

/* The generators make their rows in parallel (OpenMP), each from its own point of the random
 * sequence: the values must be the ones the row-by-row loop gave, on any number of threads (the
 * recorded results depend on them). Fingerprints (FNV-1a of the bytes) of a 37 x 53 A and a 53 x 37
 * B, seed 11, and the state left after both, as the serial generator made them. */
static uint64_t fnv1a(const void *p, size_t n)
{
    const unsigned char *c = p;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ c[i]) * 1099511628211ull;
    return h;
}

static void test_parallel_generation(void)
{
    enum { R = 37, C = 53 };
    float a[R * C], b[C * R]; /* every element written by each generation */
    static const struct { const char *dist; uint64_t a, b, state; } serial[] = {
        {"uniform", 0xf65456d5524c3635ull, 0x8b9bcf4e851ea651ull, 0xdbcdb7c04641f37full},
        {"wide", 0x2655635d4ccfe569ull, 0x863feacfee776969ull, 0xdbcdb7c04641f37full},
        {"subnormal", 0x54f20bd3dc997129ull, 0x3339e531a3fe86e9ull, 0xdbcdb7c04641f37full},
        {"tiny", 0x899659c4ba45212dull, 0x863feacfee776969ull, 0xdbcdb7c04641f37full},
        {"rowscale", 0x9afb71fe42973819ull, 0x89a2ae698939c94cull, 0x97d6e75f11c9d191ull},
        {"mixed", 0x3fdca04041555467ull, 0x13262fbf67844e47ull, 0xc9b493a06962ed39ull},
        {"huge", 0x3e859db641280189ull, 0x129aed2e687450e2ull, 0xc9b493a06962ed39ull},
    };
    for (int threads = 1; threads <= 5; threads += 4) {
#ifdef _OPENMP
        omp_set_num_threads(threads);
#endif
        for (int d = 0; d < DIST_COUNT; d++) {
            uint64_t s = 11;
            matgen_dist((enum input_dist)d, 'A', a, C, R, C, &s);
            matgen_dist((enum input_dist)d, 'B', b, R, C, R, &s);
            ok(strcmp(serial[d].dist, dist_name((enum input_dist)d)) == 0 && fnv1a(a, sizeof a) == serial[d].a &&
                   fnv1a(b, sizeof b) == serial[d].b && s == serial[d].state,
               "--dist %s on %d thread%s: the serial generator's values and final state", serial[d].dist, threads,
               threads > 1 ? "s" : "");
        }
    }
}


/* ---- FP64 (matrix.h): the families, the double-double reference, the class, .npy ---- */

/* Each family in FP64's range, every value finite, (|A| |B|)_ij normal, and a reference from
 * 53-bit significands: the low bits of A's values are not all zero (they would be in FP32 data). */
static void test_range_dists64(void)
{
    enum { N = 48 };
    double *a = malloc(sizeof *a * N * N), *b = malloc(sizeof *b * N * N), hi[N], lo[N], abs_row[N];
    static const struct { enum input_dist dist; int a_lo, a_hi, b_lo, b_hi; } want[] = {
        {DIST_UNIFORM, -1074, 0, -1074, 0},       {DIST_WIDE, -8, 9, -8, 9},
        {DIST_SUBNORMAL, -1074, -1030, 40, 100},  {DIST_TINY, -1022, -1021, -8, 9},
        {DIST_ROWSCALE, -1074, -991, 892, 1009},  {DIST_MIXED, -150, 51, -50, 151},
        {DIST_HUGE, 1022, 1024, -70, -59},
    };
    for (size_t w = 0; w < sizeof want / sizeof *want; w++) {
        uint64_t s = 5;
        matgen_dist64(want[w].dist, 'A', a, N, N, N, &s);
        matgen_dist64(want[w].dist, 'B', b, N, N, N, &s);
        int in_range = 1, subnormal = 0, low_bits = 0;
        for (int i = 0; i < N * N; i++) {
            const double x = fabs(a[i]), y = fabs(b[i]);
            in_range &= isfinite(x) && isfinite(y);
            in_range &= x == 0 || (x >= ldexp(1, want[w].a_lo) && (want[w].a_hi == 1024 || x < ldexp(1, want[w].a_hi)));
            in_range &= y == 0 || (y >= ldexp(1, want[w].b_lo) && y < ldexp(1, want[w].b_hi));
            subnormal += x > 0 && x < 0x1p-1022;
            int e;
            low_bits += x > 0x1p-1022 && ((uint64_t)ldexp(frexp(x, &e), 53) & 0x1fffffff) != 0; /* past 24 bits */
        }
        double smallest = INFINITY, largest = 0;
        for (int i = 0; i < N; i++) {
            reference_row64(a, b, N, i, hi, lo, abs_row);
            for (int j = 0; j < N; j++)
                smallest = fmin(smallest, abs_row[j]), largest = fmax(largest, abs_row[j]);
        }
        ok(in_range, "FP64 --dist %s: A in [2^%d, 2^%d), B in [2^%d, 2^%d), finite", dist_name(want[w].dist),
           want[w].a_lo, want[w].a_hi, want[w].b_lo, want[w].b_hi);
        ok(smallest >= 0x1p-1022 && largest < 0x1p+1023, "FP64 --dist %s: every (|A| |B|)_ij normal (%g ... %g)",
           dist_name(want[w].dist), smallest, largest);
        if (want[w].dist == DIST_SUBNORMAL || want[w].dist == DIST_ROWSCALE)
            ok(subnormal > 0, "FP64 --dist %s: A holds FP64 subnormals (%d)", dist_name(want[w].dist), subnormal);
        if (want[w].dist != DIST_SUBNORMAL && want[w].dist != DIST_ROWSCALE)
            ok(low_bits > N * N / 2, "FP64 --dist %s: values past FP32's 24 bits (%d of %d)", dist_name(want[w].dist),
               low_bits, N * N);
    }
    uint64_t s1 = 7, s2 = 7;
    matgen_dist64(DIST_MIXED, 'A', a, N, N, N, &s1);
    matgen_dist64(DIST_MIXED, 'A', b, N, N, N, &s2);
    ok(memcmp(a, b, sizeof *a * N * N) == 0 && s1 == s2, "FP64 families: the same seed, the same matrix and state");
    free(a);
    free(b);
}

/* The double-double reference where a double sum is wrong: cancellation and a product's low half. */
static void test_reference64(void)
{
    /* 2^60 + 1 - 2^60: a double sum gives 0, the exact sum is 1 */
    const double a1[9] = {0x1p60, 1.0, -0x1p60}, b1[9] = {1, 0, 0, 1, 0, 0, 1, 0, 0};
    double hi[3], lo[3], abs_row[3];
    reference_row64(a1, b1, 3, 0, hi, lo, abs_row);
    ok(hi[0] == 1.0 && lo[0] == 0.0 && abs_row[0] == 0x1p61 + 1, "reference64: 2^60 + 1 - 2^60 = 1 exactly (a plain "
       "double sum says %g)", (0x1p60 + 1.0) - 0x1p60);
    /* (1 + 2^-52)^2 = 1 + 2^-51 + 2^-104: the last term is the product's rounding error */
    const double x = 1.0 + 0x1p-52, a2[1] = {x}, b2[1] = {x};
    reference_row64(a2, b2, 1, 0, hi, lo, abs_row);
    ok(hi[0] == 1.0 + 0x1p-51 && lo[0] == 0x1p-104, "reference64: (1 + 2^-52)^2 kept as 1 + 2^-51 and 2^-104");
    /* NaN and Inf as a plain FP64 sum gives them */
    const double a3[4] = {INFINITY, 1.0, NAN, 1.0}, b3[4] = {1.0, 1.0, 1.0, 1.0};
    reference_row64(a3, b3, 2, 0, hi, lo, abs_row);
    ok(isinf(hi[0]) && hi[0] > 0, "reference64: Inf in A's row gives +Inf, as a plain sum does (not NaN)");
    reference_row64(a3, b3, 2, 1, hi, lo, abs_row);
    ok(isnan(hi[0]), "reference64: NaN in A's row gives NaN");
}

static void test_check64(void)
{
    enum { N = 40 };
    double a[N * N], b[N * N], c[N * N];
    uint64_t s = 3;
    matgen_dist64(DIST_WIDE, 'A', a, N, N, N, &s);
    matgen_dist64(DIST_WIDE, 'B', b, N, N, N, &s);
    double hi[N], lo[N], abs_row[N];
    for (int i = 0; i < N; i++) {
        reference_row64(a, b, N, i, hi, lo, abs_row);
        for (int j = 0; j < N; j++)
            c[i * N + j] = hi[j];
    }
    const double bound = precision_bound(PRECISION_FP64, 0, N);
    struct check_result r;
    check_product64(a, b, c, N, CHECK_FULL, 1, &r);
    ok(check_passes(&r, bound) && r.max_comp_err < 0x1p-53 && r.compared == (size_t)N * N,
       "check64: the reference rounded to double passes, error %g below u64", r.max_comp_err);
    /* a plain FP64 loop, k-j order: within gamma(k) */
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            double sum = 0;
            for (int k = 0; k < N; k++)
                sum += a[i * N + k] * b[k * N + j];
            c[i * N + j] = sum;
        }
    check_product64(a, b, c, N, CHECK_FULL, 1, &r);
    ok(check_passes(&r, bound), "check64: a plain FP64 loop passes the fp64 bound (%g <= %g)", r.max_comp_err, bound);
    /* the same loop in FP32: far outside */
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            float sum = 0;
            for (int k = 0; k < N; k++)
                sum += (float)a[i * N + k] * (float)b[k * N + j];
            c[i * N + j] = sum;
        }
    check_product64(a, b, c, N, CHECK_FULL, 1, &r);
    ok(!check_passes(&r, bound) && r.max_comp_err > 1e-9, "check64: an FP32 loop fails the fp64 bound (%g)",
       r.max_comp_err);
    /* one element one bound off: a FAIL */
    check_product64(a, b, c, N, CHECK_FULL, 1, &r);
    for (int i = 0; i < N; i++) {
        reference_row64(a, b, N, i, hi, lo, abs_row);
        for (int j = 0; j < N; j++)
            c[i * N + j] = hi[j];
        if (i == 7)
            c[i * N + 5] = hi[5] + 2.0 * bound * abs_row[5];
    }
    check_product64(a, b, c, N, CHECK_FULL, 1, &r);
    ok(!check_passes(&r, bound) && r.max_comp_err > 1.5 * bound && r.max_comp_err < 2.5 * bound,
       "check64: one element 2 gamma(k) |A||B| off fails (%g)", r.max_comp_err);
    memset(c + 3 * N, POISON_BYTE, sizeof *c);
    check_product64(a, b, c, N, CHECK_SAMPLE, 1, &r);
    ok(r.unwritten == 1 && r.first_bad == 3 * N && !check_passes(&r, bound), "check64: the poison pattern is "
       "counted unwritten");
    ok(precision_bound(PRECISION_FP64, 0, 1000) > 1.1102e-13 && precision_bound(PRECISION_FP64, 0, 1000) < 1.1103e-13 &&
           strcmp(precision_name(PRECISION_FP64), "fp64") == 0,
       "the fp64 class: gamma(1000) = %.4g with u64 = 2^-53", precision_bound(PRECISION_FP64, 0, 1000));
}

static void test_npy64(void)
{
    const double m[6] = {1.0 + 0x1p-52, -0x1p-1074, 0x1p1023, 3.0, NAN, -0.0};
    const char *path = "obj/test_save64.npy";
    ok(save_npy_as(path, m, 2, 3, ELEMENT_FP64) == 0, "save_npy_as: float64 written");
    void *back = NULL;
    int rows = 0, cols = 0;
    char err[256] = "";
    const int got = load_npy_as(path, &back, &rows, &cols, ELEMENT_FP64, err, sizeof err);
    ok(got == 0 && rows == 2 && cols == 3 && memcmp(back, m, sizeof m) == 0,
       "load_npy_as: float64 back bit for bit (subnormal, DBL_MAX's binade, NaN, -0) %s", err);
    free(back);
    ok(load_npy_as(path, &back, &rows, &cols, ELEMENT_FP32, err, sizeof err) != 0 && strstr(err, "'<f8'") &&
           strstr(err, "float32"), "load_npy_as: float64 data where float32 is wanted refused: %s", err);
    const float f[2] = {1, 2};
    ok(save_npy(path, f, 1, 2) == 0 && load_npy_as(path, &back, &rows, &cols, ELEMENT_FP64, err, sizeof err) != 0 &&
           strstr(err, "np.float64"), "load_npy_as: float32 data where float64 is wanted refused: %s", err);
    remove(path);
}

/* A row's conditions (common/conditions.c): without NVML (this machine's driver, if any, is not
 * asked: a library that does not exist stands for it) every NVML column is empty and nothing
 * fails; with the stand-in tests/fake_libnvidia_ml.c (tests/01-harness.t builds it and names it in
 * HARNESS_FAKE_NVML) each column holds what the library says, the clock the mean of its readings. */
static void test_conditions(void)
{
    static const char *const names[] = {"sm_clock_mhz", "power_limit_w", "driver_version", "cuda_runtime_version",
                                        "cublas_version"};
    char header[] = CONDITIONS_CSV_HEADER, *word = strtok(header, ",");
    int at = 0, in_order = 1;
    for (; word; word = strtok(NULL, ","), at++)
        in_order &= at < 5 && strcmp(word, names[at]) == 0;
    ok(in_order && at == 5, "conditions: the CSV header's columns, in order: %s", CONDITIONS_CSV_HEADER);

    struct nvml nvml;
    char csv[512];
    ok(nvml_open(&nvml, "obj/test/no-such-libnvidia-ml.so.1") != 0 && !nvml.library,
       "conditions: a missing NVML is no error: nvml_open says so and leaves nvml empty");
    void *device = nvml_device(&nvml, "GPU-00000000-1111-2222-3333-444444444444");
    struct sm_clock clock = {.nvml = &nvml, .device = device};
    for (int i = 0; i < 3; i++)
        sm_clock_read(&clock);
    struct run_conditions c;
    conditions_read(&c, &nvml, &device, &clock, 1, 13000);
    conditions_csv(&c, csv, sizeof csv);
    ok(!device && clock.readings == 0 && strcmp(csv, ",,,13.0,") == 0,
       "conditions: without NVML the clock, power limit and driver are empty, the runtime's version is there, "
       "and cuBLAS's is empty in a program that does not link it: '%s'", csv);
    conditions_read(&c, &nvml, &device, &clock, 1, 0);
    conditions_csv(&c, csv, sizeof csv);
    ok(strcmp(csv, ",,,,") == 0, "conditions: and the runtime's too where it is unknown: '%s'", csv);
    nvml_close(&nvml);

    const struct sm_clock two[2] = {{.sum_mhz = 3000.0, .readings = 2}, {.sum_mhz = 1800.0, .readings = 1}};
    ok(sm_clock_mean_mhz(two, 2) == 1600.0 && sm_clock_mean_mhz(two, 0) == 0.0,
       "conditions: the clock is the mean of every reading of every GPU (%g MHz), 0 with none",
       sm_clock_mean_mhz(two, 2));

    const char *fake = getenv("HARNESS_FAKE_NVML");
    if (!fake || !*fake) {
        ok(1, "conditions: with NVML # SKIP no stand-in NVML built (tests/01-harness.t builds it with cc)");
        return;
    }
    ok(nvml_open(&nvml, fake) == 0 && nvml.library, "conditions: the stand-in NVML %s is loaded", fake);
    void *cards[2] = {nvml_device(&nvml, "GPU-00000000-1111-2222-3333-444444444444"),
                      nvml_device(&nvml, "GPU-55555555-6666-7777-8888-999999999999")};
    ok(cards[0] && cards[1] && cards[0] != cards[1] && !nvml_device(&nvml, "GPU-ffffffff-0000-0000-0000-000000000000"),
       "conditions: each GPU is found by its UUID, an unknown one not");
    struct sm_clock clocks[2] = {{.nvml = &nvml, .device = cards[0]}, {.nvml = &nvml, .device = cards[1]}};
    for (int i = 0; i < 3; i++)
        sm_clock_read(&clocks[0]);
    conditions_read(&c, &nvml, cards, clocks, 1, 13000);
    conditions_csv(&c, csv, sizeof csv);
    ok(clocks[0].readings == 3 && strcmp(csv, "1755,700,999.12.34,13.0,") == 0,
       "conditions: with NVML, one reading per call, the clock's mean in MHz, the power limit in W, the driver's "
       "version: '%s'", csv);
    sm_clock_read(&clocks[1]);
    conditions_read(&c, &nvml, cards, clocks, 2, 13000);
    conditions_csv(&c, csv, sizeof csv);
    ok(strcmp(csv, "1669,700 650,999.12.34,13.0,") == 0,
       "conditions: over two GPUs, the mean of all four readings and each GPU's power limit where they differ: '%s'",
       csv);
    void *lost[1] = {NULL};
    struct sm_clock none = {.nvml = &nvml, .device = NULL};
    sm_clock_read(&none);
    conditions_read(&c, &nvml, lost, &none, 1, 13000);
    conditions_csv(&c, csv, sizeof csv);
    ok(none.readings == 0 && strcmp(csv, ",,999.12.34,13.0,") == 0,
       "conditions: a GPU NVML cannot find has no clock and no power limit; the driver is still known: '%s'", csv);
    nvml_close(&nvml);
    ok(!nvml.library, "conditions: nvml_close leaves nvml empty");

    setenv("FAKE_NVML_INIT_FAILS", "1", 1);
    ok(nvml_open(&nvml, fake) != 0 && !nvml.library, "conditions: an NVML that fails to start is as good as none");
    unsetenv("FAKE_NVML_INIT_FAILS");
}

int main(void)
{
    test_matgen();
    test_compare();
    test_check_product();
    test_precision_bound();
    test_wide_and_classes();
    test_range_dists();
    test_parallel_generation();
    test_nonfinite_inputs();
    test_npy();
    test_load_npy();
    test_npy_shapes();
    test_parse();
    test_timing();
    test_archs_exact_cc();
    test_range_dists64();
    test_reference64();
    test_check64();
    test_npy64();
    test_conditions();
    return done_testing();
}
