/* Step 12: 3xTF32, FP32 accuracy from TF32 tensor cores. Step 11 rounds each input to
 * TF32 and loses 13 of FP32's 24 mantissa bits. Here each value x of a fragment is split
 * into big = tf32(x) (rounded to nearest) and small = tf32(x - big), the bits big missed,
 * and three products are summed: a b ~= as bb + ab bs + ab bb. The fourth, as bs, is at
 * most 2^-22 of a b (each small is at most 2^-11 of its value), 2^-25 on average for uniform
 * mantissas: dropped, except where k is so small that the fp32 bound has no room for it
 * (n <= 32, the general path below). big + small holds 22 of x's 24 significant bits: x - big can have 12 significant
 * bits and small keeps 11, so the split loses up to one FP32 ulp of x
 * (x = 1 + 2^-12 + 2^-23 becomes 1 + 2^-12). The small products go first, into the same
 * FP32 accumulators, so that the big product does not swamp them within the mma (CUTLASS's
 * order). Three mma instead of one per piece: the tensor cores do 3x the work, and the
 * result is judged as the fp32 class. The split happens in registers, on each fragment as
 * it leaves shared memory.
 * One more detail decides the accuracy: an mma adds its products to the accumulator and
 * rounds the sum toward zero, not to nearest, so each mma loses half an ulp on average,
 * always in the same direction. Three mma per k-step into one accumulator add up to a bias
 * of about 1.5 ulp per 8 k (measured: 4.3e-5 mean relative error at n = 4096, 63 times
 * SGEMM's). So each tile of k (BK = 32) is summed into fresh accumulators, which stay
 * small, and added to the running sums with ordinary FP32 additions, rounded to nearest
 * (CUTLASS's "staged accumulation"). That doubles the accumulators: the warps' tiles are
 * half the size of step 11's.
 * The whole FP32 range. TF32 has FP32's exponent but 10 fraction bits, so its subnormals
 * are 2^-136 apart: below 2^-113 small loses bits, and an FP32 subnormal has no small part
 * at all. A scan of A and B before the multiplication (scan_inputs, counted in the time)
 * finds such values, and values of 2^50 or more, whose products could overflow; where there
 * are any, each row of A and each column of B is multiplied by a power of two that brings
 * its largest value near 1 (exact: only the exponent changes), and C is scaled back at the
 * end, once, by ldexpf. Matrices whose nonzero values all lie in [2^-50, 2^50) take the
 * fast path, unscaled. */
/* Development version 1 of step 12 (make versions builds it, make reproduce ONLY=versions measures
 * it): the step WITHOUT the staged accumulation above, its three mma per k-step added
 * straight into the running sums. It claims the fp32 class, as the step does, and is judged
 * by its bound: at n = 4096 and 8192 the bias makes it FAIL (exit 1), as it should. Its big
 * is masked after rounding, as in the first versions. Next: step12_v2_staged.cu. */
#include "step.h"
#include "device/cp_async.h"
#include "device/tf32_mma.h"

#include <float.h>

#define BK 32    /* k per tile: one 128-byte row of A per tile row */
#define TILE 256 /* matrices are padded to a multiple of this: every shape's tiles are whole */

/* The configurations (make config-sweep measures them; the harness runs the first that fits
 * the GPU's shared memory per block): 64 x 128 tiles of 4 warps of 32 x 64, two blocks per
 * SM, with 3 stages or 2 (48 KB, which every GPU gives a block; the first below n = 2048,
 * where more, smaller blocks fill the SMs), and 128 x 128 tiles of 8 warps with 4 or 3
 * stages (the first from n = 2048). The order follows make config-sweep on the H100
 * (results/). Step 11's 64 x 64 warp tiles would need 256 accumulator registers per
 * thread here. */
