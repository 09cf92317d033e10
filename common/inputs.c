/* Making the matrices a program multiplies: the article's generator, the --dist families
 * of FP32's range, their names. */
#include "matrix.h"
#include "exit_codes.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* SplitMix64: tiny, fast and identical everywhere, unlike the C library's rand(),
 * whose sequence differs between libraries; results must be reproducible. */
#define SPLITMIX_GAMMA 0x9e3779b97f4a7c15ull
uint32_t rand31(uint64_t *state)
{
    uint64_t z = (*state += SPLITMIX_GAMMA);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return (uint32_t)(z >> 33);
}

/* The state rand31 leaves after `draws` more calls: each call adds one constant, so any point
 * of the sequence is a multiply away. The generators below make their rows in parallel, each
 * from its own point, with the very values a row-by-row loop gives (the recorded results depend
 * on them), and leave *state where that loop would. */
static uint64_t rand31_skip(uint64_t state, uint64_t draws)
{
    return state + draws * SPLITMIX_GAMMA;
}

#define RAND31_RANGE 2147483648.0 /* 2^31: rand31() returns 0 .. 2^31 - 1 */

void matgen(float *a, size_t lda, int n, uint64_t *state)
{
    matgen_rect(a, lda, n, n, state);
}

/* Two draws per element. */
void matgen_rect(float *a, size_t lda, int rows, int cols, uint64_t *state)
{
    const uint64_t start = *state, per_row = 2 * (uint64_t)cols;
#pragma omp parallel for schedule(static)
    for (int i = 0; i < rows; i++) {
        uint64_t s = rand31_skip(start, per_row * (uint64_t)i);
        for (int j = 0; j < cols; j++) {
            /* The article wrote rand() / (RAND_MAX * RAND_MAX): that product overflows
             * int (undefined behaviour). The range is squared in double instead. */
            double coarse = rand31(&s) / RAND31_RANGE;
            double tiny = rand31(&s) / (RAND31_RANGE * RAND31_RANGE);
            a[(size_t)i * lda + j] = (float)coarse + (float)tiny;
        }
    }
    *state = rand31_skip(start, per_row * (uint64_t)rows);
}

/* One wide value: two draws. */
static float wide_value(uint64_t *state)
{
    const uint32_t bits = rand31(state);
    const double mantissa = 1.0 + rand31(state) / RAND31_RANGE; /* [1, 2) */
    const int exponent = (int)(bits % 17) - 8;                  /* -8 .. 8 */
    const float value = (float)ldexp(mantissa, exponent);
    return (bits >> 30) & 1 ? -value : value;
}

