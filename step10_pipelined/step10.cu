/* Step 10: a pipeline. Step 09's warp tiling, with the tiles of A and B copied from
 * global to shared memory asynchronously (cp.async), STAGES tiles ahead, so that the
 * loads of the next tiles overlap the multiply-adds on the current one instead of
 * stalling every thread at each barrier. */
#include "step.h"

#ifndef BM /* the sweep (scripts/warptile_sweep.py) builds other shapes */
#define BM 128 /* rows of C per block */
#define BN 128 /* columns of C per block */
#define BK 16  /* k per shared-memory tile */
#define WM 64  /* rows of C per warp */
#define WN 32  /* columns of C per warp */
#define MIN_BLOCKS 1 /* blocks per SM the registers must allow (__launch_bounds__) */
#define STAGES 3     /* tiles in flight: the one computed on and STAGES - 1 loading */
#endif
#define SMEM_BYTES (sizeof(float) * STAGES * BK * (BM + BN))
#define MI (WM / 32) /* 4-row blocks per thread: 8 lanes x 4 rows cover 32 rows */
#define NI (WN / 16) /* 4-column blocks per thread: 4 lanes x 4 columns cover 16 */
#define NUM_WARPS ((BM / WM) * (BN / WN))
#define NUM_THREADS (32 * NUM_WARPS)
#define TILE (BM > BN ? BM : BN) /* matrices are padded to a multiple of this */

static_assert(BM % WM == 0 && BN % WN == 0, "a block's tile splits into whole warp tiles");
static_assert(WM % 32 == 0 && WN % 16 == 0, "a warp's 8 x 4 lanes cover it in 4 x 4 blocks");
static_assert(NUM_THREADS >= 64 && NUM_THREADS <= 1024, "a block has 64 to 1024 threads");
static_assert((BM * BK / 4) % NUM_THREADS == 0 && (BK * BN / 4) % NUM_THREADS == 0,
              "every thread loads the same number of float4s of A and of B");
static_assert(BK % 4 == 0 && TILE % BK == 0 && TILE % BM == 0 && TILE % BN == 0,
              "one padding (TILE) serves rows, columns and k");

static_assert(STAGES >= 2, "at least one tile loads while another is computed on");

const struct step_info step_info = {"step10", "cp.async pipeline, tiles in flight", 0, NULL};

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

/* Start copying the k0 tiles of A (transposed, element by element) and B (16 bytes
 * at a time) into one stage. */
__device__ static inline void load_tile(float (*As)[BM], float (*Bs)[BN], const float *a, size_t lda,
                                        const float *b, size_t ldb, int k0, int tid)
{
#pragma unroll
    for (int i = tid; i < BM * BK / 4; i += NUM_THREADS) {
        const int arow = i / (BK / 4), acol = i % (BK / 4) * 4;
        const float *src = &a[(size_t)arow * lda + k0 + acol];
#pragma unroll
        for (int e = 0; e < 4; e++)
            cp_async4(&As[acol + e][arow], src + e);
    }
#pragma unroll
    for (int i = tid; i < BK * BN / 4; i += NUM_THREADS) {
        const int brow = i / (BN / 4), bcol = i % (BN / 4) * 4;
        cp_async16(&Bs[brow][bcol], &b[(size_t)(k0 + brow) * ldb + bcol]);
    }
}