enum { MEDIUM_4, MEDIUM_3, SMALL_3, SMALL_2 };
#define SMEM(bm, bn, stages) (sizeof(float) * (stages) * BK * ((bm) + (bn)))
static const struct step_config large_n[] = {
    {MEDIUM_4, "128x128x32/4", SMEM(128, 128, 4)}, {SMALL_3, "64x128x32/3", SMEM(64, 128, 3)},
    {MEDIUM_3, "128x128x32/3", SMEM(128, 128, 3)}, {SMALL_2, "64x128x32/2", SMEM(64, 128, 2)},
};
static const struct step_config small_n[] = {
    {SMALL_2, "64x128x32/2", SMEM(64, 128, 2)}, {SMALL_3, "64x128x32/3", SMEM(64, 128, 3)},
    {MEDIUM_4, "128x128x32/4", SMEM(128, 128, 4)}, {MEDIUM_3, "128x128x32/3", SMEM(128, 128, 3)},
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
    .program = "step12_v1",
    .lesson = "step 12, version 1: one accumulator (FAILs at large n)",
    .chapter = "tensor-cores",
    .min_cc = 80,
    .needs = "TF32 tensor cores, mma.sync",
    .configs = tf32_configs,
    .config_legend = "tile BM x BN x BK / stages in flight",
    .precision = PRECISION_FP32,
    .change = "3xTF32 with one accumulator: three mma per k-step straight into the sums",
    .fails_on_purpose = "one accumulator's error grows with n faster than the fp32 bound: it FAILs "
        "at n = 4096 on uniform inputs (passes at 1000), the bias staged accumulation removes",
};

/* Split x into big = tf32(x), rounded to nearest, and small = tf32(x - big); x - big is
 * exact in FP32 (to_tf32_exact leaves big's low 13 bits zero: the tensor core ignores them,
 * FP32 arithmetic does not). cross is big again, for the cross products.
 * SAFE: for matrices with a NaN or an Inf, which must come out of the GEMM as an FP32 GEMM
 * gives them:
 * - x = +-Inf: big = x, small = 0 (Inf - Inf would be NaN);
 * - the cross products must not see the Inf either, or Inf x 0 (a zero small of the other
 *   operand) would turn the Inf into NaN: their cross is 0;
 * - a NaN becomes the canonical NaN in big and cross (the tensor core reads only the top 19
 *   bits, where a NaN's payload may have none), and small = 0.
 * (A finite value cannot round up to Inf here: the general path's values are scaled below
 * 2^50.) Those checks make the main loop longer, for values nearly no matrix has: the others
 * take the fast split. */
template <bool SAFE>
__device__ static inline void split_tf32(float x, uint32_t *big, uint32_t *small, uint32_t *cross)
{
    if (SAFE && isnan(x)) { /* a NaN whose payload is in the low 13 bits would read as Inf */
        *big = *cross = 0x7fffffffu;
        *small = 0u;
        return;
    }
    const uint32_t hi = to_tf32(x) & 0xffffe000u; /* the mask: see step12_v2_staged.cu */
    const float h = __uint_as_float(hi);
    const bool inf = SAFE && isinf(h);
    *big = hi;
    *small = inf ? 0u : to_tf32(x - h);
    *cross = inf ? 0u : hi;
}

/* What the scan found, one flag each (in the run's workspace), cleared before each
 * multiplication and counted in its time: a NaN or an Inf (the safe split), and a nonzero
 * value outside [2^-50, 2^50) (the scales). Inside that range every split is exact to the ulp
 * it can be, no product or sum can overflow, and the products' small parts stay normal: the
 * fast path. */
enum { FOUND_SPECIAL, FOUND_UNUSUAL, FLAGS };
#define FAST_MIN 0x1p-50f
#define FAST_MAX 0x1p50f

__global__ static void scan_inputs(const float *a, size_t lda, const float *b, size_t ldb, int n, int *flags)
{
    for (int row = blockIdx.y; row < n; row += gridDim.y)
        for (int col = blockIdx.x * blockDim.x + threadIdx.x; col < n; col += gridDim.x * blockDim.x) {
            const float x = fabsf(a[(size_t)row * lda + col]), y = fabsf(b[(size_t)row * ldb + col]);
            if (!(x <= FLT_MAX) || !(y <= FLT_MAX)) /* NaN fails the comparison too */
                flags[FOUND_SPECIAL] = 1;
            else if ((x != 0.0f && !(x >= FAST_MIN && x < FAST_MAX)) || (y != 0.0f && !(y >= FAST_MIN && y < FAST_MAX)))
                flags[FOUND_UNUSUAL] = 1;
        }
}

/* The bits of |x| for a finite x (positive floats order like their bits), 0 for NaN/Inf. */
__device__ static inline unsigned finite_magnitude(float x)
{
    const unsigned bits = __float_as_uint(x) & 0x7fffffffu;
    return bits < 0x7f800000u ? bits : 0u;
}

/* The power of two a row of A (or column of B) is multiplied by: its largest value is
 * brought to [1, 2) when it lies below 2^-50 (at most 2^127, a float), to [2^49, 2^50)
 * when it lies at 2^50 or above, and left alone in between. */
