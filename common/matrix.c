#include "matrix.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* SplitMix64: tiny, fast and identical everywhere, unlike the C library's rand(),
 * whose sequence differs between libraries; results must be reproducible. */
uint32_t rand31(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return (uint32_t)(z >> 33);
}

#define RAND31_RANGE 2147483648.0 /* 2^31: rand31() returns 0 .. 2^31 - 1 */

void matgen(float *a, size_t lda, int n, uint64_t *state)
{
    matgen_rect(a, lda, n, n, state);
}

void matgen_rect(float *a, size_t lda, int rows, int cols, uint64_t *state)
{
    for (int i = 0; i < rows; i++) {
        for (int j = 0; j < cols; j++) {
            /* The article wrote rand() / (RAND_MAX * RAND_MAX): that product overflows
             * int (undefined behaviour). The range is squared in double instead. */
            double coarse = rand31(state) / RAND31_RANGE;
            double tiny = rand31(state) / (RAND31_RANGE * RAND31_RANGE);
            a[(size_t)i * lda + j] = (float)coarse + (float)tiny;
        }
    }
}

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

void reference_row(const float *a, const float *b, int n, int row, double *out)
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
}

void check_init(struct check_result *r)
{
    memset(r, 0, sizeof *r);
    r->first_bad = -1;
}

void compare_values(const float *c, const double *ref, size_t count, struct check_result *r)
{
    for (size_t j = 0; j < count; j++) {
        double diff = fabs((double)c[j] - ref[j]);
        double err = ref[j] != 0.0 ? diff / fabs(ref[j]) : diff;
        /* NaN compares false with everything: make it the maximum, never skip it. */
        if (!(err <= r->max_rel_err))
            r->max_rel_err = isnan(err) ? INFINITY : err;
        r->sum_rel_err += err;
        r->compared++;
    }
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
        compare_values(c + (size_t)i * ldc, ref + (size_t)i * ldref, (size_t)n, &row);
        if (row.first_bad >= 0 && r->first_bad < 0)
            r->first_bad = (long)((size_t)i * n + row.first_bad);
        r->nonfinite += row.nonfinite;
        r->unwritten += row.unwritten;
        r->compared += row.compared;
        r->sum_rel_err += row.sum_rel_err;
        if (!(row.max_rel_err <= r->max_rel_err))
            r->max_rel_err = row.max_rel_err;
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

void check_product(const float *a, const float *b, const float *c, int n,
                   enum check_mode mode, uint64_t seed, struct check_result *r)
{
    check_init(r);
    scan_nonfinite(c, (size_t)n * n, r);

    int max_rows = mode == CHECK_FULL || n <= SAMPLE_ROWS ? n : SAMPLE_ROWS;
    int *rows = malloc(sizeof *rows * (size_t)(max_rows > 0 ? max_rows : 1));
    if (!rows) {
        fprintf(stderr, "out of host memory for the reference check\n");
        exit(2);
    }
    int nrows = choose_rows(n, mode, seed, rows);
    double max_err = 0.0, sum_err = 0.0;
    size_t compared = 0;
    int failed_alloc = 0;

#pragma omp parallel reduction(max : max_err) reduction(+ : sum_err, compared) reduction(| : failed_alloc)
    {
        double *ref = malloc(sizeof *ref * (size_t)n);
        if (!ref) {
            failed_alloc = 1;
        } else {
#pragma omp for schedule(dynamic, 1)
            for (int t = 0; t < nrows; t++) {
                struct check_result row;
                check_init(&row);
                reference_row(a, b, n, rows[t], ref);
                compare_values(c + (size_t)rows[t] * n, ref, (size_t)n, &row);
                if (!(row.max_rel_err <= max_err))
                    max_err = row.max_rel_err;
                sum_err += row.sum_rel_err;
                compared += row.compared;
            }
        }
        free(ref);
    }
    free(rows);
    if (failed_alloc) {
        fprintf(stderr, "out of host memory for the reference check\n");
        exit(2);
    }
    r->max_rel_err = max_err;
    r->sum_rel_err = sum_err;
    r->compared = compared;
    r->rows_checked = (size_t)nrows;
}

int make_reference(const float *a, const float *b, int n, enum check_mode mode, uint64_t seed,
                   struct reference *ref)
{
    int max_rows = mode == CHECK_FULL || n <= SAMPLE_ROWS ? n : SAMPLE_ROWS;
    memset(ref, 0, sizeof *ref);
    ref->n = n;
    ref->rows = malloc(sizeof *ref->rows * (size_t)(max_rows > 0 ? max_rows : 1));
    ref->values = malloc(sizeof *ref->values * (size_t)n * (max_rows > 0 ? max_rows : 1));
    if (!ref->rows || !ref->values) {
        free_reference(ref);
        return -1;
    }
    ref->nrows = choose_rows(n, mode, seed, ref->rows);
#pragma omp parallel for schedule(dynamic, 1)
    for (int t = 0; t < ref->nrows; t++)
        reference_row(a, b, n, ref->rows[t], ref->values + (size_t)t * n);
    return 0;
}

void check_with_reference(const struct reference *ref, const float *c, struct check_result *r)
{
    const size_t n = (size_t)ref->n;
    check_init(r);
    scan_nonfinite(c, n * n, r);
    for (int t = 0; t < ref->nrows; t++)
        compare_values(c + (size_t)ref->rows[t] * n, ref->values + (size_t)t * n, n, r);
    r->rows_checked = (size_t)ref->nrows;
}

void free_reference(struct reference *ref)
{
    free(ref->rows);
    free(ref->values);
    ref->rows = NULL;
    ref->values = NULL;
}

double step_tolerance(int compensated, int n)
{
    if (compensated)
        return KAHAN_TOLERANCE;
    const double u = ldexp(1.0, -24);
    return (n + 1) * u / (1.0 - (n + 1) * u);
}

int check_passes(const struct check_result *r, double tolerance)
{
    return r->nonfinite == 0 && r->unwritten == 0 && r->max_rel_err <= tolerance;
}

int save_npy(const char *path, const float *m, int rows, int cols)
{
    /* Format 1.0: magic, version, little-endian header length, then a Python dict
     * literal padded with spaces so the data starts on a 64-byte boundary. */
    char dict[128];
    int len = snprintf(dict, sizeof dict,
                       "{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d), }",
                       rows, cols);
    size_t preamble = 10; /* magic (6) + version (2) + header length (2) */
    size_t header = (size_t)len + 1;
    header += (64 - (preamble + header) % 64) % 64;

    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    unsigned char head[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0,
                              (unsigned char)(header & 0xff), (unsigned char)(header >> 8)};
    int ok = fwrite(head, 1, sizeof head, f) == sizeof head;
    ok = ok && fwrite(dict, 1, (size_t)len, f) == (size_t)len;
    for (size_t i = (size_t)len; ok && i + 1 < header; i++)
        ok = fputc(' ', f) != EOF;
    ok = ok && fputc('\n', f) != EOF;
    /* float32 little-endian: the host byte order on every machine we build for. */
    ok = ok && fwrite(m, sizeof *m, (size_t)rows * cols, f) == (size_t)rows * cols;
    ok = (fclose(f) == 0) && ok;
    return ok ? 0 : -1;
}
