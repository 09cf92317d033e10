/* Host-side matrix helpers shared by every program, in one header for three files:
 * inputs.c makes the matrices, check.c compares a product with a double-precision
 * reference, npy.c reads and writes .npy files. Plain C11. */
#ifndef MATRIX_H
#define MATRIX_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What the matrices hold: FP32 (the ladder's programs) or FP64 (cuBLAS DGEMM and the FP64
 * programs). A program declares it (step_info, or an arithmetic of its --math); the harness
 * makes, checks, loads and saves matrices of that type. */
enum element_type { ELEMENT_FP32, ELEMENT_FP64 };
size_t element_bytes(enum element_type element);
const char *element_name(enum element_type element); /* "float32", "float64" */

/* ---- inputs.c: the matrices a program multiplies ---- */

/* Fill an n x n row-major matrix (leading dimension lda) with the article's values:
 * uniform in [0, 1) plus a tiny term. Same seed, same matrix, on every machine. */
void matgen(float *a, size_t lda, int n, uint64_t *state);
/* The same values for a rows x cols matrix (matgen is the square case). */
void matgen_rect(float *a, size_t lda, int rows, int cols, uint64_t *state);

/* The inputs a program multiplies: the article's (uniform in [0, 1), all positive, so
 * every sum grows and nothing cancels), or wide: +-m * 2^e with m in [1, 2) and e
 * uniform in [-8, 8], signed values over 17 binades whose sums cancel as in real
 * workloads, where relative errors say little and the componentwise error says how
 * good a result is. The others take FP32 to the ends of its range, each with a C that is
 * still normal (an FP32 GEMM can be accurate there):
 *   subnormal  A = U[0, 1) 2^-130 (FP32 subnormals), B = U[0, 1) 2^20;
 *   tiny       A = (1 + U) 2^-126, the lowest normal binade, B wide;
 *   rowscale   wide values, row i of A times 2^e(i), e in [-140, -80] (subnormal rows
 *              among them), column j of B times 2^f(j), f in [60, 100];
 *   mixed      +-m 2^e, e drawn per element: in [-60, 20] for A, [-20, 60] for B, so one
 *              row holds 80 binades;
 *   huge       A = +-(1 + U) 2^126 or 2^127, near FLT_MAX, B = +-(1 + U) 2^e, e in [-70, -60]. */
enum input_dist { DIST_UNIFORM, DIST_WIDE, DIST_SUBNORMAL, DIST_TINY, DIST_ROWSCALE, DIST_MIXED, DIST_HUGE, DIST_COUNT };
void matgen_wide(float *a, size_t lda, int rows, int cols, uint64_t *state);
/* Fill A (which = 'A') or B (which = 'B') with the distribution's values. */
void matgen_dist(enum input_dist dist, char which, float *a, size_t lda, int rows, int cols, uint64_t *state);
const char *dist_name(enum input_dist dist);
const char *dist_description(enum input_dist dist); /* "+-m * 2^e, e in -8..8" */
/* The same families in FP64, with 53-bit significands and scaled to FP64's range, each with a C
 * that is still normal:
 *   uniform    the article's formula, coarse + tiny, added in double: U[0, 1) to 2^-53;
 *   wide       +-m 2^e, m in [1, 2) with 52 random fraction bits, e in [-8, 8];
 *   subnormal  A = U[0, 1) 2^-1030 (FP64 subnormals), B = U[0, 1) 2^100;
 *   tiny       A = (1 + U) 2^-1022, the lowest normal binade, B wide;
 *   rowscale   wide values, row i of A times 2^e(i), e in [-1080, -1000] (subnormal rows among
 *              them), column j of B times 2^f(j), f in [900, 1000];
 *   mixed      +-m 2^e, e drawn per element: in [-150, 50] for A, [-50, 150] for B, so one row
 *              holds 200 binades;
 *   huge       A = +-(1 + U) 2^1022 or 2^1023, near DBL_MAX, B = +-(1 + U) 2^e, e in [-70, -60]. */
void matgen_dist64(enum input_dist dist, char which, double *a, size_t lda, int rows, int cols, uint64_t *state);
const char *dist_description64(enum input_dist dist);

/* The seeded generator behind matgen (SplitMix64): 31 random bits, like rand(). check.c
 * draws the rows of a sampled check from it too. */
uint32_t rand31(uint64_t *state);

/* ---- check.c: the reference, the comparison with it and the precision classes ---- */

/* Outputs are filled with this pattern before every run, on the host and on the
 * device (cudaMemset writes bytes, so every byte is POISON_BYTE), so an element the
 * kernel never wrote is caught. 0xffffffff is a NaN no arithmetic produces: the
 * GPU's own NaN is 0x7fffffff. */
