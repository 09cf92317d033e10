/* Checking a product: the poison outputs are filled with first (so that an unwritten element
 * shows), the double-precision reference, the comparison with it (relative and componentwise
 * errors, NaN and Inf) and the precision classes. */
#include "matrix.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void poison_mat(float *c, size_t count)
{
    memset(c, POISON_BYTE, sizeof *c * count);
}

int is_poison(float x)
{
    uint32_t bits;
    memcpy(&bits, &x, sizeof bits);
    return bits == POISON_BITS;
}

void reference_row(const float *a, const float *b, int n, int row, double *out, double *abs_out)
{
    /* i-k-j order: the inner loop walks a row of B and of out contiguously, so it
     * vectorises; the j-inner dot-product order would stride through B. */
    const float *arow = a + (size_t)row * n;
    for (int j = 0; j < n; j++)
        out[j] = 0.0;
    for (int k = 0; k < n; k++) {
        const double aik = arow[k];
        const float *brow = b + (size_t)k * n;
        for (int j = 0; j < n; j++)
            out[j] += aik * (double)brow[j];
    }
    if (!abs_out)
        return;
    for (int j = 0; j < n; j++)
        abs_out[j] = 0.0;
    for (int k = 0; k < n; k++) {
        const double aik = fabs((double)arow[k]);
        const float *brow = b + (size_t)k * n;
        for (int j = 0; j < n; j++)
            abs_out[j] += aik * fabs((double)brow[j]);
    }
}

/* reference_row for several rows at once (rows[0 ... count - 1], count <= REFERENCE_ROWS): the
 * sums of each element in the same order, k = 0 ... n - 1, so the same values bit for bit, but
 * each row of B is read from memory once for all of them instead of once per row and per sum
 * (a row's two sums read B twice): the full check at n = 4096 reads B 1024 times, not 8192. Each
 * product of two floats is exact in double, so the multiply-add that a compiler may fuse gives the
 * same sum. out and abs_out: count rows of n each. */
#define REFERENCE_ROWS 8
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
/* The loop vectorised for the CPU it runs on (chosen when the program starts): the harness is built
 * for any x86-64, whose baseline vectors hold two doubles; AVX2 holds four and AVX-512 eight. */
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
static void reference_rows(const float *a, const float *b, int n, const int *rows, int count, double *out,
                           double *abs_out)
{
    double aik[REFERENCE_ROWS];
    for (size_t j = 0; j < (size_t)count * n; j++)
        out[j] = abs_out[j] = 0.0;
    for (int k = 0; k < n; k++) {
        const float *brow = b + (size_t)k * n;
        for (int r = 0; r < count; r++)
            aik[r] = a[(size_t)rows[r] * n + k];
        for (int r = 0; r < count; r++) {
            double *o = out + (size_t)r * n, *o_abs = abs_out + (size_t)r * n;
            const double x = aik[r], x_abs = fabs(aik[r]);
            for (int j = 0; j < n; j++) {
                const double y = (double)brow[j];
                o[j] += x * y;
                o_abs[j] += x_abs * fabs(y);
            }
        }
    }
}

void check_init(struct check_result *r)
{
    memset(r, 0, sizeof *r);
    r->first_bad = -1;
}

void compare_values(const float *c, const double *ref, const double *abs_ref, size_t count,
                    struct check_result *r)
{
    for (size_t j = 0; j < count; j++) {
        if (is_poison(c[j]))
            continue; /* the scan counts it */
        /* What an FP32 GEMM gives here: NaN, an Inf (also where the double sum is past
         * what a float holds), or a finite value. */
        const float expected = (float)ref[j];
        if (!isfinite(expected)) {
            const int same = isnan(expected) ? isnan(c[j]) : c[j] == expected;
            if (same)
                r->expected_nonfinite++;
            else if (isfinite(c[j]))
                r->wrong_nonfinite++; /* (a non-finite C where another one is expected: the scan counted it) */
            continue;
        }
        double rel, comp;
        if (!isfinite(c[j])) {
            rel = comp = INFINITY; /* never skipped: the maximum */
        } else {
            const double diff = fabs((double)c[j] - ref[j]);
            const double scale = abs_ref ? abs_ref[j] : fabs(ref[j]);
            rel = ref[j] != 0.0 ? diff / fabs(ref[j]) : diff;
            comp = scale != 0.0 ? diff / scale : diff;
        }
        if (!(rel <= r->max_rel_err))
            r->max_rel_err = rel;
        if (!(comp <= r->max_comp_err))
            r->max_comp_err = comp;
        r->sum_rel_err += rel;
        r->sum_comp_err += comp;
        r->compared++;
    }
}

