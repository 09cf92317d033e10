/* Host-side matrix helpers shared by every program: the article's generator,
 * a double-precision reference, the error comparison and .npy output. Plain C11. */
#ifndef MATRIX_H
#define MATRIX_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Outputs are filled with this pattern before every run, on the host and on the
 * device (cudaMemset writes bytes, so every byte is POISON_BYTE), so an element the
 * kernel never wrote is caught. 0xffffffff is a NaN no arithmetic produces: the
 * GPU's own NaN is 0x7fffffff. */
#define POISON_BYTE 0xff
#define POISON_BITS 0xffffffffu

/* Fill an n x n row-major matrix (leading dimension lda) with the article's values:
 * uniform in [0, 1) plus a tiny term. Same seed, same matrix, on every machine. */
void matgen(float *a, size_t lda, int n, uint64_t *state);
/* The same values for a rows x cols matrix (matgen is the square case). */
void matgen_rect(float *a, size_t lda, int rows, int cols, uint64_t *state);

void poison_mat(float *c, size_t count);
int is_poison(float x);

/* One row of the reference C = A B in double precision (products of floats are
 * exact in double, so only the n additions round, at 2^-53 each). */
void reference_row(const float *a, const float *b, int n, int row, double *out);

/* What the comparison found. Relative error |c - ref| / |ref|; where ref is exactly 0
 * the absolute error |c| is used instead, so nothing is divided by zero. */
struct check_result {
    double max_rel_err;
    double sum_rel_err;     /* average = sum / compared */
    size_t compared;        /* elements compared with the reference */
    size_t rows_checked;    /* rows of C compared (all of them, or a sample) */
    size_t nonfinite;       /* NaN or Inf anywhere in C */
    size_t unwritten;       /* still holding the poison pattern */
    long first_bad;         /* index of the first non-finite or unwritten element, or -1 */
};

void check_init(struct check_result *r);
/* Accumulate |c - ref| / |ref| over count elements (no finiteness scan). */
void compare_values(const float *c, const double *ref, size_t count, struct check_result *r);
/* The article's compare_mat: both matrices n x n, every element compared; also
 * counts NaN, Inf and unwritten elements. */
void compare_mat(const float *c, size_t ldc, const double *ref, size_t ldref, int n,
                 struct check_result *r);
/* Scan all of C for NaN, Inf and the poison pattern. */
void scan_nonfinite(const float *c, size_t count, struct check_result *r);

enum check_mode { CHECK_FULL, CHECK_SAMPLE, CHECK_NONE };
#define SAMPLE_ROWS 64

/* Every element scanned for NaN/Inf/poison; the rows chosen by mode compared with
 * the double reference (sample: first, last and random rows from seed). */
void check_product(const float *a, const float *b, const float *c, int n,
                   enum check_mode mode, uint64_t seed, struct check_result *r);
int check_passes(const struct check_result *r, double tolerance);

/* A reference kept in memory, to check several results of one product (the CPU
 * chapter checks every variant against it): the rows chosen by mode, in double. */
struct reference {
    int n;
    int nrows;
    int *rows;      /* which rows of C, ascending */
    double *values; /* nrows x n */
};
/* 0 on success, -1 when out of memory. */
int make_reference(const float *a, const float *b, int n, enum check_mode mode, uint64_t seed,
                   struct reference *ref);
/* Like check_product, against a reference made once. */
void check_with_reference(const struct reference *ref, const float *c, struct check_result *r);
void free_reference(struct reference *ref);

/* Kahan steps: 2.5e-7 at every n. Compensated summation of non-negative terms
 * errs by at most about 2u = 1.2e-7 (u = 2^-24, Higham, Accuracy and Stability,
 * 4.3), 3u = 1.8e-7 if the products are rounded separately.
 * Plain summation: the worst-case bound gamma(n+1) = (n+1)u / (1 - (n+1)u), which
 * grows with n (6.0e-5 at n = 1000; the article measured 2.0e-6). */
#define KAHAN_TOLERANCE 2.5e-7
double step_tolerance(int compensated, int n);

/* Write a float32 (rows, cols) row-major matrix as a NumPy .npy file (format 1.0). 0 on success. */
int save_npy(const char *path, const float *m, int rows, int cols);

/* The seeded generator behind matgen (SplitMix64): 31 random bits, like rand(). */
uint32_t rand31(uint64_t *state);

#ifdef __cplusplus
}
#endif
#endif
