/* Step 17: scheduling, and the pass it lets go. Step 13's kernel multiplies each tile of C about
 * as fast as cuBLAS TF32's kernel does; what it loses is around it: a pre-pass that writes B
 * transposed (TF32 wgmma reads B only K-major, from shared memory), and the gap between one
 * block's end and the next one's start. Here the same products are handed out differently:
 *   - persistent blocks: one block per SM (a cluster per pair of SMs) for the whole run, each
 *     walking its share of the tiles; its producer loads the next tile's stages while the
 *     consumers store the last tile's results;
 *   - clusters of two blocks side by side along N: both need the same tile of A, so each loads
 *     half of it and the TMA multicasts that half into both blocks' shared memory; a stage is
 *     free again only when the consumers of both blocks are done with it;
 *   - no transpose: the block computes its tile of C transposed, C^T = B^T A^T. wgmma takes its
 *     first operand from registers, and each consumer thread loads its share of B^T there itself,
 *     from B's tile as the TMA brought it (rows of B, n running along them); A, K-major as it is
 *     stored, is the second operand, from shared memory. The accumulators then hold C^T, stored
 *     back as C.
 * Both tensor maps typed TFLOAT32 (the TMA rounds to nearest), as in step 13. */
#include "step.h"
#include "../step13_wgmma_tf32/block_order.h"
#include "schedule.h"
#include "device/wgmma.h"

#ifndef CLUSTER
#define CLUSTER 2    /* blocks per cluster, side by side along N: they share the tile of A */
#endif
#define BM 256       /* rows of C per block: wgmma's widest n, A's tile the second operand */
#define BN 128       /* columns: 64 per consumer warpgroup, one 64-row slice of C^T */
#define BK 32        /* k per stage: 32 floats, one 128-byte row, the swizzle's span */
#define STAGES 4
#define CONSUMERS 2  /* warpgroups that multiply */
#define THREADS (128 * (CONSUMERS + 1))
#define TILE 256     /* the padding: BM and BN * CLUSTER divide it */
#ifndef GROUP
#define GROUP 8      /* tile rows per band */
#endif
#define A_BYTES (BM * BK * 4)
#define A_PART_BYTES (A_BYTES / CLUSTER) /* the rows of A's tile one block of the cluster loads */
#define B_BOX 32     /* columns of B per TMA box: 128 bytes, the swizzle's span */
#define B_BOX_BYTES (BK * B_BOX * 4)
#define B_BOXES (BN / B_BOX)
#define STAGE_BYTES (A_BYTES + BN * BK * 4)
#define SMEM (STAGES * STAGE_BYTES + 2 * STAGES * 8 + 1024)

const struct step_info step_info = {
    .program = "step17",
    .lesson = "scheduling: persistent blocks, clusters sharing tiles by TMA multicast, no transpose pass",
    .chapter = "tensor-cores",
    .min_cc = 90,
    .needs = "Hopper's TMA multicast, clusters and wgmma, in sm_90a code",
    .precision = PRECISION_TF32,
    .change = "a 256 x 128 tile: one 64 x 256 register-source wgmma per k-step (half the fragment loads per "
              "product), and the cluster side by side along N, sharing A's tile",
    .builds_on = "step13",
};

/* A consumer thread's share of B^T, as wgmma's register fragment of its first operand (common/
 * device/wgmma.h): register v of a k-step holds element (n, k) of B^T, element (k, n) of B, with
 *   n = 64 consumer + 16 warp + lane / 4 + 8 (v % 2),   k = 8 k8 + lane % 4 + 4 (v / 2).
 * B's tile is in boxes of 32 columns, each row k of a box 128 bytes whose 16-byte chunks the TMA
 * swizzled by k % 8. Neither k % 8 nor n depends on the k-step, so a thread's four byte offsets
 * are worked out once; a k-step is 8 rows, 1024 bytes, further on. */
__device__ static __forceinline__ void b_fragment_offsets(int consumer, int offset[4])
{
    const int warp = threadIdx.x / 32 % 4, lane = threadIdx.x % 32;
    for (int v = 0; v < 4; v++) {
        const int n = consumer * 64 + warp * 16 + lane / 4 + 8 * (v % 2), k = lane % 4 + 4 * (v / 2);
        const int c = n % B_BOX;
        offset[v] = (n / B_BOX) * B_BOX_BYTES + k * 128 + ((c / 4) ^ k) * 16 + (c % 4) * 4;
    }
}

__device__ static __forceinline__ void load_b_fragment(const unsigned char *b_tile, const int offset[4], int k8,
                                                       uint32_t f[4])
{
#pragma unroll
    for (int v = 0; v < 4; v++)
        f[v] = *(const uint32_t *)(b_tile + offset[v] + k8 * 8 * 128);
}

