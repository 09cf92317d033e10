/* Step 18: step 16's FP32 products from integer tensor cores (Ozaki scheme II), with the moduli's
 * products on step 17's schedule. Everything around the products is step 16's, included from its
 * folder (ozaki.h: the arithmetic; ozaki_passes.h: the passes, the check, the remainder theorem),
 * and so is the check's own product; the schedule is step 17's (schedule.h: the persistent walk, the
 * stage ring across work items, the multicast load). What this file adds is the products kernel on
 * that schedule: one persistent kernel for all the moduli, a block per SM in clusters of two that
 * share Bt's tile, handed work items over moduli x tiles. Same products, same sums: C is step 16's,
 * bit for bit. */
#include "step.h"
#include "../step16_ozaki_int8/ozaki_passes.h"
#include "../step17_scheduling/schedule.h"

#define CLUSTER 2   /* the products' blocks, in clusters of two along M sharing Bt's tile */

const struct step_info step_info = {
    .program = "step18",
    .lesson = "Ozaki scheme II on the schedule: persistent clustered INT8 products (" MODULI_TEXT ")",
    .chapter = "tensor-cores",
    .min_cc = 90,
    .needs = "Hopper's TMA and INT8 wgmma, in sm_90a code",
    .precision = PRECISION_FP32,
    /* 3 bytes an element per plane (residues of A, of Bt, of the products; the check's three). */
    .scratch_matrices = (3 * PLANES + 3) / 4,
    .special_path = OZAKI_SPECIAL_PATH,
    .builds_on = "step16 step17", /* step 16's passes; its moduli's products rescheduled as step 17 does */
};

/* 3. The moduli's products on step 17's schedule: one block per SM for the whole run, in clusters
 * of two blocks one above the other; work item t is modulus t / per_plane and cluster tile
 * t % per_plane (bands of GROUP_M cluster rows walked column after column); each block loads its A
 * tile and half of the cluster's Bt tile, multicast to both. The stages' ring runs on across items;
 * a stage is free when the consumers of both blocks are done with it. The sums mod p as bytes in
 * [0, p), laid out as step 16's. */
