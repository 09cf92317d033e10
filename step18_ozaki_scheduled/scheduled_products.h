/* Step 18's products kernel: the moduli's INT8 products on step 17's schedule (one persistent
 * kernel for all the moduli, clusters of two sharing Bt's tile). In a header so that a step that
 * keeps these products and changes the passes around them (step 19) includes it. CUDA C, included
 * after step 16's ozaki_passes.h (its tiles, stages and plan) and step 17's schedule.h. */
#ifndef SCHEDULED_PRODUCTS_H
#define SCHEDULED_PRODUCTS_H

#include "../step16_ozaki_int8/ozaki_passes.h"
#include "../step17_scheduling/schedule.h"

#define CLUSTER 2   /* the products' blocks, in clusters of two along M sharing Bt's tile */

/* What the products need of a plan: the moduli and their remainders' magic numbers. Up to 20, so
 * that a plan with more moduli than step 16's FP32 plan holds (FP64's) takes the same kernel. */
#define PRODUCT_MAX_MODULI 20
struct product_moduli {
    int count;
    int p[PRODUCT_MAX_MODULI];
    uint32_t magic[PRODUCT_MAX_MODULI];
};

static inline struct product_moduli product_moduli_of(int count, const int *p, const uint32_t *magic)
{
    struct product_moduli m;
    memset(&m, 0, sizeof m);
    m.count = count;
    for (int l = 0; l < count && l < PRODUCT_MAX_MODULI; l++)
        m.p[l] = p[l], m.magic[l] = magic[l];
    return m;
}

/* One work item's loads, by the producers' warp (the whole warp walks the loop, to meet the
 * cluster barrier together; thread 0 issues): modulus l's A tile at row m0, and the block's half of
 * the cluster's Bt tile at column n0, multicast to both blocks, a stage per BK of k. it: the stage
 * ring's count, run on across items. */
__device__ static __forceinline__ void load_item(const CUtensorMap *a_map, const CUtensorMap *bt_half_map,
                                                 unsigned char *smem, uint64_t *full, uint64_t *empty, int l,
                                                 int padded, int m0, int n0, int rank, bool issuer, int *it)
{
    for (int kt = 0; kt < padded / BK; kt++, (*it)++) {
        const int s = *it % STAGES;
        schedule_wait_empty(empty, *it, STAGES);
        if (!issuer)
            continue;
        unsigned char *stage = smem + s * STAGE_BYTES;
        mbarrier_arrive_expect_tx(&full[s], STAGE_BYTES);
        cp_async_bulk_tensor_2d_global_to_shared(stage, a_map, l * padded + m0, kt * BK, &full[s]);
        schedule_load_shared(stage + BM * BK, bt_half_map, l * padded + n0, BN, kt * BK, BN * BK, &full[s], rank,
                             CLUSTER);
    }
}

/* One work item's sums, by a consumer warpgroup: acc = its 64 rows of the tile times Bt's, over k,
 * each stage released to both blocks' producers as soon as the next one's products are issued. */
__device__ static __forceinline__ void multiply_item(int acc[BN / 2], const unsigned char *smem, uint64_t *full,
                                                     uint64_t *empty, int consumer, int padded, int *it)
{
    for (int kt = 0; kt < padded / BK; kt++, (*it)++) {
        schedule_wait_full(full, *it, STAGES);
        const unsigned char *stage = smem + *it % STAGES * STAGE_BYTES;
        const uint64_t desc_a = wgmma_desc_k_sw128(stage + consumer * 64 * BK);
        const uint64_t desc_b = wgmma_desc_k_sw128(stage + BM * BK);
        wgmma_fence();
        for (int ks = 0; ks < BK / KSTEP; ks++)
            wgmma_m64n256k32_s8(acc, desc_a + 2 * ks, desc_b + 2 * ks, kt > 0 || ks > 0);
        wgmma_commit_group();
        wgmma_wait_group<1>();
        if (kt > 0)
            schedule_release(empty, *it - 1, STAGES, CLUSTER);
    }
    wgmma_wait_group<0>();
    schedule_release(empty, *it - 1, STAGES, CLUSTER);
    for (int i = 0; i < BN / 2; i++)
        wgmma_fence_operand_int(&acc[i]);
}

