/* Step 17, version 1: step 13 made persistent, the transpose pass kept.
 *
 * Step 17: scheduling. Step 13's kernel multiplies each tile of C about
 * as fast as cuBLAS TF32's kernel does; what it loses is around it: a pre-pass that writes B
 * transposed (TF32 wgmma reads B only K-major, from shared memory), and the gap between one
 * block's end and the next one's start. Here the same products are handed out differently:
 *   - persistent blocks: one block per SM for the whole run, each
 *     walking its share of the tiles; its producer loads the next tile's stages while the
 *     consumers store the last tile's results;
 *   - the pre-pass kept: step 13's transpose writes Bt, the K-major B that wgmma reads.
 * The arithmetic is step 13's: both tensor maps typed TFLOAT32 (the TMA rounds to nearest), the
 * same wgmma in the same order over k, so every element of C is step 13's bit for bit. */
#include "step.h"
#include "../../step13_wgmma_tf32/block_order.h"
#include "device/mbarrier.h"
#include "device/tma.h"
#include "device/wgmma.h"

#define BM 128       /* rows of C per block: one 64-row wgmma per consumer warpgroup */
#define BN 256       /* columns: wgmma's widest n */
#define BK 32        /* k per stage: 32 floats, one 128-byte row, the swizzle's span */
#define STAGES 4
#define CONSUMERS 2  /* warpgroups that multiply */
#define THREADS (128 * (CONSUMERS + 1))
#define TILE 256     /* the padding: BM and BN divide it */
#ifndef GROUP
#define GROUP 8      /* tile rows per band */
#endif
#define A_BYTES (BM * BK * 4)
#define STAGE_BYTES (A_BYTES + BN * BK * 4)
#define SMEM (STAGES * STAGE_BYTES + 2 * STAGES * 8 + 1024)

const struct step_info step_info = {
    .program = "step17_v1",
    .lesson = "step 17, version 1: persistent blocks, one per SM, the transpose pass kept",
    .chapter = "tensor-cores",
    .min_cc = 90,
    .needs = "Hopper's TMA and wgmma, in sm_90a code",
    .precision = PRECISION_TF32,
    .scratch_matrices = 1,
    .change = "step 13 made persistent: a block per SM walking its tiles, the ring of stages running on across "
              "tiles, the producer loading the next tile during the epilogue; the transpose pass kept",
};

/* Bt = B^T for the padded n x n matrix: step 13's pre-pass. */
__global__ static void transpose(const float *b, size_t ldb, float *bt, size_t ldbt)
{
    __shared__ float tile[32][33];
    const int x = blockIdx.x * 32 + threadIdx.x, y0 = blockIdx.y * 32;
    for (int j = threadIdx.y; j < 32; j += 8)
        tile[j][threadIdx.x] = b[(size_t)(y0 + j) * ldb + x];
    __syncthreads();
    const int tx = blockIdx.y * 32 + threadIdx.x, ty0 = blockIdx.x * 32;
    for (int j = threadIdx.y; j < 32; j += 8)
        bt[(size_t)(ty0 + j) * ldbt + tx] = tile[threadIdx.x][j];
}

/* A consumer warpgroup is done with the stage of k tile `it`: one thread of it tells the producer. */
__device__ static __forceinline__ void release_stage(uint64_t *empty, int it)
{
    if (threadIdx.x % 128 != 0)
        return;
    mbarrier_arrive(&empty[it % STAGES]);
}

/* One stage of k tile `it` for a consumer warpgroup, as in step 13: its four k-steps issued as
 * one group, then the one before it awaited, so that the previous stage goes back to the
 * producers while this one runs on the tensor cores. `first`: the tile's first stage
 * (nothing of this tile before it, acc starts at zero). */
