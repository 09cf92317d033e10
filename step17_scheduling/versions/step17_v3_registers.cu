/* Step 17, version 3: version 2 without the transpose pass, B^T from registers.
 *
 * Step 17: scheduling, and the pass it lets go. Step 13's kernel multiplies each tile of C about
 * as fast as cuBLAS TF32's kernel does; what it loses is around it: a pre-pass that writes B
 * transposed (TF32 wgmma reads B only K-major, from shared memory), and the gap between one
 * block's end and the next one's start. Here the same products are handed out differently:
 *   - persistent blocks: one block per SM (a cluster per pair of SMs) for the whole run, each
 *     walking its share of the tiles; its producer loads the next tile's stages while the
 *     consumers store the last tile's results;
 *   - clusters of two blocks along M: both need the same tile of B, so each loads
 *     half of it and the TMA multicasts that half into both blocks' shared memory; a stage is
 *     free again only when the consumers of both blocks are done with it;
 *   - no transpose: the block computes its tile of C transposed, C^T = B^T A^T. wgmma takes its
 *     first operand from registers, and each consumer thread loads its share of B^T there itself,
 *     from B's tile as the TMA brought it (rows of B, n running along them); A, K-major as it is
 *     stored, is the second operand, from shared memory. The accumulators then hold C^T, stored
 *     back as C.
 * Both tensor maps typed TFLOAT32 (the TMA rounds to nearest), as in step 13. */
#include "step.h"
#include "../../step13_wgmma_tf32/block_order.h"
#include "device/cluster.h"
#include "device/mbarrier.h"
#include "device/tma.h"
#include "device/wgmma.h"

#ifndef CLUSTER
#define CLUSTER 2    /* blocks per cluster, along M: they share the tile of B */
#endif
#define BM 128       /* rows of C per block: wgmma's n, A's tile the second operand */
#define BN 256       /* columns: 128 per consumer warpgroup, two 64-row slices of C^T */
#define BK 32        /* k per stage: 32 floats, one 128-byte row, the swizzle's span */
#define STAGES 4
#define CONSUMERS 2  /* warpgroups that multiply */
#define THREADS (128 * (CONSUMERS + 1))
#define TILE 256     /* the padding: BM * CLUSTER and BN divide it */
#ifndef GROUP
#define GROUP 8      /* tile rows per band */
#endif
#define A_BYTES (BM * BK * 4)
#define B_BOX 32     /* columns of B per TMA box: 128 bytes, the swizzle's span */
#define B_BOX_BYTES (BK * B_BOX * 4)
#define B_BOXES (BN / B_BOX)
#define STAGE_BYTES (A_BYTES + BN * BK * 4)
#define SMEM (STAGES * STAGE_BYTES + 2 * STAGES * 8 + 1024)

const struct step_info step_info = {
    .program = "step17_v3",
    .lesson = "step 17, version 3: persistent blocks, clusters sharing B by TMA multicast, no transpose pass",
    .chapter = "tensor-cores",
    .min_cc = 90,
    .needs = "Hopper's TMA multicast, clusters and wgmma, in sm_90a code",
    .precision = PRECISION_TF32,
    .change = "no transpose pass: C^T = B^T A^T, B^T's fragments loaded into registers by the consumers from B's "
              "tiles as the TMA stored them (two 64 x 128 register-source wgmmas per k-step)",
};

/* A consumer warpgroup is done with the stage of k tile `it`: it tells every block of the
 * cluster (each block's producer may overwrite this stage in all of them by multicast). */
__device__ static __forceinline__ void release_stage(uint64_t *empty, int it)
{
    if (threadIdx.x % 128 != 0)
        return;
    mbarrier_arrive(&empty[it % STAGES]); /* this block's own, the plain arrive */
    for (int cta = 0; cta < CLUSTER; cta++)
        if (cta != (int)cluster_ctarank())
            mbarrier_arrive_cluster(&empty[it % STAGES], cta);
}

/* A consumer thread's share of B^T, as wgmma's register fragment of its first operand (common/
 * device/wgmma.h): register v of a k-step holds element (n, k) of B^T, element (k, n) of B, with
 *   n = 128 consumer + 64 slice + 16 warp + lane / 4 + 8 (v % 2),   k = 8 k8 + lane % 4 + 4 (v / 2).
 * B's tile is in boxes of 32 columns, each row k of a box 128 bytes whose 16-byte chunks the TMA
 * swizzled by k % 8. Neither k % 8 nor n % 32 depends on the k-step or the slice, so a thread's
 * four byte offsets are worked out once; a k-step is 8 rows, 1024 bytes, further on. */
