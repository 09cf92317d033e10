/* Step 06's lesson, the padded allocation: device matrices allocated with n rounded up to
 * a multiple of the tile and zero-filled, so every tile is whole and the kernel needs no
 * bounds checks; then the copies, one launch, the copy back, and the kernel's median time.
 * Step 06 introduces it; the steps after it, whose lessons are in their kernels, and cuBLAS
 * (with a tile of 1: pitched rows, nothing padded) call it unchanged. */
#include "step.h"

void matmult_padded(const float *a, int lda, const float *b, int ldb, float *c, int ldc, int n, int tile,
                    launch_fn launch, int kernel_reps, struct gpu_run *run)
{
    float *ac, *bc, *cc;
    size_t pitch_a, pitch_b, pitch_c;
    const size_t row_bytes = sizeof(float) * n;
    const int newn = ((n + tile - 1) / tile) * tile;
    struct phase_clock clock;

    phase_start(&clock);
    CUDA_CHECK(cudaMallocPitch((void **)&ac, &pitch_a, sizeof(float) * newn, newn));
    CUDA_CHECK(cudaMallocPitch((void **)&bc, &pitch_b, sizeof(float) * newn, newn));
    CUDA_CHECK(cudaMallocPitch((void **)&cc, &pitch_c, sizeof(float) * newn, newn));
    CUDA_CHECK(cudaMemset(ac, 0, pitch_a * newn)); /* the padding must be zeros: it is summed */
    CUDA_CHECK(cudaMemset(bc, 0, pitch_b * newn));
    CUDA_CHECK(cudaMemset(cc, POISON_BYTE, pitch_c * newn)); /* harness: catch unwritten elements */
    run->alloc_ms = phase_lap(&clock);
    run->pitch_bytes = pitch_a;
    run->padded_n = tile > 1 ? newn : 0; /* a tile of 1 (cuBLAS) pads nothing */

    CUDA_CHECK(cudaMemcpy2D(ac, pitch_a, a, sizeof(float) * lda, row_bytes, n, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy2D(bc, pitch_b, b, sizeof(float) * ldb, row_bytes, n, cudaMemcpyHostToDevice));
    run->h2d_ms = phase_lap(&clock);

    const struct dev_mats m = {ac, pitch_a / sizeof(float), bc, pitch_b / sizeof(float),
                               cc, pitch_c / sizeof(float), n, newn, run->config};
    launch(&m);
    CUDA_CHECK_LAUNCH();
    run->kernel_ms = phase_lap(&clock);

    CUDA_CHECK(cudaMemcpy2D(c, sizeof(float) * ldc, cc, pitch_c, row_bytes, n, cudaMemcpyDeviceToHost));
    run->d2h_ms = phase_lap(&clock);

    run->kernel_median_ms = time_kernel(launch, &m, kernel_reps); /* outside the end-to-end time */

    phase_start(&clock);
    CUDA_CHECK(cudaFree(ac));
    CUDA_CHECK(cudaFree(bc));
    CUDA_CHECK(cudaFree(cc));
    run->free_ms = phase_lap(&clock);
}
