/* Step 17: scheduling, and the pass it lets go. Step 13's kernel multiplies each 128 x 256 tile of
 * C about as fast as cuBLAS TF32's kernel does; what it loses is around it: a pre-pass that writes
 * B transposed (TF32 wgmma reads B only K-major, from shared memory), and the gap between one
 * block's end and the next one's start. Here the same products are handed out differently:
 *   - persistent blocks: one block per SM (a cluster per pair of SMs) for the whole run, each
 *     walking its share of the tiles; its producer loads the next tile's stages while the
 *     consumers store the last tile's results;
 *   - clusters of two blocks along M: both need the same tile of B, so each loads half of it and
 *     the TMA multicasts that half into both blocks' shared memory; a stage is free again only
 *     when the consumers of both blocks are done with it;
 *   - no transpose: the block computes its tile of C transposed, C^T = B^T A^T. wgmma takes its
 *     first operand from registers, and each consumer thread loads its share of B^T there itself,
 *     from B's tile as the TMA brought it (rows of B, n running along them); A, K-major as it is
 *     stored, is the second operand, from shared memory. The accumulators then hold C^T, stored
 *     back as C.
 * Both tensor maps typed TFLOAT32 (the TMA rounds to nearest), as in step 13. */
#include "step.h"
#include "device/cluster.h"
#include "device/mbarrier.h"
#include "device/tma.h"
#include "device/wgmma.h"

#ifndef CLUSTER
#define CLUSTER 2    /* blocks per cluster, along M: they share the tile of Bt */
#endif
#define BM 128       /* rows of C per block: one 64-row wgmma per consumer warpgroup */
#define BN 256       /* columns: wgmma's widest n */
#define BK 32        /* k per stage: 32 floats, one 128-byte row, the swizzle's span */
#define STAGES 4
#define CONSUMERS 2  /* warpgroups that multiply */
#define THREADS (128 * (CONSUMERS + 1))
#define TILE 256     /* the padding: BM * CLUSTER and BN divide it */
#ifndef GROUP
#define GROUP 8      /* cluster rows per band */
#endif
#define A_BYTES (BM * BK * 4)
#define B_BOX 32     /* columns of B per TMA box: 128 bytes, the swizzle's span */
#define B_BOX_BYTES (BK * B_BOX * 4)
#define B_BOXES (BN / B_BOX)
#define STAGE_BYTES (A_BYTES + BN * BK * 4)
#define SMEM (STAGES * STAGE_BYTES + 2 * STAGES * 8 + 1024)

const struct step_info step_info = {
    .program = "step17",
    .lesson = "scheduling: persistent blocks, clusters sharing B by TMA multicast, B^T from registers (no transpose)",
    .chapter = "tensor-cores",
    .min_cc = 90,
    .needs = "Hopper's TMA multicast, clusters and wgmma, in sm_90a code",
    .exact_cc = 90,
    .precision = PRECISION_TF32,
    .change = "no transpose pass: C^T = B^T A^T, B^T from registers, loaded by the consumers from B's tiles as "
              "stored: the step",
    .builds_on = "step13",
};

/* Tile t of a grid of cluster_rows x cols cluster tiles (a cluster tile: CLUSTER block tiles, one
 * above the other), in bands of GROUP cluster rows walked column after column. */
__device__ static __forceinline__ void cluster_tile(int t, int cluster_rows, int cols, int *row, int *col)
{
    const int band = t / (GROUP * cols), first = band * GROUP;
    const int rows = min(GROUP, cluster_rows - first), in_band = t % (GROUP * cols);
    *row = first + in_band % rows;
    *col = in_band / rows;
}

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

/* A consumer thread's share of B^T for one k-step of 8: wgmma's register fragment of A (common/
 * device/wgmma.h) for each of the warpgroup's two 64-row slices of C^T (64 columns of C each).
 * Element (n, k) of B^T is element (k, n) of B: in box n / 32 of the stage, at row k, its 16-byte
 * chunk swizzled by k % 8 as the TMA wrote it. */
__device__ static __forceinline__ void load_b_fragment(const unsigned char *b_tile, int consumer, int k8,
                                                       uint32_t f[2][4])
{
    const int warp = threadIdx.x / 32 % 4, lane = threadIdx.x % 32;
#pragma unroll
    for (int half = 0; half < 2; half++)
#pragma unroll
        for (int v = 0; v < 4; v++) {
            const int n = consumer * 128 + half * 64 + warp * 16 + lane / 4 + 8 * (v % 2);
            const int k = k8 * 8 + lane % 4 + 4 * (v / 2), c = n % B_BOX;
            const unsigned char *box = b_tile + (n / B_BOX) * B_BOX_BYTES;
            f[half][v] = *(const uint32_t *)(box + k * 128 + (((c / 4) ^ (k % 8)) * 16) + (c % 4) * 4);
        }
}

/* The persistent kernel: block rank r of cluster q computes, for each cluster tile q, q + Q, ...
 * (Q clusters), the block tile r of it. Warpgroup 0 produces, 1 and 2 consume, as in step 13;
 * the stages' ring and its barriers' phases run on across tiles (it counts k tiles from the
 * start). full[s]: the stage's bytes have landed (A's from this block's copy, B's boxes from both
 * blocks'); empty[s]: all CONSUMERS * CLUSTER consumer warpgroups of the cluster are done. */