__global__ static void __launch_bounds__(NUM_THREADS, MIN_BLOCKS)
    matmult_kernel(const float *a, size_t lda, const float *b, size_t ldb, float *c, size_t ldc, int n)
{
    extern __shared__ __align__(16) float smem[];
    float(*As)[BK][BM] = (float(*)[BK][BM])smem; /* [STAGES][BK][BM], transposed */
    float(*Bs)[BK][BN] = (float(*)[BK][BN])(smem + STAGES * BK * BM);
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int wrow = warp / (BN / WN) * WM, wcol = warp % (BN / WN) * WN; /* the warp's tile */
    const int lrow = lane / 4 * 4, lcol = lane % 4 * 4;                    /* the lane's 4 x 4 */
    a += (size_t)blockIdx.y * BM * lda;
    b += (size_t)blockIdx.x * BN;
    c += (size_t)blockIdx.y * BM * ldc + (size_t)blockIdx.x * BN;

    float acc[4 * MI][4 * NI] = {{0}};
    const int tiles = (n + BK - 1) / BK; /* the zero padding past n fills the last tile */
#pragma unroll
    for (int s = 0; s < STAGES - 1; s++) { /* the prologue: the first tiles in flight */
        if (s < tiles)
            load_tile(As[s], Bs[s], a, lda, b, ldb, s * BK, tid);
        CP_ASYNC_COMMIT();
    }
    for (int t = 0; t < tiles; t++) {
        CP_ASYNC_WAIT(STAGES - 2); /* tile t has landed (this thread's copies) */
        __syncthreads();           /* ... everyone's; and stage (t - 1) is free again */
        const int next = t + STAGES - 1;
        if (next < tiles)
            load_tile(As[next % STAGES], Bs[next % STAGES], a, lda, b, ldb, next * BK, tid);
        CP_ASYNC_COMMIT(); /* an empty group near the end keeps the count simple */
        const float(*as)[BM] = As[t % STAGES];
        const float(*bs)[BN] = Bs[t % STAGES];

#pragma unroll
        for (int k = 0; k < BK; k++) {
            float ra[4 * MI], rb[4 * NI];
#pragma unroll
            for (int i = 0; i < MI; i++) /* rows lrow.., lrow + 32.., of the warp's tile */
                *(float4 *)&ra[4 * i] = *(const float4 *)&as[k][wrow + i * 32 + lrow];
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

static void launch(const struct dev_mats *m)
{
    /* A 2-D grid of blocks, one per BM x BN tile of C. */
    const int padded = (m->n + TILE - 1) / TILE * TILE;
    const dim3 blocks(padded / BN, padded / BM);
    matmult_kernel<<<blocks, NUM_THREADS, SMEM_BYTES>>>(m->a, m->lda, m->b, m->ldb, m->c, m->ldc, m->n);
}

void matmult_gpu(const float *a, int lda, const float *b, int ldb, float *c, int ldc, int n,
                 int kernel_reps, struct gpu_run *run)
{
    float *ac, *bc, *cc;
    size_t pitch_a, pitch_b, pitch_c;
    const size_t row_bytes = sizeof(float) * n;
    const int newn = ((n + TILE - 1) / TILE) * TILE;
    struct phase_clock clock;

    phase_start(&clock);
    CUDA_CHECK(cudaMallocPitch((void **)&ac, &pitch_a, sizeof(float) * newn, newn));
    CUDA_CHECK(cudaMallocPitch((void **)&bc, &pitch_b, sizeof(float) * newn, newn));
    CUDA_CHECK(cudaMallocPitch((void **)&cc, &pitch_c, sizeof(float) * newn, newn));
    CUDA_CHECK(cudaMemset(ac, 0, pitch_a * newn)); /* the padding must be zeros: it is summed */
    CUDA_CHECK(cudaMemset(bc, 0, pitch_b * newn));
    CUDA_CHECK(cudaMemset(cc, POISON_BYTE, pitch_c * newn)); /* harness: catch unwritten elements */
    run->alloc_ms = phase_lap(&clock);
    run->pitch_bytes = pitch_a;
    run->padded_n = newn;

    CUDA_CHECK(cudaMemcpy2D(ac, pitch_a, a, sizeof(float) * lda, row_bytes, n, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy2D(bc, pitch_b, b, sizeof(float) * ldb, row_bytes, n, cudaMemcpyHostToDevice));
    run->h2d_ms = phase_lap(&clock);

    const struct dev_mats m = {ac, pitch_a / sizeof(float), bc, pitch_b / sizeof(float),
                               cc, pitch_c / sizeof(float), n};
    if (SMEM_BYTES > 48 * 1024) /* past the default 48 KB a kernel must opt in */
        CUDA_CHECK(cudaFuncSetAttribute(matmult_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        (int)SMEM_BYTES));
    launch(&m);
    CUDA_CHECK_LAUNCH();
    run->kernel_ms = phase_lap(&clock);

    CUDA_CHECK(cudaMemcpy2D(c, sizeof(float) * ldc, cc, pitch_c, row_bytes, n, cudaMemcpyDeviceToHost));
    run->d2h_ms = phase_lap(&clock);

    run->kernel_median_ms = time_kernel(launch, &m, kernel_reps); /* outside the end-to-end time */

    phase_start(&clock);
    CUDA_CHECK(cudaFree(ac));
    CUDA_CHECK(cudaFree(bc));
    CUDA_CHECK(cudaFree(cc));
    run->free_ms = phase_lap(&clock);
}
