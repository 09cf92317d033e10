/* Making the matrices a program multiplies: the article's generator, the --dist families
 * of FP32's range, their names. */
#include "matrix.h"
#include "exit_codes.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

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
