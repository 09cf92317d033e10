/* Step 19: step 18's Ozaki scheme II with the passes around its products at their memory bound.
 * The products are step 18's (scheduled_products.h), and so is everything the passes compute: the
 * same scaling, the same residues modulo the same moduli, the same check: C is step 18's, bit for
 * bit. What changes is how the passes get there (fast_arithmetic.h has the arithmetic):
 *   - A is read once: a block per row keeps the row in shared memory, finds its largest and
 *     smallest magnitudes and its sum, then writes its residues and the check's bytes from there;
 *   - the residues in single precision (five operations a modulus), not through 64-bit
 *     conversions; B's written four to a word, transposed through shared memory;
 *   - the check's bytes written by the residue passes (an eighth of k more), not by a pass of
 *     their own; the check's product a persistent kernel that costs one wave when no pair needs it;
 *   - the remainder theorem in 64-bit integers and double precision (8 moduli: P < 2^64).
 * Where the plan is past their ranges (the split: alpha and beta up to 37 bits; the 64-bit
 * remainder theorem: 8 moduli or fewer), step 16's kernels do that part. */
#include "step.h"
#include "../step18_ozaki_scheduled/scheduled_products.h"
#include "fast_arithmetic.h"

/* The counts of moduli a run can take: MAX_MODULI (all of a MODULI=N build's runs; the default's
 * short sums) and the default's long sums' (LONG_COUNT; a MODULI=N build: N again). Kernels whose
 * loops over the moduli are fixed at compile time are built for both. */
#ifdef MODULI
#define LONG_COUNT MODULI
#else
#define LONG_COUNT OZAKI_DEFAULT_MODULI_LONG
#endif

const struct step_info step_info = {
    .program = "step19",
    .lesson = "Ozaki scheme II's passes at their memory bound: each operand read once, FP32 residues, a 64-bit "
              "remainder theorem (" MODULI_TEXT ")",
    .chapter = "tensor-cores",
    .min_cc = 90,
    .needs = "Hopper's TMA and INT8 wgmma, in sm_90a code",
    .precision = PRECISION_FP32,
    /* 3 bytes an element per plane (residues of A, of Bt, of the products; the check's three). */
    .scratch_matrices = (3 * PLANES + 3) / 4,
    .special_path = OZAKI_SPECIAL_PATH,
    .builds_on = "step18", /* its products; the passes around them, rewritten */
};

/* The residues of four neighbours mod the moduli 0 ... COUNT - 1, a word each (byte q: neighbour
 * q), from split_value's parts. COUNT is the plan's, fixed where the kernel is compiled: the
 * kernels are built for each count a run can take (RUN_COUNT). */
template <int COUNT>
__device__ static __forceinline__ void store_split_residues(const float vh[4], const float vl[4], const float lm[4],
                                                            const struct split_plan &sp, int8_t *planes,
                                                            size_t plane, size_t at, size_t word_step)
{
#pragma unroll
    for (int l = 0; l < COUNT; l++) {
        uint32_t w[4];
        for (int q = 0; q < 4; q++)
            w[q] = __float_as_uint(split_residue_magic(l, vh[q], vl[q], lm[q], &sp));
        *(uint32_t *)(planes + l * plane + at * word_step) =
            __byte_perm(__byte_perm(w[0], w[1], 0x0040), __byte_perm(w[2], w[3], 0x0040), 0x5410);
    }
}

/* The check's bytes of four neighbours (step 16's magnitude_byte), one word. */
__device__ static __forceinline__ uint32_t magnitude_word(const float x[4], double scale_7)
{
    return magnitude_byte(x[0], scale_7) | magnitude_byte(x[1], scale_7) << 8 | magnitude_byte(x[2], scale_7) << 16 |
           (uint32_t)magnitude_byte(x[3], scale_7) << 24;
}

/* 1 and 2 for A in one read: a block per row (the padding's rows too: their residues are 0). The
 * row goes to shared memory on its way through (rows up to A_KEPT; longer ones are read again), its
 * largest and smallest magnitudes meet across the block, and the first warp sums its magnitudes in
 * step 16's order (lane l: k = l, l + 32, ...; then the butterfly). Then every thread writes the
 * residues of four neighbours at a time, and the check's bytes of the first check_terms. */
