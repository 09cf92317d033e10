/* Step 04: pitched allocation. cudaMallocPitch pads every device row to an aligned
 * width, so every row of A, B and C starts on an aligned address; the kernel is
 * step 03's, given the pitches as leading dimensions. */
#include "step.h"

#ifndef NUM_THREADS /* other block sizes: -DNUM_THREADS=... (see make tile-sweep) */
#define NUM_THREADS 256
#endif

/* The row of A in shared memory: n floats, rounded up to a multiple of 4 because
 * the compiler's unrolled loop reads it 16 bytes at a time (compute-sanitizer flags
 * the over-read at n = 17 otherwise). Above the default 48 KB per block the kernel
 * must opt in, up to the device's limit (227 KB on an H100: n <= 58112). */
static size_t row_smem_bytes(int n)
{
    return sizeof(float) * (((size_t)n + 3) / 4 * 4);
}

const struct step_info step_info = {
    .program = "step04",
    .lesson = "cudaMallocPitch",
    .chapter = "article",
    .compensated = 1,
    .dynamic_smem_bytes = row_smem_bytes,
};

__global__ static void matmult_kernel(const float *a, size_t lda, const float *b, size_t ldb,
                                      float *c, size_t ldc, int n)
{
    extern __shared__ float data[];
    const int tid = threadIdx.x;
    const size_t row = blockIdx.x;

    for (int i = tid; i < n; i += blockDim.x) {
        data[i] = a[row * lda + i];
    }
    __syncthreads();

    for (int column = tid; column < n; column += blockDim.x) {
        float t = 0;
        float y = 0; /* how far t is above the exact sum: its rounding error */
        for (int i = 0; i < n; i++) {
            float r;
            y -= data[i] * b[i * ldb + column];
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
    /* One block per row of C, with the row of A as dynamic shared memory. */
    matmult_kernel<<<m->n, NUM_THREADS, row_smem_bytes(m->n)>>>(m->a, m->lda, m->b, m->ldb, m->c,
                                                               m->ldc, m->n);
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
    if (row_smem_bytes(n) > 48 * 1024) /* past the default 48 KB a kernel must opt in */
        CUDA_CHECK(cudaFuncSetAttribute(matmult_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        (int)row_smem_bytes(n)));
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