/* One stage of k tile `it` for a consumer warpgroup, in two halves of two k-steps each: a half's
 * fragments of B^T load into its own registers (f[0] or f[1]) while the other half's products
 * run on the tensor cores, since registers a wgmma in flight reads must not change. After each
 * half is issued, the one before it is awaited: after the first, that is the previous stage's
 * last, so the previous stage goes back to the producers. `first`: the tile's first stage
 * (nothing of this tile before it, acc starts at zero). */
__device__ static __forceinline__ void consume_stage(const unsigned char *smem, uint64_t *full, uint64_t *empty,
                                                     int it, const int offset[4], bool first, uint32_t f[2][2][4],
                                                     float acc[128])
{
    schedule_wait_full(full, it, STAGES);
    const unsigned char *stage = smem + it % STAGES * STAGE_BYTES;
    const uint64_t desc_a = wgmma_desc_k_sw128(stage); /* A's tile: the second operand, N = 256 */
#pragma unroll
    for (int half = 0; half < 2; half++) {
#pragma unroll
        for (int k = 0; k < 2; k++)
            load_b_fragment(stage + A_BYTES, offset, 2 * half + k, f[half][k]);
        wgmma_fence();
#pragma unroll
        for (int k = 0; k < 2; k++)
            wgmma_m64n256k8_tf32_rs(acc, f[half][k], desc_a + 2 * (2 * half + k), !first || half > 0 || k > 0);
        wgmma_commit_group();
        wgmma_wait_group<1>();
        if (half == 0 && !first)
            schedule_release(empty, it - 1, STAGES, CLUSTER);
    }
}

/* The persistent kernel: block rank r of cluster q computes, for each cluster tile q, q + Q, ...
 * (Q clusters), the block tile r of it. Warpgroup 0 produces, 1 and 2 consume, as in step 13;
 * the stages' ring and its barriers' phases run on across tiles (it counts k tiles from the
 * start). full[s]: the stage's bytes have landed (A's halves from both blocks' copies, B's boxes
 * from this block's); empty[s]: all CONSUMERS * CLUSTER consumer warpgroups of the cluster are
 * done with it. */
__global__ static void __cluster_dims__(CLUSTER, 1, 1) __launch_bounds__(THREADS, 1)
    matmult_kernel(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map, float *c,
                   size_t ldc, int padded)
{
    extern __shared__ unsigned char smem_raw[];
    /* aligned to 1024 bytes (the 128-byte swizzle's pattern) by an offset, so that the compiler
     * still knows the pointer is shared memory and loads the fragments with LDS */
    unsigned char *smem = smem_raw + ((1024 - ((unsigned)__cvta_generic_to_shared(smem_raw) & 1023)) & 1023);
    uint64_t *full = (uint64_t *)(smem + STAGES * STAGE_BYTES);
    uint64_t *empty = full + STAGES;
    const int warpgroup = threadIdx.x / 128, kt_count = padded / BK;
    const int rank = (int)cluster_ctarank(), cluster = blockIdx.x / CLUSTER, clusters = gridDim.x / CLUSTER;
    const int rows = padded / BM, cluster_cols = padded / (BN * CLUSTER), tiles = rows * cluster_cols;

    schedule_init(full, empty, STAGES, CONSUMERS * CLUSTER);

    if (warpgroup == 0) {
        setmaxnreg_dec<40>();
        /* One warp produces, its lane 0 issuing the copies: the whole warp walks the loop, so that
         * it reaches the cluster barrier at the end together (an .aligned barrier wants that). */
        if (threadIdx.x < 32) {
            const bool issuer = threadIdx.x == 0;
            if (issuer) {
                prefetch_tensormap(&a_map);
                prefetch_tensormap(&b_map);
            }
            int it = 0;
            for (int t = cluster; t < tiles; t += clusters) {
                int row, col;
                banded_tile(t, GROUP, rows, cluster_cols, &row, &col);
                const int m0 = row * BM, n0 = (col * CLUSTER + rank) * BN;
                for (int kt = 0; kt < kt_count; kt++, it++) {
                    const int s = it % STAGES;
                    schedule_wait_empty(empty, it, STAGES);
                    if (!issuer)
                        continue;
                    unsigned char *stage = smem + s * STAGE_BYTES;
                    /* all of the stage's bytes land here: A's tile (both halves), this block's B */
                    mbarrier_arrive_expect_tx(&full[s], STAGE_BYTES);
                    /* this block's part of A's tile, multicast to the whole cluster */
                    schedule_load_shared(stage, &a_map, m0, BM, kt * BK, A_BYTES, &full[s], rank, CLUSTER);
                    for (int box = 0; box < B_BOXES; box++)
                        cp_async_bulk_tensor_2d_global_to_shared(stage + A_BYTES + box * B_BOX_BYTES, &b_map,
                                                                 kt * BK, n0 + box * B_BOX, &full[s]);
                }
            }
            __syncwarp();
        }
    } else {
        setmaxnreg_inc<232>();
        const int consumer = warpgroup - 1, warp = threadIdx.x / 32 % 4, lane = threadIdx.x % 32;
        float acc[128];
        int offset[4];
        b_fragment_offsets(consumer, offset);
        uint32_t f[2][2][4]; /* per half stage: two k-steps of 4 registers */
        int it = 0;
        for (int t = cluster; t < tiles; t += clusters) {
            int row, col;
            banded_tile(t, GROUP, rows, cluster_cols, &row, &col);
            const int m0 = row * BM, n0 = (col * CLUSTER + rank) * BN;
            for (int kt = 0; kt < kt_count; kt++, it++)
                consume_stage(smem, full, empty, it, offset, kt == 0, f, acc);
            wgmma_wait_group<0>();
            schedule_release(empty, it - 1, STAGES, CLUSTER);
#pragma unroll
            for (int i = 0; i < 128; i++)
                wgmma_fence_operand(&acc[i]);
            /* acc holds C^T's rows 64 consumer + 16 warp + lane / 4 (+ 8), which are C's columns,
             * and its columns 8 (i / 4) + 2 (lane % 4) + i % 2, C's rows */
            const int n = n0 + consumer * 64 + warp * 16 + lane / 4;
#pragma unroll
            for (int i = 0; i < 128; i++) {
                const int m = m0 + 8 * (i / 4) + 2 * (lane % 4) + i % 2;
                c[(size_t)m * ldc + n + 8 * (i % 4 / 2)] = acc[i];
            }
        }
    }
    schedule_finish();
}