#define A_THREADS 256
#define A_KEPT 16384 /* 64 KB of shared memory: three rows an SM */
template <int COUNT>
__global__ static void __launch_bounds__(A_THREADS)
    a_pass(const float *a, size_t lda, int n, int padded, int check_terms, const struct split_plan sp, int alpha,
           unsigned *row_max, unsigned *row_min_not, double *row_abs_sum, int *row_special,
           int *any_special, int8_t *ra)
{
    extern __shared__ float4 kept[];
    __shared__ float warp_max[A_THREADS / 32], warp_low[A_THREADS / 32];
    __shared__ int warp_special[A_THREADS / 32];
    const int i = blockIdx.x, t = threadIdx.x, warp = t / 32, lane = t % 32;
    const bool keep = padded <= A_KEPT;
    const float4 *row = (const float4 *)(a + (size_t)i * lda);
    float m = 0.0f, low = INFINITY;
    int special = 0;
#pragma unroll 4
    for (int q = t; q < padded / 4; q += A_THREADS) {
        const float4 x4 = row[q];
        if (keep)
            kept[q] = x4;
        const float xs[4] = {x4.x, x4.y, x4.z, x4.w};
        for (int u = 0; u < 4; u++) {
            const float x = fabsf(xs[u]);
            if (x <= 3.40282347e38f) { /* finite */
                m = fmaxf(m, x);
                if (x != 0.0f)
                    low = fminf(low, x);
            } else {
                special = 1;
            }
        }
    }
    for (int d = 16; d > 0; d /= 2) {
        m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, d));
        low = fminf(low, __shfl_xor_sync(0xffffffffu, low, d));
    }
    special = __any_sync(0xffffffffu, special);
    if (lane == 0)
        warp_max[warp] = m, warp_low[warp] = low, warp_special[warp] = special;
    __syncthreads();
    for (int w = 0; w < A_THREADS / 32; w++)
        m = fmaxf(m, warp_max[w]), low = fminf(low, warp_low[w]), special |= warp_special[w];
    if (warp == 0) {
        const float *x = keep ? (const float *)kept : a + (size_t)i * lda;
        double sum = 0.0;
        for (int k = lane; k < n; k += 32)
            if (isfinite(x[k]))
                sum = __dadd_rn(sum, fabs((double)x[k]));
        for (int d = 16; d > 0; d /= 2)
            sum = __dadd_rn(sum, __shfl_xor_sync(0xffffffffu, sum, d));
        if (lane == 0 && i < n) {
            row_max[i] = __float_as_uint(m);
            row_min_not[i] = low < INFINITY ? ~__float_as_uint(low) : 0u;
            row_abs_sum[i] = sum;
            if (special) {
                row_special[i] = 1;
                *any_special = 1;
            }
        }
    }
    const struct split_scale s = split_scale_of(ozaki_exponent(m), alpha, &sp);
    const double scale_7 = row_scale(__float_as_uint(m), 7);
    const size_t plane = (size_t)padded * padded;
#pragma unroll 2
    for (int q = t; q < padded / 4; q += A_THREADS) {
        const float4 x4 = keep ? kept[q] : row[q];
        const float xs[4] = {x4.x, x4.y, x4.z, x4.w};
        float vh[4], vl[4], lm[4];
        for (int u = 0; u < 4; u++)
            lm[u] = split_value(xs[u], s, &sp, &vh[u], &vl[u]);
        const size_t at = (size_t)i * padded + 4 * q;
        store_split_residues<COUNT>(vh, vl, lm, sp, ra, plane, at, 1);
        if (4 * q < check_terms)
            *(uint32_t *)(ra + CHECK_PLANE * plane + at) = magnitude_word(xs, scale_7);
    }
}

/* 2 for B: its residues transposed (Bt's row j is B's column j, K-major as wgmma reads it), with
 * the check's bytes where k < check_terms. A block: 32 columns by 128 of k; a thread reads four
 * neighbours down its column (each read: 32 columns side by side, one line), writes their
 * residues as a word per modulus into shared memory (rows of 132 bytes: the 32 columns' words
 * fall in distinct banks), then the block writes 16 bytes of a row of Bt per thread and plane. */
