/* Step 11: tensor cores. Step 10's cp.async pipeline feeds the tensor cores instead of the
 * FP32 pipe: each warp multiplies 16 x 8 x 8 pieces of its tile with one instruction,
 * mma.sync.aligned.m16n8k8 on TF32 inputs (FP32 rounded to a 10-bit mantissa, to nearest),
 * accumulating in FP32. The price is precision: this step is judged as the tf32 class.
 *
 * What changes from step 10:
 * - the warp's arithmetic: 32 lanes no longer each own a 8 x 8 piece of C; the warp owns a
 *   WM x WN tile as (WM / 16) x (WN / 8) mma tiles, held in registers in the mma's layout;
 * - the shared-memory layout: A is no longer transposed (an mma fragment reads rows of A
 *   along k), and both tiles are stored with 16-byte chunks XOR-swizzled so that the
 *   fragment reads hit 32 different banks (see SWZ_A and SWZ_B). */
/* Development version 1 of step 11 (make versions builds it, make reproduce ONLY=versions measures
 * it): the step as first written. Fragments read with scalar loads, rounded by cvt.rna; the
 * copies and the main loop as step 10 wrote them. Next: step11_v2_ldmatrix.cu. */
#include "step.h"
#include "device/cp_async.h"
#include "device/tf32_mma.h"

#define BK 32    /* k per tile: one 128-byte row of A per tile row */
#define TILE 256 /* matrices are padded to a multiple of this: every shape's tiles are whole */

/* The configurations (make config-sweep measures them; the harness runs the first that fits
 * the GPU's shared memory per block). Measured on the H100: for large n, 128 x 128 tiles of
 * 4 warps of 64 x 64 with 3 stages (two blocks per SM) are as fast as 128 x 256 tiles of 8
 * warps; up to n = 2047, 64 x 128 tiles of 4 warps of 32 x 64 with 2 stages (48 KB, which
 * every GPU gives a block) fill more SMs and come first. */
enum { LARGE_4, LARGE_3, MEDIUM_4, MEDIUM_3, SMALL_2 };
#define SMEM(bm, bn, stages) (sizeof(float) * (stages) * BK * ((bm) + (bn)))
static const struct step_config large_n[] = {
    {MEDIUM_3, "128x128x32/3", SMEM(128, 128, 3)}, {LARGE_4, "128x256x32/4", SMEM(128, 256, 4)},
    {LARGE_3, "128x256x32/3", SMEM(128, 256, 3)}, {MEDIUM_4, "128x128x32/4", SMEM(128, 128, 4)},
    {SMALL_2, "64x128x32/2", SMEM(64, 128, 2)},
};
static const struct step_config small_n[] = {
    {SMALL_2, "64x128x32/2", SMEM(64, 128, 2)}, {MEDIUM_3, "128x128x32/3", SMEM(128, 128, 3)},
    {MEDIUM_4, "128x128x32/4", SMEM(128, 128, 4)}, {LARGE_4, "128x256x32/4", SMEM(128, 256, 4)},
    {LARGE_3, "128x256x32/3", SMEM(128, 256, 3)},
};
#ifndef SMALL_MAX_N
#define SMALL_MAX_N 2047
#endif

static int tf32_configs(int n, const struct step_config **list)
{
    *list = n <= SMALL_MAX_N ? small_n : large_n;
    return n <= SMALL_MAX_N ? sizeof small_n / sizeof *small_n : sizeof large_n / sizeof *large_n;
}

const struct step_info step_info = {
    .program = "step11_v1",
    .lesson = "step 11, version 1: scalar fragment loads, cvt.rna",
    .chapter = "tensor-cores",
    .min_cc = 80,
    .needs = "TF32 tensor cores, mma.sync",
    .configs = tf32_configs,
    .config_legend = "tile BM x BN x BK / stages in flight",
    .precision = PRECISION_TF32,
    .change = "step 11 as first written: scalar fragment loads, cvt.rna, step 10's copy loops",
};

/* mma_tf32: common/device/tf32_mma.h. The rounding to TF32 as first written: cvt.rna (to nearest,
 * ties away from zero) on every GPU, though Hopper has cvt.rn in one instruction. */
__device__ static inline uint32_t round_tf32(float x)
{
    uint32_t r = __float_as_uint(x);
#if __CUDA_ARCH__ >= 800
    asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
#else
    __trap(); /* no tensor cores: the harness never launches this step there (min_cc) */
#endif
    return r;
}