/* Add row to total: counts, sums and maxima. */
static void add_result(struct check_result *total, const struct check_result *row)
{
    total->compared += row->compared;
    total->sum_rel_err += row->sum_rel_err;
    total->sum_comp_err += row->sum_comp_err;
    if (!(row->max_rel_err <= total->max_rel_err))
        total->max_rel_err = row->max_rel_err;
    if (!(row->max_comp_err <= total->max_comp_err))
        total->max_comp_err = row->max_comp_err;
    total->expected_nonfinite += row->expected_nonfinite;
    total->wrong_nonfinite += row->wrong_nonfinite;
}

void scan_nonfinite(const float *c, size_t count, struct check_result *r)
{
    for (size_t i = 0; i < count; i++) {
        int bad = 0;
        if (is_poison(c[i])) {
            r->unwritten++;
            bad = 1;
        } else if (!isfinite(c[i])) {
            r->nonfinite++;
            bad = 1;
        }
        if (bad && r->first_bad < 0)
            r->first_bad = (long)i;
    }
}

void compare_mat(const float *c, size_t ldc, const double *ref, size_t ldref, int n,
                 struct check_result *r)
{
    for (int i = 0; i < n; i++) {
        struct check_result row;
        check_init(&row);
        scan_nonfinite(c + (size_t)i * ldc, (size_t)n, &row);
        compare_values(c + (size_t)i * ldc, ref + (size_t)i * ldref, NULL, (size_t)n, &row);
        if (row.first_bad >= 0 && r->first_bad < 0)
            r->first_bad = (long)((size_t)i * n + row.first_bad);
        r->nonfinite += row.nonfinite;
        r->unwritten += row.unwritten;
        add_result(r, &row);
    }
    r->rows_checked += (size_t)n;
}

static int cmp_int(const void *x, const void *y)
{
    int a = *(const int *)x, b = *(const int *)y;
    return (a > b) - (a < b);
}

/* Rows to compare: all of them, or the first, the last and random others. */
static int choose_rows(int n, enum check_mode mode, uint64_t seed, int *rows)
{
    if (mode == CHECK_NONE)
        return 0;
    if (mode == CHECK_FULL || n <= SAMPLE_ROWS) {
        for (int i = 0; i < n; i++)
            rows[i] = i;
        return n;
    }
    uint64_t state = seed ^ 0x5a3c0ffeeull;
    int count = 0;
    rows[count++] = 0;
    rows[count++] = n - 1;
    while (count < SAMPLE_ROWS)
        rows[count++] = (int)(rand31(&state) % (uint32_t)n);
    qsort(rows, (size_t)count, sizeof *rows, cmp_int);
    int unique = 0;
    for (int i = 0; i < count; i++)
        if (unique == 0 || rows[unique - 1] != rows[i])
            rows[unique++] = rows[i];
    return unique;
}

static void out_of_memory(void)
{
    fprintf(stderr, "out of host memory for the reference check\n");
    exit(2);
}

/* choose_rows into memory of its own (free it), their count in *nrows. */
static int *rows_to_check(int n, enum check_mode mode, uint64_t seed, int *nrows)
{
    const int max_rows = mode == CHECK_FULL || n <= SAMPLE_ROWS ? n : SAMPLE_ROWS;
    int *rows = malloc(sizeof *rows * (size_t)(max_rows > 0 ? max_rows : 1));
    if (!rows)
        out_of_memory();
    *nrows = choose_rows(n, mode, seed, rows);
    return rows;
}

void check_product(const float *a, const float *b, const float *c, int n,
                   enum check_mode mode, uint64_t seed, struct check_result *r)
{
    check_init(r);
    scan_nonfinite(c, (size_t)n * n, r);

    int nrows;
    int *rows = rows_to_check(n, mode, seed, &nrows);
    int failed_alloc = 0;

#pragma omp parallel
    {
        struct check_result mine;
        check_init(&mine);
        double *ref = malloc(sizeof *ref * REFERENCE_ROWS * (size_t)n),
               *abs_ref = malloc(sizeof *abs_ref * REFERENCE_ROWS * (size_t)n);
        if (!ref || !abs_ref) {
#pragma omp atomic write
            failed_alloc = 1;
        } else {
#pragma omp for schedule(dynamic, 1)
            for (int t = 0; t < nrows; t += REFERENCE_ROWS) {
                const int count = nrows - t < REFERENCE_ROWS ? nrows - t : REFERENCE_ROWS;
                reference_rows(a, b, n, rows + t, count, ref, abs_ref);
                for (int r = 0; r < count; r++)
                    compare_values(c + (size_t)rows[t + r] * n, ref + (size_t)r * n, abs_ref + (size_t)r * n,
                                   (size_t)n, &mine);
            }
        }
        free(ref);
        free(abs_ref);
#pragma omp critical
        add_result(r, &mine);
    }
    free(rows);
    if (failed_alloc)
        out_of_memory();
    r->rows_checked = (size_t)nrows;
}