#define BT_PASS_ROW (BT_K + 4)
#define BT_PASS_WORDS (BT_PASS_ROW / 4)
#define BT_PASS_SMEM ((MAX_MODULI + 1) * BT_COLS * BT_PASS_ROW)
template <int COUNT>
__global__ static void __launch_bounds__(256)
    bt_pass(const float *b, size_t ldb, int padded, int check_terms, const unsigned *col_max,
            const struct split_plan sp, int beta, int8_t *rbt)
{
    extern __shared__ uint32_t words[]; /* [plane][column][BT_PASS_WORDS]; the check's plane last */
    const int tx = threadIdx.x % BT_COLS, ty = threadIdx.x / BT_COLS;
    const int j0 = blockIdx.x * BT_COLS, k0 = blockIdx.y * BT_K;
    const unsigned max_bits = col_max[j0 + tx];
    const struct split_scale s = split_scale_of(ozaki_exponent(__uint_as_float(max_bits)), beta, &sp);
    const double scale_7 = row_scale(max_bits, 7);
    const bool checked = k0 < check_terms;
    float x[BT_K / 32][4];
#pragma unroll
    for (int g = 0; g < BT_K / 32; g++) /* all sixteen reads in flight */
        for (int u = 0; u < 4; u++)
            x[g][u] = b[(size_t)(k0 + 4 * (ty + 8 * g) + u) * ldb + j0 + tx];
#pragma unroll
    for (int g = 0; g < BT_K / 32; g++) {
        float vh[4], vl[4], lm[4];
        for (int u = 0; u < 4; u++)
            lm[u] = split_value(x[g][u], s, &sp, &vh[u], &vl[u]);
        const int at = tx * BT_PASS_WORDS + ty + 8 * g;
        store_split_residues<COUNT>(vh, vl, lm, sp, (int8_t *)words, BT_COLS * BT_PASS_ROW, at, 4);
        if (checked)
            words[MAX_MODULI * BT_COLS * BT_PASS_WORDS + at] = magnitude_word(x[g], scale_7);
    }
    __syncthreads();
    const size_t plane = (size_t)padded * padded;
    const int planes = COUNT + checked, chunks = BT_COLS * (BT_K / 16);
    for (int c = threadIdx.x; c < planes * chunks; c += 256) {
        const int l = c / chunks < COUNT ? c / chunks : MAX_MODULI, jj = c % chunks / (BT_K / 16), part = c % (BT_K / 16);
        const uint32_t *from = words + (l * BT_COLS + jj) * BT_PASS_WORDS + 4 * part;
        const int to_plane = l < COUNT ? l : CHECK_PLANE;
        *(uint4 *)(rbt + to_plane * plane + (size_t)(j0 + jj) * padded + k0 + 16 * part) =
            make_uint4(from[0], from[1], from[2], from[3]);
    }
}

/* 4. The remainder theorem in 64 bits (reconstruct64), eight neighbours of a row per thread: 8
 * bytes of each modulus's plane, the eight columns' maxima in two reads, C's eight in two stores
 * where they are aligned; at most 128 registers, so that 16 warps an SM keep the loads coming. The moduli's count is fixed when it is compiled (RECON_COUNT, the
 * long sums'; a run with another count takes step 16's kernel): every loop unrolled. */
#define RECON_COUNT (LONG_COUNT <= RECON64_MAX_MODULI ? LONG_COUNT : RECON64_MAX_MODULI)
#define RECON_THREADS 128

/* ozaki_exponent of a line's largest magnitude (finite, >= 0: its bits below 0x7f800000), without a
 * branch. */
__device__ static __forceinline__ int line_exponent(unsigned bits)
{
    const int biased = (int)(bits >> 23);
    return biased ? biased - 126 : bits ? 32 - __clz((int)bits) - 149 : 0;
}

