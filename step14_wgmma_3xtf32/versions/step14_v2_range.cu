/* Step 14, version 2: version 1 with FP32's whole range.
 *
 * Step 14: step 12's 3xTF32 on step 13's pipeline. Pre-passes split A into A_big and A_small,
 * and B into Bt_big and Bt_small (transposed: K-major, as TF32 wgmma reads both operands),
 * each value rounded to TF32 (big = tf32(x), small = tf32(x - big)); the kernel multiplies
 * A_small Bt_big + A_big Bt_small + A_big Bt_big with wgmma, each stage of k into fresh
 * accumulators added to the running sums in FP32 (staged accumulation).
 * FP32's whole range: a row of A or a column of B whose largest magnitude lies outside
 * [2^-50, 2^50) is scaled by a power of two before the split (step 12's rule), and C scaled
 * back in the epilogue. The pre-passes are part of the step's time.
 * No NaN or Inf yet: an Inf's small part is Inf - Inf, a NaN (version 3 takes them). */
#include "step.h"
#include "../../step13_wgmma_tf32/block_order.h"
#include "device/mbarrier.h"
#include "device/tma.h"
#include "device/tf32_mma.h"
#include "device/wgmma.h"

#define BM 128       /* rows of C per block: one 64-row wgmma per consumer warpgroup */
#define BN 128       /* columns of C per block: four tiles per stage must fit three stages */
#define BK 32        /* k per stage: 32 floats, one 128-byte row, the swizzle's span */
#define STAGES 3     /* 3 x 64 KB of shared memory */
#define CONSUMERS 2  /* warpgroups that multiply */
#define THREADS (128 * (CONSUMERS + 1))
#define TILE 128     /* the padding */
#define GROUP_M 8    /* blocks run in bands of 8 block rows (step 13's block_order.h) */

/* A stage holds big and small BM x BK tiles of A and BN x BK tiles of Bt. */
#define TILE_A (BM * BK * 4)
#define TILE_B (BN * BK * 4)
#define STAGE_BYTES (2 * TILE_A + 2 * TILE_B)
#define SMEM_BYTES (STAGES * STAGE_BYTES + 2 * STAGES * 8 + 1024)

static size_t smem_bytes(int n)
{
    (void)n;
    return SMEM_BYTES;
}

const struct step_info step_info = {
    .program = "step14_v2",
    .lesson = "step 14, version 2: FP32's whole range, by powers of two",
    .chapter = "tensor-cores",
    .dynamic_smem_bytes = smem_bytes,
    .min_cc = 90,
    .needs = "Hopper's TMA and wgmma, in sm_90a code",
    .precision = PRECISION_FP32,
    .scratch_matrices = 4,
    .change = "FP32's whole range: rows of A and columns of B scaled by powers of two before the "
        "split, C scaled back",
};

/* big = tf32(x), rounded to nearest; small = tf32(x - big): x - big is exact in FP32. */
__device__ static void split(float x, float *big, float *small)
{
    *big = __uint_as_float(to_tf32_exact(x));
    *small = __uint_as_float(to_tf32_exact(x - *big));
}

/* The power of two that brings a row's or column's largest magnitude m into the range where
 * the split loses nothing to underflow or overflow: below 2^-50 up to [1, 2) (at most 2^127),
 * from 2^50 down to [2^49, 2^50); else 1 (the exponent 0). */
__device__ static int shift_for(float m)
{
    if (!(m > 0.0f) || !(m < INFINITY))
        return 0;
    const int e = ilogbf(m);
    return e < -50 ? min(-e, 127) : e >= 50 ? 49 - e : 0;
}

/* The largest magnitude of each column of B, as float bits (atomicMax on unsigned bits
 * orders non-negative floats): 64 rows per thread (the padded n is a multiple of 128). */
__global__ static void column_max(const float *b, size_t ldb, unsigned *col_max)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x, row0 = blockIdx.y * 64;
    float m = 0.0f;
#pragma unroll 16
    for (int r = row0; r < row0 + 64; r++)
        m = fmaxf(m, fabsf(b[(size_t)r * ldb + col]));
    atomicMax(&col_max[col], __float_as_uint(m));
}

/* A's split, one block per row: the row's largest magnitude, its shift, then the split
 * of the scaled values (A is K-major already). Four floats per load and store: the pass only
 * moves memory, and wide accesses move it faster. */
__global__ static void split_a(const float *a, size_t lda, float *big, float *small, int *shift, int padded)
{
    __shared__ float warp_max[8];
    const int row = blockIdx.x;
    const float4 *in = (const float4 *)(a + (size_t)row * lda);
    float4 *big4 = (float4 *)(big + (size_t)row * padded), *small4 = (float4 *)(small + (size_t)row * padded);
    float m = 0.0f;
    for (int c = threadIdx.x; c < padded / 4; c += blockDim.x) {
        const float4 x = in[c];
        m = fmaxf(fmaxf(m, fmaxf(fabsf(x.x), fabsf(x.y))), fmaxf(fabsf(x.z), fabsf(x.w)));
    }
    for (int d = 16; d > 0; d /= 2)
        m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, d));
    if (threadIdx.x % 32 == 0)
        warp_max[threadIdx.x / 32] = m;
    __syncthreads();
    m = warp_max[0];
    for (int w = 1; w < 8; w++)
        m = fmaxf(m, warp_max[w]);
    const int e = shift_for(m);
    if (threadIdx.x == 0)
        shift[row] = e;
    for (int c = threadIdx.x; c < padded / 4; c += blockDim.x) {
        const float4 x = in[c];
        float4 b, s;
        split(ldexpf(x.x, e), &b.x, &s.x);
        split(ldexpf(x.y, e), &b.y, &s.y);
        split(ldexpf(x.z, e), &b.z, &s.z);
        split(ldexpf(x.w, e), &b.w, &s.w);
        big4[c] = b;
        small4[c] = s;
    }
}