int make_reference(const float *a, const float *b, int n, enum check_mode mode, uint64_t seed,
                   struct reference *ref)
{
    int max_rows = mode == CHECK_FULL || n <= SAMPLE_ROWS ? n : SAMPLE_ROWS;
    const size_t cells = (size_t)n * (max_rows > 0 ? max_rows : 1);
    memset(ref, 0, sizeof *ref);
    ref->n = n;
    ref->rows = malloc(sizeof *ref->rows * (size_t)(max_rows > 0 ? max_rows : 1));
    ref->values = malloc(sizeof *ref->values * cells);
    ref->abs_values = malloc(sizeof *ref->abs_values * cells);
    if (!ref->rows || !ref->values || !ref->abs_values) {
        free_reference(ref);
        return -1;
    }
    ref->nrows = choose_rows(n, mode, seed, ref->rows);
#pragma omp parallel for schedule(dynamic, 1)
    for (int t = 0; t < ref->nrows; t += REFERENCE_ROWS)
        reference_rows(a, b, n, ref->rows + t, ref->nrows - t < REFERENCE_ROWS ? ref->nrows - t : REFERENCE_ROWS,
                       ref->values + (size_t)t * n, ref->abs_values + (size_t)t * n);
    return 0;
}

void check_with_reference(const struct reference *ref, const float *c, struct check_result *r)
{
    const size_t n = (size_t)ref->n;
    check_init(r);
    scan_nonfinite(c, n * n, r);
    for (int t = 0; t < ref->nrows; t++)
        compare_values(c + (size_t)ref->rows[t] * n, ref->values + (size_t)t * n, ref->abs_values + (size_t)t * n,
                       n, r);
    r->rows_checked = (size_t)ref->nrows;
}

void free_reference(struct reference *ref)
{
    free(ref->rows);
    free(ref->values);
    free(ref->abs_values);
    ref->rows = NULL;
    ref->values = ref->abs_values = NULL;
}

double precision_bound(enum precision_class precision, int compensated, int k)
{
    if (precision == PRECISION_FP64) {
        const double u64 = ldexp(1.0, -53);
        return k * u64 / (1.0 - k * u64);
    }
    const double u = ldexp(1.0, -24);
    if (compensated && precision == PRECISION_FP32)
        return KAHAN_TOLERANCE;
    const double fp32 = expm1(FP32_LAMBDA * sqrt((double)k) * u + k * u * u / (1.0 - u));
    return precision == PRECISION_TF32 ? 2.0 * ldexp(1.0, -10) + fp32 : fp32;
}

const char *precision_name(enum precision_class precision)
{
    return precision == PRECISION_TF32 ? "tf32" : precision == PRECISION_FP64 ? "fp64" : "fp32";
}

int check_passes(const struct check_result *r, double bound)
{
    return r->unwritten == 0 && r->nonfinite == r->expected_nonfinite && r->wrong_nonfinite == 0 &&
           r->max_comp_err <= bound;
}

double max_abs(const float *m, size_t count)
{
    double big = 0.0;
    for (size_t i = 0; i < count; i++)
        if (isfinite(m[i]) && fabs((double)m[i]) > big)
            big = fabs((double)m[i]);
    return big;
}

int all_finite(const float *m, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (!isfinite(m[i]))
            return 0;
    return 1;
}

/* ---- FP64 (matrix.h) ---- */

int is_poison64(double x)
{
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    return bits == ~(uint64_t)0; /* every byte POISON_BYTE: a NaN no arithmetic produces */
}

int all_finite64(const double *m, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (!isfinite(m[i]))
            return 0;
    return 1;
}

double max_abs64(const double *m, size_t count)
{
    double big = 0.0;
    for (size_t i = 0; i < count; i++)
        if (isfinite(m[i]) && fabs(m[i]) > big)
            big = fabs(m[i]);
    return big;
}