#define RECON_RUN 8
__global__ static void __launch_bounds__(RECON_THREADS, 4)
    reconstruct_fast(const uint8_t *r, int padded, int n, const unsigned *row_max, const unsigned *col_max,
                     const struct recon64 rc, int shift, float *c, size_t ldc)
{
    const int j = RECON_RUN * (blockIdx.x * blockDim.x + threadIdx.x), i = blockIdx.y;
    if (j >= n)
        return;
    const size_t plane = (size_t)padded * padded;
    const uint8_t *from = r + (size_t)i * padded + j;
    uint32_t w[RECON_COUNT][RECON_RUN / 4];
#pragma unroll
    for (int l = 0; l < RECON_COUNT; l++, from += plane)
        *(uint2 *)w[l] = *(const uint2 *)from;
    unsigned col_bits[RECON_RUN];
#pragma unroll
    for (int q = 0; q < RECON_RUN; q += 4)
        *(uint4 *)&col_bits[q] = *(const uint4 *)(col_max + j + q);
    /* a modulus at a time across the eight (its constants loaded once), each element's sums in
     * reconstruct64's order */
    double f[RECON_RUN];
    uint64_t y[RECON_RUN];
#pragma unroll
    for (int q = 0; q < RECON_RUN; q++)
        f[q] = 0.0, y[q] = 0;
#pragma unroll
    for (int l = 0; l < RECON_COUNT; l++)
#pragma unroll
        for (int q = 0; q < RECON_RUN; q++)
            recon64_add(&rc, l, __byte_perm(w[l][q / 4], 0, 0x4440 + q % 4), &f[q], &y[q]);
    const int e_row = line_exponent(row_max[i]) - shift;
    float out[RECON_RUN];
#pragma unroll
    for (int q = 0; q < RECON_RUN; q++)
        out[q] = recon64_finish(&rc, f[q], y[q], e_row + line_exponent(col_bits[q]));
    float *to = c + (size_t)i * ldc + j;
    if (j + RECON_RUN <= n && ((uintptr_t)to & 15) == 0) {
#pragma unroll
        for (int q = 0; q < RECON_RUN; q += 4)
            *(float4 *)(to + q) = *(const float4 *)&out[q];
    } else {
        for (int q = 0; q < RECON_RUN && j + q < n; q++)
            to[q] = out[q];
    }
}

/* The check's product (step 16's, with its epilogue) as a persistent kernel: a block per SM walks
 * the tiles, so that where no pair fails (R) it costs one wave of blocks that return at once, not a
 * wave per 132 tiles. The stage ring runs on across tiles; the epilogue's sums use the stages'
 * memory, so a tile's loads wait for the one before to finish (the block barrier at the end). */
__global__ static void __launch_bounds__(THREADS, 1)
    check_products(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap bt_map, int padded,
                   const struct check_args check)
{
    if (!check_needed(check.counts, check.bound))
        return;
    extern __shared__ unsigned char smem_raw[];
    unsigned char *smem = (unsigned char *)(((uintptr_t)smem_raw + 1023) & ~(uintptr_t)1023);
    uint64_t *full = (uint64_t *)(smem + STAGES * STAGE_BYTES);
    uint64_t *empty = full + STAGES;
    const int warpgroup = threadIdx.x / 128, kt_count = check.k_tiles, cols = padded / BN;
    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; s++) {
            mbarrier_init(&full[s], 1);
            mbarrier_init(&empty[s], CONSUMERS);
        }
        fence_mbarrier_init();
    }
    __syncthreads();
    int it = 0; /* no register moves: the producers stay in the loop, and 168 registers a thread suffice */
    for (int tile = blockIdx.x; tile < (padded / BM) * cols; tile += gridDim.x, it += kt_count) {
        const int m_tile = tile / cols, n_tile = tile % cols, m0 = m_tile * BM, n0 = n_tile * BN;
        if (warpgroup == 0) {
            for (int kt = 0; threadIdx.x == 0 && kt < kt_count; kt++) {
                const int s = (it + kt) % STAGES;
                mbarrier_wait_parity(&empty[s], (((it + kt) / STAGES) & 1) ^ 1);
                unsigned char *stage = smem + s * STAGE_BYTES;
                mbarrier_arrive_expect_tx(&full[s], STAGE_BYTES);
                cp_async_bulk_tensor_2d_global_to_shared(stage, &a_map, CHECK_PLANE * padded + m0, kt * BK, &full[s]);
                cp_async_bulk_tensor_2d_global_to_shared(stage + BM * BK, &bt_map, CHECK_PLANE * padded + n0, kt * BK,
                                                         &full[s]);
            }
        } else {
            const int consumer = warpgroup - 1;
            int acc[BN / 2];
            for (int kt = 0; kt < kt_count; kt++) {
                const int s = (it + kt) % STAGES;
                mbarrier_wait_parity(&full[s], ((it + kt) / STAGES) & 1);
                const unsigned char *stage = smem + s * STAGE_BYTES;
                const uint64_t desc_a = wgmma_desc_k_sw128(stage + consumer * 64 * BK);
                const uint64_t desc_b = wgmma_desc_k_sw128(stage + BM * BK);
                wgmma_fence();
                for (int ks = 0; ks < BK / KSTEP; ks++)
                    wgmma_m64n256k32_s8(acc, desc_a + 2 * ks, desc_b + 2 * ks, kt > 0 || ks > 0);
                wgmma_commit_group();
                wgmma_wait_group<1>();
                if (kt > 0 && threadIdx.x % 128 == 0)
                    mbarrier_arrive(&empty[(it + kt - 1) % STAGES]);
            }
            wgmma_wait_group<0>();
            if (threadIdx.x % 128 == 0)
                mbarrier_arrive(&empty[(it + kt_count - 1) % STAGES]);
            for (int i = 0; i < BN / 2; i++)
                wgmma_fence_operand_int(&acc[i]);
            const int warp = threadIdx.x / 32 % 4, lane = threadIdx.x % 32;
            const int row = consumer * 64 + warp * 16 + lane / 4, col = 2 * (lane % 4);
            check_epilogue(acc, row, col, m_tile, n_tile, m0, n0, padded, check, (struct check_tile *)smem);
        }
        __syncthreads();
    }
}