__global__ static void __cluster_dims__(CLUSTER, 1, 1) __launch_bounds__(THREADS, 1)
    matmult_kernel(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map, float *c,
                   size_t ldc, int padded)
{
    extern __shared__ unsigned char smem_raw[];
    unsigned char *smem = (unsigned char *)(((uintptr_t)smem_raw + 1023) & ~(uintptr_t)1023);
    uint64_t *full = (uint64_t *)(smem + STAGES * STAGE_BYTES);
    uint64_t *empty = full + STAGES;
    const int warpgroup = threadIdx.x / 128, kt_count = padded / BK;
    const int rank = (int)cluster_ctarank(), cluster = blockIdx.x / CLUSTER, clusters = gridDim.x / CLUSTER;
    const int cluster_rows = padded / (BM * CLUSTER), cols = padded / BN, tiles = cluster_rows * cols;

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
                cluster_tile(t, cluster_rows, cols, &row, &col);
                const int m0 = (row * CLUSTER + rank) * BM, n0 = col * BN;
                for (int kt = 0; kt < kt_count; kt++, it++) {
                    const int s = it % STAGES;
                    mbarrier_wait_parity(&empty[s], ((it / STAGES) & 1) ^ 1);
                    if (!issuer)
                        continue;
                    unsigned char *stage = smem + s * STAGE_BYTES;
                    /* all of the stage's bytes land here: A's, and every box of B's */
                    mbarrier_arrive_expect_tx(&full[s], STAGE_BYTES);
                    cp_async_bulk_tensor_2d_global_to_shared(stage, &a_map, m0, kt * BK, &full[s]);
                    /* this block's share of B's boxes, multicast to the whole cluster */
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
        float acc[2][BM / 2];
        uint32_t f[BK / 8][2][4]; /* a stage's fragments, each k-step's its own registers */
        int it = 0;
        for (int t = cluster; t < tiles; t += clusters) {
            int row, col;
            cluster_tile(t, cluster_rows, cols, &row, &col);
            const int m0 = (row * CLUSTER + rank) * BM, n0 = col * BN;
            for (int kt = 0; kt < kt_count; kt++, it++) {
                const int s = it % STAGES;
                mbarrier_wait_parity(&full[s], (it / STAGES) & 1);
                const unsigned char *stage = smem + s * STAGE_BYTES;
                const uint64_t desc_a = wgmma_desc_k_sw128(stage); /* A's tile: the second operand, N = 128 */
#pragma unroll
                for (int k8 = 0; k8 < BK / 8; k8++)
                    load_b_fragment(stage + A_BYTES, consumer, k8, f[k8]);
                wgmma_fence();
#pragma unroll
                for (int k8 = 0; k8 < BK / 8; k8++)
#pragma unroll
                    for (int half = 0; half < 2; half++)
                        wgmma_m64n128k8_tf32_rs(acc[half], f[k8][half], desc_a + 2 * k8, kt > 0 || k8 > 0);
                wgmma_commit_group();
                /* the fragments are rewritten next stage: this stage's products must be done (the
                 * other consumer warpgroup keeps the tensor cores busy meanwhile) */
                wgmma_wait_group<0>();
                release_stage(empty, it);
            }
#pragma unroll
            for (int half = 0; half < 2; half++)
#pragma unroll
                for (int i = 0; i < BM / 2; i++)
                    wgmma_fence_operand(&acc[half][i]);
            /* acc[half] holds C^T's rows consumer * 128 + half * 64 + 16 warp + lane / 4 (+ 8), which
             * are C's columns, and its columns 8 (i / 4) + 2 (lane % 4) + i % 2, C's rows */
#pragma unroll
            for (int half = 0; half < 2; half++) {
                const int n = n0 + consumer * 128 + half * 64 + warp * 16 + lane / 4;
#pragma unroll
                for (int i = 0; i < BM / 2; i++) {
                    const int m = m0 + 8 * (i / 4) + 2 * (lane % 4) + i % 2;
                    c[(size_t)m * ldc + n + 8 * (i % 4 / 2)] = acc[half][i];
                }
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
    static_assert(BM == 64 * CONSUMERS, "one 64-row wgmma per consumer warpgroup");
    static_assert(TILE % (BM * CLUSTER) == 0 && TILE % BN == 0, "the padding: every cluster tile is whole");
    static_assert(BK * 4 == 128, "a tile row is 128 bytes, the swizzle's span");
    static_assert(A_BYTES % 1024 == 0 && B_BOX_BYTES % 1024 == 0 && STAGE_BYTES % 1024 == 0,
                  "every tile and box starts 1024 bytes aligned, as the 128-byte swizzle needs");
    static_assert(B_BOXES % CLUSTER == 0 && BN == 128 * CONSUMERS, "each block loads whole boxes; a consumer: 128 "
                  "columns of C, two 64-row slices of C^T");
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
void matmult_gpu(const float *a, int lda, const float *b, int ldb, float *c, int ldc, int n, int kernel_reps,
                 struct gpu_run *run)
{
    matmult_padded(a, lda, b, ldb, c, ldc, n, TILE, &ops, kernel_reps, run);
}
