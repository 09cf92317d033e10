/* Step 08: 128-bit loads. Global memory is read four floats at a time (float4), A's
 * tile is stored transposed in shared memory so that a thread's 8 values of A, like
 * its 8 values of B, are two 16-byte loads instead of eight 4-byte ones. */
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

static_assert(BK % 4 == 0 && BN % 4 == 0 && TM % 4 == 0 && TN % 4 == 0, "everything moves as float4");
static_assert(BM * BK / 4 == NUM_THREADS && BK * BN / 4 == NUM_THREADS,
              "one float4 of A and one of B per thread per tile");

const struct step_info step_info = {
    .program = "step08",
    .lesson = "float4 loads, A transposed in shared",
    .chapter = "cuda-cores",
};

__global__ static void __launch_bounds__(NUM_THREADS)
    matmult_kernel(const float *a, size_t lda, const float *b, size_t ldb, float *c, size_t ldc, int n)
{
    __shared__ __align__(16) float As[BK][BM]; /* transposed: k-major, like Bs */
    __shared__ __align__(16) float Bs[BK][BN];
    const int tid = threadIdx.x;
    const int trow = tid / (BN / TN), tcol = tid % (BN / TN); /* this thread's TM x TN tile */
    a += (size_t)blockIdx.y * BM * lda;
    b += (size_t)blockIdx.x * BN;
    c += (size_t)blockIdx.y * BM * ldc + (size_t)blockIdx.x * BN;

    float acc[TM][TN] = {{0}};
    for (int k0 = 0; k0 < n; k0 += BK) {
        /* The zero padding past n fills the tiles that hang over the edge. */
        /* Rows are 16-byte aligned: the pitch is a multiple of 512 bytes. */
        const int arow = tid / (BK / 4), acol = tid % (BK / 4) * 4;
        const float4 va = *(const float4 *)&a[(size_t)arow * lda + k0 + acol];
        As[acol + 0][arow] = va.x;
        As[acol + 1][arow] = va.y;
        As[acol + 2][arow] = va.z;
        As[acol + 3][arow] = va.w;
        const int brow = tid / (BN / 4), bcol = tid % (BN / 4) * 4;
        *(float4 *)&Bs[brow][bcol] = *(const float4 *)&b[(size_t)(k0 + brow) * ldb + bcol];
        __syncthreads();

        for (int k = 0; k < BK; k++) {
            float ra[TM], rb[TN];
            for (int m = 0; m < TM; m += 4)
                *(float4 *)&ra[m] = *(const float4 *)&As[k][trow * TM + m];
            for (int j = 0; j < TN; j += 4)
                *(float4 *)&rb[j] = *(const float4 *)&Bs[k][tcol * TN + j];
            for (int m = 0; m < TM; m++) /* TM + TN loads, TM x TN multiply-adds */
                for (int j = 0; j < TN; j++)
                    acc[m][j] += ra[m] * rb[j];
        }
        __syncthreads(); /* before the next iteration overwrites the tiles */
    }
    for (int m = 0; m < TM; m++)
        for (int j = 0; j < TN; j += 4)
            *(float4 *)&c[(size_t)(trow * TM + m) * ldc + tcol * TN + j] = *(const float4 *)&acc[m][j];
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
