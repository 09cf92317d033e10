/* Step 05: 16 x 16 tiles. Each block computes a 16 x 16 tile of C, walking along
 * k one tile of A and one tile of B at a time through shared memory, so every
 * element fetched from global memory is used 16 times instead of once. */
#include "step.h"

#ifndef BLOCK_SIZE /* other tile sizes: -DBLOCK_SIZE=4, 8 or 32 (see make tile-sweep) */
#define BLOCK_SIZE 16 /* the article's choice: 256 threads, when a block held at most 512 */
#endif

const struct step_info step_info = {
    .program = "step05",
    .lesson = "16x16 shared-memory tiles",
    .chapter = "article",
    .compensated = 1,
};

__global__ static void matmult_kernel(const float *a, size_t lda, const float *b, size_t ldb,
                                      float *c, size_t ldc, int n)
{
    __shared__ float matA[BLOCK_SIZE][BLOCK_SIZE];
    __shared__ float matB[BLOCK_SIZE][BLOCK_SIZE];
    const int tidc = threadIdx.x;
    const int tidr = threadIdx.y;
    const int bidc = blockIdx.x * BLOCK_SIZE;
    const int bidr = blockIdx.y * BLOCK_SIZE;

    float t = 0;
    float y = 0; /* how far t is above the exact sum: its rounding error */
    for (int j = 0; j < n; j += BLOCK_SIZE) {
        /* Tiles that hang over the edge of the matrix are filled with zeros. */
        if (tidr + bidr < n && tidc + j < n) {
            matA[tidr][tidc] = a[(tidr + bidr) * lda + tidc + j];
        } else {
            matA[tidr][tidc] = 0;
        }
        if (tidr + j < n && tidc + bidc < n) {
            matB[tidr][tidc] = b[(tidr + j) * ldb + tidc + bidc];
        } else {
            matB[tidr][tidc] = 0;
        }
        __syncthreads();

        for (int i = 0; i < BLOCK_SIZE; i++) {
            float r;
            y -= matA[tidr][i] * matB[i][tidc];
            r = t - y;
            y = (r - t) + y; /* what r gained minus what it should have */
            t = r;
        }
        __syncthreads(); /* before the next iteration overwrites the tiles */
    }
    if (tidr + bidr < n && tidc + bidc < n) {
        c[(tidr + bidr) * ldc + tidc + bidc] = t;
    }
}

static void launch(const struct step_run *run)
{
    const struct dev_mats *m = &run->mats;
    /* A 2-D grid of 16 x 16 blocks, one block per tile of C. */
    const int bx = (m->n + BLOCK_SIZE - 1) / BLOCK_SIZE;
    const dim3 blocks(bx, bx);
    const dim3 threads(BLOCK_SIZE, BLOCK_SIZE);
    matmult_kernel<<<blocks, threads>>>(m->a, m->lda, m->b, m->ldb, m->c, m->ldc, m->n);
}

void matmult_gpu(const float *a, int lda, const float *b, int ldb, float *c, int ldc, int n,
                 int kernel_reps, struct gpu_run *run)
{
    float *ac, *bc, *cc;
    size_t pitch_a, pitch_b, pitch_c;
    const size_t row_bytes = sizeof(float) * n;
    struct phase_clock clock;

    phase_start(&clock);
    CUDA_CHECK(cudaMallocPitch((void **)&ac, &pitch_a, row_bytes, n));
    CUDA_CHECK(cudaMallocPitch((void **)&bc, &pitch_b, row_bytes, n));
    CUDA_CHECK(cudaMallocPitch((void **)&cc, &pitch_c, row_bytes, n));
    CUDA_CHECK(cudaMemset(cc, POISON_BYTE, pitch_c * n)); /* harness: catch unwritten elements */
    run->alloc_ms = phase_lap(&clock);
    run->pitch_bytes = pitch_a;

    CUDA_CHECK(cudaMemcpy2D(ac, pitch_a, a, sizeof(float) * lda, row_bytes, n, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy2D(bc, pitch_b, b, sizeof(float) * ldb, row_bytes, n, cudaMemcpyHostToDevice));
    run->h2d_ms = phase_lap(&clock);

    const struct step_run step_run = {.mats = {ac, pitch_a / sizeof(float), bc, pitch_b / sizeof(float),
                                               cc, pitch_c / sizeof(float), n}, .sm_clock = run->sm_clock};
    launch(&step_run);
    CUDA_CHECK_LAUNCH();
    run->kernel_ms = phase_lap(&clock);

    CUDA_CHECK(cudaMemcpy2D(c, sizeof(float) * ldc, cc, pitch_c, row_bytes, n, cudaMemcpyDeviceToHost));
    run->d2h_ms = phase_lap(&clock);

    run->kernel_median_ms = time_kernel(launch, &step_run, kernel_reps); /* outside the end-to-end time */

    phase_start(&clock);
    CUDA_CHECK(cudaFree(ac));
    CUDA_CHECK(cudaFree(bc));
    CUDA_CHECK(cudaFree(cc));
    run->free_ms = phase_lap(&clock);
}