__device__ static inline int scale_shift(unsigned max_bits)
{
    if (max_bits == 0)
        return 0;
    const int e = ilogbf(__uint_as_float(max_bits));
    return e < -50 ? min(-e, 127) : e >= 50 ? 49 - e : 0;
}

__device__ static inline float pow2(int e) /* 2^e for -126 <= e <= 127 */
{
    return __uint_as_float((uint32_t)(127 + e) << 23);
}

__device__ static inline int exponent_of(float power_of_two) /* pow2's inverse */
{
    return (int)(__float_as_uint(power_of_two) >> 23) - 127;
}

/* Off the fast path, each block first finds the scales of its own BM rows of A and BN
 * columns of B (it reads them again in the main loop, mostly from L2): a warp per row of A,
 * its lanes along k; a thread per column of B, down k, so that a warp reads 128-byte rows.
 * The shifts go through shared memory, before the pipeline starts using it, into the
 * registers of the lanes whose fragments hold those rows and columns. */
template <int BM, int BN, int NUM_THREADS>
__device__ static void find_shifts(const float *a, size_t lda, const float *b, size_t ldb, int n, int *shifts)
{
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    for (int row = warp; row < BM; row += NUM_THREADS / 32) {
        unsigned row_max = 0;
        for (int k = lane; k < n; k += 32)
            row_max = max(row_max, finite_magnitude(a[(size_t)row * lda + k]));
        for (int lanes = 16; lanes > 0; lanes /= 2)
            row_max = max(row_max, __shfl_xor_sync(0xffffffffu, row_max, lanes));
        if (lane == 0)
            shifts[row] = scale_shift(row_max);
    }
    for (int col = threadIdx.x; col < BN; col += NUM_THREADS) {
        unsigned col_max = 0;
        for (int k = 0; k < n; k++)
            col_max = max(col_max, finite_magnitude(b[(size_t)k * ldb + col]));
        shifts[BM + col] = scale_shift(col_max);
    }
    __syncthreads();
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

/* The three ways through the multiplication, chosen by the scan for the whole grid:
 * FAST     every nonzero value in [2^-50, 2^50): the split as it is;
 * SCALED   values outside it: rows of A and columns of B scaled by powers of two;
 * GENERAL  a NaN or an Inf (the safe split), or n <= BK: scaled, and with the fourth
 *          product small x small, which the fp32 bound of a short sum has no room to drop. */
enum path { FAST, SCALED, GENERAL };

template <enum path PATH> __device__ static inline float scaled(float x, float scale)
{
    return PATH == FAST ? x : x * scale; /* exact: a power of two, and no overflow */
}

template <int BM, int BN, int WM, int WN, int STAGES, enum path PATH>
__device__ static __forceinline__ void multiply(const float *a, size_t lda, const float *b, size_t ldb, float *c,
                                                size_t ldc, int n)
{
    constexpr int MI = WM / 16, NI = WN / 8; /* mma tiles per warp: 16 rows x 8 columns each */
    constexpr int NUM_THREADS = 32 * (BM / WM) * (BN / WN);
    constexpr bool SAFE = PATH == GENERAL;
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

    /* The scale of each row of A and column of B this lane's fragments hold: rows g and g + 8
     * of each mma tile of A, column g of each mma tile of B (1 on the fast path). */
    float scale_a[MI][2], scale_b[NI];
    if (PATH != FAST) {
        int *shifts = (int *)smem; /* [BM] rows of A, then [BN] columns of B */
        find_shifts<BM, BN, NUM_THREADS>(a, lda, b, ldb, n, shifts);
#pragma unroll
        for (int i = 0; i < MI; i++)
#pragma unroll
            for (int h = 0; h < 2; h++)
                scale_a[i][h] = pow2(shifts[wrow + i * 16 + h * 8 + g]);
#pragma unroll
        for (int j = 0; j < NI; j++)
            scale_b[j] = pow2(shifts[BM + wcol + j * 8 + g]);
        __syncthreads(); /* before the first copies land there */
    }

    /* Start copying the k0 tiles of A and B into one stage, 16 bytes at a time. Each thread
     * copies the same chunks of every tile: their places are computed once, here. The rows
     * a thread's chunks are apart (multiples of 8 for A, of 4 for B) leave the swizzles
     * unchanged, so each chunk's place is the first one's plus a constant. */
    constexpr int A_CHUNKS = BM * BK / 4 / NUM_THREADS, A_ROWS = NUM_THREADS / (BK / 4);
    constexpr int B_CHUNKS = BK * BN / 4 / NUM_THREADS, B_ROWS = NUM_THREADS / (BN / 4);
    static_assert(A_ROWS >= 8 && A_ROWS % 8 == 0 && B_ROWS >= 4 && B_ROWS % 4 == 0, "a thread's chunks share their swizzle");
    const int copy_row = tid / (BK / 4), copy_k = tid % (BK / 4) * 4;
    const int copy_kb = tid / (BN / 4), copy_col = tid % (BN / 4) * 4;
    const float *a_src = a + (size_t)copy_row * lda + copy_k, *b_src = b + (size_t)copy_kb * ldb + copy_col;
    const int a_dst = SWZ_A(copy_row, copy_k), b_dst = SWZ_B(copy_kb, copy_col, BN);
    auto load_tile = [&](int stage, int k0) {
#pragma unroll
        for (int u = 0; u < A_CHUNKS; u++)
            cp_async16(&As[stage * BM * BK + a_dst + u * A_ROWS * BK], a_src + (size_t)u * A_ROWS * lda + k0);
#pragma unroll
        for (int u = 0; u < B_CHUNKS; u++)
            cp_async16(&Bs[stage * BK * BN + b_dst + u * B_ROWS * BN], b_src + (size_t)(k0 + u * B_ROWS) * ldb);
    };

    float acc[MI][NI][4] = {};
    const int tiles = (n + BK - 1) / BK; /* the zero padding past n fills the last tile */
#pragma unroll
    for (int s = 0; s < STAGES - 1; s++) { /* the prologue: the first tiles in flight */
        if (s < tiles)
            load_tile(s, s * BK);
        cp_async_commit();
    }
    /* Step 11 unrolls this loop by STAGES to make each stage's address a constant. Here the
     * body is three times longer, and unrolled it measured 13.9 instead of 22.9 TFLOPS at
     * n = 4096: the loop stays rolled. */
    for (int tile = 0; tile < tiles; tile++) {
        cp_async_wait<STAGES - 2>(); /* tile t has landed (this thread's copies) */
        __syncthreads();           /* ... everyone's; and the stage of tile - 1 is free again */
        const int next = tile + STAGES - 1;
        if (next < tiles)
            load_tile(next % STAGES, next * BK);
        cp_async_commit();
        const float *as = As + (tile % STAGES) * BM * BK;
        const float *bs = Bs + (tile % STAGES) * BK * BN;

#pragma unroll
        for (int k8 = 0; k8 < BK; k8 += 8) {
            /* A's fragments split once; B's one mma column at a time, to save registers. */
            uint32_t fa[MI][4], fa_small[MI][4], fa_cross[MI][4];
#pragma unroll
            for (int i = 0; i < MI; i++) {
                const int lrow = wrow + i * 16 + (lane >> 3 & 1) * 8 + (lane & 7);
                uint32_t raw[4];
                ldmatrix_x4(raw, &as[SWZ_A(lrow, k8 + (lane >> 4) * 4)]);
#pragma unroll
                for (int e = 0; e < 4; e++) /* a0, a2: row g; a1, a3: row g + 8 */
                    split_tf32<SAFE>(scaled<PATH>(__uint_as_float(raw[e]), scale_a[i][e & 1]), &fa[i][e], &fa_small[i][e],
                                     &fa_cross[i][e]);
            }
#pragma unroll
            for (int j = 0; j < NI; j++) {
                const int col = wcol + j * 8 + g;
                uint32_t fb[2], fb_small[2], fb_cross[2];
                split_tf32<SAFE>(scaled<PATH>(bs[SWZ_B(k8 + t, col, BN)], scale_b[j]), &fb[0], &fb_small[0], &fb_cross[0]);
                split_tf32<SAFE>(scaled<PATH>(bs[SWZ_B(k8 + t + 4, col, BN)], scale_b[j]), &fb[1], &fb_small[1], &fb_cross[1]);
#pragma unroll
                for (int i = 0; i < MI; i++) {
                    if (PATH == GENERAL)
                        mma_tf32(acc[i][j], fa_small[i], fb_small); /* the smallest first */
                    mma_tf32(acc[i][j], fa_small[i], fb_cross); /* the small products first */
                    mma_tf32(acc[i][j], fa_cross[i], fb_small);
                    mma_tf32(acc[i][j], fa[i], fb);
                }
            }
        }
    }
    /* Each lane writes its two pairs of adjacent columns in each mma tile, scaled back: one
     * rounding, by ldexpf, where C falls below FP32's normal range. The shifts of columns 2t
     * and 2t + 1 are those of lanes 4 (2t) and 4 (2t + 1), whose B fragments hold them. */
#pragma unroll
    for (int i = 0; i < MI; i++)
#pragma unroll
        for (int j = 0; j < NI; j++) {
            float *out = &c[(size_t)(wrow + i * 16 + g) * ldc + wcol + j * 8 + 2 * t];
            if (PATH != FAST) {
                const int sa0 = exponent_of(scale_a[i][0]), sa1 = exponent_of(scale_a[i][1]);
                const int sb0 = __shfl_sync(0xffffffffu, exponent_of(scale_b[j]), 8 * t);
                const int sb1 = __shfl_sync(0xffffffffu, exponent_of(scale_b[j]), 8 * t + 4);
                acc[i][j][0] = ldexpf(acc[i][j][0], -sa0 - sb0);
                acc[i][j][1] = ldexpf(acc[i][j][1], -sa0 - sb1);
                acc[i][j][2] = ldexpf(acc[i][j][2], -sa1 - sb0);
                acc[i][j][3] = ldexpf(acc[i][j][3], -sa1 - sb1);
            }
            *(float2 *)out = make_float2(acc[i][j][0], acc[i][j][1]);
            *(float2 *)(out + 8 * ldc) = make_float2(acc[i][j][2], acc[i][j][3]);
        }
}

/* The kernel: one of the three paths, as the scan decided (the same for every block, so no
 * warp diverges). */
template <int BM, int BN, int WM, int WN, int STAGES, int MIN_BLOCKS>
__global__ static void __launch_bounds__(32 * (BM / WM) * (BN / WN), MIN_BLOCKS)
    matmult_kernel(const float *a, size_t lda, const float *b, size_t ldb, float *c, size_t ldc, int n,
                   const int *flags)
{
    if (flags[FOUND_SPECIAL] || n <= BK)
        multiply<BM, BN, WM, WN, STAGES, GENERAL>(a, lda, b, ldb, c, ldc, n);
    else if (flags[FOUND_UNUSUAL])
        multiply<BM, BN, WM, WN, STAGES, SCALED>(a, lda, b, ldb, c, ldc, n);
    else
        multiply<BM, BN, WM, WN, STAGES, FAST>(a, lda, b, ldb, c, ldc, n);
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
static void launch_shape(const struct dev_mats *m, const int *flags)
{
    const size_t smem = SMEM(BM, BN, STAGES);
    const int padded = m->padded;
    auto kernel = matmult_kernel<BM, BN, WM, WN, STAGES, MIN_BLOCKS>;
    kernel<<<dim3(padded / BN, padded / BM), 32 * (BM / WM) * (BN / WN), smem>>>(m->a, m->lda, m->b, m->ldb, m->c,
                                                                                 m->ldc, m->n, flags);
}

/* The workspace: the scan's flags. */
static size_t workspace_bytes(int padded, const struct step_config *config)
{
    (void)padded, (void)config;
    return FLAGS * sizeof(int);
}

static void setup(struct step_run *run)
{
    switch (run->config->id) {
    case MEDIUM_4: setup_shape<128, 128, 32, 64, 4, 1>(); break;
    case MEDIUM_3: setup_shape<128, 128, 32, 64, 3, 1>(); break;
    case SMALL_3: setup_shape<64, 128, 32, 64, 3, 2>(); break;
    default: setup_shape<64, 128, 32, 64, 2, 2>(); break;
    }
}

static void launch(const struct step_run *run)
{
    const struct dev_mats *m = &run->mats;
    int *flags = (int *)run->workspace;
    CUDA_CHECK(cudaMemsetAsync(flags, 0, FLAGS * sizeof(int)));
    scan_inputs<<<dim3((m->n + 255) / 256, m->n < 4096 ? m->n : 4096), 256>>>(m->a, m->lda, m->b, m->ldb, m->n,
                                                                               flags);
    switch (run->config->id) {
    case MEDIUM_4: launch_shape<128, 128, 32, 64, 4, 1>(m, flags); break;
    case MEDIUM_3: launch_shape<128, 128, 32, 64, 3, 1>(m, flags); break;
    case SMALL_3: launch_shape<64, 128, 32, 64, 3, 2>(m, flags); break;
    default: launch_shape<64, 128, 32, 64, 2, 2>(m, flags); break;
    }
}

static const struct step_ops ops = {.workspace_bytes = workspace_bytes, .setup = setup, .launch = launch};

/* Step 06's padded allocation (common/padded.c): every tile whole, no bounds checks. */
MATMULT_GPU_PADDED(TILE, ops)