/* Dot2, row by row: for each element the running sum s, the sum of the rounding errors e (each
 * product's, by an FMA, and each addition's, by TwoSum), the plain sum (for NaN and Inf) and the
 * sum of magnitudes. i-k-j order, the inner loop over a row of B, as reference_rows. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
void reference_row64(const double *a, const double *b, int n, int row, double *hi, double *lo, double *abs_out)
{
    double *plain = malloc(sizeof *plain * (size_t)(n > 0 ? n : 1));
    if (!plain)
        out_of_memory();
    for (int j = 0; j < n; j++)
        hi[j] = lo[j] = abs_out[j] = plain[j] = 0.0;
    const double *arow = a + (size_t)row * n;
    for (int k = 0; k < n; k++) {
        const double x = arow[k], x_abs = fabs(x);
        const double *brow = b + (size_t)k * n;
        for (int j = 0; j < n; j++) {
            const double p = x * brow[j], p_err = fma(x, brow[j], -p); /* p + p_err = x b, exactly */
            const double s = hi[j] + p, z = s - hi[j];
            const double s_err = (hi[j] - (s - z)) + (p - z); /* TwoSum: s + s_err = hi + p, exactly */
            hi[j] = s;
            lo[j] += s_err + p_err;
            plain[j] += p;
            abs_out[j] += x_abs * fabs(brow[j]);
        }
    }
    for (int j = 0; j < n; j++) {
        if (!isfinite(plain[j]) || !isfinite(hi[j] + lo[j])) { /* NaN or Inf: what a plain FP64 sum gives */
            hi[j] = plain[j];
            lo[j] = 0.0;
            continue;
        }
        const double s = hi[j] + lo[j]; /* the pair normalised: |lo| at most half an ulp of hi */
        lo[j] = lo[j] - (s - hi[j]);
        hi[j] = s;
    }
    free(plain);
}

static void compare_values64(const double *c, const double *hi, const double *lo, const double *abs_ref,
                             size_t count, struct check_result *r)
{
    for (size_t j = 0; j < count; j++) {
        if (is_poison64(c[j]))
            continue; /* the scan counts it */
        if (!isfinite(hi[j])) { /* NaN or Inf, as an FP64 GEMM gives them */
            const int same = isnan(hi[j]) ? isnan(c[j]) : c[j] == hi[j];
            if (same)
                r->expected_nonfinite++;
            else if (isfinite(c[j]))
                r->wrong_nonfinite++;
            continue;
        }
        double rel, comp;
        if (!isfinite(c[j])) {
            rel = comp = INFINITY;
        } else {
            const double diff = fabs((c[j] - hi[j]) - lo[j]);
            rel = hi[j] != 0.0 ? diff / fabs(hi[j]) : diff;
            comp = abs_ref[j] != 0.0 ? diff / abs_ref[j] : diff;
        }
        if (!(rel <= r->max_rel_err))
            r->max_rel_err = rel;
        if (!(comp <= r->max_comp_err))
            r->max_comp_err = comp;
        r->sum_rel_err += rel;
        r->sum_comp_err += comp;
        r->compared++;
    }
}

static void scan_nonfinite64(const double *c, size_t count, struct check_result *r)
{
    for (size_t i = 0; i < count; i++) {
        const int unwritten = is_poison64(c[i]), bad = unwritten || !isfinite(c[i]);
        r->unwritten += (size_t)unwritten;
        r->nonfinite += (size_t)(bad && !unwritten);
        if (bad && r->first_bad < 0)
            r->first_bad = (long)i;
    }
}

void check_product64(const double *a, const double *b, const double *c, int n, enum check_mode mode, uint64_t seed,
                     struct check_result *r)
{
    check_init(r);
    scan_nonfinite64(c, (size_t)n * n, r);
    int nrows;
    int *rows = rows_to_check(n, mode, seed, &nrows);
    int failed_alloc = 0;
#pragma omp parallel
    {
        struct check_result mine;
        check_init(&mine);
        double *hi = malloc(sizeof *hi * (size_t)n), *lo = malloc(sizeof *lo * (size_t)n),
               *abs_ref = malloc(sizeof *abs_ref * (size_t)n);
        if (!hi || !lo || !abs_ref) {
#pragma omp atomic write
            failed_alloc = 1;
        } else {
#pragma omp for schedule(dynamic, 1)
            for (int t = 0; t < nrows; t++) {
                reference_row64(a, b, n, rows[t], hi, lo, abs_ref);
                compare_values64(c + (size_t)rows[t] * n, hi, lo, abs_ref, (size_t)n, &mine);
            }
        }
        free(hi);
        free(lo);
        free(abs_ref);
#pragma omp critical
        add_result(r, &mine);
    }
    free(rows);
    if (failed_alloc)
        out_of_memory();
    r->rows_checked = (size_t)nrows;
}
