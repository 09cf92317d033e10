/* Step 16: FP32 products from integer tensor cores, Ozaki scheme II. ozaki.h here has the
 * arithmetic and says why each part is exact; ozaki_passes.h the passes around the products (the
 * maxima and the span check, the residues, the check, the remainder theorem, NaN and Inf) and the
 * products kernel, step 13's TMA/mbarrier pipeline on bytes. What this file adds is the moduli's
 * products as step 16 runs them: a grid of one block per tile of C and modulus (one modulus per
 * grid row), each block filling its pipeline anew. */
#include "step.h"
#include "ozaki_passes.h"

const struct step_info step_info = {
    .program = "step16",
    .lesson = "Ozaki scheme II: FP32 from exact INT8 products (" MODULI_TEXT ")",
    .chapter = "tensor-cores",
    .min_cc = 90,
    .needs = "Hopper's TMA and INT8 wgmma, in sm_90a code",
    .precision = PRECISION_FP32,
    /* 3 bytes an element per plane (residues of A, of Bt, of the products; the check's three). */
    .scratch_matrices = (3 * PLANES + 3) / 4,
    .special_path = OZAKI_SPECIAL_PATH,
    .builds_on = "step13 step14", /* step 13's TMA/wgmma pipeline, on bytes instead of TF32; step 14's NaN and Inf */
};


static void setup(struct step_run *run)
{
    ozaki_setup(run, (struct ozaki_state *)run->state);
    CUDA_CHECK(cudaFuncSetAttribute(residue_products<false>, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM));
}

static void launch(const struct step_run *run)
{
    const struct ozaki_state *state = (const struct ozaki_state *)run->state;
    const int padded = run->mats.padded;
    const struct workspace w = workspace_of(run->workspace, padded);
    ozaki_passes_before_products(run, state);
    /* 3. The moduli's products: a block per tile of C and modulus. */
    residue_products<false><<<dim3((padded / BM) * (padded / BN), state->plan.count), THREADS, SMEM>>>(
        state->maps[0], state->maps[1], w.r, padded, state->plan, ozaki_check_args(run, state));
    ozaki_passes_after_products(run, state);
}

static void report(const struct step_run *run, char *line, size_t size)
{
    ozaki_report(run, (const struct ozaki_state *)run->state, line, size);
}

static const struct step_ops ops = {.workspace_bytes = workspace_bytes, .state_bytes = sizeof(struct ozaki_state),
                                    .setup = setup, .launch = launch, .report = report};

/* Step 06's padded allocation (common/padded.c): every tile whole, the padding zero. */
MATMULT_GPU_PADDED(TILE, ops)