/* A build variant (make sweep STEP=19 NAME=epilogue; EPILOGUE_RECONSTRUCTION=1): the remainder
 * theorem in the products' epilogue, with no pass of its own. A cluster walks its tiles one at a
 * time, and each tile through all the moduli in turn; the first seven moduli's sums go out as
 * bytes as in step 18, and after the last the same thread reads its own seven bytes back (from L2,
 * where they were written moments before) and writes C. Same sums, same order: C is the step's,
 * bit for bit. The cost: a wave of tiles is now eight items long, so the last, partly filled wave
 * weighs eight times more, and the tensor cores wait while the epilogue reconstructs. */
#ifndef EPILOGUE_RECONSTRUCTION
#define EPILOGUE_RECONSTRUCTION 0
#endif

/* The epilogue of a tile's last modulus: its sums mod p_last, the other moduli's bytes from r, each
 * element's sums in reconstruct64's order, C where it lies inside n x n. */
__device__ static __forceinline__ void reconstruct_tile(const int acc[BN / 2], const uint8_t *from, size_t plane,
                                                        int row, int col, int n, int padded, const unsigned *row_max,
                                                        const unsigned *col_max, const struct recon64 &rc,
                                                        int p_last, uint32_t magic_last, int shift, float *c,
                                                        size_t ldc)
{
    int e_row[2];
    for (int h = 0; h < 2; h++)
        e_row[h] = row + 8 * h < n ? line_exponent(row_max[row + 8 * h]) - shift : 0;
#pragma unroll
    for (int i = 0; i < BN / 2; i += 4) { /* unrolled: acc stays in registers */
        const int j = col + 8 * (i / 4);
        uint32_t bytes[2][RECON_COUNT]; /* [row half][modulus]: two neighbours each, in the low half-word */
#pragma unroll
        for (int l = 0; l < RECON_COUNT - 1; l++)
            for (int h = 0; h < 2; h++)
                bytes[h][l] = *(const uint16_t *)(from + l * plane + 8 * (size_t)padded * h + 8 * (i / 4));
        for (int h = 0; h < 2; h++)
            bytes[h][RECON_COUNT - 1] = (uint32_t)ozaki_mod(acc[i + 2 * h], p_last, magic_last) |
                                        (uint32_t)ozaki_mod(acc[i + 2 * h + 1], p_last, magic_last) << 8;
        for (int q = 0; q < 2; q++) {
            const int e_col = j + q < n ? line_exponent(col_max[j + q]) : 0;
            for (int h = 0; h < 2; h++) {
                double f = 0.0;
                uint64_t y = 0;
#pragma unroll
                for (int l = 0; l < RECON_COUNT; l++)
                    recon64_add(&rc, l, bytes[h][l] >> 8 * q & 0xffu, &f, &y);
                const float out = recon64_finish(&rc, f, y, e_row[h] + e_col);
                if (row + 8 * h < n && j + q < n)
                    c[(size_t)(row + 8 * h) * ldc + j + q] = out;
            }
        }
    }
}

