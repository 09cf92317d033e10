/* Step 13, version 2: version 1 with the blocks walked in bands, for L2.
 *
 * Step 13: Hopper's own machinery. The copy engine (TMA) brings tiles of A and B into shared
 * memory on its own, counted on mbarriers; one warpgroup only issues those copies (the
 * producer) while two others only multiply (the consumers), with wgmma: one instruction per
 * warpgroup that multiplies a 64 x 256 x 8 tile straight out of shared memory, asynchronously.
 *
 * TF32 wgmma reads both operands K-major only (the rows of A and the columns of B along k),
 * and B is stored row-major, k x n: a pre-pass writes Bt (n x k) first, rounding B to TF32 on
 * the way; A, read as it is, reaches the tensor core unrounded and the hardware truncates it.
 * The pre-pass is part of the step's time. */
#include "step.h"
#include "../block_order.h"
#include "device/mbarrier.h"
#include "device/tma.h"
#include "device/tf32_mma.h"
#include "device/wgmma.h"

#define BM 128       /* rows of C per block: one 64-row wgmma per consumer warpgroup */
#define BN 256       /* columns of C per block: the widest wgmma, n = 256 */
#define BK 32        /* k per stage: 32 floats, one 128-byte row, the swizzle's span */
#define STAGES 4     /* tiles in flight */
#define CONSUMERS 2  /* warpgroups that multiply */
#define THREADS (128 * (CONSUMERS + 1))
#define TILE 256     /* the padding: BM and BN divide it */
#define GROUP_M 8    /* blocks run in bands of 8 block rows (step 13's block_order.h) */

#define A_TILE_BYTES (BM * BK * 4)
#define B_TILE_BYTES (BN * BK * 4)
#define STAGE_BYTES (A_TILE_BYTES + B_TILE_BYTES)
/* The tiles, then the barriers; 1024 bytes more to align the tiles as the swizzle needs. */
#define SMEM_BYTES (STAGES * STAGE_BYTES + 2 * STAGES * 8 + 1024)

static size_t smem_bytes(int n);

const struct step_info step_info = {
    .program = "step13_v2",
    .lesson = "step 13, version 2: one tile shape, blocks in bands of 8 rows",
    .chapter = "tensor-cores",
    .dynamic_smem_bytes = smem_bytes,
    .min_cc = 90,
    .needs = "Hopper's TMA and wgmma, in sm_90a code",
    .precision = PRECISION_TF32,
    .tf32_inputs = "A truncated by wgmma, B rounded to nearest",
    .scratch_matrices = 1,
    .change = "blocks walked in bands of 8 block rows, for L2",
};

/* Bt = tf32(B)^T for the padded n x n matrix: 32 x 32 tiles through shared memory (the
 * transpose chapter's kernel), the row of 33 floats keeping the column reads conflict-free. */
__global__ static void transpose_round(const float *b, size_t ldb, float *bt, size_t ldbt)
{
    __shared__ float tile[32][33];
    const int x = blockIdx.x * 32 + threadIdx.x, y0 = blockIdx.y * 32;
    for (int j = threadIdx.y; j < 32; j += 8)
        tile[j][threadIdx.x] = __uint_as_float(to_tf32_exact(b[(size_t)(y0 + j) * ldb + x]));
    __syncthreads();
    const int tx = blockIdx.y * 32 + threadIdx.x, ty0 = blockIdx.x * 32;
    for (int j = threadIdx.y; j < 32; j += 8)
        bt[(size_t)(ty0 + j) * ldbt + tx] = tile[threadIdx.x][j];
}

/* One block: C[m0 : m0 + BM, n0 : n0 + BN] over all of k. Warpgroup 0 produces, 1 and 2
 * consume. full[s]: stage s holds its tiles (the TMA's bytes arrived); empty[s]: both
 * consumers are done with it. Each barrier's phase flips every STAGES tiles. */
