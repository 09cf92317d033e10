/* Step 16: FP32 products from integer tensor cores, Ozaki scheme II (ozaki.h, beside it, has the
 * arithmetic and says why each part is exact).
 *
 * Passes, all part of the step's time:
 *   1. each row of A's and each column of B's largest finite magnitude; rows and columns holding
 *      NaN or Inf marked (they take no part: step 14's special_values pass gives them an FP32
 *      GEMM's NaN and Inf at the end);
 *   2. A scaled to integers (|A'| <= 2^alpha) and reduced mod each modulus: a plane of
 *      INT8, row-major (K-major, as INT8 wgmma reads A); B the same, transposed (K-major too);
 *   3. an INT8 product per modulus on wgmma m64n256k32 .s32.s8.s8 (step 13's TMA/mbarrier pipeline),
 *      one modulus per grid row, each sum reduced mod its modulus as it leaves the registers:
 *      a plane of bytes per modulus;
 *   4. the remainder theorem per element, in 32-bit limbs, and one rounding to FP32;
 *   5. NaN and Inf.
 * The number of moduli, the accuracy knob: by default 10 for sums of fewer than 128 products and
 * 8 from there (ozaki_default_moduli: short sums have the tightest bound); built with -DMODULI=N
 * (a variant its experiments.json declares, N = 5 ... 14) it uses N at every n. The most a build
 * can use is fixed when it is built, so that every loop over the moduli is unrolled and every
 * remainder is by a constant. */
#include "step.h"
#include "ozaki.h"
#include "device/block_order.h"
#include "device/mbarrier.h"
#include "device/tma.h"
#include "device/special_values.h"
#include "device/wgmma.h"

#define STRINGIFY(x) #x
#define AS_STRING(x) STRINGIFY(x)
#ifdef MODULI /* a build variant: N moduli at every n, which its rows' moduli column says */
#define MAX_MODULI MODULI
#define MODULI_FOR(n) MODULI
#define MODULI_TEXT AS_STRING(MODULI) " moduli"
#else
#define MAX_MODULI OZAKI_DEFAULT_MODULI_SHORT
#define MODULI_FOR(n) ozaki_default_moduli(n)
#define MODULI_TEXT AS_STRING(OZAKI_DEFAULT_MODULI_SHORT) " moduli below n = " AS_STRING(OZAKI_LONG_SUMS) ", " \
    AS_STRING(OZAKI_DEFAULT_MODULI_LONG) " from there"
#endif

#define BM 128      /* rows of C per block: one 64-row wgmma per consumer warpgroup */
#define BN 256      /* columns: wgmma's widest n */
#define BK 128      /* k per stage: 128 bytes, one row of the 128-byte swizzle */
#define KSTEP 32    /* INT8 wgmma's k: 32 bytes, as TF32's 8 floats */
#define STAGES 4
#define CONSUMERS 2
#define THREADS (128 * (CONSUMERS + 1))
#define TILE 256    /* the padding: BM, BN and the passes' tiles divide it */
#define GROUP_M 8
#define STAGE_BYTES ((BM + BN) * BK)
#define SMEM (STAGES * STAGE_BYTES + 2 * STAGES * 8 + 1024)
/* Bt's residues: a block turns 32 columns of B by 128 of k; each modulus's 32 x 128 bytes in
 * shared memory with rows of 132 bytes, so that neither the writes down a column nor the
 * 16-byte reads along a row meet in a bank. */
#define BT_COLS 32
#define BT_K 128
#define BT_ROW (BT_K + 4)
#define BT_SMEM (MAX_MODULI * BT_COLS * BT_ROW)

const struct step_info step_info = {
    .program = "step16",
    .lesson = "Ozaki scheme II: FP32 from exact INT8 products (" MODULI_TEXT ")",
    .chapter = "tensor-cores",
    .min_cc = 90,
    .needs = "Hopper's TMA and INT8 wgmma, in sm_90a code",
    .exact_cc = 90,
    .precision = PRECISION_FP32,
    /* 3 bytes an element per modulus (residues of A, of Bt, of the products). */
    .scratch_matrices = (3 * MAX_MODULI + 3) / 4,
    .outside_bound = "mixed: an element more than alpha - 24 binades below the largest of its row (of A) or "
        "column (of B) loses low bits when scaled to an integer (alpha: 38 at n = 2 with 10 moduli), and the "
        "componentwise bound fails where it meets a large partner: the mixed family's rows span 80 binades",
    .builds_on = "step13", /* step 13's TMA/wgmma pipeline, on bytes instead of TF32 */
};