__global__ static void __cluster_dims__(CLUSTER, 1, 1) __launch_bounds__(THREADS, 1)
    moduli_products(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap bt_half_map,
                    uint8_t *r, int padded, const struct ozaki_plan plan)
{
    extern __shared__ unsigned char smem_raw[];
    unsigned char *smem = smem_raw + ((1024 - ((unsigned)__cvta_generic_to_shared(smem_raw) & 1023)) & 1023);
    uint64_t *full = (uint64_t *)(smem + STAGES * STAGE_BYTES);
    uint64_t *empty = full + STAGES;
    const int warpgroup = threadIdx.x / 128, kt_count = padded / BK;
    const int rank = (int)cluster_ctarank(), cluster = blockIdx.x / CLUSTER, clusters = gridDim.x / CLUSTER;
    const int rows = padded / (BM * CLUSTER), cols = padded / BN, per_plane = rows * cols;
    const int items = per_plane * plan.count;

    schedule_init(full, empty, STAGES, CONSUMERS * CLUSTER);

    if (warpgroup == 0) {
        setmaxnreg_dec<40>();
        if (threadIdx.x < 32) { /* the whole warp walks the loop, to meet the cluster barrier together */
            const bool issuer = threadIdx.x == 0;
            if (issuer) {
                prefetch_tensormap(&a_map);
                prefetch_tensormap(&bt_half_map);
            }
            int it = 0;
            for (int t = cluster; t < items; t += clusters) {
                const int l = t / per_plane;
                int row, col;
                banded_tile(t % per_plane, GROUP_M, rows, cols, &row, &col);
                const int m0 = (row * CLUSTER + rank) * BM, n0 = col * BN;
                for (int kt = 0; kt < kt_count; kt++, it++) {
                    const int s = it % STAGES;
                    schedule_wait_empty(empty, it, STAGES);
                    if (!issuer)
                        continue;
                    unsigned char *stage = smem + s * STAGE_BYTES;
                    mbarrier_arrive_expect_tx(&full[s], STAGE_BYTES);
                    cp_async_bulk_tensor_2d_global_to_shared(stage, &a_map, l * padded + m0, kt * BK, &full[s]);
                    schedule_load_shared(stage + BM * BK, &bt_half_map, l * padded + n0, BN, kt * BK, BN * BK,
                                         &full[s], rank, CLUSTER);
                }
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
            const int m0 = (row_tile * CLUSTER + rank) * BM, n0 = col_tile * BN;
            for (int kt = 0; kt < kt_count; kt++, it++) {
                schedule_wait_full(full, it, STAGES);
                const unsigned char *stage = smem + it % STAGES * STAGE_BYTES;
                const uint64_t desc_a = wgmma_desc_k_sw128(stage + consumer * 64 * BK);
                const uint64_t desc_b = wgmma_desc_k_sw128(stage + BM * BK);
                wgmma_fence();
                for (int ks = 0; ks < BK / KSTEP; ks++)
                    wgmma_m64n256k32_s8(acc, desc_a + 2 * ks, desc_b + 2 * ks, kt > 0 || ks > 0);
                wgmma_commit_group();
                wgmma_wait_group<1>();
                if (kt > 0)
                    schedule_release(empty, it - 1, STAGES, CLUSTER);
            }
            wgmma_wait_group<0>();
            schedule_release(empty, it - 1, STAGES, CLUSTER);
            for (int i = 0; i < BN / 2; i++)
                wgmma_fence_operand_int(&acc[i]);
            const int p = plan.p[l];
            const uint32_t magic = plan.magic[l];
            const int row = m0 + consumer * 64 + warp * 16 + lane / 4, col = n0 + 2 * (lane % 4);
            uint8_t *out = r + l * plane + (size_t)row * padded + col;
            for (int i = 0; i < BN / 2; i += 4) {
                int v[4];
                for (int q = 0; q < 4; q++)
                    v[q] = ozaki_mod(acc[i + q], p, magic);
                *(uchar2 *)(out + 8 * (i / 4)) = make_uchar2((unsigned char)v[0], (unsigned char)v[1]);
                *(uchar2 *)(out + 8 * (size_t)padded + 8 * (i / 4)) =
                    make_uchar2((unsigned char)v[2], (unsigned char)v[3]);
            }
        }
    }
    schedule_finish();
}

/* What setup builds for the launches: step 16's (the plan, the bound, the residues' maps), the map
 * of Bt's residues in boxes of half a tile (each block of a cluster loads one), and how many
 * clusters run at once. */
struct step_state {
    struct ozaki_state ozaki;
    CUtensorMap bt_half_map;
    int clusters;
};

static void setup(struct step_run *run)
{
    static_assert(TILE % (BM * CLUSTER) == 0, "the padding: every cluster tile whole");
    struct step_state *state = (struct step_state *)run->state;
    const int padded = run->mats.padded;
    ozaki_setup(run, &state->ozaki);
    encode(&state->bt_half_map, workspace_of(run->workspace, padded).rbt, PLANES * padded, padded, BN / CLUSTER);
    CUDA_CHECK(cudaFuncSetAttribute(moduli_products, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM));
    state->clusters = schedule_clusters((const void *)moduli_products, CLUSTER, THREADS, SMEM);
}

static void launch(const struct step_run *run)
{
    const struct step_state *state = (const struct step_state *)run->state;
    const int padded = run->mats.padded;
    const int items = (padded / (BM * CLUSTER)) * (padded / BN) * state->ozaki.plan.count;
    ozaki_passes_before_products(run, &state->ozaki);
    moduli_products<<<schedule_blocks(state->clusters, items, CLUSTER), THREADS, SMEM>>>(
        state->ozaki.maps[0], state->bt_half_map, workspace_of(run->workspace, padded).r, padded, state->ozaki.plan);
    ozaki_passes_after_products(run, &state->ozaki);
}

static void report(const struct step_run *run, char *line, size_t size)
{
    ozaki_report(run, &((const struct step_state *)run->state)->ozaki, line, size);
}

static const struct step_ops ops = {.workspace_bytes = workspace_bytes, .state_bytes = sizeof(struct step_state),
                                    .setup = setup, .launch = launch, .report = report};

/* Step 06's padded allocation (common/padded.c): every tile whole, the padding zero. */
MATMULT_GPU_PADDED(TILE, ops)
