/* Step 16's passes around the INT8 products, and the products kernel itself: everything of Ozaki
 * scheme II on the GPU but the launch of the moduli's products, which is what a step that builds on
 * this one changes (step 18 runs them on step 17's schedule). ozaki.h beside it has the arithmetic
 * and says why each part is exact. CUDA C, included by a step's .cu file after step.h.
 *
 * The passes, all part of the step's time:
 *   1. each row of A's and each column of B's largest finite magnitude and smallest nonzero one;
 *      rows and columns holding NaN or Inf marked (they take no part: step 14's special_values
 *      pass gives them an FP32 GEMM's NaN and Inf at the end); from the two magnitudes each row's
 *      and column's span, and whether every pair meets the condition (R) (ozaki.h) under which
 *      the scaling keeps the fp32 bound: the flag needs_check, read on the GPU by the passes after;
 *   2. A scaled to integers (|A'| <= 2^alpha) and reduced mod each modulus: a plane of
 *      INT8, row-major (K-major, as INT8 wgmma reads A); B the same, transposed (K-major too);
 *   3. (the step's own launch) an INT8 product per modulus on wgmma m64n256k32 .s32.s8.s8, each sum
 *      reduced mod its modulus as it leaves the registers: a plane of bytes per modulus;
 *   4. the remainder theorem per element, in 32-bit limbs, and one rounding to FP32;
 *   5. NaN and Inf.
 * Where a pair fails (R) (needs_check; otherwise this work is skipped or its blocks return at once):
 * the magnitudes of the first ozaki_check_terms(n) columns of A and rows of B truncated to 7 bits
 * (check_bytes); one more INT8 product of those (a lower bound of |A||B|), whose blocks check each
 * element of a failing pair (ozaki_check_accepts, with the 1-norms bounded from the maxima pass's
 * sums) and mark those refused; the refused ones computed again by an FP32 loop (refused_elements).
 * The number of moduli, the accuracy knob: by default 10 for sums of fewer than 128 products and
 * 8 from there (ozaki_default_moduli: short sums have the tightest bound); built with -DMODULI=N
 * (a variant the step's experiments.json declares, N = 5 ... 14) it uses N at every n. The most a
 * build can use is fixed when it is built, so that every loop over the moduli is unrolled and every
 * remainder is by a constant. */
#ifndef OZAKI_PASSES_H
#define OZAKI_PASSES_H

#include "ozaki.h"
#include "../step13_wgmma_tf32/block_order.h"
#include "../step14_wgmma_3xtf32/special_values.h"
#include "device/mbarrier.h"
#include "device/tma.h"
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
/* What a step on these passes does where its fast path's accuracy does not hold (step_info's
 * special_path, which --describe says). */
#define OZAKI_SPECIAL_PATH                                                                                            \
    "where a row of A and a column of B together fail the span condition (R), a check after the products (a 7-bit " \
    "INT8 product, a lower bound of |A||B|) accepts each of their elements or refuses it, and an FP32 loop computes " \
    "the refused ones; the run report counts the rows, columns and elements"
/* The check's planes (the magnitudes' bytes of A and Bt, the refused marks) sit after the moduli's. */
#define CHECK_PLANE MAX_MODULI
#define PLANES (MAX_MODULI + 1)

/* 1. The largest finite magnitudes and the smallest nonzero ones, as their bits (a float >= 0
 * orders as its bits do), the smallest kept complemented, so that a zeroed word means "none" and the
 * columns' blocks can meet in an atomic maximum; and the sums of the magnitudes in double, in one
 * order the CPU model follows (ozaki_model.c's handled_line), for the check's 1-norms. A: one warp
 * per row, lane l summing k = l, l + 32, ..., the lanes then paired in a butterfly. */
__global__ static void row_maxima(const float *a, size_t lda, int n, unsigned *row_max, unsigned *row_min_not,
                                  double *row_abs_sum, int *row_special, int *any_special)
{
    const int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, lane = threadIdx.x % 32;
    if (row >= n)
        return;
    float m = 0.0f, low = INFINITY;
    double sum = 0.0;
    int special = 0;
    for (int k = lane; k < n; k += 32) {
        const float x = a[(size_t)row * lda + k];
        if (isfinite(x)) {
            m = fmaxf(m, fabsf(x));
            sum = __dadd_rn(sum, fabs((double)x));
            if (x != 0.0f)
                low = fminf(low, fabsf(x));
        } else {
            special = 1;
        }
    }
    for (int d = 16; d > 0; d /= 2) {
        m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, d));
        low = fminf(low, __shfl_xor_sync(0xffffffffu, low, d));
        sum = __dadd_rn(sum, __shfl_xor_sync(0xffffffffu, sum, d));
    }
    special = __any_sync(0xffffffffu, special);
    if (lane == 0) {
        row_max[row] = __float_as_uint(m);
        row_min_not[row] = low < INFINITY ? ~__float_as_uint(low) : 0u;
        row_abs_sum[row] = sum;
        if (special) {
            row_special[row] = 1;
            *any_special = 1;
        }
    }
}