__device__ static __forceinline__ void b_fragment_offsets(int consumer, int offset[4])
{
    const int warp = threadIdx.x / 32 % 4, lane = threadIdx.x % 32;
    for (int v = 0; v < 4; v++) {
        const int n = consumer * 128 + warp * 16 + lane / 4 + 8 * (v % 2), k = lane % 4 + 4 * (v / 2);
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
                                                     int it, const int offset[4], bool first, uint32_t f[2][2][2][4],
                                                     float acc[128])
{
    const int s = it % STAGES;
    mbarrier_wait_parity(&full[s], (it / STAGES) & 1);
    const unsigned char *stage = smem + s * STAGE_BYTES;
    const uint64_t desc_a = wgmma_desc_k_sw128(stage); /* A's tile: the second operand, N = 128 */
#pragma unroll
    for (int half = 0; half < 2; half++) {
#pragma unroll
        for (int k = 0; k < 2; k++)
#pragma unroll
            for (int slice = 0; slice < 2; slice++) /* a slice: 64 columns of C, two boxes of B on */
                load_b_fragment(stage + A_BYTES + slice * 2 * B_BOX_BYTES, offset, 2 * half + k, f[half][k][slice]);
        wgmma_fence();
#pragma unroll
        for (int k = 0; k < 2; k++)
#pragma unroll
            for (int slice = 0; slice < 2; slice++) /* into acc's first 64 values, then its last 64 */
                wgmma_m64n128k8_tf32_rs(acc + 64 * slice, f[half][k][slice], desc_a + 2 * (2 * half + k),
                                        !first || half > 0 || k > 0);
        wgmma_commit_group();
        wgmma_wait_group<1>();
        if (half == 0 && !first)
            release_stage(empty, it - 1);
    }
}

/* The persistent kernel: block rank r of cluster q computes, for each cluster tile q, q + Q, ...
 * (Q clusters), the block tile r of it. Warpgroup 0 produces, 1 and 2 consume, as in step 13;
 * the stages' ring and its barriers' phases run on across tiles (it counts k tiles from the
 * start). full[s]: the stage's bytes have landed (A's tile from this block's copy, B's boxes from
 * both blocks'); empty[s]: all CONSUMERS * CLUSTER consumer warpgroups of the cluster are
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
    const int rows = padded / (BM * CLUSTER), cols = padded / BN, tiles = rows * cols;

    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; s++) {
            mbarrier_init(&full[s], 1);
            mbarrier_init(&empty[s], CONSUMERS * CLUSTER);
        }
        fence_mbarrier_init();
    }
    cluster_sync(); /* every barrier of the cluster initialised before any copy or arrive reaches it */

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
                banded_tile(t, GROUP, rows, cols, &row, &col);
                const int m0 = (row * CLUSTER + rank) * BM, n0 = col * BN;
                for (int kt = 0; kt < kt_count; kt++, it++) {
                    const int s = it % STAGES;
                    mbarrier_wait_parity(&empty[s], ((it / STAGES) & 1) ^ 1);
                    if (!issuer)
                        continue;
                    unsigned char *stage = smem + s * STAGE_BYTES;
                    /* all of the stage's bytes land here: this block's A, B's tile (both halves) */
                    mbarrier_arrive_expect_tx(&full[s], STAGE_BYTES);
                    cp_async_bulk_tensor_2d_global_to_shared(stage, &a_map, m0, kt * BK, &full[s]);
                    /* this block's half of B's boxes, multicast to the whole cluster */
                    for (int box = rank * (B_BOXES / CLUSTER); box < (rank + 1) * (B_BOXES / CLUSTER); box++)
                        if (CLUSTER == 1)
                            cp_async_bulk_tensor_2d_global_to_shared(stage + A_BYTES + box * B_BOX_BYTES, &b_map,
                                                                     kt * BK, n0 + box * B_BOX, &full[s]);
                        else
                            cp_async_bulk_tensor_2d_global_to_shared_multicast(
                                stage + A_BYTES + box * B_BOX_BYTES, &b_map, kt * BK, n0 + box * B_BOX, &full[s],
                                (uint16_t)((1u << CLUSTER) - 1));
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
        uint32_t f[2][2][2][4]; /* per half stage: two k-steps, two slices of 4 registers */
        int it = 0;
        for (int t = cluster; t < tiles; t += clusters) {
            int row, col;
            banded_tile(t, GROUP, rows, cols, &row, &col);
            const int m0 = (row * CLUSTER + rank) * BM, n0 = col * BN;
            for (int kt = 0; kt < kt_count; kt++, it++)
                consume_stage(smem, full, empty, it, offset, kt == 0, f, acc);
            wgmma_wait_group<0>();
            release_stage(empty, it - 1);
#pragma unroll
            for (int i = 0; i < 128; i++)
                wgmma_fence_operand(&acc[i]);
            /* acc holds C^T's rows 128 consumer + 64 (i / 64) + 16 warp + lane / 4 (+ 8), C's columns,
             * and its columns 8 (i % 64 / 4) + 2 (lane % 4) + i % 2, C's rows */
            const int n = n0 + consumer * 128 + warp * 16 + lane / 4;
#pragma unroll
            for (int i = 0; i < 128; i++) {
                const int m = m0 + 8 * (i % 64 / 4) + 2 * (lane % 4) + i % 2;
                c[(size_t)m * ldc + n + 64 * (i / 64) + 8 * (i % 4 / 2)] = acc[i];
            }
        }
    }
    cluster_sync(); /* no block leaves while another may still arrive on its barriers */
}