__global__ static void __launch_bounds__(THREADS, 1)
    matmult_kernel(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap bt_map, float *c,
                   size_t ldc, int tiles)
{
    extern __shared__ unsigned char smem_raw[];
    unsigned char *smem = (unsigned char *)(((uintptr_t)smem_raw + 1023) & ~(uintptr_t)1023);
    uint64_t *full = (uint64_t *)(smem + STAGES * STAGE_BYTES);
    uint64_t *empty = full + STAGES;
    const int warpgroup = threadIdx.x / 128, kt_count = tiles * TILE / BK;
    int m_tile, n_tile;
    block_tile(GROUP_M, tiles * TILE / BM, tiles * TILE / BN, &m_tile, &n_tile);
    const int m0 = m_tile * BM, n0 = n_tile * BN;

    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; s++) {
            mbarrier_init(&full[s], 1);
            mbarrier_init(&empty[s], CONSUMERS);
        }
        fence_mbarrier_init();
    }
    __syncthreads();

    if (warpgroup == 0) {
        setmaxnreg_dec<40>();
        if (threadIdx.x == 0) {
            prefetch_tensormap(&a_map);
            prefetch_tensormap(&bt_map);
            for (int kt = 0; kt < kt_count; kt++) {
                const int s = kt % STAGES;
                /* Wait until the consumers freed the stage (the first round passes: a fresh
                 * barrier's previous phase counts as complete). */
                mbarrier_wait_parity(&empty[s], ((kt / STAGES) & 1) ^ 1);
                unsigned char *stage = smem + s * STAGE_BYTES;
                mbarrier_arrive_expect_tx(&full[s], STAGE_BYTES);
                cp_async_bulk_tensor_2d_global_to_shared(stage, &a_map, m0, kt * BK, &full[s]);
                cp_async_bulk_tensor_2d_global_to_shared(stage + A_TILE_BYTES, &bt_map, n0, kt * BK, &full[s]);
            }
        }
        return;
    }

    setmaxnreg_inc<232>();
    const int consumer = warpgroup - 1;
    float acc[BN / 2];
    for (int kt = 0; kt < kt_count; kt++) {
        const int s = kt % STAGES;
        mbarrier_wait_parity(&full[s], (kt / STAGES) & 1);
        const unsigned char *stage = smem + s * STAGE_BYTES;
        const uint64_t desc_a = wgmma_desc_k_sw128(stage + consumer * 64 * BK * 4);
        const uint64_t desc_b = wgmma_desc_k_sw128(stage + A_TILE_BYTES);
        wgmma_fence();
        /* Four k-steps of 8 inside the 128-byte row: 32 bytes further each (in 16-byte units,
         * 2 in the descriptor's address field). */
        for (int k8 = 0; k8 < BK / 8; k8++)
            wgmma_m64n256k8_tf32(acc, desc_a + 2 * k8, desc_b + 2 * k8, kt > 0 || k8 > 0);
        wgmma_commit_group();
        /* Keep this stage's wgmmas in flight; the previous stage's are done: free it. */
        wgmma_wait_group<1>();
        if (kt > 0 && threadIdx.x % 128 == 0)
            mbarrier_arrive(&empty[(kt - 1) % STAGES]);
    }
    wgmma_wait_group<0>();

    /* The accumulators' layout (PTX ISA, wgmma's D fragments): warp w of the warpgroup holds
     * rows 16 w + lane / 4 and 8 more; value i sits in column 8 (i / 4) + 2 (lane % 4) + i % 2,
     * of the upper row for i % 4 < 2, the lower one else. */
    const int warp = threadIdx.x / 32 % 4, lane = threadIdx.x % 32;
    float *out = c + (size_t)(m0 + consumer * 64 + warp * 16 + lane / 4) * ldc + n0 + 2 * (lane % 4);
    for (int i = 0; i < BN / 2; i += 4) {
        *(float2 *)(out + 8 * (i / 4)) = make_float2(acc[i], acc[i + 1]);
        *(float2 *)(out + 8 * ldc + 8 * (i / 4)) = make_float2(acc[i + 2], acc[i + 3]);
    }
}

/* The workspace: Bt, the padded B transposed. */
static size_t workspace_bytes(int padded, const struct step_config *config)
{
    (void)config;
    return sizeof(float) * padded * (size_t)padded;
}

/* What setup builds for the launches: the tensor maps of A and of Bt. */
struct step_state {
    CUtensorMap a_map, bt_map;
};

/* The maps and the kernel's shared memory, once per run. */
static void setup(struct step_run *run)
{
    struct step_state *state = (struct step_state *)run->state;
    const struct dev_mats *m = &run->mats;
    const float *bt = (const float *)run->workspace;
    const int padded = m->padded;
    char why[512];
    if (tma_encode_2d_f32(&state->a_map, m->a, padded, padded, m->lda, BM, BK, CU_TENSOR_MAP_SWIZZLE_128B, why,
                          sizeof why) != cudaSuccess ||
        tma_encode_2d_f32(&state->bt_map, bt, padded, padded, padded, BN, BK, CU_TENSOR_MAP_SWIZZLE_128B, why,
                          sizeof why) != cudaSuccess) {
        fprintf(stderr, "step13: %s\n", why);
        exit(EXIT_CUDA_ERROR);
    }
    CUDA_CHECK(cudaFuncSetAttribute(matmult_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES));
}

/* The launch: the transpose, then the kernel over the padded matrix, its blocks in one line
 * (block_tile orders them). */
static void launch(const struct step_run *run)
{
    const struct step_state *state = (const struct step_state *)run->state;
    const struct dev_mats *m = &run->mats;
    float *bt = (float *)run->workspace;
    const int padded = m->padded;
    transpose_round<<<dim3(padded / 32, padded / 32), dim3(32, 8)>>>(m->b, m->ldb, bt, padded);
    matmult_kernel<<<(padded / BM) * (padded / BN), THREADS, SMEM_BYTES>>>(state->a_map, state->bt_map, m->c,
                                                                           m->ldc, padded / TILE);
}

static const struct step_ops ops = {.workspace_bytes = workspace_bytes, .state_bytes = sizeof(struct step_state),
                                    .setup = setup, .launch = launch};

static size_t smem_bytes(int n)
{
    (void)n;
    return SMEM_BYTES;
}

/* Step 06's padded allocation (common/padded.c): every tile whole, no bounds checks. */
MATMULT_GPU_PADDED(TILE, ops)