__device__ static __forceinline__ void consume_stage(const unsigned char *smem, uint64_t *full, uint64_t *empty,
                                                     int it, int consumer, bool first,
                                                     float acc[128])
{
    const int s = it % STAGES;
    mbarrier_wait_parity(&full[s], (it / STAGES) & 1);
    const unsigned char *stage = smem + s * STAGE_BYTES;
    const uint64_t desc_a = wgmma_desc_k_sw128(stage + consumer * 64 * BK * 4); /* this consumer's 64 rows */
    const uint64_t desc_b = wgmma_desc_k_sw128(stage + A_BYTES);
    wgmma_fence();
#pragma unroll
    for (int k = 0; k < BK / 8; k++)
        wgmma_m64n256k8_tf32(acc, desc_a + 2 * k, desc_b + 2 * k, !first || k > 0);
    wgmma_commit_group();
    wgmma_wait_group<1>();
    if (!first)
        release_stage(empty, it - 1);
}

/* The persistent kernel: block b computes the block tiles b, b + B, ... (B blocks), in the order
 * of banded_tile (step 13's block_order.h). Warpgroup 0 produces, 1 and 2 consume, as in step 13;
 * the stages' ring and its barriers' phases run on across tiles (it counts k tiles from the
 * start). full[s]: the stage's bytes have landed (A's tile and Bt's, from this block's copies);
 * empty[s]: both consumer warpgroups are done with it. */
__global__ static void __launch_bounds__(THREADS, 1)
    matmult_kernel(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap bt_map, float *c,
                   size_t ldc, int padded)
{
    extern __shared__ unsigned char smem_raw[];
    unsigned char *smem = (unsigned char *)(((uintptr_t)smem_raw + 1023) & ~(uintptr_t)1023);
    uint64_t *full = (uint64_t *)(smem + STAGES * STAGE_BYTES);
    uint64_t *empty = full + STAGES;
    const int warpgroup = threadIdx.x / 128, kt_count = padded / BK;
    const int rows = padded / BM, cols = padded / BN, tiles = rows * cols;

    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; s++) {
            mbarrier_init(&full[s], 1);
            mbarrier_init(&empty[s], CONSUMERS);
        }
        fence_mbarrier_init();
    }
    __syncthreads(); /* every barrier initialised before any copy or arrive reaches it */

    if (warpgroup == 0) {
        setmaxnreg_dec<40>();
        /* One warp produces, its lane 0 issuing the copies: the whole warp walks the loop, as it
         * will have to in version 2, where it meets a cluster barrier at the end. */
        if (threadIdx.x < 32) {
            const bool issuer = threadIdx.x == 0;
            if (issuer) {
                prefetch_tensormap(&a_map);
                prefetch_tensormap(&bt_map);
            }
            int it = 0;
            for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
                int row, col;
                banded_tile(t, GROUP, rows, cols, &row, &col);
                const int m0 = row * BM, n0 = col * BN;
                for (int kt = 0; kt < kt_count; kt++, it++) {
                    const int s = it % STAGES;
                    mbarrier_wait_parity(&empty[s], ((it / STAGES) & 1) ^ 1);
                    if (!issuer)
                        continue;
                    unsigned char *stage = smem + s * STAGE_BYTES;
                    /* all of the stage's bytes land here: A's tile and Bt's */
                    mbarrier_arrive_expect_tx(&full[s], STAGE_BYTES);
                    cp_async_bulk_tensor_2d_global_to_shared(stage, &a_map, m0, kt * BK, &full[s]);
                    cp_async_bulk_tensor_2d_global_to_shared(stage + A_BYTES, &bt_map, n0, kt * BK, &full[s]);
                }
            }
        }
    } else {
        setmaxnreg_inc<232>();
        const int consumer = warpgroup - 1, warp = threadIdx.x / 32 % 4, lane = threadIdx.x % 32;
        float acc[128];
        int it = 0;
        for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
            int row, col;
            banded_tile(t, GROUP, rows, cols, &row, &col);
            const int m0 = row * BM, n0 = col * BN;
            for (int kt = 0; kt < kt_count; kt++, it++)
                consume_stage(smem, full, empty, it, consumer, kt == 0, acc);
            wgmma_wait_group<0>();
            release_stage(empty, it - 1); /* the tile's last stage: the producer is already on the next tile */
#pragma unroll
            for (int i = 0; i < 128; i++)
                wgmma_fence_operand(&acc[i]);
            /* step 13's epilogue, while the producer fills the stages for the next tile: acc holds
             * C's rows 64 consumer + 16 warp + lane / 4 (+ 8), columns 8 (i / 4) + 2 (lane % 4) (+ 1) */
            float *out = c + (size_t)(m0 + consumer * 64 + warp * 16 + lane / 4) * ldc + n0 + 2 * (lane % 4);
#pragma unroll
            for (int i = 0; i < 128; i += 4) {
                *(float2 *)(out + 8 * (i / 4)) = make_float2(acc[i], acc[i + 1]);
                *(float2 *)(out + 8 * ldc + 8 * (i / 4)) = make_float2(acc[i + 2], acc[i + 3]);
            }
        }
    }
}

