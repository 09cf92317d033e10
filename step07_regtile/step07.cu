/* Step 07: register tiling. Each thread computes an 8 x 8 block of C in registers
 * from a 128 x 128 tile per block, so every value read from shared memory feeds 8
 * multiply-adds instead of one. Plain float sums from here on: no Kahan (README). */
#include "step.h"

#define BM 128 /* rows of C per block */
#define BN 128 /* columns of C per block */
#define BK 8   /* k per shared-memory tile */
#define TM 8   /* rows of C per thread */
#define TN 8   /* columns of C per thread */
#define NUM_THREADS ((BM / TM) * (BN / TN))
#define TILE BM /* matrices are padded to a multiple of this */

static_assert(BM % TM == 0 && BN % TN == 0, "a block's tile of C splits into whole thread tiles");
static_assert(NUM_THREADS == 256, "16 x 16 threads, each with a TM x TN tile");
static_assert((BM * BK) % NUM_THREADS == 0 && (BK * BN) % NUM_THREADS == 0,
              "every thread loads the same number of elements of A's and B's tiles");
static_assert(BM == BN && TILE % BK == 0, "one padding (TILE) serves rows, columns and k");

const struct step_info step_info = {
    .program = "step07",
    .lesson = "register tiling, 8x8 per thread (no Kahan)",
    .chapter = "cuda-cores",
};

__global__ static void __launch_bounds__(NUM_THREADS)
    matmult_kernel(const float *a, size_t lda, const float *b, size_t ldb, float *c, size_t ldc, int n)
{
    __shared__ float As[BM][BK];
    __shared__ float Bs[BK][BN];
    const int tid = threadIdx.x;
    const int trow = tid / (BN / TN), tcol = tid % (BN / TN); /* this thread's TM x TN tile */
    a += (size_t)blockIdx.y * BM * lda;
    b += (size_t)blockIdx.x * BN;
    c += (size_t)blockIdx.y * BM * ldc + (size_t)blockIdx.x * BN;

    float acc[TM][TN] = {{0}};
    for (int k0 = 0; k0 < n; k0 += BK) {
        /* The zero padding past n fills the tiles that hang over the edge. */
        for (int i = tid; i < BM * BK; i += NUM_THREADS)
            As[i / BK][i % BK] = a[(size_t)(i / BK) * lda + k0 + i % BK];
        for (int i = tid; i < BK * BN; i += NUM_THREADS)
            Bs[i / BN][i % BN] = b[(size_t)(k0 + i / BN) * ldb + i % BN];
        __syncthreads();

        for (int k = 0; k < BK; k++) {
            float ra[TM], rb[TN];
            for (int m = 0; m < TM; m++)
                ra[m] = As[trow * TM + m][k];
            for (int j = 0; j < TN; j++)
                rb[j] = Bs[k][tcol * TN + j];
            for (int m = 0; m < TM; m++) /* TM + TN loads, TM x TN multiply-adds */
                for (int j = 0; j < TN; j++)
                    acc[m][j] += ra[m] * rb[j];
        }
        __syncthreads(); /* before the next iteration overwrites the tiles */
    }
    for (int m = 0; m < TM; m++)
        for (int j = 0; j < TN; j++)
            c[(size_t)(trow * TM + m) * ldc + tcol * TN + j] = acc[m][j];
}

static void launch(const struct step_run *run)
{
    const struct dev_mats *m = &run->mats;
    /* A 2-D grid of blocks, one per 128 x 128 tile of C, 256 threads each. */
    const int bx = m->padded / TILE;
    const dim3 blocks(bx, bx);
    matmult_kernel<<<blocks, NUM_THREADS>>>(m->a, m->lda, m->b, m->ldb, m->c, m->ldc, m->n);
}

/* Nothing to set up: the launch is the whole run (common/step.h). */
static const struct step_ops ops = {.launch = launch};

/* Step 06's padded allocation (common/padded.c, one copy for every step that calls it): the device
 * matrices allocated with n rounded up to a multiple of the tile and zero-filled, so that
 * every tile is whole. */
MATMULT_GPU_PADDED(TILE, ops)
