#include "variants.h"

#include <immintrin.h>
#include <stdlib.h>
#include <string.h>

__attribute__((target("avx2"))) static __m256i tail_mask(int count)
{
    const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(count), lanes);
}

static int min_int(int x, int y)
{
    return x < y ? x : y;
}

/* The lab's blocked loop: C is computed block x block tile by tile, each tile of C
 * accumulating the products of a tile of A and a tile of B, so the three tiles can
 * stay in cache while they are reused. block is a multiple of 8 (checked by main). */
__attribute__((target("avx2,fma"))) void gemm_avx_blocked(const float *a, const float *b, float *c, int n,
                                                          int block)
{
    memset(c, 0, sizeof *c * (size_t)n * n);
    for (int i = 0; i < n; i += block)
        for (int j = 0; j < n; j += block)
            for (int k = 0; k < n; k += block) {
                const int imax = min_int(i + block, n), jmax = min_int(j + block, n), kmax = min_int(k + block, n);
                for (int ii = i; ii < imax; ii++)
                    for (int jj = j; jj < jmax; jj += 8) {
                        float *cij = &c[(size_t)ii * n + jj];
                        const int full = jmax - jj >= 8;
                        const __m256i mask = tail_mask(jmax - jj);
                        __m256 sum = full ? _mm256_loadu_ps(cij) : _mm256_maskload_ps(cij, mask);
                        for (int kk = k; kk < kmax; kk++) {
                            const float *bk = &b[(size_t)kk * n + jj];
                            __m256 bv = full ? _mm256_loadu_ps(bk) : _mm256_maskload_ps(bk, mask);
                            sum = _mm256_fmadd_ps(_mm256_broadcast_ss(&a[(size_t)ii * n + kk]), bv, sum);
                        }
                        if (full)
                            _mm256_storeu_ps(cij, sum);
                        else
                            _mm256_maskstore_ps(cij, mask, sum);
                    }
            }
}

/* As the lab tried it: transpose B first, then build each vector of 8 columns of
 * B from 8 rows of the transpose, n floats apart. The transposition is timed too. */
__attribute__((target("avx2,fma"))) void gemm_avx_blocked_bt(const float *a, const float *b, float *c, int n,
                                                             int block)
{
    float *bt = malloc(sizeof *bt * (size_t)n * n);
    if (!bt)
        abort(); /* main checked that the host has memory for this */
    for (int k = 0; k < n; k++)
        for (int j = 0; j < n; j++)
            bt[(size_t)j * n + k] = b[(size_t)k * n + j];
    memset(c, 0, sizeof *c * (size_t)n * n);
    for (int i = 0; i < n; i += block)
        for (int j = 0; j < n; j += block)
            for (int k = 0; k < n; k += block) {
                const int imax = min_int(i + block, n), jmax = min_int(j + block, n), kmax = min_int(k + block, n);
                for (int ii = i; ii < imax; ii++)
                    for (int jj = j; jj < jmax; jj += 8) {
                        float *cij = &c[(size_t)ii * n + jj];
                        const int cols = min_int(jmax - jj, 8);
                        const __m256i mask = tail_mask(cols);
                        __m256 sum = _mm256_maskload_ps(cij, mask);
                        for (int kk = k; kk < kmax; kk++) {
                            float col[8] = {0};
                            for (int t = 0; t < cols; t++)
                                col[t] = bt[(size_t)(jj + t) * n + kk];
                            sum = _mm256_fmadd_ps(_mm256_broadcast_ss(&a[(size_t)ii * n + kk]),
                                                  _mm256_loadu_ps(col), sum);
                        }
                        _mm256_maskstore_ps(cij, mask, sum);
                    }
            }
    free(bt);
}
