/* Step 09: warp tiling. Between the block's tile and the thread's tile sits a warp's:
 * each warp owns a WM x WN piece of the block's tile, and its 32 lanes are laid out
 * 8 x 4 so that the values of A and B they read from shared memory at each k are a
 * few contiguous 16-byte groups: conflict-free, and broadcast to several lanes. Each
 * thread computes (4 MI) x (4 NI) of C as MI x NI blocks of 4 x 4; A's transposed
 * tile is swizzled so that its stores are conflict-free too. The tile shape comes from
 * a measured sweep (README); the kernel is a template only to take it as compile-time
 * constants. */
#include "step.h"

/* BM x BN of C per block, BK of k per tile, WM x WN per warp, and the blocks per SM the
 * registers must allow. make warptile-sweep overrides the large shape. */
#ifndef LBM
#define LBM 128
#define LBN 256
#define LBK 32
#define LWM 64
#define LWN 64
#define LMIN_BLOCKS 1
#endif
#define LARGE LBM, LBN, LBK, LWM, LWN
#define TILE (LBM > LBN ? LBM : LBN) /* matrices are padded to a multiple of this */

const struct step_info step_info = {
    .program = "step09",
    .lesson = "warp tiling, conflict-free fragments",
    .chapter = "cuda-cores",
};

/* A's tile is stored transposed, As[k][m]. The 32 lanes storing one k write 8 rows m
 * for each of 4 values of k / 4 that are a multiple of 32 floats apart: all in one bank.
 * XOR-ing m's bits 3-4 with k / 4 spreads them over the 32 banks, and moves whole
 * 4-float groups, so the 16-byte fragment reads stay aligned and conflict-free. */
#define SWZ(k, m) ((m) ^ ((((k) >> 2) & 3) << 3))

template <int BM, int BN, int BK, int WM, int WN, int MIN_BLOCKS>
__global__ static void __launch_bounds__(32 * (BM / WM) * (BN / WN), MIN_BLOCKS)
    matmult_kernel(const float *a, size_t lda, const float *b, size_t ldb, float *c, size_t ldc, int n)
{
    constexpr int MI = WM / 32, NI = WN / 16; /* 4-row and 4-column blocks per thread: 8 x 4 lanes */
    constexpr int NUM_THREADS = 32 * (BM / WM) * (BN / WN);
    static_assert(BM % WM == 0 && BN % WN == 0, "a block's tile splits into whole warp tiles");
    static_assert(WM % 32 == 0 && WN % 16 == 0, "a warp's 8 x 4 lanes cover it in 4 x 4 blocks");
    static_assert(NUM_THREADS >= 64 && NUM_THREADS <= 1024, "a block has 64 to 1024 threads");
    static_assert((BM * BK / 4) % NUM_THREADS == 0 && (BK * BN / 4) % NUM_THREADS == 0,
                  "every thread loads the same number of float4s of A and of B");
    static_assert(BK % 4 == 0 && TILE % BK == 0 && TILE % BM == 0 && TILE % BN == 0 && BM % 32 == 0,
                  "one padding (TILE) serves rows, columns and k; the swizzle needs 32 rows");

    __shared__ __align__(16) float As[BK][BM]; /* transposed: k-major, like Bs */
    __shared__ __align__(16) float Bs[BK][BN];
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int wrow = warp / (BN / WN) * WM, wcol = warp % (BN / WN) * WN; /* the warp's tile */
    const int lrow = lane / 4 * 4, lcol = lane % 4 * 4;                    /* the lane's 4 x 4 */
    a += (size_t)blockIdx.y * BM * lda;
    b += (size_t)blockIdx.x * BN;
    c += (size_t)blockIdx.y * BM * ldc + (size_t)blockIdx.x * BN;

    float acc[4 * MI][4 * NI] = {{0}};
    for (int k0 = 0; k0 < n; k0 += BK) {
        /* The zero padding past n fills the tiles that hang over the edge. */
#pragma unroll
        for (int i = tid; i < BM * BK / 4; i += NUM_THREADS) {
            const int arow = i / (BK / 4), acol = i % (BK / 4) * 4;
            const float4 va = *(const float4 *)&a[(size_t)arow * lda + k0 + acol];
            As[acol + 0][SWZ(acol + 0, arow)] = va.x;
            As[acol + 1][SWZ(acol + 1, arow)] = va.y;
            As[acol + 2][SWZ(acol + 2, arow)] = va.z;
            As[acol + 3][SWZ(acol + 3, arow)] = va.w;
        }
#pragma unroll
        for (int i = tid; i < BK * BN / 4; i += NUM_THREADS) {
            const int brow = i / (BN / 4), bcol = i % (BN / 4) * 4;
            *(float4 *)&Bs[brow][bcol] = *(const float4 *)&b[(size_t)(k0 + brow) * ldb + bcol];
        }
        __syncthreads();

#pragma unroll
        for (int k = 0; k < BK; k++) {
            float ra[4 * MI], rb[4 * NI];
#pragma unroll
            for (int i = 0; i < MI; i++) /* rows lrow.., lrow + 32.., of the warp's tile */
                *(float4 *)&ra[4 * i] = *(const float4 *)&As[k][SWZ(k, wrow + i * 32 + lrow)];
#pragma unroll
            for (int j = 0; j < NI; j++) /* columns lcol.., lcol + 16.. */
                *(float4 *)&rb[4 * j] = *(const float4 *)&Bs[k][wcol + j * 16 + lcol];
#pragma unroll
            for (int m = 0; m < 4 * MI; m++)
#pragma unroll
                for (int j = 0; j < 4 * NI; j++)
                    acc[m][j] += ra[m] * rb[j];
        }
        __syncthreads(); /* before the next iteration overwrites the tiles */
    }
#pragma unroll
    for (int m = 0; m < 4 * MI; m++)
#pragma unroll
        for (int j = 0; j < NI; j++)
            *(float4 *)&c[(size_t)(wrow + m / 4 * 32 + lrow + m % 4) * ldc + wcol + j * 16 + lcol] =
                *(const float4 *)&acc[m][4 * j];
}

/* Launch one shape: the grid covers the padded matrix with BM x BN tiles. */
template <int BM, int BN, int BK, int WM, int WN, int MIN_BLOCKS>
static void launch_shape(const struct dev_mats *m)
{
    const int padded = m->padded;
    auto kernel = matmult_kernel<BM, BN, BK, WM, WN, MIN_BLOCKS>;
    kernel<<<dim3(padded / BN, padded / BM), 32 * (BM / WM) * (BN / WN)>>>(m->a, m->lda, m->b, m->ldb,
                                                                            m->c, m->ldc, m->n);
}

static void launch(const struct step_run *run)
{
    launch_shape<LARGE, LMIN_BLOCKS>(&run->mats);
}

/* Nothing to set up: the launch is the whole run (common/step.h). */
static const struct step_ops ops = {.launch = launch};

/* Step 06's padded allocation (common/padded.c, one copy for every step that calls it): the device
 * matrices allocated with n rounded up to a multiple of the tile and zero-filled, so that
 * every tile is whole. */
MATMULT_GPU_PADDED(TILE, ops)