#define POISON_BYTE 0xff
#define POISON_BITS 0xffffffffu

void poison_mat(float *c, size_t count);
int is_poison(float x);

/* One row of the reference C = A B in double precision (products of floats are
 * exact in double, so only the n additions round, at 2^-53 each), and, when abs_out is
 * not NULL, the same row of |A| |B|: the scale of each element's rounding errors. */
void reference_row(const float *a, const float *b, int n, int row, double *out, double *abs_out);

/* What the comparison found, for each element whose reference is finite:
 * - relative error |c - ref| / |ref| (|c - ref| where ref is exactly 0): the article's;
 *   on signed inputs it is large wherever the sum cancels, whatever the arithmetic;
 * - componentwise error |c - ref| / (|A| |B|)_ij (|c - ref| where that is 0): the
 *   quantity GEMM error bounds are stated in, meaningful where ref is near zero. The
 *   verdict is this one against the program's precision bound (precision_bound).
 * Where the double-precision reference is NaN or rounds to an infinite float (NaN or Inf
 * among loaded inputs, or a sum past FLT_MAX), C must hold that NaN, or that Inf with its
 * sign: what an FP32 GEMM gives there. (An FP32 sum that overflows on the way to a finite
 * result, 1e20 x 1e20 - 1e20 x 1e20, is not foreseen: the reference says 0.) */
struct check_result {
    double max_rel_err;
    double sum_rel_err;     /* average = sum / compared */
    double max_comp_err;
    double sum_comp_err;
    size_t compared;        /* elements compared with the reference */
    size_t rows_checked;    /* rows of C compared (all of them, or a sample) */
    size_t nonfinite;       /* NaN or Inf anywhere in C */
    size_t expected_nonfinite; /* ... of which the reference expects (NaN/Inf inputs, overflow) */
    size_t wrong_nonfinite; /* a finite or other value where NaN or Inf is expected */
    size_t unwritten;       /* still holding the poison pattern */
    long first_bad;         /* index of the first non-finite or unwritten element, or -1 */
};

void check_init(struct check_result *r);
/* Compare count elements with their reference (no scan for NaN/Inf/poison: a NaN or Inf
 * where the reference is finite makes the maximum errors infinite). abs_ref, the row of
 * |A| |B|, may be NULL: then |ref| stands for it (right when no term is negative). */
void compare_values(const float *c, const double *ref, const double *abs_ref, size_t count,
                    struct check_result *r);
/* The article's compare_mat: both matrices n x n, every element compared (|ref| as the
 * scale of the componentwise error); also counts NaN, Inf and unwritten elements. */
void compare_mat(const float *c, size_t ldc, const double *ref, size_t ldref, int n,
                 struct check_result *r);
/* Scan all of C for NaN, Inf and the poison pattern. */
void scan_nonfinite(const float *c, size_t count, struct check_result *r);

enum check_mode { CHECK_FULL, CHECK_SAMPLE, CHECK_NONE };
#define SAMPLE_ROWS 64

/* Every element scanned for NaN/Inf/poison; the rows chosen by mode compared with
 * the double reference (sample: first, last and random rows from seed). Inputs with a
 * NaN or Inf need mode CHECK_FULL: NaN and Inf in C are then expected where the
 * reference has them, which only the compared rows can tell. */
void check_product(const float *a, const float *b, const float *c, int n,
                   enum check_mode mode, uint64_t seed, struct check_result *r);
/* Pass: nothing unwritten, NaN and Inf exactly where expected, and the componentwise
 * error within bound. */
int check_passes(const struct check_result *r, double bound);
/* 1 if all count values are finite. */
int all_finite(const float *m, size_t count);
/* The largest magnitude among the finite values (0 if none). */
double max_abs(const float *m, size_t count);

/* The check of an FP64 product: the same verdicts, against a reference accurate far below FP64's
 * unit roundoff u64 = 2^-53. Each element's sum is kept as an unevaluated pair hi + lo (Ogita, Rump
 * and Oishi's Dot2, SIAM J. Sci. Comput. 26(6), 2005: each product split exactly by an FMA, each
 * addition by TwoSum), which errs by at most about u64^2 |ref| + (k u64)^2 (|A| |B|)_ij, where k =
 * n; a C element is compared with the pair, |(c - hi) - lo|. It stops where a product or its
 * rounding error falls below FP64's normal range (2^-1022): the families above keep every product
 * far from it; loaded inputs may not. NaN and Inf: where the plain double sum is NaN or infinite,
 * C must hold it, as an FP64 GEMM gives it. */
