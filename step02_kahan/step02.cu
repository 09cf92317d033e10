/* Step 02: Kahan (compensated) summation. Same memory traffic as step 01; each
 * multiply-add also carries the rounding error it made into the next one. */
#include "step.h"

#ifndef NUM_THREADS /* other block sizes: -DNUM_THREADS=... (see make tile-sweep) */
#define NUM_THREADS 256
#endif

const struct step_info step_info = {
    .program = "step02",
    .lesson = "Kahan summation",
    .chapter = "article",
    .compensated = 1,
};

__global__ static void matmult_kernel(const float *a, size_t lda, const float *b, size_t ldb,
                                      float *c, size_t ldc, int n)
{
    /* 64-bit index: the article's int overflows once n * n > 2^31 (n >= 46341),
     * a size an H100's 80 GB holds. */
    const size_t idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t row = idx / n;
    const size_t column = idx % n;

    if (row < n && column < n) {
        float t = 0;
        float y = 0; /* how far t is above the exact sum: its rounding error */
        for (int i = 0; i < n; i++) {
            float r;
            y -= a[row * lda + i] * b[i * ldb + column];
            r = t - y;
            y = (r - t) + y; /* what r gained minus what it should have */
            t = r;
        }
        c[row * ldc + column] = t;
    }
}

static void launch(const struct step_run *run)
{
    const struct dev_mats *m = &run->mats;
    /* The article's 1-D launch: ceil(n / 256) blocks per row of C, n rows. */
    const unsigned blocks = (m->n + NUM_THREADS - 1) / NUM_THREADS;
    matmult_kernel<<<blocks * m->n, NUM_THREADS>>>(m->a, m->lda, m->b, m->ldb, m->c, m->ldc, m->n);
}

void matmult_gpu(const float *a, int lda, const float *b, int ldb, float *c, int ldc, int n,
                 int kernel_reps, struct gpu_run *run)
{
    float *ac, *bc, *cc;
    const size_t row_bytes = sizeof(float) * n;
    struct phase_clock clock;

    phase_start(&clock);
    CUDA_CHECK(cudaMalloc((void **)&ac, row_bytes * n));
    CUDA_CHECK(cudaMalloc((void **)&bc, row_bytes * n));
    CUDA_CHECK(cudaMalloc((void **)&cc, row_bytes * n));
    CUDA_CHECK(cudaMemset(cc, POISON_BYTE, row_bytes * n)); /* harness: catch unwritten elements */
    run->alloc_ms = phase_lap(&clock);

    CUDA_CHECK(cudaMemcpy2D(ac, row_bytes, a, sizeof(float) * lda, row_bytes, n, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy2D(bc, row_bytes, b, sizeof(float) * ldb, row_bytes, n, cudaMemcpyHostToDevice));
    run->h2d_ms = phase_lap(&clock);

    const struct step_run step_run = {.mats = {ac, (size_t)n, bc, (size_t)n, cc, (size_t)n, n},
                                      .sm_clock = run->sm_clock};
    launch(&step_run);
    CUDA_CHECK_LAUNCH();
    run->kernel_ms = phase_lap(&clock);

    CUDA_CHECK(cudaMemcpy2D(c, sizeof(float) * ldc, cc, row_bytes, row_bytes, n, cudaMemcpyDeviceToHost));
    run->d2h_ms = phase_lap(&clock);

    run->kernel_median_ms = time_kernel(launch, &step_run, kernel_reps); /* outside the end-to-end time */

    phase_start(&clock);
    CUDA_CHECK(cudaFree(ac));
    CUDA_CHECK(cudaFree(bc));
    CUDA_CHECK(cudaFree(cc));
    run->free_ms = phase_lap(&clock);
}