/* B: a thread per column and 64 rows, the block's threads along the row (coalesced); the blocks of
 * a column meet in atomic maxima, and leave their sums of magnitudes (k in order) for span_check
 * to add, chunk after chunk. */
#define COL_ROWS 64
__global__ static void col_maxima(const float *b, size_t ldb, int n, int padded, unsigned *col_max,
                                  unsigned *col_min_not, double *col_abs_sums, int *col_special, int *any_special)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x, k0 = blockIdx.y * COL_ROWS;
    if (col >= n || k0 >= n) { /* the padding's sums: 0, so that span_check adds every chunk */
        col_abs_sums[(size_t)blockIdx.y * padded + col] = 0.0;
        return;
    }
    float m = 0.0f, low = INFINITY;
    double sum = 0.0;
    int special = 0;
    for (int k = k0; k < k0 + COL_ROWS && k < n; k++) {
        const float x = b[(size_t)k * ldb + col];
        if (isfinite(x)) {
            m = fmaxf(m, fabsf(x));
            sum = __dadd_rn(sum, fabs((double)x));
            if (x != 0.0f)
                low = fminf(low, fabsf(x));
        } else {
            special = 1;
        }
    }
    col_abs_sums[(size_t)blockIdx.y * padded + col] = sum;
    if (m > 0.0f) {
        atomicMax(&col_max[col], __float_as_uint(m));
        atomicMax(&col_min_not[col], ~__float_as_uint(low));
    }
    if (special) {
        col_special[col] = 1;
        *any_special = 1;
    }
}

/* What the check after the products needs of a row of A or a column of B (padded many of each),
 * relative to the line's 2^e (ozaki.h). */
struct line_facts {
    double *rho;   /* ozaki_span_rho */
    double *half;  /* ozaki_half_step: half the step, where rho > 0; else 0 */
    double *limit; /* ozaki_span_limit: the widest rho of the other side that meets (R) with this line */
    double *norm;  /* ozaki_norm_bound: at least the 1-norm of the line's scaled values */
};

/* What the passes after the maxima read, and the counts a run reports. */
struct check_counts {
    unsigned long long rho_a_bits, rho_b_bits; /* the widest rows' and columns' rho, as bits (>= 0) */
    int rows_past; /* rows of A failing (R) even against an exact column */
    int cols_past;
    int refused;   /* elements the check refused: computed by the FP32 loop */
    int listed;    /* of them, put on the list (the list's length: past it, the tiles take them) */
};

/* Whether some pair fails (R): (R) grows with each rho, so the widest row against the widest column
 * decides for all. Each pass after span_check asks. */
__device__ static __forceinline__ bool check_needed(const struct check_counts *c, double bound)
{
    return ozaki_span_excess(__longlong_as_double((long long)c->rho_a_bits),
                             __longlong_as_double((long long)c->rho_b_bits)) > bound;
}

__device__ static __forceinline__ void line_fact(unsigned max_bits, unsigned min_not, double abs_sum, int n, int bits,
                                                 double bound, const struct line_facts *f, int at,
                                                 unsigned long long *rho_most, int *past)
{
    const float big = __uint_as_float(max_bits);
    const double rho = ozaki_span_rho(big, min_not ? __uint_as_float(~min_not) : INFINITY, bits);
    f->rho[at] = rho;
    f->half[at] = ozaki_half_step(rho, bits);
    f->limit[at] = ozaki_span_limit(rho, bound);
    f->norm[at] = ozaki_norm_bound(abs_sum, n, ozaki_exponent(big), f->half[at]);
    /* the warp's widest rho and count first: one atomic per warp, not one per line */
    unsigned long long rho_bits = (unsigned long long)__double_as_longlong(rho); /* rho >= 0: orders as its bits */
    for (int d = 16; d > 0; d /= 2)
        rho_bits = max(rho_bits, __shfl_xor_sync(0xffffffffu, rho_bits, d));
    const int is_past = ozaki_span_excess(rho, 0.0) > bound, lane = threadIdx.x % 32;
    const int warp_past = __popc(__ballot_sync(0xffffffffu, is_past));
    if (lane == 0 && rho_bits)
        atomicMax(rho_most, rho_bits);
    if (lane == 0 && warp_past)
        atomicAdd(past, warp_past);
}

/* Every row's and column's facts (a thread for row i and column i), the columns' sums added chunk
 * by chunk in order. */
#define SPAN_THREADS 64 /* small blocks: padded / 64 of them, to spread the lines over the SMs */
#define SUM_BATCH 4 /* divides padded / COL_ROWS: padded is a multiple of 256 */
__global__ static void span_check(const unsigned *row_max, const unsigned *row_min_not, const double *row_abs_sum,
                                  const unsigned *col_max, const unsigned *col_min_not, const double *col_abs_sums,
                                  int n, int padded, int alpha, int beta, double bound, struct line_facts rows,
                                  struct line_facts cols, struct check_counts *counts)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x; /* padded is a multiple of the block */
    double col_sum = 0.0;