/* 1. The largest finite magnitudes, as their bits (a float >= 0 orders as its bits do). A: one
 * warp per row. */
__global__ static void row_maxima(const float *a, size_t lda, int n, unsigned *row_max, int *row_special,
                                  int *any_special)
{
    const int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, lane = threadIdx.x % 32;
    if (row >= n)
        return;
    float m = 0.0f;
    int special = 0;
    for (int k = lane; k < n; k += 32) {
        const float x = a[(size_t)row * lda + k];
        if (isfinite(x))
            m = fmaxf(m, fabsf(x));
        else
            special = 1;
    }
    for (int d = 16; d > 0; d /= 2)
        m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, d));
    special = __any_sync(0xffffffffu, special);
    if (lane == 0) {
        row_max[row] = __float_as_uint(m);
        if (special) {
            row_special[row] = 1;
            *any_special = 1;
        }
    }
}

/* B: a thread per column and 64 rows, the block's threads along the row (coalesced); the
 * blocks of a column meet in an atomic maximum. */
#define COL_ROWS 64
__global__ static void col_maxima(const float *b, size_t ldb, int n, unsigned *col_max, int *col_special,
                                  int *any_special)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x, k0 = blockIdx.y * COL_ROWS;
    if (col >= n)
        return;
    float m = 0.0f;
    int special = 0;
    for (int k = k0; k < k0 + COL_ROWS && k < n; k++) {
        const float x = b[(size_t)k * ldb + col];
        if (isfinite(x))
            m = fmaxf(m, fabsf(x));
        else
            special = 1;
    }
    if (m > 0.0f)
        atomicMax(&col_max[col], __float_as_uint(m));
    if (special) {
        col_special[col] = 1;
        *any_special = 1;
    }
}

/* The power of two that scales a row (or column) whose largest magnitude has these bits. */
__device__ static __forceinline__ double row_scale(unsigned max_bits, int bits)
{
    return ozaki_pow2(bits - ozaki_exponent(__uint_as_float(max_bits)));
}

/* v mod p as a byte: one 32-bit remainder when the scaled values have at most 31 bits (narrow:
 * alpha or beta <= 31, as from 8 moduli at n = 128 on), two halves' otherwise. */
__device__ static __forceinline__ uint8_t residue_byte(int64_t v, int p, bool narrow)
{
    return (uint8_t)(int8_t)(narrow ? ozaki_residue32(v, p) : ozaki_residue(v, p));
}

/* Four neighbours' residues mod the l-th modulus, one byte each, in one 32-bit word. */
template <int L>
__device__ static __forceinline__ uint32_t residues4(const int64_t v[4], bool narrow)
{
    const int p = ozaki_modulus(L);
    uint32_t w = 0;
    for (int q = 0; q < 4; q++)
        w |= (uint32_t)residue_byte(v[q], p, narrow) << (8 * q);
    return w;
}

template <int L>
__device__ static __forceinline__ void store_residues_a(const int64_t v[4], int count, bool narrow, int8_t *ra,
                                                        size_t plane, size_t at)
{
    if constexpr (L < MAX_MODULI) {
        if (L < count) {
            *(uint32_t *)(ra + L * plane + at) = residues4<L>(v, narrow);
            store_residues_a<L + 1>(v, count, narrow, ra, plane, at);
        }
    }
}

/* 2. Residues of A: four neighbours of a row per thread (one float4 read, one 4-byte write per
 * modulus). The padding is zero, so the padded matrix is read as it is. */
__global__ static void residues_a(const float *a, size_t lda, int padded, const unsigned *row_max, int alpha,
                                  int count, int8_t *ra)
{
    const int k = 4 * (blockIdx.x * blockDim.x + threadIdx.x), i = blockIdx.y;
    if (k >= padded)
        return;
    const float4 x = *(const float4 *)(a + (size_t)i * lda + k);
    const double scale = row_scale(row_max[i], alpha);
    const float xs[4] = {x.x, x.y, x.z, x.w};
    int64_t v[4];
    for (int q = 0; q < 4; q++)
        v[q] = isfinite(xs[q]) ? ozaki_scaled_by(xs[q], scale) : 0;
    store_residues_a<0>(v, count, alpha <= 31, ra, (size_t)padded * padded, (size_t)i * padded + k);
}

