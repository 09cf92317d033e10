/* Unit tests of common/: generator, reference, comparison, .npy, parsing, timing.
 * TAP output, run by prove through tests/01-harness.t. No GPU needed. */
#include "tap.h"
#include "args.h"
#include "matrix.h"
#include "timing.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void test_matgen(void)
{
    enum { N = 37, LDA = 41 };
    static float a[N * LDA], b[N * LDA];
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
    compare_values(c, ref, 4, &r);
    ok(r.max_rel_err == 0.0 && r.sum_rel_err == 0.0 && r.compared == 4, "compare: equal values, zero error");

    c[2] = 3.3f;
    check_init(&r);
    compare_values(c, ref, 4, &r);
    ok(fabs(r.max_rel_err - 0.1) < 1e-6, "compare: relative error of 3.3 against 3 is 0.1 (got %g)", r.max_rel_err);
    ok(fabs(r.sum_rel_err / r.compared - 0.025) < 1e-6, "compare: average over the elements");
    ok(!check_passes(&r, 1e-6) && check_passes(&r, 0.2), "compare: tolerance decides pass or fail");

    float cz[2] = {0.0f, 0.5f};
    double rz[2] = {0.0, 0.0};
    check_init(&r);
    compare_values(cz, rz, 2, &r);
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
        reference_row(a, b, n, i, row);
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
    reference_row(a, b, n, 3, row);
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

static void test_tolerance(void)
{
    ok(step_tolerance(1, 1) == KAHAN_TOLERANCE && step_tolerance(1, 100000) == KAHAN_TOLERANCE,
       "tolerance: Kahan steps 2.5e-7 at every n");
    double t1000 = step_tolerance(0, 1000);
    ok(t1000 > 5.9e-5 && t1000 < 6.0e-5, "tolerance: plain sum at n = 1000 is gamma(1001) = %.3g", t1000);
    ok(step_tolerance(0, 4096) > 4 * step_tolerance(0, 1000), "tolerance: plain sum grows with n");
    ok(step_tolerance(0, 1) >= ldexp(1.0, -23), "tolerance: n = 1 allows one rounding");
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
}

static void test_timing(void)
{
    double odd[5] = {5, 1, 4, 2, 3}, even[4] = {4, 1, 3, 2};
    ok(median_of(odd, 5) == 3.0, "median_of: odd count");
    ok(median_of(even, 4) == 2.5, "median_of: even count");
    double t0 = wall_ms(), t1 = wall_ms();
    ok(t1 >= t0 && t0 > 0, "wall_ms: monotonic");
}

int main(void)
{
    test_matgen();
    test_compare();
    test_check_product();
    test_tolerance();
    test_npy();
    test_parse();
    test_timing();
    return done_testing();
}