/* B's split, transposed: 32 x 32 tiles through shared memory (the transpose chapter's kernel),
 * each column of B (a row of Bt) scaled by its own shift. */
__global__ static void split_bt(const float *b, size_t ldb, const unsigned *col_max, float *big, float *small,
                                int *shift, int padded)
{
    __shared__ float tile[32][33];
    const int x = blockIdx.x * 32 + threadIdx.x, y0 = blockIdx.y * 32;
    for (int j = threadIdx.y; j < 32; j += 8)
        tile[j][threadIdx.x] = b[(size_t)(y0 + j) * ldb + x];
    __syncthreads();
    const int tx = blockIdx.y * 32 + threadIdx.x, ty0 = blockIdx.x * 32;
    for (int j = threadIdx.y; j < 32; j += 8) {
        const int e = shift_for(__uint_as_float(col_max[ty0 + j]));
        if (blockIdx.y == 0 && threadIdx.x == 0)
            shift[ty0 + j] = e;
        split(ldexpf(tile[threadIdx.x][j], e), &big[(size_t)(ty0 + j) * padded + tx],
              &small[(size_t)(ty0 + j) * padded + tx]);
    }
}

/* One block: C[m0 : m0 + BM, n0 : n0 + BN] over all of k. Warpgroup 0 produces, 1 and 2
 * consume. full[s]: stage s holds its tiles (the TMA's bytes arrived); empty[s]: both
 * consumers are done with it. Each barrier's phase flips every STAGES tiles. */
__global__ static void __launch_bounds__(THREADS, 1)
    matmult_kernel(const __grid_constant__ CUtensorMap ab_map, const __grid_constant__ CUtensorMap as_map,
                   const __grid_constant__ CUtensorMap bb_map, const __grid_constant__ CUtensorMap bs_map, float *c,
                   size_t ldc, int tiles, const int *shift_a, const int *shift_b)
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
            prefetch_tensormap(&ab_map);
            prefetch_tensormap(&as_map);
            prefetch_tensormap(&bb_map);
            prefetch_tensormap(&bs_map);
            for (int kt = 0; kt < kt_count; kt++) {
                const int s = kt % STAGES;
                /* Wait until the consumers freed the stage (the first round passes: a fresh
                 * barrier's previous phase counts as complete). */
                mbarrier_wait_parity(&empty[s], ((kt / STAGES) & 1) ^ 1);
                unsigned char *stage = smem + s * STAGE_BYTES;
                mbarrier_arrive_expect_tx(&full[s], STAGE_BYTES);
                cp_async_bulk_tensor_2d_global_to_shared(stage, &ab_map, m0, kt * BK, &full[s]);
                cp_async_bulk_tensor_2d_global_to_shared(stage + TILE_A, &as_map, m0, kt * BK, &full[s]);
                cp_async_bulk_tensor_2d_global_to_shared(stage + 2 * TILE_A, &bb_map, n0, kt * BK, &full[s]);
                cp_async_bulk_tensor_2d_global_to_shared(stage + 2 * TILE_A + TILE_B, &bs_map, n0, kt * BK,
                                                         &full[s]);
            }
        }
        return;
    }

    setmaxnreg_inc<232>();
    const int consumer = warpgroup - 1;
    float acc[BN / 2], sum[BN / 2];
    for (int i = 0; i < BN / 2; i++)
        sum[i] = 0.0f;
    for (int kt = 0; kt < kt_count; kt++) {
        const int s = kt % STAGES;
        mbarrier_wait_parity(&full[s], (kt / STAGES) & 1);
        const unsigned char *stage = smem + s * STAGE_BYTES;
        const uint64_t a_big = wgmma_desc_k_sw128(stage + consumer * 64 * BK * 4);
        const uint64_t a_small = wgmma_desc_k_sw128(stage + TILE_A + consumer * 64 * BK * 4);
        const uint64_t b_big = wgmma_desc_k_sw128(stage + 2 * TILE_A);
        const uint64_t b_small = wgmma_desc_k_sw128(stage + 2 * TILE_A + TILE_B);
        wgmma_fence();
        /* The small products first, into fresh sums, then big x big. */
        for (int k8 = 0; k8 < BK / 8; k8++) {
            wgmma_m64n128k8_tf32(acc, a_small + 2 * k8, b_big + 2 * k8, k8 > 0);
            wgmma_m64n128k8_tf32(acc, a_big + 2 * k8, b_small + 2 * k8, 1);
        }
        for (int k8 = 0; k8 < BK / 8; k8++)
            wgmma_m64n128k8_tf32(acc, a_big + 2 * k8, b_big + 2 * k8, 1);
        wgmma_commit_group();
        wgmma_wait_group<0>();
        if (threadIdx.x % 128 == 0)
            mbarrier_arrive(&empty[s]);
        /* Staged accumulation: this stage's sums, rounded to nearest into the running ones. */
        for (int i = 0; i < BN / 2; i++)
            sum[i] += acc[i];
    }

    /* The accumulators' layout (PTX ISA, wgmma's D fragments): warp w of the warpgroup holds
     * rows 16 w + lane / 4 and 8 more; value i sits in column 8 (i / 4) + 2 (lane % 4) + i % 2,
     * of the upper row for i % 4 < 2, the lower one else. */
    const int warp = threadIdx.x / 32 % 4, lane = threadIdx.x % 32;
    const int row = m0 + consumer * 64 + warp * 16 + lane / 4, col = n0 + 2 * (lane % 4);
    float *out = c + (size_t)row * ldc + col;
    const int e_up = shift_a[row], e_down = shift_a[row + 8];
    for (int i = 0; i < BN / 2; i += 4) {
        const int e0 = shift_b[col + 8 * (i / 4)], e1 = shift_b[col + 8 * (i / 4) + 1];
        *(float2 *)(out + 8 * (i / 4)) = make_float2(ldexpf(sum[i], -e_up - e0), ldexpf(sum[i + 1], -e_up - e1));
        *(float2 *)(out + 8 * ldc + 8 * (i / 4)) =
            make_float2(ldexpf(sum[i + 2], -e_down - e0), ldexpf(sum[i + 3], -e_down - e1));
    }
}