void reference_row64(const double *a, const double *b, int n, int row, double *hi, double *lo, double *abs_out);
void check_product64(const double *a, const double *b, const double *c, int n, enum check_mode mode, uint64_t seed,
                     struct check_result *r);
int is_poison64(double x);
int all_finite64(const double *m, size_t count);
double max_abs64(const double *m, size_t count);

/* A reference kept in memory, to check several results of one product (the CPU
 * chapter checks every variant against it): the rows chosen by mode, in double. */
struct reference {
    int n;
    int nrows;
    int *rows;      /* which rows of C, ascending */
    double *values; /* nrows x n */
    double *abs_values; /* the same rows of |A| |B| */
};
/* 0 on success, -1 when out of memory. */
int make_reference(const float *a, const float *b, int n, enum check_mode mode, uint64_t seed,
                   struct reference *ref);
/* Like check_product, against a reference made once. */
void check_with_reference(const struct reference *ref, const float *c, struct check_result *r);
void free_reference(struct reference *ref);

/* What a result is judged by: its precision class and the bound of that class on the
 * componentwise error (u = 2^-24, FP32's unit roundoff; k = the length of each sum):
 * - compensated (Kahan) FP32: 2.5e-7 at every k. A compensated sum errs by at most
 *   about 2u = 1.2e-7 of the sum of its terms' magnitudes (Higham, Accuracy and
 *   Stability, 4.3), 3u = 1.8e-7 with the products rounded separately.
 * - FP32: the probabilistic bound of Higham and Mary (SIAM J. Sci. Comput. 41(5), 2019):
 *   exp(lambda sqrt(k) u + k u^2 / (1 - u)) - 1, lambda = 9, which rounding errors exceed
 *   with a probability below 2 k exp(-lambda^2 / 2) = 5e-18 k per element. It is 1.7e-5
 *   at k = 1000. The worst-case bound gamma(k) = k u / (1 - k u) (6.0e-5 at k = 1000) is
 *   never approached by real FP32 sums (the FP32 results recorded in results/ stay under
 *   1.2 sqrt(k) u), and is loose enough to pass a TF32 result as FP32; below k = 81 it is
 *   the smaller of the two, so no FP32 sum of so few terms can fail.
 * - TF32: both inputs rounded to TF32 (10 explicit mantissa bits) in either direction,
 *   to nearest or by truncation: 2 * 2^-10 for the product, plus the FP32 bound for the
 *   sum (2.0e-3 at k = 1000). */
/* - FP64: gamma(k) = k u64 / (1 - k u64), u64 = 2^-53, the worst-case bound of a sum of k
 *   products each rounded (Higham, 3.1): 1.1e-13 at k = 1000. The class of FP64 results (cuBLAS
 *   DGEMM and the FP64 programs), whatever arithmetic they use inside. */
enum precision_class { PRECISION_FP32, PRECISION_TF32, PRECISION_FP64 };
#define KAHAN_TOLERANCE 2.5e-7
#define FP32_LAMBDA 9.0
double precision_bound(enum precision_class precision, int compensated, int k);
const char *precision_name(enum precision_class precision);

/* ---- npy.c: NumPy .npy files, for --save and --load ---- */

/* Write a float32 (rows, cols) row-major matrix as a NumPy .npy file (format 1.0). 0 on success. */
int save_npy(const char *path, const float *m, int rows, int cols);
/* Read a .npy file holding a 2-D float32 array in C order (what save_npy and NumPy's
 * np.save of a float32 matrix write, format 1.0, 2.0 or 3.0): 0 on success, with *m from
 * malloc; -1 with the reason in err (a missing file, not .npy, another dtype, Fortran
 * order, not 2-D, truncated, bytes past the data, out of memory). */
int load_npy(const char *path, float **m, int *rows, int *cols, char *err, size_t errlen);
/* DIR/a.npy and DIR/b.npy, both n x n float32: 0 with *n set; -1 with one line in err naming
 * the file and what is wrong with it (also two sizes that differ, or a matrix not square). */
int load_npy_pair(const char *dir, float **a, float **b, int *n, char *err, size_t errlen);
/* The same for either element type: float64 ('<f8') for ELEMENT_FP64. */
int save_npy_as(const char *path, const void *m, int rows, int cols, enum element_type element);
int load_npy_as(const char *path, void **m, int *rows, int *cols, enum element_type element, char *err,
                size_t errlen);
int load_npy_pair_as(const char *dir, void **a, void **b, int *n, enum element_type element, char *err,
                     size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
