/* Step 10: a pipeline. Step 09's warp tiling, with the tiles of A and B copied from
 * global to shared memory asynchronously (cp.async), STAGES tiles ahead, so that the
 * loads of the next tiles overlap the multiply-adds on the current one instead of
 * stalling every thread at each barrier. Several configurations, all from measured
 * sweeps (README): large tiles for large n, smaller ones where large tiles would leave
 * SMs idle, each with as many stages as the GPU's shared memory holds. The kernel is a
 * template only to take them as compile-time constants; each is one instantiation. */
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
#define LARGE_THIN LBM, LBN, 16, LWM, LWN /* half the k per tile: for 64 KB of shared memory */
#define SMALL 64, 128, 32, 32, 32
#define SMALL_MIN_BLOCKS 2
#ifndef SMALL_MAX_N
#define SMALL_MAX_N 2047 /* up to this n the small tiles fill more SMs (the sweep) */
#endif
#define TILE 256 /* matrices are padded to a multiple of this: every shape's tiles are whole */

/* Each shape with 4, 3 or 2 tiles in flight: 4 is the fastest (the sweep), fewer fit a
 * GPU with less shared memory per block (192 KB for the large tiles, 96 KB for the small
 * ones with 4 stages; an A100 allows 163 KB, an RTX 4090 99 KB, a T4 64 KB). Where only
 * 48 KB fit, the large tiles with half the k per tile (BK = 16) and 2 stages. The harness
 * runs the first of the list for n that fits; every list holds them all, so that --config
 * can run any of them at any n. The order is measured (make config-sweep, README): at
 * large n the large tiles with fewer stages or a thinner k still beat the small ones. */
enum { LARGE_4, LARGE_3, LARGE_2, LARGE_THIN_2, SMALL_4, SMALL_3, SMALL_2 };
#define SMEM(bm, bn, bk, stages) (sizeof(float) * (stages) * (bk) * ((bm) + (bn)))
#define STR_(x) #x
#define STR(x) STR_(x)
#define LARGE_CONFIG(s) {LARGE_##s, STR(LBM) "x" STR(LBN) "x" STR(LBK) "/" #s, SMEM(LBM, LBN, LBK, s)}
#define LARGE_THIN_CONFIG {LARGE_THIN_2, STR(LBM) "x" STR(LBN) "x16/2", SMEM(LBM, LBN, 16, 2)}
#define SMALL_CONFIG(s) {SMALL_##s, "64x128x32/" #s, SMEM(64, 128, 32, s)}
static const struct step_config large_n[] = {LARGE_CONFIG(4), LARGE_CONFIG(3), LARGE_CONFIG(2), LARGE_THIN_CONFIG,
                                             SMALL_CONFIG(4), SMALL_CONFIG(3), SMALL_CONFIG(2)};
static const struct step_config small_n[] = {SMALL_CONFIG(4), SMALL_CONFIG(3), SMALL_CONFIG(2), LARGE_CONFIG(4),
                                             LARGE_CONFIG(3), LARGE_CONFIG(2), LARGE_THIN_CONFIG};

static int pipeline_configs(int n, const struct step_config **list)
{
    *list = n <= SMALL_MAX_N ? small_n : large_n;
    return n <= SMALL_MAX_N ? sizeof small_n / sizeof *small_n : sizeof large_n / sizeof *large_n;
}

const struct step_info step_info = {
    .program = "step10",
    .lesson = "cp.async pipeline, tiles in flight",
    .chapter = "cuda-cores",
    .min_cc = 80,
    .needs = "cp.async",
    .configs = pipeline_configs,
    .config_legend = "tile BM x BN x BK / stages in flight",
};

/* A's tile is stored transposed, As[k][m]. The 32 lanes storing one k write 8 rows m
 * for each of 4 values of k / 4 that are a multiple of 32 floats apart: all in one bank.
 * XOR-ing m's bits 3-4 with k / 4 spreads them over the 32 banks, and moves whole
 * 4-float groups, so the 16-byte fragment reads stay aligned and conflict-free. */
#define SWZ(k, m) ((m) ^ ((((k) >> 2) & 3) << 3))

/* cp.async and its commit and wait (common/device/cp_async.h, shared with the steps that copy the same way). */
#include "device/cp_async.h"

template <int BM, int BN, int BK, int WM, int WN, int STAGES, int MIN_BLOCKS>
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
    static_assert(STAGES >= 2, "at least one tile loads while another is computed on");

    extern __shared__ __align__(16) float smem[];
    float(*As)[BK][BM] = (float(*)[BK][BM])smem; /* [STAGES][BK][BM], transposed */
    float(*Bs)[BK][BN] = (float(*)[BK][BN])(smem + STAGES * BK * BM);
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int wrow = warp / (BN / WN) * WM, wcol = warp % (BN / WN) * WN; /* the warp's tile */
    const int lrow = lane / 4 * 4, lcol = lane % 4 * 4;                    /* the lane's 4 x 4 */
    a += (size_t)blockIdx.y * BM * lda;
    b += (size_t)blockIdx.x * BN;
    c += (size_t)blockIdx.y * BM * ldc + (size_t)blockIdx.x * BN;

    /* Start copying the k0 tiles of A (transposed, element by element) and B (16 bytes
     * at a time) into one stage. */
    auto load_tile = [&](int stage, int k0) {
#pragma unroll
        for (int i = tid; i < BM * BK / 4; i += NUM_THREADS) {
            const int arow = i / (BK / 4), acol = i % (BK / 4) * 4;
            const float *src = &a[(size_t)arow * lda + k0 + acol];
#pragma unroll
            for (int e = 0; e < 4; e++)
                cp_async4(&As[stage][acol + e][SWZ(acol + e, arow)], src + e);
        }
#pragma unroll
        for (int i = tid; i < BK * BN / 4; i += NUM_THREADS) {
            const int brow = i / (BN / 4), bcol = i % (BN / 4) * 4;
            cp_async16(&Bs[stage][brow][bcol], &b[(size_t)(k0 + brow) * ldb + bcol]);
        }
    };

    float acc[4 * MI][4 * NI] = {{0}};
    const int tiles = (n + BK - 1) / BK; /* the zero padding past n fills the last tile */