/* What setup builds for the launches: the tensor maps, and how many clusters run at once. */
struct step_state {
    CUtensorMap a_map, b_map;
    int clusters;
};

static void setup(struct step_run *run)
{
    static_assert(BN == 128 * CONSUMERS && BM == 128, "a consumer: two 64-row slices of C^T, 128 columns (C's rows)");
    static_assert(TILE % (BM * CLUSTER) == 0 && TILE % BN == 0, "the padding: every cluster tile is whole");
    static_assert(BK * 4 == 128, "a tile row is 128 bytes, the swizzle's span");
    static_assert(A_BYTES % 1024 == 0 && B_BOX_BYTES % 1024 == 0 && STAGE_BYTES % 1024 == 0,
                  "every tile and box starts 1024 bytes aligned, as the 128-byte swizzle needs");
    static_assert(B_BOXES % CLUSTER == 0, "each block of the cluster loads whole boxes of B");
    static_assert(SMEM <= 227 * 1024, "fits sm_90's 227 KB of shared memory per block");
    struct step_state *state = (struct step_state *)run->state;
    const struct dev_mats *m = &run->mats;
    const int padded = m->padded;
    char why[512];
    if (tma_encode_2d_tf32(&state->a_map, m->a, padded, padded, m->lda, BM, BK, CU_TENSOR_MAP_SWIZZLE_128B, why,
                           sizeof why) != cudaSuccess ||
        tma_encode_2d_tf32(&state->b_map, m->b, padded, padded, m->ldb, BK, B_BOX, CU_TENSOR_MAP_SWIZZLE_128B, why,
                           sizeof why) != cudaSuccess) {
        fprintf(stderr, "%s: %s\n", step_info.program, why);
        exit(EXIT_CUDA_ERROR);
    }
    CUDA_CHECK(cudaFuncSetAttribute(matmult_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM));
    /* As many clusters as fit on the GPU at once, one block per SM: the grid for every n. */
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(CLUSTER, 1, 1);
    config.blockDim = dim3(THREADS, 1, 1);
    config.dynamicSmemBytes = SMEM;
    CUDA_CHECK(cudaOccupancyMaxActiveClusters(&state->clusters, matmult_kernel, &config));
    if (state->clusters < 1) {
        fprintf(stderr, "%s: not one cluster of %d blocks fits on this GPU\n", step_info.program, CLUSTER);
        exit(EXIT_CUDA_ERROR);
    }
}

/* The persistent kernel alone: no more clusters than tiles. */
static void launch(const struct step_run *run)
{
    const struct step_state *state = (const struct step_state *)run->state;
    const struct dev_mats *m = &run->mats;
    const int padded = m->padded, tiles = (padded / (BM * CLUSTER)) * (padded / BN);
    const int clusters = state->clusters < tiles ? state->clusters : tiles;
    matmult_kernel<<<clusters * CLUSTER, THREADS, SMEM>>>(state->a_map, state->b_map, m->c, m->ldc, padded);
}

static const struct step_ops ops = {.state_bytes = sizeof(struct step_state), .setup = setup, .launch = launch};

/* Step 06's padded allocation (common/padded.c): every tile whole, no bounds checks. */
MATMULT_GPU_PADDED(TILE, ops)