template <int L>
__device__ static __forceinline__ void put_residues_bt(int64_t v, int count, bool narrow, uint8_t *s, int at)
{
    if constexpr (L < MAX_MODULI) {
        if (L < count) {
            s[L * BT_COLS * BT_ROW + at] = residue_byte(v, ozaki_modulus(L), narrow);
            put_residues_bt<L + 1>(v, count, narrow, s, at);
        }
    }
}

/* Residues of B, transposed through shared memory: Bt'(j, k) = B'(k, j). A block: 32 columns
 * by 128 of k; each thread reads down its column (a warp reads 32 neighbours of a row), and
 * then writes 16 bytes of a row of Bt per modulus. */
__global__ static void __launch_bounds__(256) residues_bt(const float *b, size_t ldb, int padded,
                                                          const unsigned *col_max, int beta, int count,
                                                          int8_t *rbt)
{
    extern __shared__ uint8_t s_bt[];
    const int tx = threadIdx.x % BT_COLS, ty = threadIdx.x / BT_COLS;
    const int j0 = blockIdx.x * BT_COLS, k0 = blockIdx.y * BT_K;
    const double scale = row_scale(col_max[j0 + tx], beta);
    for (int kk = ty; kk < BT_K; kk += 256 / BT_COLS) {
        const float x = b[(size_t)(k0 + kk) * ldb + j0 + tx];
        put_residues_bt<0>(isfinite(x) ? ozaki_scaled_by(x, scale) : 0, count, beta <= 31, s_bt, tx * BT_ROW + kk);
    }
    __syncthreads();
    const size_t plane = (size_t)padded * padded;
    for (int c = threadIdx.x; c < count * BT_COLS * (BT_K / 16); c += 256) {
        const int l = c / (BT_COLS * (BT_K / 16)), jj = c / (BT_K / 16) % BT_COLS, chunk = c % (BT_K / 16);
        const uint32_t *from = (const uint32_t *)(s_bt + (l * BT_COLS + jj) * BT_ROW + 16 * chunk);
        *(uint4 *)(rbt + l * plane + (size_t)(j0 + jj) * padded + k0 + 16 * chunk) =
            make_uint4(from[0], from[1], from[2], from[3]);
    }
}

/* 3. One block: the residues of C[m0 : m0 + BM, n0 : n0 + BN] for modulus blockIdx.y. The maps
 * cover all planes stacked (row l * padded + i). */