#pragma unroll 4 /* sixteen loads in flight, added in order: the chunks past n hold 0 */
    for (int c0 = 0; c0 < padded / COL_ROWS; c0 += SUM_BATCH) {
        double part[SUM_BATCH];
        for (int c = 0; c < SUM_BATCH; c++)
            part[c] = col_abs_sums[(size_t)(c0 + c) * padded + i];
        for (int c = 0; c < SUM_BATCH; c++)
            col_sum = __dadd_rn(col_sum, part[c]);
    }
    line_fact(row_max[i], row_min_not[i], i < n ? row_abs_sum[i] : 0.0, n, alpha, bound, &rows, i,
              &counts->rho_a_bits, &counts->rows_past);
    line_fact(col_max[i], col_min_not[i], col_sum, n, beta, bound, &cols, i, &counts->rho_b_bits, &counts->cols_past);
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

/* The check's byte: |x| truncated to 7 bits below its row's (column's) largest, 0 ... 127; 0 for
 * NaN and Inf. scale_7: 2^(7 - e), exact. */
__device__ static __forceinline__ uint8_t magnitude_byte(float x, double scale_7)
{
    return isfinite(x) ? (uint8_t)(int)(fabs((double)x) * scale_7) : 0;
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

/* The check's bytes, only where some pair fails (R): the magnitudes of A's first check_terms columns
 * (blockIdx.z = 0) and of B's first check_terms rows, transposed (1), truncated to 7 bits, into the
 * plane after the moduli's. A block: 32 of k by 128 rows of A (columns of B), a float4 read and four
 * bytes written per thread and step; B's through shared memory, written 16 bytes at a time. */
#define CB_K 32
#define CB_LINES 128
#define CB_ROW (CB_K + 16) /* bytes: rows 16-byte aligned */
__global__ static void __launch_bounds__(256) check_bytes(const float *a, size_t lda, const float *b, size_t ldb,
                                                          int padded, const unsigned *row_max, const unsigned *col_max,
                                                          const struct check_counts *counts, double bound,
                                                          int8_t *ra, int8_t *rbt)
{
    if (!check_needed(counts, bound))
        return;
    __shared__ __align__(16) uint8_t tile[CB_LINES * CB_ROW];
    const int k0 = blockIdx.x * CB_K, line0 = blockIdx.y * CB_LINES, t = threadIdx.x;
    const size_t plane_at = CHECK_PLANE * (size_t)padded * padded;
    if (blockIdx.z == 0) {
        for (int row = line0 + t / 8; row < line0 + CB_LINES; row += 256 / 8) {
            const int k = k0 + 4 * (t % 8);
            const float4 x = *(const float4 *)(a + (size_t)row * lda + k);
            const double scale_7 = row_scale(row_max[row], 7);
            *(uint32_t *)(ra + plane_at + (size_t)row * padded + k) =
                magnitude_byte(x.x, scale_7) | magnitude_byte(x.y, scale_7) << 8 | magnitude_byte(x.z, scale_7) << 16 |
                (uint32_t)magnitude_byte(x.w, scale_7) << 24;
        }
        return;
    }
    const int jq = 4 * (t % 32); /* the thread's four columns */
    double scale_7[4];
    for (int q = 0; q < 4; q++)
        scale_7[q] = row_scale(col_max[line0 + jq + q], 7);
    for (int kk = t / 32; kk < CB_K; kk += 256 / 32) {
        const float4 x = *(const float4 *)(b + (size_t)(k0 + kk) * ldb + line0 + jq);
        tile[(jq + 0) * CB_ROW + kk] = magnitude_byte(x.x, scale_7[0]);
        tile[(jq + 1) * CB_ROW + kk] = magnitude_byte(x.y, scale_7[1]);
        tile[(jq + 2) * CB_ROW + kk] = magnitude_byte(x.z, scale_7[2]);
        tile[(jq + 3) * CB_ROW + kk] = magnitude_byte(x.w, scale_7[3]);
    }
    __syncthreads();
    const int line = t / 2, half = t % 2; /* 128 lines x 32 bytes: 16 bytes a thread */
    *(uint4 *)(rbt + plane_at + (size_t)(line0 + line) * padded + k0 + 16 * half) =
        *(const uint4 *)&tile[line * CB_ROW + 16 * half];
}

/* What the check's blocks need beside the product: the facts of every row and column, the bound,
 * where to mark. */
struct check_args {
    struct line_facts rows, cols;
    double bound;        /* T */
    double bound_less_u; /* T - u, rounded down */
    int n, alpha, beta;
    int k_tiles; /* the check's product: ozaki_check_terms(n) terms, in tiles of BK */
    struct check_counts *counts;
    uint8_t *refused;  /* a mark per element of C (padded x padded) */
    int *tile_refused; /* per block tile of C (BM x BN): some element refused */
    long long *list;   /* the refused elements, i padded + j, while they fit (padded of them) */
};

/* The check's epilogue in shared memory (the stages', free once both consumers' last wgmma is done):
 * the block's 7-bit sums, a padded row each (the consumers' int2 stores fall in distinct banks), and
 * its rows' facts (relative to 2^e_i: ozaki.h) with the least accepted w of each; the columns' facts
 * stay in registers, a column per thread. */
#define CHECK_ROW (BN + 8)
struct check_tile {
    int w[BM][CHECK_ROW];
    double row_limit[BM], row_half[BM], row_norm[BM];
    int row_least[BM];
    double half_most[CONSUMERS * 4], norm_most[CONSUMERS * 4]; /* per consumer warp: the columns' largest */
    int any_refused;
};

/* The least w that the check accepts for every element of a row with these facts (h, norm) against
 * columns whose half steps and norms are at most (g, norm_b): their E is at most this one's (every
 * operation in ozaki_check_accepts grows with its operands), and so is their left side; INT_MAX where
 * no w below 2^31 would do. An element whose w reaches it is accepted without its own arithmetic,
 * with the same verdict. */
__device__ static int least_accepted(double h, double g, double norm_a, double norm_b, int k, double bound_less_u)
{
    const double err = ozaki_add_up(ozaki_add_up(h * norm_b, g * norm_a), h * g * (double)k);
    const double need = ozaki_mul_up(1.0 + OZAKI_UNIT_ROUNDOFF, err); /* mul_down(T - u, w) 2^-14 >= need */
    const double guess = ceil(need * 0x1p14 / bound_less_u);
    if (!(guess < 2147483647.0))
        return INT_MAX;
    int w = (int)guess;
    while (w > 0 && ozaki_mul_down(bound_less_u, (double)(w - 1)) * 0x1p-14 >= need)
        w--;
    while (w < INT_MAX && !(ozaki_mul_down(bound_less_u, (double)w) * 0x1p-14 >= need))
        w++;
    return w;
}

/* The consumer warpgroups alone meet here (named barrier 1; 0 is __syncthreads'). */
__device__ static __forceinline__ void consumers_sync()
{
    asm volatile("bar.sync 1, %0;" ::"n"(128 * CONSUMERS));
}

/* Whether the check refuses element (r, c) of the block's tile, given that its 7-bit sum w is below
 * its row's least accepted: only where its pair fails (R) (the column's rho past the row's limit)
 * and the element's own test (ozaki_check_accepts) fails too. */
__device__ static __forceinline__ bool check_refuses(const struct check_tile *t, int r, int w, double col_rho,
                                                     double col_half, double col_norm, const struct check_args &check)
{
    return col_rho > t->row_limit[r] &&
           !ozaki_check_accepts(w, t->row_half[r], col_half, t->row_norm[r], col_norm, check.n, check.bound_less_u);
}

/* The rows r0 ... r0 + 15 of the thread's column whose sums are below their row's least accepted (a
 * bit each): the only ones check_refuses need look at. Unrolled, so that the sixteen loads are in
 * flight together. */
#define CHECK_BATCH 16
__device__ static __forceinline__ unsigned check_candidates(const struct check_tile *t, int r0, int rows_inside, int c)
{
    unsigned bits = 0;
#pragma unroll
    for (int q = 0; q < CHECK_BATCH; q++)
        bits |= (unsigned)(r0 + q < rows_inside && t->w[r0 + q][c] < t->row_least[r0 + q]) << q;
    return bits;
}

/* The check's epilogue: the sums go to shared memory (a short unrolled copy, so that ptxas keeps the
 * wgmmas asynchronous), then each consumer thread takes one column of the tile down its BM rows in a
 * compact loop. Refused elements are counted (and listed while the list has room); only a block that
 * refused some writes its tile's marks (a byte per element, 1 where refused) and flags its tile. */
__device__ static __forceinline__ void check_epilogue(const int *acc, int row, int col, int m_tile, int n_tile, int m0, int n0,
                                      int padded, const struct check_args &check, struct check_tile *t)
{
    const int c = threadIdx.x - 128, warp = c / 32, lane = threadIdx.x % 32;
    consumers_sync(); /* every wgmma done: the stages are free */
#pragma unroll
    for (int i = 0; i < BN / 2; i += 4) {
        *(int2 *)&t->w[row][col + 8 * (i / 4)] = make_int2(acc[i], acc[i + 1]);
        *(int2 *)&t->w[row + 8][col + 8 * (i / 4)] = make_int2(acc[i + 2], acc[i + 3]);
    }
    const double col_rho = check.cols.rho[n0 + c], col_half = check.cols.half[n0 + c],
                 col_norm = check.cols.norm[n0 + c];
    double g = col_half, nb = col_norm;
    for (int d = 16; d > 0; d /= 2) {
        g = fmax(g, __shfl_xor_sync(0xffffffffu, g, d));
        nb = fmax(nb, __shfl_xor_sync(0xffffffffu, nb, d));
    }
    if (lane == 0)
        t->half_most[warp] = g, t->norm_most[warp] = nb;
    if (c < BM) {
        t->row_limit[c] = check.rows.limit[m0 + c];
        t->row_half[c] = check.rows.half[m0 + c];
        t->row_norm[c] = check.rows.norm[m0 + c];
    }
    if (c == 0)
        t->any_refused = 0;
    consumers_sync();
    if (c < BM) {
        for (int q = 0; q < CONSUMERS * 4; q++)
            g = fmax(g, t->half_most[q]), nb = fmax(nb, t->norm_most[q]);
        t->row_least[c] = least_accepted(t->row_half[c], g, t->row_norm[c], nb, check.n, check.bound_less_u);
    }
    consumers_sync();
    const int rows_inside = n0 + c >= check.n ? 0 : check.n - m0 < BM ? check.n - m0 : BM;
    int refused = 0;
    for (int r0 = 0; r0 < rows_inside; r0 += CHECK_BATCH)
        for (unsigned bits = check_candidates(t, r0, rows_inside, c); bits; bits &= bits - 1) {
            const int r = r0 + __ffs(bits) - 1;
            if (!check_refuses(t, r, t->w[r][c], col_rho, col_half, col_norm, check))
                continue;
            refused++;
            /* few refused: a list, a thread each; many: the tiles (refused_elements) */
            if (*(volatile int *)&check.counts->listed <= padded) {
                const int at = atomicAdd(&check.counts->listed, 1);
                if (at < padded)
                    check.list[at] = (long long)(m0 + r) * padded + n0 + c;
            }
        }
    for (int d = 16; d > 0; d /= 2)
        refused += __shfl_xor_sync(0xffffffffu, refused, d);
    if (refused && lane == 0) {
        atomicAdd(&check.counts->refused, refused);
        t->any_refused = 1;
    }
    consumers_sync();
    if (!t->any_refused)
        return;
    if (c == 0)
        check.tile_refused[m_tile * (padded / BN) + n_tile] = 1;
    for (int r0 = 0; r0 < BM; r0 += CHECK_BATCH) { /* the marks: the same verdicts, a row of bytes at a time */
        const unsigned bits = check_candidates(t, r0, rows_inside, c);
        for (int q = 0; q < CHECK_BATCH; q++)
            check.refused[(size_t)(m0 + r0 + q) * padded + n0 + c] =
                bits >> q & 1 && check_refuses(t, r0 + q, t->w[r0 + q][c], col_rho, col_half, col_norm, check);
    }
}

/* 3. One block: the residues of C[m0 : m0 + BM, n0 : n0 + BN] for modulus blockIdx.y; or, compiled
 * as the check (CHECK, only when needs_check), the 7-bit product over the check's terms and a mark
 * per element. One main loop, two epilogues: two kernels, so that the check's arithmetic among the
 * accumulators cannot change how ptxas schedules the moduli's wgmmas. The maps cover all planes
 * stacked (row l * padded + i). */
template <bool CHECK>
__global__ static void __launch_bounds__(THREADS, 1)
    residue_products(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap bt_map,
                     uint8_t *r, int padded, const struct ozaki_plan plan, const struct check_args check)
{
    const bool checking = CHECK;
    if (checking && !check_needed(check.counts, check.bound))
        return;
    extern __shared__ unsigned char smem_raw[];
    unsigned char *smem = (unsigned char *)(((uintptr_t)smem_raw + 1023) & ~(uintptr_t)1023);
    uint64_t *full = (uint64_t *)(smem + STAGES * STAGE_BYTES);
    uint64_t *empty = full + STAGES;
    const int warpgroup = threadIdx.x / 128, kt_count = checking ? check.k_tiles : padded / BK;
    const int l = checking ? CHECK_PLANE : blockIdx.y;
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

    const int warp = threadIdx.x / 32 % 4, lane = threadIdx.x % 32;
    const size_t plane = (size_t)padded * padded;
    const int row = m0 + consumer * 64 + warp * 16 + lane / 4, col = n0 + 2 * (lane % 4);
    if (checking) {
        check_epilogue(acc, row - m0, col - n0, m_tile, n_tile, m0, n0, padded, check, (struct check_tile *)smem);
        return;
    }
    /* The sums mod p, as bytes in [0, p). Layout as step 13's epilogue. */
    /* The block's modulus, known only at run time: its magic number comes with the plan (a 64-bit
     * division here would be a subroutine call, and a call among the accumulators makes ptxas
     * serialize the wgmmas). */
    const int p = plan.p[l];
    const uint32_t magic = plan.magic[l];
    uint8_t *out = r + l * plane + (size_t)row * padded + col;
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

/* 6. The elements the check refused, by the FP32 loop ozaki_model.c specifies: s = 0, then
 * s = fmaf(a_ik, b_kj, s) for k = 0 ... n - 1. Elements in a row or column with NaN or Inf keep what
 * the special pass gives. One launch, its blocks striding over the work: few refused elements (the
 * list held them all) a thread each; many, a block per 128 x 128 tile of C holding one (each
 * thread 8 x 8 of them, k in steps of 8 through shared memory: the registers of step 07, each
 * element still one chain of fused multiply-adds in k's order). */
#define FP32_TILE 128
#define FP32_K 8
__device__ static void refused_tile(const float *a, size_t lda, const float *b, size_t ldb, float *c, size_t ldc, int n,
                                    int padded, int m0, int n0, const uint8_t *refused, const int *row_special,
                                    const int *col_special)
{
    __shared__ __align__(16) float as[FP32_K][FP32_TILE], bs[FP32_K][FP32_TILE];
    const int t = threadIdx.x, tx = t % 16, ty = t / 16;
    float acc[8][8];
    for (int r = 0; r < 8; r++)
        for (int q = 0; q < 8; q++)
            acc[r][q] = 0.0f;
    for (int k0 = 0; k0 < n; k0 += FP32_K) {
        /* 128 rows x 8 of A, stored k-major; 8 rows x 128 of B (the padding: every load inside) */
        const float4 x = *(const float4 *)(a + (size_t)(m0 + t / 2) * lda + k0 + 4 * (t % 2));
        as[4 * (t % 2) + 0][t / 2] = x.x, as[4 * (t % 2) + 1][t / 2] = x.y;
        as[4 * (t % 2) + 2][t / 2] = x.z, as[4 * (t % 2) + 3][t / 2] = x.w;
        *(float4 *)&bs[t / 32][4 * (t % 32)] = *(const float4 *)(b + (size_t)(k0 + t / 32) * ldb + n0 + 4 * (t % 32));
        __syncthreads();
        const int kk_end = n - k0 < FP32_K ? n - k0 : FP32_K; /* k stops at n: no extra term */
#pragma unroll
        for (int kk = 0; kk < FP32_K; kk++) {
            if (kk < kk_end) {
                float av[8], bv[8];
                *(float4 *)&av[0] = *(const float4 *)&as[kk][ty * 8];
                *(float4 *)&av[4] = *(const float4 *)&as[kk][ty * 8 + 4];
                *(float4 *)&bv[0] = *(const float4 *)&bs[kk][tx * 8];
                *(float4 *)&bv[4] = *(const float4 *)&bs[kk][tx * 8 + 4];
                for (int r = 0; r < 8; r++)
                    for (int q = 0; q < 8; q++)
                        acc[r][q] = fmaf(av[r], bv[q], acc[r][q]);
            }
        }
        __syncthreads();
    }
    for (int r = 0; r < 8; r++) {
        const int i = m0 + ty * 8 + r;
        for (int q = 0; q < 8; q++) {
            const int j = n0 + tx * 8 + q;
            if (i < n && j < n && refused[(size_t)i * padded + j] && !row_special[i] && !col_special[j])
                c[(size_t)i * ldc + j] = acc[r][q];
        }
    }
}

__global__ static void __launch_bounds__(256)
    refused_elements(const float *a, size_t lda, const float *b, size_t ldb, float *c, size_t ldc, int n, int padded,
                     const long long *list, const uint8_t *refused, const int *tile_refused, const int *row_special,
                     const int *col_special, const struct check_counts *counts, double bound)
{
    if (!check_needed(counts, bound) || counts->refused == 0)
        return;
    if (counts->listed <= padded) {
        for (int t = blockIdx.x * blockDim.x + threadIdx.x; t < counts->listed; t += gridDim.x * blockDim.x) {
            const int i = (int)(list[t] / padded), j = (int)(list[t] % padded);
            if (row_special[i] || col_special[j])
                continue;
            float s = 0.0f;
            const float *x = a + (size_t)i * lda, *y = b + j;
#pragma unroll 8
            for (int k = 0; k < n; k++)
                s = fmaf(x[k], y[(size_t)k * ldb], s);
            c[(size_t)i * ldc + j] = s;
        }
        return;
    }
    const int tiles = padded / FP32_TILE;
    for (int tile = blockIdx.x; tile < tiles * tiles; tile += gridDim.x) {
        const int m0 = tile / tiles * FP32_TILE, n0 = tile % tiles * FP32_TILE;
        if (tile_refused[(m0 / BM) * (padded / BN) + n0 / BN]) /* the same for the whole block */
            refused_tile(a, lda, b, ldb, c, ldc, n, padded, m0, n0, refused, row_special, col_special);
    }
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

/* The workspace: the residues of A, of Bt and of the products, PLANES planes of padded x padded
 * bytes each (the most moduli a run uses, then the check's); the doubles (the rows' and columns'
 * facts for the check, the rows' sums of magnitudes, the columns' sums by chunks of COL_ROWS, then
 * room for the list of refused elements); then the ints, zeroed at each launch. */
struct workspace {
    int8_t *ra, *rbt;
    uint8_t *r;
    struct line_facts rows, cols;
    double *row_abs_sum, *col_abs_sums;
    unsigned *row_max, *col_max, *row_min_not, *col_min_not;
    int *row_special, *col_special, *any_special;
    struct check_counts *counts;
    int *tile_refused;
    long long *list;
    size_t zeroed_bytes; /* from row_max on */
};

#define LINE_DOUBLES 9 /* rho, half, limit, norm, of rows and of columns; the rows' sums */
#define LINE_INTS 6    /* maxima, minima, special marks; rows and columns */

static size_t doubles(int padded)
{
    return LINE_DOUBLES * (size_t)padded + (size_t)(padded / COL_ROWS) * padded + padded; /* the last: the list */
}

static size_t zeroed_bytes(int padded)
{
    return sizeof(int) * (LINE_INTS * (size_t)padded + 2) + sizeof(struct check_counts) +
           sizeof(int) * (size_t)(padded / BM) * (padded / BN);
}

static struct workspace workspace_of(void *base, int padded)
{
    struct workspace w;
    const size_t plane = (size_t)padded * padded, p = padded;
    w.ra = (int8_t *)base;
    w.rbt = w.ra + PLANES * plane;
    w.r = (uint8_t *)(w.rbt + PLANES * plane);
    double *d = (double *)(w.r + PLANES * plane); /* 8-byte aligned: padded is a multiple of 256 */
    w.rows = (struct line_facts){d, d + p, d + 2 * p, d + 3 * p};
    w.cols = (struct line_facts){d + 4 * p, d + 5 * p, d + 6 * p, d + 7 * p};
    w.row_abs_sum = d + 8 * p;
    w.col_abs_sums = d + LINE_DOUBLES * p;
    unsigned *u = (unsigned *)(d + doubles(padded));
    w.row_max = u, w.col_max = u + p, w.row_min_not = u + 2 * p, w.col_min_not = u + 3 * p;
    w.row_special = (int *)(u + 4 * p), w.col_special = (int *)(u + 5 * p);
    w.any_special = (int *)(u + LINE_INTS * p);
    w.counts = (struct check_counts *)(w.any_special + 2); /* 8-byte aligned */
    w.tile_refused = (int *)(w.counts + 1);
    w.list = (long long *)(d + doubles(padded) - p); /* written before it is read */
    w.zeroed_bytes = zeroed_bytes(padded);
    return w;
}

static inline size_t workspace_bytes(int padded, const struct step_config *config)
{
    (void)config;
    return 3 * (size_t)PLANES * padded * padded + sizeof(double) * doubles(padded) + zeroed_bytes(padded);
}

/* What setup builds for the launches, kept in the step's state: the plan for n (the moduli, the
 * scalings), the fp32 bound the check holds elements to, and the tensor maps of A's and Bt's
 * residues (all planes stacked, boxes of BM and BN rows). */
struct ozaki_state {
    struct ozaki_plan plan;
    double bound;
    int refused_blocks; /* the FP32 loop's blocks: a few per SM, striding over the tiles */
    CUtensorMap maps[2];
};

/* The setup of every pass here: the sizes a run can take, the plan, the maps; the check's product
 * and the residues of Bt opted into their shared memory. The step opts its own products in. */
static inline void ozaki_setup(const struct step_run *run, struct ozaki_state *state)
{
    static_assert(MAX_MODULI >= 2 && MAX_MODULI <= OZAKI_MAX_MODULI, "2 ... 14 moduli (ozaki.h)");
    static_assert(OZAKI_DEFAULT_MODULI_LONG <= OZAKI_DEFAULT_MODULI_SHORT, "the default's most is its short sums'");
    static_assert(TILE % BM == 0 && TILE % BN == 0 && TILE % BT_K == 0 && TILE % BT_COLS == 0 &&
                      TILE % FP32_TILE == 0 && BN % FP32_TILE == 0 && BM % FP32_TILE == 0,
                  "the padding: every tile of every pass whole");
    static_assert(SMEM <= 227 * 1024, "fits sm_90's 227 KB of shared memory per block");
    static_assert(sizeof(struct check_tile) <= STAGES * STAGE_BYTES, "the check's tile fits in the stages' memory");
    static_assert(OZAKI_CHECK_STEP % BK == 0 && OZAKI_CHECK_STEP % BT_K == 0, "the check's terms: whole tiles");
    const int padded = run->mats.padded, n = run->mats.n;
    const struct workspace w = workspace_of(run->workspace, padded);
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
    state->bound = precision_bound(PRECISION_FP32, 0, n);
    int device, sms;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    state->refused_blocks = 4 * sms;
    encode(&state->maps[0], w.ra, PLANES * padded, padded, BM);
    encode(&state->maps[1], w.rbt, PLANES * padded, padded, BN);
    CUDA_CHECK(cudaFuncSetAttribute(residue_products<true>, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM));
    CUDA_CHECK(cudaFuncSetAttribute(residues_bt, cudaFuncAttributeMaxDynamicSharedMemorySize, BT_SMEM));
}

/* What the check's product needs beside the residues: the lines' facts, the bound, where to mark. */
static struct check_args ozaki_check_args(const struct step_run *run, const struct ozaki_state *state)
{
    const int padded = run->mats.padded, n = run->mats.n;
    const struct workspace w = workspace_of(run->workspace, padded);
    const int check_terms = ozaki_check_terms(n) < padded ? ozaki_check_terms(n) : padded;
    uint8_t *refused = w.r + CHECK_PLANE * (size_t)padded * padded;
    const struct check_args check = {w.rows,     w.cols,     state->bound,    ozaki_sub_down(state->bound, OZAKI_UNIT_ROUNDOFF),
                                     n,          state->plan.alpha, state->plan.beta, check_terms / BK,
                                     w.counts,   refused,    w.tile_refused,   w.list};
    return check;
}

/* Passes 1 and 2, and the check's bytes: everything the moduli's products read. */
static inline void ozaki_passes_before_products(const struct step_run *run, const struct ozaki_state *state)
{
    const struct ozaki_plan plan = state->plan;
    const struct dev_mats *m = &run->mats;
    const int padded = m->padded, n = m->n;
    const double bound = state->bound;
    const struct workspace w = workspace_of(run->workspace, padded);
    const int check_terms = ozaki_check_terms(n) < padded ? ozaki_check_terms(n) : padded;
    CUDA_CHECK(cudaMemsetAsync(w.row_max, 0, w.zeroed_bytes));
    row_maxima<<<(n + 7) / 8, 256>>>(m->a, m->lda, n, w.row_max, w.row_min_not, w.row_abs_sum, w.row_special,
                                     w.any_special);
    col_maxima<<<dim3(padded / 256, padded / COL_ROWS), 256>>>(
        m->b, m->ldb, n, padded, w.col_max, w.col_min_not, w.col_abs_sums, w.col_special, w.any_special);
    span_check<<<padded / SPAN_THREADS, SPAN_THREADS>>>(w.row_max, w.row_min_not, w.row_abs_sum, w.col_max, w.col_min_not,
                                      w.col_abs_sums, n, padded, plan.alpha, plan.beta, bound, w.rows, w.cols,
                                      w.counts);
    residues_a<<<dim3(padded / 1024 + (padded % 1024 != 0), padded), 256>>>(m->a, m->lda, padded, w.row_max,
                                                                              plan.alpha, plan.count, w.ra);
    residues_bt<<<dim3(padded / BT_COLS, padded / BT_K), 256, BT_SMEM>>>(m->b, m->ldb, padded, w.col_max, plan.beta,
                                                                         plan.count, w.rbt);
    check_bytes<<<dim3(check_terms / CB_K, padded / CB_LINES, 2), 256>>>(
        m->a, m->lda, m->b, m->ldb, padded, w.row_max, w.col_max, w.counts, bound, w.ra, w.rbt);
}

/* After the moduli's products: the check's product, the remainder theorem (4), the refused
 * elements by the FP32 loop, and NaN and Inf (5). */
static inline void ozaki_passes_after_products(const struct step_run *run, const struct ozaki_state *state)
{
    const struct ozaki_plan plan = state->plan;
    const struct dev_mats *m = &run->mats;
    const int padded = m->padded, n = m->n;
    const struct workspace w = workspace_of(run->workspace, padded);
    const struct check_args check = ozaki_check_args(run, state);
    residue_products<true><<<(padded / BM) * (padded / BN), THREADS, SMEM>>>(state->maps[0], state->maps[1], w.r,
                                                                               padded, plan, check);
    reconstruct<<<dim3((n + 255) / 256, n), 256>>>(w.r, padded, n, w.row_max, w.col_max, plan, m->c, m->ldc);
    const int tiles = (padded / FP32_TILE) * (padded / FP32_TILE);
    refused_elements<<<tiles < state->refused_blocks ? tiles : state->refused_blocks, 256>>>(
        m->a, m->lda, m->b, m->ldb, m->c, m->ldc, n, padded, w.list, check.refused, w.tile_refused, w.row_special,
        w.col_special, w.counts, state->bound);
    special_values_launch(m, w.row_special, w.col_special, w.any_special);
}

/* The run report's line: how many rows and columns the span condition sent to the check, and how
 * many elements the check refused. */
static inline void ozaki_report(const struct step_run *run, const struct ozaki_state *state, char *line, size_t size)
{
    const struct workspace w = workspace_of(run->workspace, run->mats.padded);
    struct check_counts counts;
    CUDA_CHECK(cudaMemcpy(&counts, w.counts, sizeof counts, cudaMemcpyDeviceToHost));
    double rho_a, rho_b;
    memcpy(&rho_a, &counts.rho_a_bits, sizeof rho_a);
    memcpy(&rho_b, &counts.rho_b_bits, sizeof rho_b);
    const long long elements = (long long)run->mats.n * run->mats.n;
    if (!(ozaki_span_excess(rho_a, rho_b) > state->bound))
        snprintf(line, size, "Span check: every row and column within the condition (R); no check needed");
    else
        snprintf(line, size, "Span check: %d rows of A and %d columns of B past the condition (R) alone; %d of %lld "
                 "elements (%.2f%%) refused by the check and computed by the FP32 loop", counts.rows_past,
                 counts.cols_past, counts.refused, elements, 100.0 * counts.refused / (double)elements);
}

#endif