static void encode(CUtensorMap *map, const float *m, int padded, int box_rows)
{
    char why[512];
    if (tma_encode_2d_f32(map, m, padded, padded, padded, box_rows, BK, CU_TENSOR_MAP_SWIZZLE_128B, why,
                          sizeof why) != cudaSuccess) {
        fprintf(stderr, "step14: %s\n", why);
        exit(EXIT_CUDA_ERROR);
    }
}

/* The workspace: the four split matrices (A big, A small, Bt big, Bt small), the shifts (the
 * rows', then the columns'), and the columns' largest magnitudes (as float bits). */
static size_t workspace_bytes(int padded, const struct step_config *config)
{
    (void)config;
    return 4 * sizeof(float) * padded * (size_t)padded + 2 * sizeof(int) * padded + sizeof(unsigned) * padded;
}

/* What setup builds for the launches: the tensor maps of the four split matrices. */
struct step_state {
    CUtensorMap maps[4];
};

/* The maps (boxes of BM rows of A's parts, BN rows of Bt's) and the kernel's shared memory,
 * once per run. */
static void setup(struct step_run *run)
{
    struct step_state *state = (struct step_state *)run->state;
    const float *parts = (const float *)run->workspace;
    const int padded = run->mats.padded;
    const size_t floats = (size_t)padded * padded;
    encode(&state->maps[0], parts, padded, BM);              /* A big */
    encode(&state->maps[1], parts + floats, padded, BM);     /* A small */
    encode(&state->maps[2], parts + 2 * floats, padded, BN); /* Bt big */
    encode(&state->maps[3], parts + 3 * floats, padded, BN); /* Bt small */
    CUDA_CHECK(cudaFuncSetAttribute(matmult_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES));
}

/* The splits first (part of the step's time), then the kernel. */
static void launch(const struct step_run *run)
{
    const struct step_state *state = (const struct step_state *)run->state;
    const struct dev_mats *m = &run->mats;
    const int padded = m->padded;
    const size_t floats = (size_t)padded * padded;
    float *parts = (float *)run->workspace;
    int *shifts = (int *)(parts + 4 * floats);
    unsigned *col_max = (unsigned *)(shifts + 2 * padded);
    CUDA_CHECK(cudaMemsetAsync(col_max, 0, sizeof(unsigned) * padded));
    column_max<<<dim3(padded / 128, padded / 64), 128>>>(m->b, m->ldb, col_max);
    split_a<<<padded, 256>>>(m->a, m->lda, parts, parts + floats, shifts, padded);
    split_bt<<<dim3(padded / 32, padded / 32), dim3(32, 8)>>>(m->b, m->ldb, col_max, parts + 2 * floats,
                                                              parts + 3 * floats, shifts + padded, padded);
    matmult_kernel<<<(padded / BM) * (padded / BN), THREADS, SMEM_BYTES>>>(
        state->maps[0], state->maps[1], state->maps[2], state->maps[3], m->c, m->ldc, padded / TILE, shifts,
        shifts + padded);
}

static const struct step_ops ops = {.workspace_bytes = workspace_bytes, .state_bytes = sizeof(struct step_state),
                                    .setup = setup, .launch = launch};

/* Step 06's padded allocation (common/padded.c): every tile whole, no bounds checks. */
MATMULT_GPU_PADDED(TILE, ops)