__global__ static void __launch_bounds__(THREADS, 1)
    residue_products(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap bt_map,
                     uint8_t *r, int padded, const struct ozaki_plan plan)
{
    extern __shared__ unsigned char smem_raw[];
    unsigned char *smem = (unsigned char *)(((uintptr_t)smem_raw + 1023) & ~(uintptr_t)1023);
    uint64_t *full = (uint64_t *)(smem + STAGES * STAGE_BYTES);
    uint64_t *empty = full + STAGES;
    const int warpgroup = threadIdx.x / 128, kt_count = padded / BK, l = blockIdx.y;
    int m_tile, n_tile;
    block_tile(GROUP_M, padded / BM, padded / BN, &m_tile, &n_tile);
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
                mbarrier_wait_parity(&empty[s], ((kt / STAGES) & 1) ^ 1);
                unsigned char *stage = smem + s * STAGE_BYTES;
                mbarrier_arrive_expect_tx(&full[s], STAGE_BYTES);
                cp_async_bulk_tensor_2d_global_to_shared(stage, &a_map, l * padded + m0, kt * BK, &full[s]);
                cp_async_bulk_tensor_2d_global_to_shared(stage + BM * BK, &bt_map, l * padded + n0, kt * BK, &full[s]);
            }
        }
        return;
    }

    setmaxnreg_inc<232>();
    const int consumer = warpgroup - 1;
    int acc[BN / 2];
    for (int kt = 0; kt < kt_count; kt++) {
        const int s = kt % STAGES;
        mbarrier_wait_parity(&full[s], (kt / STAGES) & 1);
        const unsigned char *stage = smem + s * STAGE_BYTES;
        const uint64_t desc_a = wgmma_desc_k_sw128(stage + consumer * 64 * BK);
        const uint64_t desc_b = wgmma_desc_k_sw128(stage + BM * BK);
        wgmma_fence();
        for (int ks = 0; ks < BK / KSTEP; ks++)
            wgmma_m64n256k32_s8(acc, desc_a + 2 * ks, desc_b + 2 * ks, kt > 0 || ks > 0);
        wgmma_commit_group();
        wgmma_wait_group<1>();
        if (kt > 0 && threadIdx.x % 128 == 0)
            mbarrier_arrive(&empty[(kt - 1) % STAGES]);
    }
    wgmma_wait_group<0>();
    for (int i = 0; i < BN / 2; i++)
        wgmma_fence_operand_int(&acc[i]);

    /* The sums mod p, as bytes in [0, p). Layout as step 13's epilogue. */
    /* The block's modulus, known only at run time: its magic number comes with the plan (a 64-bit
     * division here would be a subroutine call, and a call among the accumulators makes ptxas
     * serialize the wgmmas). */
    const int p = plan.p[l];
    const uint32_t magic = plan.magic[l];
    const int warp = threadIdx.x / 32 % 4, lane = threadIdx.x % 32;
    const size_t plane = (size_t)padded * padded;
    uint8_t *out = r + l * plane + (size_t)(m0 + consumer * 64 + warp * 16 + lane / 4) * padded + n0 + 2 * (lane % 4);
    for (int i = 0; i < BN / 2; i += 4) {
        int v[4];
        for (int q = 0; q < 4; q++)
            v[q] = ozaki_mod(acc[i + q], p, magic);
        *(uchar2 *)(out + 8 * (i / 4)) = make_uchar2((unsigned char)v[0], (unsigned char)v[1]);
        *(uchar2 *)(out + 8 * (size_t)padded + 8 * (i / 4)) = make_uchar2((unsigned char)v[2], (unsigned char)v[3]);
    }
}

/* 4. The remainder theorem, one thread per element of C. */
__global__ static void reconstruct(const uint8_t *r, int padded, int n, const unsigned *row_max,
                                   const unsigned *col_max, const struct ozaki_plan plan, float *c, size_t ldc)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y;
    if (j >= n)
        return;
    int res[MAX_MODULI];
    const size_t plane = (size_t)padded * padded;
    const uint8_t *from = r + (size_t)i * padded + j; /* a pointer stepped plane by plane: one add each */
#pragma unroll
    for (int l = 0; l < MAX_MODULI; l++, from += plane)
        res[l] = l < plan.count ? *from : 0;
    const int e = ozaki_exponent(__uint_as_float(row_max[i])) + ozaki_exponent(__uint_as_float(col_max[j])) -
                  plan.alpha - plan.beta;
    c[(size_t)i * ldc + j] = ozaki_reconstruct_limbs(&plan, res, MAX_MODULI, e);
}

static void encode(CUtensorMap *map, const int8_t *base, int rows, int cols, int box_rows)
{
    char why[512];
    if (tma_encode_2d_i8(map, base, rows, cols, cols, box_rows, BK, CU_TENSOR_MAP_SWIZZLE_128B, why, sizeof why) !=
        cudaSuccess) {
        fprintf(stderr, "%s: %s\n", step_info.program, why);
        exit(EXIT_CUDA_ERROR);
    }
}

/* The workspace: the residues of A, of Bt and of the products, MAX_MODULI planes of padded x
 * padded bytes each (the most a run uses); then the ints: row_max[padded], col_max[padded],
 * row_special[padded], col_special[padded], any. */
static size_t workspace_bytes(int padded, const struct step_config *config)
{
    (void)config;
    return 3 * (size_t)MAX_MODULI * padded * padded + sizeof(int) * (4 * (size_t)padded + 1);
}

/* What setup builds for the launches: the plan for n (the moduli, the scalings) and the tensor
 * maps of A's and Bt's residues. */
struct step_state {
    struct ozaki_plan plan;
    CUtensorMap maps[2];
};