/* moduli_products with that walk and that epilogue (for plans with RECON_COUNT moduli: recon_fast). */
__global__ static void __cluster_dims__(CLUSTER, 1, 1) __launch_bounds__(THREADS, 1)
    products_reconstructed(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap bt_half_map,
                           uint8_t *r, int padded, int n, const struct ozaki_plan plan, const struct recon64 rc,
                           int shift, const unsigned *row_max, const unsigned *col_max, float *c, size_t ldc)
{
    extern __shared__ unsigned char smem_raw[];
    unsigned char *smem = smem_raw + ((1024 - ((unsigned)__cvta_generic_to_shared(smem_raw) & 1023)) & 1023);
    uint64_t *full = (uint64_t *)(smem + STAGES * STAGE_BYTES);
    uint64_t *empty = full + STAGES;
    const int warpgroup = threadIdx.x / 128;
    const int rank = (int)cluster_ctarank(), cluster = blockIdx.x / CLUSTER, clusters = gridDim.x / CLUSTER;
    const int rows = padded / (BM * CLUSTER), cols = padded / BN, tiles = rows * cols;

    schedule_init(full, empty, STAGES, CONSUMERS * CLUSTER);

    if (warpgroup == 0) {
        setmaxnreg_dec<40>();
        if (threadIdx.x < 32) {
            const bool issuer = threadIdx.x == 0;
            int it = 0;
            for (int t = cluster; t < tiles; t += clusters) {
                int row, col;
                banded_tile(t, GROUP_M, rows, cols, &row, &col);
                for (int l = 0; l < RECON_COUNT; l++)
                    load_item(&a_map, &bt_half_map, smem, full, empty, l, padded, (row * CLUSTER + rank) * BM,
                              col * BN, rank, issuer, &it);
            }
            __syncwarp();
        }
    } else {
        setmaxnreg_inc<232>();
        const int consumer = warpgroup - 1, warp = threadIdx.x / 32 % 4, lane = threadIdx.x % 32;
        const size_t plane = (size_t)padded * padded;
        int acc[BN / 2];
        int it = 0;
        for (int t = cluster; t < tiles; t += clusters) {
            int row_tile, col_tile;
            banded_tile(t, GROUP_M, rows, cols, &row_tile, &col_tile);
            const int row = (row_tile * CLUSTER + rank) * BM + consumer * 64 + warp * 16 + lane / 4;
            const int col = col_tile * BN + 2 * (lane % 4);
            uint8_t *out = r + (size_t)row * padded + col;
            for (int l = 0; l < RECON_COUNT - 1; l++) {
                multiply_item(acc, smem, full, empty, consumer, padded, &it);
                store_residues(acc, plan.p[l], plan.magic[l], out + l * plane, padded);
            }
            multiply_item(acc, smem, full, empty, consumer, padded, &it);
            reconstruct_tile(acc, out, plane, row, col, n, padded, row_max, col_max, rc, plan.p[RECON_COUNT - 1],
                             plan.magic[RECON_COUNT - 1], shift, c, ldc);
        }
    }
    schedule_finish();
}

/* What setup builds for the launches: step 18's (step 16's plan and maps, the half-tile map of Bt,
 * the clusters), the splits of A's and Bt's scaled values, the 64-bit remainder theorem's
 * constants, and which of this step's kernels the plan allows. */
struct step_state {
    struct ozaki_state ozaki;
    CUtensorMap bt_half_map;
    int clusters, sms;
    struct split_plan split_a, split_b;
    struct recon64 recon;
    bool split, recon_fast;
};