/* The sums mod p as bytes in [0, p), laid out as step 16's: the thread's elements start at out
 * (its row, its first column); acc[i ... i + 3] are two neighbours, then the two 8 rows below. */
__device__ static __forceinline__ void store_residues(const int acc[BN / 2], int p, uint32_t magic, uint8_t *out,
                                                      int padded)
{
    for (int i = 0; i < BN / 2; i += 4) {
        int v[4];
        for (int q = 0; q < 4; q++)
            v[q] = ozaki_mod(acc[i + q], p, magic);
        *(uchar2 *)(out + 8 * (i / 4)) = make_uchar2((unsigned char)v[0], (unsigned char)v[1]);
        *(uchar2 *)(out + 8 * (size_t)padded + 8 * (i / 4)) = make_uchar2((unsigned char)v[2], (unsigned char)v[3]);
    }
}

/* 3. The moduli's products on step 17's schedule: one block per SM for the whole run, in clusters
 * of two blocks one above the other; work item t is modulus t / per_plane and cluster tile
 * t % per_plane (bands of GROUP_M cluster rows walked column after column); each block loads its A
 * tile and half of the cluster's Bt tile, multicast to both. The stages' ring runs on across items;
 * a stage is free when the consumers of both blocks are done with it. The sums mod p as bytes in
 * [0, p), laid out as step 16's. */
__global__ static void __cluster_dims__(CLUSTER, 1, 1) __launch_bounds__(THREADS, 1)
    moduli_products(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap bt_half_map,
                    uint8_t *r, int padded, const struct product_moduli moduli)
{
    extern __shared__ unsigned char smem_raw[];
    unsigned char *smem = smem_raw + ((1024 - ((unsigned)__cvta_generic_to_shared(smem_raw) & 1023)) & 1023);
    uint64_t *full = (uint64_t *)(smem + STAGES * STAGE_BYTES);
    uint64_t *empty = full + STAGES;
    const int warpgroup = threadIdx.x / 128;
    const int rank = (int)cluster_ctarank(), cluster = blockIdx.x / CLUSTER, clusters = gridDim.x / CLUSTER;
    const int rows = padded / (BM * CLUSTER), cols = padded / BN, per_plane = rows * cols;
    const int items = per_plane * moduli.count;

    schedule_init(full, empty, STAGES, CONSUMERS * CLUSTER);

    if (warpgroup == 0) {
        setmaxnreg_dec<40>();
        if (threadIdx.x < 32) {
            const bool issuer = threadIdx.x == 0;
            if (issuer) {
                prefetch_tensormap(&a_map);
                prefetch_tensormap(&bt_half_map);
            }
            int it = 0;
            for (int t = cluster; t < items; t += clusters) {
                int row, col;
                banded_tile(t % per_plane, GROUP_M, rows, cols, &row, &col);
                load_item(&a_map, &bt_half_map, smem, full, empty, t / per_plane, padded,
                          (row * CLUSTER + rank) * BM, col * BN, rank, issuer, &it);
            }
            __syncwarp();
        }
    } else {
        setmaxnreg_inc<232>();
        const int consumer = warpgroup - 1, warp = threadIdx.x / 32 % 4, lane = threadIdx.x % 32;
        const size_t plane = (size_t)padded * padded;
        int acc[BN / 2];
        int it = 0;
        for (int t = cluster; t < items; t += clusters) {
            const int l = t / per_plane;
            int row_tile, col_tile;
            banded_tile(t % per_plane, GROUP_M, rows, cols, &row_tile, &col_tile);
            multiply_item(acc, smem, full, empty, consumer, padded, &it);
            const int row = (row_tile * CLUSTER + rank) * BM + consumer * 64 + warp * 16 + lane / 4;
            const int col = col_tile * BN + 2 * (lane % 4);
            store_residues(acc, moduli.p[l], moduli.magic[l], r + l * plane + (size_t)row * padded + col, padded);
        }
    }
    schedule_finish();
}

#endif