/* Where element (row, k) of A's tile and (k, col) of B's tile live in shared memory.
 * A's tile is BM rows of BK = 32 floats, eight 16-byte chunks per row. A fragment read
 * has 8 lanes (g) on 8 consecutive rows reading the same chunk: without a swizzle all 8
 * rows' chunks sit in the same 4 banks (8-way conflict). XOR-ing the chunk number with
 * row % 8 puts them in 8 different chunks, 32 banks. B's tile is BK rows of BN floats; a
 * fragment read has 4 lanes (t) on 4 rows reading 2 adjacent chunks (g = 0..7): XOR-ing
 * the chunk with 2 (k % 4) spreads the 4 rows over 8 chunks. Both swizzles move whole
 * 16-byte chunks, so cp.async's 16-byte copies stay whole and aligned. */
#define SWZ_A(row, k) ((row) * BK + ((((k) >> 2) ^ ((row) & 7)) << 2) + ((k) & 3))
#define SWZ_B(k, col, bn) ((k) * (bn) + ((((col) >> 2) ^ (((k) & 3) << 1)) << 2) + ((col) & 3))

template <int BM, int BN, int WM, int WN, int STAGES, int MIN_BLOCKS>
__global__ static void __launch_bounds__(32 * (BM / WM) * (BN / WN), MIN_BLOCKS)
    matmult_kernel(const float *a, size_t lda, const float *b, size_t ldb, float *c, size_t ldc, int n)
{
    constexpr int MI = WM / 16, NI = WN / 8; /* mma tiles per warp: 16 rows x 8 columns each */
    constexpr int NUM_THREADS = 32 * (BM / WM) * (BN / WN);
    static_assert(BM % WM == 0 && BN % WN == 0 && WM % 16 == 0 && WN % 8 == 0, "whole mma tiles");
    static_assert((BM * BK / 4) % NUM_THREADS == 0 && (BK * BN / 4) % NUM_THREADS == 0,
                  "every thread copies the same number of 16-byte chunks of A and of B");
    static_assert(TILE % BM == 0 && TILE % BN == 0 && TILE % BK == 0 && BN % 32 == 0, "whole tiles");
    static_assert(STAGES >= 2, "at least one tile loads while another is computed on");

    extern __shared__ __align__(16) float smem[];
    float *As = smem;                      /* [STAGES][BM * BK] */
    float *Bs = smem + STAGES * BM * BK;   /* [STAGES][BK * BN] */
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int wrow = warp / (BN / WN) * WM, wcol = warp % (BN / WN) * WN; /* the warp's tile */
    const int g = lane / 4, t = lane % 4;                                  /* the lane's place */
    a += (size_t)blockIdx.y * BM * lda;
    b += (size_t)blockIdx.x * BN;
    c += (size_t)blockIdx.y * BM * ldc + (size_t)blockIdx.x * BN;

    /* Start copying the k0 tiles of A and B into one stage, 16 bytes at a time, as step 10
     * copies B: a loop from the thread's number, each chunk's place computed in it. */
    auto load_tile = [&](int stage, int k0) {
#pragma unroll
        for (int i = tid; i < BM * BK / 4; i += NUM_THREADS) {
            const int row = i / (BK / 4), k = i % (BK / 4) * 4;
            cp_async16(&As[stage * BM * BK + SWZ_A(row, k)], &a[(size_t)row * lda + k0 + k]);
        }
#pragma unroll
        for (int i = tid; i < BK * BN / 4; i += NUM_THREADS) {
            const int kb = i / (BN / 4), col = i % (BN / 4) * 4;
            cp_async16(&Bs[stage * BK * BN + SWZ_B(kb, col, BN)], &b[(size_t)(k0 + kb) * ldb + col]);
        }
    };

    float acc[MI][NI][4] = {};
    /* The warp's multiply-adds on one stage: BK / 8 steps of k, each (WM / 16) x (WN / 8) mma. */
    auto compute = [&](const float *as, const float *bs) {
#pragma unroll
        for (int q = 0; q < BK / 8; q++) {
            uint32_t fa[MI][4], fb[NI][2];
#pragma unroll
            for (int i = 0; i < MI; i++) { /* the mma's layout: (g, t), (g + 8, t), (g, t + 4), (g + 8, t + 4) */
                const int row = wrow + i * 16 + g;
                fa[i][0] = round_tf32(as[SWZ_A(row, 8 * q + t)]);
                fa[i][1] = round_tf32(as[SWZ_A(row + 8, 8 * q + t)]);
                fa[i][2] = round_tf32(as[SWZ_A(row, 8 * q + t + 4)]);
                fa[i][3] = round_tf32(as[SWZ_A(row + 8, 8 * q + t + 4)]);
            }
#pragma unroll
            for (int j = 0; j < NI; j++) {
                const int col = wcol + j * 8 + g;
                fb[j][0] = round_tf32(bs[SWZ_B(8 * q + t, col, BN)]);
                fb[j][1] = round_tf32(bs[SWZ_B(8 * q + t + 4, col, BN)]);
            }
#pragma unroll
            for (int i = 0; i < MI; i++)
#pragma unroll
                for (int j = 0; j < NI; j++)
                    mma_tf32(acc[i][j], fa[i], fb[j]);
        }
    };

    const int tiles = (n + BK - 1) / BK; /* the zero padding past n fills the last tile */
#pragma unroll
    for (int s = 0; s < STAGES - 1; s++) { /* the prologue: the first tiles in flight */
        if (s < tiles)
            load_tile(s, s * BK);
        cp_async_commit();
    }
    for (int tile = 0; tile < tiles; tile++) {
        cp_async_wait<STAGES - 2>(); /* this tile has landed (this thread's copies) */
        __syncthreads();           /* ... everyone's; and the previous tile's stage is free */
        if (tile + STAGES - 1 < tiles)
            load_tile((tile + STAGES - 1) % STAGES, (tile + STAGES - 1) * BK);
        cp_async_commit();
        compute(As + tile % STAGES * BM * BK, Bs + tile % STAGES * BK * BN);
    }
    /* Each lane writes its two pairs of adjacent columns in each mma tile. */
#pragma unroll
    for (int i = 0; i < MI; i++)
#pragma unroll
        for (int j = 0; j < NI; j++) {
            float *out = &c[(size_t)(wrow + i * 16 + g) * ldc + wcol + j * 8 + 2 * t];
            *(float2 *)out = make_float2(acc[i][j][0], acc[i][j][1]);
            *(float2 *)(out + 8 * ldc) = make_float2(acc[i][j][2], acc[i][j][3]);
        }
}