void matgen_wide(float *a, size_t lda, int rows, int cols, uint64_t *state)
{
    const uint64_t start = *state, per_row = 2 * (uint64_t)cols;
#pragma omp parallel for schedule(static)
    for (int i = 0; i < rows; i++) {
        uint64_t s = rand31_skip(start, per_row * (uint64_t)i);
        for (int j = 0; j < cols; j++)
            a[(size_t)i * lda + j] = wide_value(&s);
    }
    *state = rand31_skip(start, per_row * (uint64_t)rows);
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
    /* the draws of a row: its scale (rowscale's A), then each element's: two, or three where an
     * exponent is drawn first (mixed, huge) */
    const uint64_t start = *state, row_draws = dist == DIST_ROWSCALE && which == 'A';
    const uint64_t per_row = row_draws + (dist == DIST_MIXED || dist == DIST_HUGE ? 3 : 2) * (uint64_t)cols;
#pragma omp parallel for schedule(static)
    for (int i = 0; i < rows; i++) {
        uint64_t s = rand31_skip(start, per_row * (uint64_t)i), *st = &s;
        const int row_scale = row_draws ? -140 + (int)(rand31(st) % 61) : 0;
        for (int j = 0; j < cols; j++) {
            float *x = &a[(size_t)i * lda + j];
            switch (dist) {
            case DIST_SUBNORMAL: *x = scaled_uniform(st, 0.0, which == 'A' ? -130 : 20, 0); break;
            case DIST_TINY: *x = scaled_uniform(st, 1.0, -126, 0); break;
            case DIST_ROWSCALE:
                *x = (float)ldexp(wide_value(st), row_scale + col_scale[j]); /* 24 bits: exact unless subnormal */
                break;
            case DIST_MIXED: {
                const int e = (which == 'A' ? -60 : -20) + (int)(rand31(st) % 81); /* drawn before the value */
                *x = scaled_uniform(st, 1.0, e, 1);
                break;
            }
            default: { /* DIST_HUGE */
                const int e = which == 'A' ? 126 + (int)(rand31(st) % 2) : -70 + (int)(rand31(st) % 11);
                *x = scaled_uniform(st, 1.0, e, 1);
                break;
            }
            }
        }
    }
    *state = rand31_skip(start, per_row * (uint64_t)rows);
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

size_t element_bytes(enum element_type element)
{
    return element == ELEMENT_FP64 ? sizeof(double) : sizeof(float);
}

const char *element_name(enum element_type element)
{
    return element == ELEMENT_FP64 ? "float64" : "float32";
}

/* ---- The families in FP64 (matrix.h) ---- */

/* [1, 2) with 52 random fraction bits: two draws (31 + 21 bits). */
static double fraction52(uint64_t *state)
{
    const uint64_t high = rand31(state), low = rand31(state) >> 10;
    return 1.0 + ldexp((double)(high << 21 | low), -52);
}

/* U[0, 1) 2^e or (1 + U) 2^e with 52 random bits, a random sign when signed: three draws. */
static double scaled_uniform64(uint64_t *state, double one, int e, int signed_)
{
    const uint32_t bits = rand31(state);
    const double value = ldexp(fraction52(state) - 1.0 + one, e); /* exact unless subnormal */
    return signed_ && (bits >> 30) & 1 ? -value : value;
}

/* +-m 2^e, e in -8 .. 8: three draws. */
static double wide_value64(uint64_t *state)
{
    const uint32_t bits = rand31(state);
    const double value = ldexp(fraction52(state), (int)(bits % 17) - 8);
    return (bits >> 30) & 1 ? -value : value;
}

void matgen_dist64(enum input_dist dist, char which, double *a, size_t lda, int rows, int cols, uint64_t *state)
{
    int *col_scale = calloc(cols > 0 ? (size_t)cols : 1, sizeof *col_scale); /* rowscale's, of B's columns */
    if (!col_scale) {
        fprintf(stderr, "cannot allocate host memory for %d column scales\n", cols);
        exit(EXIT_USAGE);
    }
    for (int j = 0; j < cols; j++)
        col_scale[j] = dist == DIST_ROWSCALE && which == 'B' ? 900 + (int)(rand31(state) % 101) : 0;
    /* a row's draws: its scale (rowscale's A), then each element's: two (uniform), three, or four
     * where an exponent is drawn first (mixed, huge) */
    const uint64_t start = *state, row_draws = dist == DIST_ROWSCALE && which == 'A';
    const uint64_t per_element = dist == DIST_UNIFORM ? 2 : dist == DIST_MIXED || dist == DIST_HUGE ? 4 : 3;
    const uint64_t per_row = row_draws + per_element * (uint64_t)cols;
#pragma omp parallel for schedule(static)
    for (int i = 0; i < rows; i++) {
        uint64_t s = rand31_skip(start, per_row * (uint64_t)i), *st = &s;
        const int row_scale = row_draws ? -1080 + (int)(rand31(st) % 81) : 0;
        for (int j = 0; j < cols; j++) {
            double *x = &a[(size_t)i * lda + j];
            switch (dist) {
            case DIST_UNIFORM: { /* the article's formula, added in double */
                const double coarse = rand31(st) / RAND31_RANGE;
                *x = coarse + rand31(st) / (RAND31_RANGE * RAND31_RANGE);
                break;
            }
            case DIST_WIDE: *x = wide_value64(st); break;
            case DIST_SUBNORMAL: *x = scaled_uniform64(st, 0.0, which == 'A' ? -1030 : 100, 0); break;
            case DIST_TINY: *x = which == 'A' ? scaled_uniform64(st, 1.0, -1022, 0) : wide_value64(st); break;
            case DIST_ROWSCALE:
                *x = ldexp(wide_value64(st), row_scale + col_scale[j]); /* exact unless subnormal */
                break;
            case DIST_MIXED: {
                const int e = (which == 'A' ? -150 : -50) + (int)(rand31(st) % 201); /* drawn before the value */
                *x = scaled_uniform64(st, 1.0, e, 1);
                break;
            }
            default: { /* DIST_HUGE */
                const int e = which == 'A' ? 1022 + (int)(rand31(st) % 2) : -70 + (int)(rand31(st) % 11);
                *x = scaled_uniform64(st, 1.0, e, 1);
                break;
            }
            }
        }
    }
    *state = rand31_skip(start, per_row * (uint64_t)rows);
    free(col_scale);
}

static const char *const dist_descriptions64[DIST_COUNT] = {
    "[0, 1), 53-bit",
    "+-m * 2^e, e in -8..8, 53-bit",
    "A = U[0, 1) 2^-1030, FP64 subnormal; B = U[0, 1) 2^100",
    "A = (1 + U) 2^-1022, FP64's lowest normal binade; B wide",
    "wide, rows of A times 2^-1080..2^-1000, columns of B times 2^900..2^1000",
    "+-m * 2^e per element, e in -150..50 (A), -50..150 (B)",
    "A = +-(1 + U) 2^1022..2^1023, near DBL_MAX; B = +-(1 + U) 2^-70..2^-60",
};

const char *dist_description64(enum input_dist dist)
{
    return dist_descriptions64[dist];
}