static void setup(struct step_run *run)
{
    static_assert(TILE % (BM * CLUSTER) == 0, "the padding: every cluster tile whole");
    static_assert(A_KEPT * 4 <= 227 * 1024, "a kept row fits in shared memory");
    struct step_state *state = (struct step_state *)run->state;
    const int padded = run->mats.padded, n = run->mats.n;
    ozaki_setup(run, &state->ozaki);
    const struct ozaki_plan *plan = &state->ozaki.plan;
    encode(&state->bt_half_map, workspace_of(run->workspace, padded).rbt, PLANES * padded, padded, BN / CLUSTER);
    CUDA_CHECK(cudaFuncSetAttribute(moduli_products, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM));
    CUDA_CHECK(cudaFuncSetAttribute(check_products, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM));
    if (EPILOGUE_RECONSTRUCTION)
        CUDA_CHECK(cudaFuncSetAttribute(products_reconstructed, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM));
    CUDA_CHECK(cudaFuncSetAttribute(a_pass<MAX_MODULI>, cudaFuncAttributeMaxDynamicSharedMemorySize, A_KEPT * 4));
    CUDA_CHECK(cudaFuncSetAttribute(a_pass<LONG_COUNT>, cudaFuncAttributeMaxDynamicSharedMemorySize, A_KEPT * 4));
    CUDA_CHECK(cudaFuncSetAttribute(bt_pass<MAX_MODULI>, cudaFuncAttributeMaxDynamicSharedMemorySize, BT_PASS_SMEM));
    CUDA_CHECK(cudaFuncSetAttribute(bt_pass<LONG_COUNT>, cudaFuncAttributeMaxDynamicSharedMemorySize, BT_PASS_SMEM));
    state->clusters = schedule_clusters((const void *)moduli_products, CLUSTER, THREADS, SMEM);
    int device;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&state->sms, cudaDevAttrMultiProcessorCount, device));
    state->split = split_plan_make(plan->alpha, plan->count, &state->split_a) == 0 &&
                   split_plan_make(plan->beta, plan->count, &state->split_b) == 0;
    state->recon_fast = plan->count == RECON_COUNT && recon64_make(plan, n, &state->recon) == 0;
}

/* 1 and 2: this step's passes where the split holds, step 16's otherwise. */
static void passes_before_products(const struct step_run *run, const struct step_state *state)
{
    if (!state->split) {
        ozaki_passes_before_products(run, &state->ozaki);
        return;
    }
    const struct ozaki_plan *plan = &state->ozaki.plan;
    const struct dev_mats *m = &run->mats;
    const int padded = m->padded, n = m->n;
    const struct workspace w = workspace_of(run->workspace, padded);
    const int check_terms = ozaki_check_terms(n) < padded ? ozaki_check_terms(n) : padded;
    CUDA_CHECK(cudaMemsetAsync(w.row_max, 0, w.zeroed_bytes));
    const size_t kept = padded <= A_KEPT ? padded * sizeof(float) : 0;
    if (plan->count == MAX_MODULI)
        a_pass<MAX_MODULI><<<padded, A_THREADS, kept>>>(m->a, m->lda, n, padded, check_terms, state->split_a,
                                                        plan->alpha, w.row_max, w.row_min_not, w.row_abs_sum,
                                                        w.row_special, w.any_special, w.ra);
    else
        a_pass<LONG_COUNT><<<padded, A_THREADS, kept>>>(m->a, m->lda, n, padded, check_terms, state->split_a,
                                                        plan->alpha, w.row_max, w.row_min_not, w.row_abs_sum,
                                                        w.row_special, w.any_special, w.ra);
    col_maxima<<<dim3(padded / 256, padded / COL_ROWS), 256>>>(
        m->b, m->ldb, n, padded, w.col_max, w.col_min_not, w.col_abs_sums, w.col_special, w.any_special);
    span_check<<<padded / SPAN_THREADS, SPAN_THREADS>>>(w.row_max, w.row_min_not, w.row_abs_sum, w.col_max,
                                                       w.col_min_not, w.col_abs_sums, n, padded, plan->alpha,
                                                       plan->beta, state->ozaki.bound, w.rows, w.cols, w.counts);
    const dim3 bt_grid(padded / BT_COLS, padded / BT_K);
    if (plan->count == MAX_MODULI)
        bt_pass<MAX_MODULI><<<bt_grid, 256, BT_PASS_SMEM>>>(m->b, m->ldb, padded, check_terms, w.col_max,
                                                            state->split_b, plan->beta, w.rbt);
    else
        bt_pass<LONG_COUNT><<<bt_grid, 256, BT_PASS_SMEM>>>(m->b, m->ldb, padded, check_terms, w.col_max,
                                                            state->split_b, plan->beta, w.rbt);
}

