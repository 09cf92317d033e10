/* Step 18: step 16's FP32 products from integer tensor cores (Ozaki scheme II), with the moduli's
 * products on step 17's schedule. Everything around the products is step 16's, included from its
 * folder (ozaki.h: the arithmetic; ozaki_passes.h: the passes, the check, the remainder theorem),
 * and so is the check's own product; the schedule is step 17's (schedule.h: the persistent walk, the
 * stage ring across work items, the multicast load). What the step adds is the products kernel on
 * that schedule (scheduled_products.h, beside this file, where step 19 includes it): one persistent
 * kernel for all the moduli, a block per SM in clusters of two that share Bt's tile, handed work
 * items over moduli x tiles; and here, its setup and launch. Same products, same sums: C is step
 * 16's, bit for bit. */
#include "step.h"
#include "scheduled_products.h"

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
        state->ozaki.maps[0], state->bt_half_map, workspace_of(run->workspace, padded).r, padded,
        product_moduli_of(state->ozaki.plan.count, state->ozaki.plan.p, state->ozaki.plan.magic));
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
