/* Step 10: a pipeline. Step 09's warp tiling, with the tiles of A and B copied from
 * global to shared memory asynchronously (cp.async), STAGES tiles ahead, so that the
 * loads of the next tiles overlap the multiply-adds on the current one instead of
 * stalling every thread at each barrier. Two tile shapes, both from the measured sweep
 * (README): large tiles for large n, smaller ones where large tiles would leave SMs
 * idle. The kernel is a template only to take its tile shape as compile-time
 * constants; each shape is one instantiation. */
#include "step.h"

/* BM x BN of C per block, BK of k per tile, WM x WN per warp, pipeline depth, and the
 * blocks per SM the registers must allow. make warptile-sweep overrides the large one. */
#ifndef LBM
#define LBM 128
#define LBN 256
#define LBK 32
#define LWM 64
#define LWN 64
#define LSTAGES 4
#define LMIN_BLOCKS 1
#endif
#define LARGE LBM, LBN, LBK, LWM, LWN, LSTAGES, LMIN_BLOCKS
#define SMALL 64, 128, 32, 32, 32, 4, 2
#ifndef SMALL_MAX_N
#define SMALL_MAX_N 2047 /* up to this n the small tiles fill more SMs (the sweep) */
#endif
#define TILE 256 /* matrices are padded to a multiple of this: every shape's tiles are whole */

/* Shared memory a block of the shape chosen for n needs: the harness checks it
 * against the device's opt-in limit before allocating anything. */
static size_t smem_for(int bm, int bn, int bk, int wm, int wn, int stages, int min_blocks)
{
    (void)wm, (void)wn, (void)min_blocks;
    return sizeof(float) * stages * bk * (bm + bn);
}
static size_t pipeline_smem_bytes(int n)
{
    return n <= SMALL_MAX_N ? smem_for(SMALL) : smem_for(LARGE);
}

const struct step_info step_info = {"step10", "cp.async pipeline, tiles in flight", 0, pipeline_smem_bytes};

/* The swizzle of step 09: conflict-free stores of A's transposed tile. */
#define SWZ(k, m) ((m) ^ ((((k) >> 2) & 3) << 3))

/* cp.async: copy global to shared memory without passing through registers; the
 * copies of one commit group complete together, and wait_group N waits until at most
 * N groups are still in flight. */
__device__ static inline void cp_async4(float *dst, const float *src)
{
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"((unsigned)__cvta_generic_to_shared(dst)),
                 "l"(src));
}
__device__ static inline void cp_async16(float *dst, const float *src)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"((unsigned)__cvta_generic_to_shared(dst)),
                 "l"(src));
}
#define CP_ASYNC_COMMIT() asm volatile("cp.async.commit_group;\n" ::)
#define CP_ASYNC_WAIT(groups) asm volatile("cp.async.wait_group %0;\n" ::"n"(groups))

template <int BM, int BN, int BK, int WM, int WN, int STAGES, int MIN_BLOCKS>
__global__ static void __launch_bounds__(32 * (BM / WM) * (BN / WN), MIN_BLOCKS)
    matmult_kernel(const float *a, size_t lda, const float *b, size_t ldb, float *c, size_t ldc, int n)
{
    constexpr int MI = WM / 32, NI = WN / 16; /* 4 x 4 blocks per thread, as step 09 */
    constexpr int NUM_THREADS = 32 * (BM / WM) * (BN / WN);
    static_assert(BM % WM == 0 && BN % WN == 0, "a block's tile splits into whole warp tiles");
    static_assert(WM % 32 == 0 && WN % 16 == 0, "a warp's 8 x 4 lanes cover it in 4 x 4 blocks");
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
        CP_ASYNC_COMMIT();
    }
    for (int t = 0; t < tiles; t++) {
        CP_ASYNC_WAIT(STAGES - 2); /* tile t has landed (this thread's copies) */
        __syncthreads();           /* ... everyone's; and stage (t - 1) is free again */
        const int next = t + STAGES - 1;
        if (next < tiles)
            load_tile(next % STAGES, next * BK);
        CP_ASYNC_COMMIT(); /* an empty group near the end keeps the count simple */
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

/* Launch one shape: the grid covers the padded matrix with BM x BN tiles. */
template <int BM, int BN, int BK, int WM, int WN, int STAGES, int MIN_BLOCKS>
static void launch_shape(const struct dev_mats *m)
{
    const size_t smem = sizeof(float) * STAGES * BK * (BM + BN);
    const int padded = (m->n + TILE - 1) / TILE * TILE;
    auto kernel = matmult_kernel<BM, BN, BK, WM, WN, STAGES, MIN_BLOCKS>;
    static int opted_in; /* past the default 48 KB a kernel must opt in, once */
    if (smem > 48 * 1024 && !opted_in) {
        CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
        opted_in = 1;
    }
    kernel<<<dim3(padded / BN, padded / BM), 32 * (BM / WM) * (BN / WN), smem>>>(m->a, m->lda, m->b, m->ldb,
                                                                                 m->c, m->ldc, m->n);
}

static void launch(const struct dev_mats *m)
{
    if (m->n <= SMALL_MAX_N)
        launch_shape<SMALL>(m);
    else
        launch_shape<LARGE>(m);
}

/* Step 06's padded allocation, copies and timing (common/padded.c): the lesson here is
 * the kernel. */
void matmult_gpu(const float *a, int lda, const float *b, int ldb, float *c, int ldc, int n,
                 int kernel_reps, struct gpu_run *run)
{
    matmult_padded(a, lda, b, ldb, c, ldc, n, TILE, launch, kernel_reps, run);
}