/* What setup builds for the launches: the tensor maps, and how many clusters run at once. */
struct step_state {
    CUtensorMap a_map, b_map;
    int clusters;
};

static void setup(struct step_run *run)
{
    static_assert(BN == 64 * CONSUMERS && BM == 256, "a consumer: one 64-row slice of C^T, 256 columns (C's rows)");
    static_assert(TILE % BM == 0 && TILE % (BN * CLUSTER) == 0, "the padding: every cluster tile is whole");
    static_assert(BK * 4 == 128, "a tile row is 128 bytes, the swizzle's span");
    static_assert(A_BYTES % 1024 == 0 && B_BOX_BYTES % 1024 == 0 && STAGE_BYTES % 1024 == 0,
                  "every tile and box starts 1024 bytes aligned, as the 128-byte swizzle needs");
    static_assert(A_PART_BYTES % 1024 == 0, "each block's part of A's tile starts 1024 bytes aligned");
    static_assert(SMEM <= 227 * 1024, "fits sm_90's 227 KB of shared memory per block");
    struct step_state *state = (struct step_state *)run->state;
    const struct dev_mats *m = &run->mats;
    const int padded = m->padded;
    char why[512];
    if (tma_encode_2d_tf32(&state->a_map, m->a, padded, padded, m->lda, BM / CLUSTER, BK, CU_TENSOR_MAP_SWIZZLE_128B, why,
                           sizeof why) != cudaSuccess ||
        tma_encode_2d_tf32(&state->b_map, m->b, padded, padded, m->ldb, BK, B_BOX, CU_TENSOR_MAP_SWIZZLE_128B, why,
                           sizeof why) != cudaSuccess) {
        fprintf(stderr, "%s: %s\n", step_info.program, why);
        exit(EXIT_CUDA_ERROR);
    }
    CUDA_CHECK(cudaFuncSetAttribute(matmult_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM));
    state->clusters = schedule_clusters((const void *)matmult_kernel, CLUSTER, THREADS, SMEM);
}

/* The persistent kernel alone: no more clusters than tiles. */
static void launch(const struct step_run *run)
{
    const struct step_state *state = (const struct step_state *)run->state;
    const struct dev_mats *m = &run->mats;
    const int padded = m->padded, tiles = (padded / BM) * (padded / (BN * CLUSTER));
    matmult_kernel<<<schedule_blocks(state->clusters, tiles, CLUSTER), THREADS, SMEM>>>(state->a_map, state->b_map,
                                                                                       m->c, m->ldc, padded);
}

static const struct step_ops ops = {.state_bytes = sizeof(struct step_state), .setup = setup, .launch = launch};

/* Step 06's padded allocation (common/padded.c): every tile whole, no bounds checks. */
MATMULT_GPU_PADDED(TILE, ops)