#pragma unroll
    for (int s = 0; s < STAGES - 1; s++) { /* the prologue: the first tiles in flight */
        if (s < tiles)
            load_tile(s, s * BK);
        cp_async_commit();
    }
    for (int t = 0; t < tiles; t++) {
        cp_async_wait<STAGES - 2>(); /* tile t has landed (this thread's copies) */
        __syncthreads();           /* ... everyone's; and stage (t - 1) is free again */
        const int next = t + STAGES - 1;
        if (next < tiles)
            load_tile(next % STAGES, next * BK);
        cp_async_commit(); /* an empty group near the end keeps the count simple */
        const float(*as)[BM] = As[t % STAGES];
        const float(*bs)[BN] = Bs[t % STAGES];

#pragma unroll
        for (int k = 0; k < BK; k++) {
            float ra[4 * MI], rb[4 * NI];
#pragma unroll
            for (int i = 0; i < MI; i++) /* rows lrow.., lrow + 32.., of the warp's tile */
                *(float4 *)&ra[4 * i] = *(const float4 *)&as[k][SWZ(k, wrow + i * 32 + lrow)];
#pragma unroll
            for (int j = 0; j < NI; j++) /* columns lcol.., lcol + 16.. */
                *(float4 *)&rb[4 * j] = *(const float4 *)&bs[k][wcol + j * 16 + lcol];
#pragma unroll
            for (int m = 0; m < 4 * MI; m++)
#pragma unroll
                for (int j = 0; j < 4 * NI; j++)
                    acc[m][j] += ra[m] * rb[j];
        }
    }
#pragma unroll
    for (int m = 0; m < 4 * MI; m++)
#pragma unroll
        for (int j = 0; j < NI; j++)
            *(float4 *)&c[(size_t)(wrow + m / 4 * 32 + lrow + m % 4) * ldc + wcol + j * 16 + lcol] =
                *(const float4 *)&acc[m][4 * j];
}

/* Past the default 48 KB a kernel must opt in to more shared memory: once per run, in setup. */
template <int BM, int BN, int BK, int WM, int WN, int STAGES, int MIN_BLOCKS>
static void setup_shape()
{
    const size_t smem = sizeof(float) * STAGES * BK * (BM + BN);
    if (smem > 48 * 1024)
        CUDA_CHECK(cudaFuncSetAttribute(matmult_kernel<BM, BN, BK, WM, WN, STAGES, MIN_BLOCKS>,
                                        cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
}

/* Launch one shape: the grid covers the padded matrix with BM x BN tiles. */
template <int BM, int BN, int BK, int WM, int WN, int STAGES, int MIN_BLOCKS>
static void launch_shape(const struct dev_mats *m)
{
    const size_t smem = sizeof(float) * STAGES * BK * (BM + BN);
    const int padded = m->padded;
    auto kernel = matmult_kernel<BM, BN, BK, WM, WN, STAGES, MIN_BLOCKS>;
    kernel<<<dim3(padded / BN, padded / BM), 32 * (BM / WM) * (BN / WN), smem>>>(m->a, m->lda, m->b, m->ldb,
                                                                                 m->c, m->ldc, m->n);
}

static void setup(struct step_run *run)
{
    switch (run->config->id) {
    case LARGE_4: setup_shape<LARGE, 4, LMIN_BLOCKS>(); break;
    case LARGE_3: setup_shape<LARGE, 3, LMIN_BLOCKS>(); break;
    case LARGE_2: setup_shape<LARGE, 2, LMIN_BLOCKS>(); break;
    case LARGE_THIN_2: setup_shape<LARGE_THIN, 2, LMIN_BLOCKS>(); break;
    case SMALL_4: setup_shape<SMALL, 4, SMALL_MIN_BLOCKS>(); break;
    case SMALL_3: setup_shape<SMALL, 3, SMALL_MIN_BLOCKS>(); break;
    default: setup_shape<SMALL, 2, SMALL_MIN_BLOCKS>(); break;
    }
}

static void launch(const struct step_run *run)
{
    const struct dev_mats *m = &run->mats;
    switch (run->config->id) {
    case LARGE_4: launch_shape<LARGE, 4, LMIN_BLOCKS>(m); break;
    case LARGE_3: launch_shape<LARGE, 3, LMIN_BLOCKS>(m); break;
    case LARGE_2: launch_shape<LARGE, 2, LMIN_BLOCKS>(m); break;
    case LARGE_THIN_2: launch_shape<LARGE_THIN, 2, LMIN_BLOCKS>(m); break;
    case SMALL_4: launch_shape<SMALL, 4, SMALL_MIN_BLOCKS>(m); break;
    case SMALL_3: launch_shape<SMALL, 3, SMALL_MIN_BLOCKS>(m); break;
    default: launch_shape<SMALL, 2, SMALL_MIN_BLOCKS>(m); break;
    }
}

static const struct step_ops ops = {.setup = setup, .launch = launch};

/* Step 06's padded allocation (common/padded.c, one copy for every step that calls it): the device
 * matrices allocated with n rounded up to a multiple of the tile and zero-filled, so that
 * every tile is whole. */
MATMULT_GPU_PADDED(TILE, ops)
