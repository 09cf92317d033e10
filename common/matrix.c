#define _POSIX_C_SOURCE 200809L /* strerror, ftell */
#include "matrix.h"
#include "exit_codes.h"

#include <errno.h>
#include <limits.h>
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

void matgen_wide(float *a, size_t lda, int rows, int cols, uint64_t *state)
{
    for (int i = 0; i < rows; i++) {
        for (int j = 0; j < cols; j++) {
            const uint32_t bits = rand31(state);
            const double mantissa = 1.0 + rand31(state) / RAND31_RANGE; /* [1, 2) */
            const int exponent = (int)(bits % 17) - 8;                  /* -8 .. 8 */
            const float value = (float)ldexp(mantissa, exponent);
            a[(size_t)i * lda + j] = (bits >> 30) & 1 ? -value : value;
        }
    }
}

/* U[0, 1) times 2^e, or (1 + U) 2^e, each value rounded once to float (ldexp is exact in
 * double), with a random sign when signed. */
static float scaled_uniform(uint64_t *state, double one, int e, int signed_)
{
    const uint32_t bits = rand31(state);
    const float value = (float)ldexp(one + rand31(state) / RAND31_RANGE, e);
    return signed_ && (bits >> 30) & 1 ? -value : value;
}

void matgen_dist(enum input_dist dist, char which, float *a, size_t lda, int rows, int cols, uint64_t *state)
{
    if (dist == DIST_UNIFORM) {
        matgen_rect(a, lda, rows, cols, state);
        return;
    }
    if (dist == DIST_WIDE || (dist == DIST_TINY && which == 'B')) {
        matgen_wide(a, lda, rows, cols, state);
        return;
    }
    int *col_scale = calloc(cols > 0 ? (size_t)cols : 1, sizeof *col_scale); /* rowscale's, of B's columns */
    if (!col_scale) {
        fprintf(stderr, "cannot allocate host memory for %d column scales\n", cols);
        exit(EXIT_USAGE); /* like a matrix too large for this machine */
    }
    for (int j = 0; j < cols; j++)
        col_scale[j] = dist == DIST_ROWSCALE && which == 'B' ? 60 + (int)(rand31(state) % 41) : 0;
    for (int i = 0; i < rows; i++) {
        const int row_scale = dist == DIST_ROWSCALE && which == 'A' ? -140 + (int)(rand31(state) % 61) : 0;
        for (int j = 0; j < cols; j++) {
            float *x = &a[(size_t)i * lda + j];
            switch (dist) {
            case DIST_SUBNORMAL: *x = scaled_uniform(state, 0.0, which == 'A' ? -130 : 20, 0); break;
            case DIST_TINY: *x = scaled_uniform(state, 1.0, -126, 0); break;
            case DIST_ROWSCALE: {
                float w;
                matgen_wide(&w, 1, 1, 1, state);
                *x = (float)ldexp(w, row_scale + col_scale[j]); /* w has 24 bits: exact unless subnormal */
                break;
            }
            case DIST_MIXED:
                *x = scaled_uniform(state, 1.0, (which == 'A' ? -60 : -20) + (int)(rand31(state) % 81), 1);
                break;
            default: /* DIST_HUGE */
                *x = scaled_uniform(state, 1.0, which == 'A' ? 126 + (int)(rand31(state) % 2) : -70 + (int)(rand31(state) % 11), 1);
                break;
            }
        }
    }
    free(col_scale);
}

static const char *const dist_names[DIST_COUNT][2] = {
    {"uniform", "[0, 1)"},
    {"wide", "+-m * 2^e, e in -8..8"},
    {"subnormal", "A = U[0, 1) 2^-130, subnormal; B = U[0, 1) 2^20"},
    {"tiny", "A = (1 + U) 2^-126, the lowest normal binade; B wide"},
    {"rowscale", "wide, rows of A times 2^-140..2^-80, columns of B times 2^60..2^100"},
    {"mixed", "+-m * 2^e per element, e in -60..20 (A), -20..60 (B)"},
    {"huge", "A = +-(1 + U) 2^126..2^127, near FLT_MAX; B = +-(1 + U) 2^-70..2^-60"},
};

const char *dist_name(enum input_dist dist)
{
    return dist_names[dist][0];
}

const char *dist_description(enum input_dist dist)
{
    return dist_names[dist][1];
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
    int failed_alloc = 0;

#pragma omp parallel
    {
        struct check_result mine;
        check_init(&mine);
        double *ref = malloc(sizeof *ref * (size_t)n), *abs_ref = malloc(sizeof *abs_ref * (size_t)n);
        if (!ref || !abs_ref) {
#pragma omp atomic write
            failed_alloc = 1;
        } else {
#pragma omp for schedule(dynamic, 1)
            for (int t = 0; t < nrows; t++) {
                reference_row(a, b, n, rows[t], ref, abs_ref);
                compare_values(c + (size_t)rows[t] * n, ref, abs_ref, (size_t)n, &mine);
            }
        }
        free(ref);
        free(abs_ref);
#pragma omp critical
        add_result(r, &mine);
    }
    free(rows);
    if (failed_alloc) {
        fprintf(stderr, "out of host memory for the reference check\n");
        exit(2);
    }
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
    for (int t = 0; t < ref->nrows; t++)
        reference_row(a, b, n, ref->rows[t], ref->values + (size_t)t * n, ref->abs_values + (size_t)t * n);
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
    const double u = ldexp(1.0, -24);
    if (compensated && precision == PRECISION_FP32)
        return KAHAN_TOLERANCE;
    const double fp32 = expm1(FP32_LAMBDA * sqrt((double)k) * u + k * u * u / (1.0 - u));
    return precision == PRECISION_TF32 ? 2.0 * ldexp(1.0, -10) + fp32 : fp32;
}