/* Past the default 48 KB a kernel must opt in to more shared memory: once per run, in setup. */
template <int BM, int BN, int WM, int WN, int STAGES, int MIN_BLOCKS>
static void setup_shape()
{
    const size_t smem = SMEM(BM, BN, STAGES);
    if (smem > 48 * 1024)
        CUDA_CHECK(cudaFuncSetAttribute(matmult_kernel<BM, BN, WM, WN, STAGES, MIN_BLOCKS>,
                                        cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
}

/* Launch one shape: the grid covers the padded matrix with BM x BN tiles. */
template <int BM, int BN, int WM, int WN, int STAGES, int MIN_BLOCKS>
static void launch_shape(const struct dev_mats *m)
{
    const size_t smem = SMEM(BM, BN, STAGES);
    const int padded = m->padded;
    auto kernel = matmult_kernel<BM, BN, WM, WN, STAGES, MIN_BLOCKS>;
    kernel<<<dim3(padded / BN, padded / BM), 32 * (BM / WM) * (BN / WN), smem>>>(m->a, m->lda, m->b, m->ldb, m->c,
                                                                                 m->ldc, m->n);
}

static void setup(struct step_run *run)
{
    switch (run->config->id) {
    case LARGE_4: setup_shape<128, 256, 64, 64, 4, 1>(); break;
    case LARGE_3: setup_shape<128, 256, 64, 64, 3, 1>(); break;
    case MEDIUM_4: setup_shape<128, 128, 64, 64, 4, 1>(); break;
    case MEDIUM_3: setup_shape<128, 128, 64, 64, 3, 2>(); break;
    default: setup_shape<64, 128, 32, 64, 2, 2>(); break;
    }
}

static void launch(const struct step_run *run)
{
    const struct dev_mats *m = &run->mats;
    switch (run->config->id) {
    case LARGE_4: launch_shape<128, 256, 64, 64, 4, 1>(m); break;
    case LARGE_3: launch_shape<128, 256, 64, 64, 3, 1>(m); break;
    case MEDIUM_4: launch_shape<128, 128, 64, 64, 4, 1>(m); break;
    case MEDIUM_3: launch_shape<128, 128, 64, 64, 3, 2>(m); break;
    default: launch_shape<64, 128, 32, 64, 2, 2>(m); break;
    }
}

static const struct step_ops ops = {.setup = setup, .launch = launch};

/* Step 06's padded allocation (common/padded.c): every tile whole, no bounds checks. */
MATMULT_GPU_PADDED(TILE, ops)