/* The workspace: Bt, the padded B transposed. */
static size_t workspace_bytes(int padded, const struct step_config *config)
{
    (void)config;
    return sizeof(float) * padded * (size_t)padded;
}

/* What setup builds for the launches: the tensor maps, and how many blocks run at once. */
struct step_state {
    CUtensorMap a_map, bt_map;
    int blocks;
};

static void setup(struct step_run *run)
{
    static_assert(BM == 64 * CONSUMERS && BN == 256, "a consumer: 64 rows of C, one 64 x 256 wgmma per k-step");
    static_assert(TILE % BM == 0 && TILE % BN == 0, "the padding: every block tile is whole");
    static_assert(BK * 4 == 128, "a tile row is 128 bytes, the swizzle's span");
    static_assert(A_BYTES % 1024 == 0 && STAGE_BYTES % 1024 == 0,
                  "every tile starts 1024 bytes aligned, as the 128-byte swizzle needs");
    static_assert(SMEM <= 227 * 1024, "fits sm_90's 227 KB of shared memory per block");
    struct step_state *state = (struct step_state *)run->state;
    const struct dev_mats *m = &run->mats;
    const float *bt = (const float *)run->workspace;
    const int padded = m->padded;
    char why[512];
    if (tma_encode_2d_tf32(&state->a_map, m->a, padded, padded, m->lda, BM, BK, CU_TENSOR_MAP_SWIZZLE_128B, why,
                           sizeof why) != cudaSuccess ||
        tma_encode_2d_tf32(&state->bt_map, bt, padded, padded, padded, BN, BK, CU_TENSOR_MAP_SWIZZLE_128B,
                           why, sizeof why) != cudaSuccess) {
        fprintf(stderr, "%s: %s\n", step_info.program, why);
        exit(EXIT_CUDA_ERROR);
    }
    CUDA_CHECK(cudaFuncSetAttribute(matmult_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM));
    /* One block per SM (its shared memory leaves room for no second one): the grid for every n. */
    int device;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&state->blocks, cudaDevAttrMultiProcessorCount, device));
}

/* The transpose first (it is part of the step's time), then the persistent kernel: no more
 * blocks than tiles. */
static void launch(const struct step_run *run)
{
    const struct step_state *state = (const struct step_state *)run->state;
    const struct dev_mats *m = &run->mats;
    const int padded = m->padded, tiles = (padded / BM) * (padded / BN);
    transpose<<<dim3(padded / 32, padded / 32), dim3(32, 8)>>>(m->b, m->ldb, (float *)run->workspace, padded);
    const int blocks = state->blocks < tiles ? state->blocks : tiles;
    matmult_kernel<<<blocks, THREADS, SMEM>>>(state->a_map, state->bt_map, m->c, m->ldc, padded);
}

static const struct step_ops ops = {.workspace_bytes = workspace_bytes, .state_bytes = sizeof(struct step_state),
                                    .setup = setup, .launch = launch};

/* Step 06's padded allocation (common/padded.c): every tile whole, no bounds checks. */
MATMULT_GPU_PADDED(TILE, ops)
