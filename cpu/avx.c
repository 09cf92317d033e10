#include "variants.h"

#include <immintrin.h>

/* Lanes 0 .. count-1 on: for the last, partial group of 8 columns. */
__attribute__((target("avx2"))) static __m256i tail_mask(int count)
{
    const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(count), lanes);
}

/* The lab's AVX loop: for each row i and 8 columns j..j+7, walk k, broadcasting
 * A[i][k] and multiplying it into 8 consecutive floats of row k of B. The columns
 * past the last multiple of 8 use masked loads and stores instead of being dropped. */
__attribute__((target("avx2,fma"))) void gemm_avx(const float *a, const float *b, float *c, int n)
{
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j += 8) {
            const int full = n - j >= 8;
            const __m256i mask = tail_mask(n - j);
            __m256 sum = _mm256_setzero_ps();
            for (int k = 0; k < n; k++) {
                __m256 bk = full ? _mm256_loadu_ps(&b[(size_t)k * n + j])
                                 : _mm256_maskload_ps(&b[(size_t)k * n + j], mask);
                sum = _mm256_fmadd_ps(_mm256_broadcast_ss(&a[(size_t)i * n + k]), bk, sum);
            }
            if (full)
                _mm256_storeu_ps(&c[(size_t)i * n + j], sum);
            else
                _mm256_maskstore_ps(&c[(size_t)i * n + j], mask, sum);
        }
    }
}