/* After the products: the check's product, the remainder theorem (4), the refused elements by
 * step 16's FP32 loop, NaN and Inf (5). */
static void passes_after_products(const struct step_run *run, const struct step_state *state)
{
    const struct ozaki_plan *plan = &state->ozaki.plan;
    const struct dev_mats *m = &run->mats;
    const int padded = m->padded, n = m->n;
    const struct workspace w = workspace_of(run->workspace, padded);
    const struct check_args check = ozaki_check_args(run, &state->ozaki);
    const int tiles = (padded / BM) * (padded / BN);
    check_products<<<tiles < state->sms ? tiles : state->sms, THREADS, SMEM>>>(state->ozaki.maps[0],
                                                                              state->ozaki.maps[1], padded, check);
    if (state->recon_fast && EPILOGUE_RECONSTRUCTION)
        ; /* done in the products' epilogue */
    else if (state->recon_fast)
        reconstruct_fast<<<dim3((n + RECON_THREADS * RECON_RUN - 1) / (RECON_THREADS * RECON_RUN), n), RECON_THREADS>>>(w.r, padded, n, w.row_max, w.col_max, state->recon,
                                                              plan->alpha + plan->beta, m->c, m->ldc);
    else
        reconstruct<<<dim3((n + 255) / 256, n), 256>>>(w.r, padded, n, w.row_max, w.col_max, *plan, m->c, m->ldc);
    const int fp32_tiles = (padded / FP32_TILE) * (padded / FP32_TILE);
    refused_elements<<<fp32_tiles < state->ozaki.refused_blocks ? fp32_tiles : state->ozaki.refused_blocks, 256>>>(
        m->a, m->lda, m->b, m->ldb, m->c, m->ldc, n, padded, w.list, check.refused, w.tile_refused, w.row_special,
        w.col_special, w.counts, state->ozaki.bound);
    special_values_launch(m, w.row_special, w.col_special, w.any_special);
}

static void launch(const struct step_run *run)
{
    const struct step_state *state = (const struct step_state *)run->state;
    const int padded = run->mats.padded;
    const int items = (padded / (BM * CLUSTER)) * (padded / BN) * state->ozaki.plan.count;
    passes_before_products(run, state);
    if (state->recon_fast && EPILOGUE_RECONSTRUCTION) {
        const struct dev_mats *m = &run->mats;
        const struct workspace w = workspace_of(run->workspace, padded);
        const struct ozaki_plan *plan = &state->ozaki.plan;
        products_reconstructed<<<schedule_blocks(state->clusters, items / plan->count, CLUSTER), THREADS, SMEM>>>(
            state->ozaki.maps[0], state->bt_half_map, w.r, padded, m->n, *plan, state->recon,
            plan->alpha + plan->beta, w.row_max, w.col_max, m->c, m->ldc);
    } else {
        moduli_products<<<schedule_blocks(state->clusters, items, CLUSTER), THREADS, SMEM>>>(
            state->ozaki.maps[0], state->bt_half_map, workspace_of(run->workspace, padded).r, padded,
            product_moduli_of(state->ozaki.plan.count, state->ozaki.plan.p, state->ozaki.plan.magic));
    }
    passes_after_products(run, state);
}

static void report(const struct step_run *run, char *line, size_t size)
{
    ozaki_report(run, &((const struct step_state *)run->state)->ozaki, line, size);
}

static const struct step_ops ops = {.workspace_bytes = workspace_bytes, .state_bytes = sizeof(struct step_state),
                                    .setup = setup, .launch = launch, .report = report};

/* Step 06's padded allocation (common/padded.c): every tile whole, the padding zero. */
MATMULT_GPU_PADDED(TILE, ops)
