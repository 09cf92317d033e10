/* Step 06: padded allocation. The device matrices are allocated with n rounded up
 * to a multiple of 16 and zero-filled, so every tile is whole and the kernel drops
 * step 05's bounds checks. */
#include "step.h"

#ifndef BLOCK_SIZE /* other tile sizes: -DBLOCK_SIZE=4, 8 or 32 (see make tile-sweep) */
#define BLOCK_SIZE 16 /* the article's choice: 256 threads, when a block held at most 512 */
#endif

const struct step_info step_info = {
    .program = "step06",
    .lesson = "padded allocation, no bounds checks",
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
        /* The zero padding past n fills the tiles that hang over the edge. */
        matA[tidr][tidc] = a[(tidr + bidr) * lda + tidc + j];
        matB[tidr][tidc] = b[(tidr + j) * ldb + tidc + bidc];
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
    c[(tidr + bidr) * ldc + tidc + bidc] = t; /* the padding of C absorbs the overhang */
}

static void launch(const struct step_run *run)
{
    const struct dev_mats *m = &run->mats;
    /* A 2-D grid of 16 x 16 blocks, one block per tile of C. */
    const int bx = m->padded / BLOCK_SIZE;
    const dim3 blocks(bx, bx);
    const dim3 threads(BLOCK_SIZE, BLOCK_SIZE);
    matmult_kernel<<<blocks, threads>>>(m->a, m->lda, m->b, m->ldb, m->c, m->ldc, m->n);
}

/* Nothing to set up: the launch is the whole run (common/step.h). */
static const struct step_ops ops = {.launch = launch};

/* Step 06's padded allocation (common/padded.c, one copy for every step that calls it): the device
 * matrices allocated with n rounded up to a multiple of the tile and zero-filled, so that
 * every tile is whole. */
MATMULT_GPU_PADDED(BLOCK_SIZE, ops)