const char *precision_name(enum precision_class precision)
{
    return precision == PRECISION_TF32 ? "tf32" : "fp32";
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

/* The value of key in the header's dict literal, e.g. "'<f4'" for 'descr', or NULL. */
static const char *npy_field(const char *dict, const char *key)
{
    const char *at = strstr(dict, key);
    if (!at)
        return NULL;
    at = strchr(at + strlen(key), ':');
    if (!at)
        return NULL;
    at++;
    while (*at == ' ')
        at++;
    return at;
}

int load_npy(const char *path, float **m, int *rows, int *cols, char *err, size_t errlen)
{
    *m = NULL;
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s", strerror(errno));
        return -1;
    }
    unsigned char head[12];
    size_t header_len = 0, preamble = 0;
    if (fread(head, 1, 10, f) != 10 || memcmp(head, "\x93NUMPY", 6) != 0) {
        snprintf(err, errlen, "not a .npy file (no \\x93NUMPY magic)");
        goto fail;
    }
    if (head[6] == 1) {
        header_len = head[8] | (size_t)head[9] << 8;
        preamble = 10;
    } else if (head[6] == 2 || head[6] == 3) {
        if (fread(head + 10, 1, 2, f) != 2) {
            snprintf(err, errlen, "truncated header");
            goto fail;
        }
        header_len = head[8] | (size_t)head[9] << 8 | (size_t)head[10] << 16 | (size_t)head[11] << 24;
        preamble = 12;
    } else {
        snprintf(err, errlen, "unknown .npy format version %d.%d", head[6], head[7]);
        goto fail;
    }
    if (header_len > 65536) {
        snprintf(err, errlen, "header of %zu bytes: not a matrix's", header_len);
        goto fail;
    }
    char dict[65537];
    if (fread(dict, 1, header_len, f) != header_len) {
        snprintf(err, errlen, "truncated header");
        goto fail;
    }
    dict[header_len] = '\0';
    const char *descr = npy_field(dict, "'descr'"), *order = npy_field(dict, "'fortran_order'"),
               *shape = npy_field(dict, "'shape'");
    if (!descr || !order || !shape) {
        snprintf(err, errlen, "header without descr, fortran_order and shape");
        goto fail;
    }
    if (strncmp(descr, "'<f4'", 5) != 0) {
        int len = (int)strcspn(descr, ",}");
        snprintf(err, errlen, "dtype %.*s, expected float32 '<f4' (in NumPy: a.astype(np.float32))", len, descr);
        goto fail;
    }
    if (strncmp(order, "False", 5) != 0) {
        snprintf(err, errlen, "Fortran order, expected C order (in NumPy: np.ascontiguousarray(a))");
        goto fail;
    }
    long r = -1, c = -1;
    int used = 0;
    if (sscanf(shape, "(%ld, %ld)%n", &r, &c, &used) != 2 || used == 0) {
        int len = (int)strcspn(shape, ")");
        snprintf(err, errlen, "shape %.*s), expected a 2-D matrix (rows, cols)", len, shape);
        goto fail;
    }
    if (r < 1 || c < 1 || r > INT_MAX || c > INT_MAX) {
        snprintf(err, errlen, "shape (%ld, %ld): a matrix needs at least one row and one column", r, c);
        goto fail;
    }
    /* The data must be exactly rows x cols floats: no more, no less. */
    const double want = (double)r * c * sizeof(float);
    if (fseek(f, 0, SEEK_END) != 0) {
        snprintf(err, errlen, "cannot seek: %s", strerror(errno));
        goto fail;
    }
    const long size = ftell(f);
    const double have = (double)size - (double)(preamble + header_len);
    if (have != want) {
        snprintf(err, errlen, "%s: shape (%ld, %ld) needs %.0f bytes of data, the file has %.0f",
                 have < want ? "truncated" : "bytes past the data", r, c, want, have);
        goto fail;
    }
    if (fseek(f, (long)(preamble + header_len), SEEK_SET) != 0 ||
        !(*m = malloc(sizeof **m * (size_t)r * (size_t)c))) {
        snprintf(err, errlen, "cannot allocate %.1f GB", want / 1e9);
        goto fail;
    }
    /* float32 little-endian ('<f4'): the host byte order on every machine we build for. */
    if (fread(*m, sizeof **m, (size_t)r * c, f) != (size_t)r * c) {
        snprintf(err, errlen, "read error: %s", strerror(errno));
        goto fail;
    }
    fclose(f);
    *rows = (int)r;
    *cols = (int)c;
    return 0;
fail:
    free(*m);
    *m = NULL;
    fclose(f);
    return -1;
}

int load_npy_pair(const char *dir, float **a, float **b, int *n, char *err, size_t errlen)
{
    const char *names[2] = {"a.npy", "b.npy"};
    float **mats[2] = {a, b};
    int rows[2], cols[2];
    *a = *b = NULL;
    for (int i = 0; i < 2; i++) {
        char path[4096], why[512];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (load_npy(path, mats[i], &rows[i], &cols[i], why, sizeof why) != 0) {
            snprintf(err, errlen, "cannot load '%s': %s", path, why);
            goto fail;
        }
        if (rows[i] != cols[i]) {
            snprintf(err, errlen, "cannot load '%s': it is %d x %d, the programs multiply square matrices", path,
                     rows[i], cols[i]);
            goto fail;
        }
    }
    if (rows[0] != rows[1]) {
        snprintf(err, errlen, "cannot load '%s': a.npy is %d x %d but b.npy is %d x %d", dir, rows[0], rows[0],
                 rows[1], rows[1]);
        goto fail;
    }
    *n = rows[0];
    return 0;
fail:
    free(*a);
    free(*b);
    *a = *b = NULL;
    return -1;
}
