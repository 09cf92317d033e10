#include "variants.h"

/* The lab's triple loop: the inner loop walks down a column of B, n floats apart,
 * so every multiply-add touches a new cache line of B. */
void gemm_baseline(const float *a, const float *b, float *c, int n)
{
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) {
            float sum = 0.0f;
            for (int k = 0; k < n; k++)
                sum += a[(size_t)i * n + k] * b[(size_t)k * n + j];
            c[(size_t)i * n + j] = sum;
        }
    }
}