static void setup(struct step_run *run)
{
    static_assert(MAX_MODULI >= 2 && MAX_MODULI <= OZAKI_MAX_MODULI, "2 ... 14 moduli (ozaki.h)");
    static_assert(OZAKI_DEFAULT_MODULI_LONG <= OZAKI_DEFAULT_MODULI_SHORT, "the default's most is its short sums'");
    static_assert(TILE % BM == 0 && TILE % BN == 0 && TILE % BT_K == 0 && TILE % BT_COLS == 0,
                  "the padding: every tile of every pass whole");
    static_assert(SMEM <= 227 * 1024, "fits sm_90's 227 KB of shared memory per block");
    struct step_state *state = (struct step_state *)run->state;
    const int padded = run->mats.padded, n = run->mats.n;
    const size_t plane = (size_t)padded * padded;
    const int8_t *ra = (const int8_t *)run->workspace, *rbt = ra + MAX_MODULI * plane;
    /* The INT32 sums are exact while k 128^2 < 2^31 (a memory no GPU has yet reaches it first). */
    if (n >= (1 << 17)) {
        fprintf(stderr, "%s: n = %d: INT32 sums of k products of residues up to 128 in magnitude are exact "
                        "below k = 131072\n", step_info.program, n);
        exit(EXIT_USAGE);
    }
    /* k = n: 2^(alpha + beta) n < P / 2, room for n up to 2^52 at 8 moduli. */
    if (ozaki_plan_make(MODULI_FOR(n), n, &state->plan) != 0) {
        fprintf(stderr, "%s: %d moduli leave no bits for sums of n = %d products\n", step_info.program,
                MODULI_FOR(n), n);
        exit(EXIT_USAGE);
    }
    encode(&state->maps[0], ra, MAX_MODULI * padded, padded, BM);
    encode(&state->maps[1], rbt, MAX_MODULI * padded, padded, BN);
    CUDA_CHECK(cudaFuncSetAttribute(residue_products, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM));
    CUDA_CHECK(cudaFuncSetAttribute(residues_bt, cudaFuncAttributeMaxDynamicSharedMemorySize, BT_SMEM));
}

static void launch(const struct step_run *run)
{
    const struct step_state *state = (const struct step_state *)run->state;
    const struct ozaki_plan plan = state->plan;
    const struct dev_mats *m = &run->mats;
    const int padded = m->padded, n = m->n;
    const size_t plane = (size_t)padded * padded;
    int8_t *ra = (int8_t *)run->workspace, *rbt = ra + MAX_MODULI * plane;
    uint8_t *r = (uint8_t *)(rbt + MAX_MODULI * plane);
    int *ints = (int *)(r + MAX_MODULI * plane);
    unsigned *row_max = (unsigned *)ints, *col_max = (unsigned *)ints + padded;
    int *row_special = ints + 2 * padded, *col_special = ints + 3 * padded, *any_special = ints + 4 * padded;
    CUDA_CHECK(cudaMemsetAsync(ints, 0, sizeof(int) * (4 * (size_t)padded + 1)));
    row_maxima<<<(n + 7) / 8, 256>>>(m->a, m->lda, n, row_max, row_special, any_special);
    col_maxima<<<dim3((n + 255) / 256, (n + COL_ROWS - 1) / COL_ROWS), 256>>>(m->b, m->ldb, n, col_max,
                                                                              col_special, any_special);
    residues_a<<<dim3(padded / 1024 + (padded % 1024 != 0), padded), 256>>>(m->a, m->lda, padded, row_max,
                                                                             plan.alpha, plan.count, ra);
    residues_bt<<<dim3(padded / BT_COLS, padded / BT_K), 256, BT_SMEM>>>(m->b, m->ldb, padded, col_max, plan.beta,
                                                                         plan.count, rbt);
    residue_products<<<dim3((padded / BM) * (padded / BN), plan.count), THREADS, SMEM>>>(
        state->maps[0], state->maps[1], r, padded, plan);
    reconstruct<<<dim3((n + 255) / 256, n), 256>>>(r, padded, n, row_max, col_max, plan, m->c, m->ldc);
    special_values_launch(m, row_special, col_special, any_special);
}

static const struct step_ops ops = {.workspace_bytes = workspace_bytes, .state_bytes = sizeof(struct step_state),
                                    .setup = setup, .launch = launch};

/* Step 06's padded allocation (common/padded.c): every tile whole, the padding zero. */
void matmult_gpu(const float *a, int lda, const float *b, int ldb, float *c, int ldc, int n, int kernel_reps,
                 struct gpu_run *run)
{
    matmult_padded(a, lda, b, ldb, c, ldc, n, TILE, &ops, kernel_reps, run);
}
