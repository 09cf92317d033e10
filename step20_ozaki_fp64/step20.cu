/* Step 20: FP64 products from exact INT8 products (Ozaki scheme II), on step 18's schedule.
 * The arithmetic is step 16's with doubles and more moduli (ozaki64.h, beside this file: 17 moduli
 * below n = 100, 15 from there, 14 from n = 8192; the remainder theorem on the FP64 units in 128
 * bits up to 15 moduli, in 192 above; FP64's span condition); the moduli's products are step 18's
 * kernel, unchanged (scheduled_products.h), and so is step 16's check after them (its 7-bit product
 * and epilogue, in ozaki_passes.h), which here holds elements to FP64's bound. What is new: the
 * passes for doubles around them, and an FP64 loop for the elements the check refuses and for the
 * rows and columns with NaN or Inf.
 *   1. facts of each row of A and column of B: largest and smallest magnitudes, NaN/Inf;
 *   2. residues: each element scaled to an integer of alpha (beta) bits, rounded to nearest, and
 *      taken mod each modulus (B's transposed, K-major as the products read it); the check's
 *      7-bit bytes of the first terms; each line's sum of magnitudes relative to its 2^e, in
 *      chunks; then FP64's span condition and the check's facts per line (span_facts);
 *   3. the moduli's products (step 18) and the check's product (step 16);
 *   4. the remainder theorem and one rounding to double;
 *   5. the FP64 loop where the check refused an element or a line holds NaN or Inf. */
#include "step.h"
#include "../step18_ozaki_scheduled/scheduled_products.h"
#include "ozaki64.h"

/* The counts of moduli: the default's (ozaki64_default_moduli: one below OZAKI64_LONG_SUMS, one
 * from there, one from OZAKI64_LONGEST_SUMS), or one count for every n in a MODULI64=N build (make
 * sweep STEP=20 NAME=moduli; the name is not MODULI, which sets step 16's count in ozaki_passes.h). */
#ifdef MODULI64
#define SHORT_COUNT MODULI64
#define LONG_COUNT MODULI64
#define LONGEST_COUNT MODULI64
#define COUNT_FOR(n) MODULI64
#define COUNT_TEXT AS_STRING(MODULI64) " moduli"
#else
#define SHORT_COUNT OZAKI64_DEFAULT_MODULI_SHORT
#define LONG_COUNT OZAKI64_DEFAULT_MODULI_LONG
#define LONGEST_COUNT OZAKI64_DEFAULT_MODULI_LONGEST
#define COUNT_FOR(n) ozaki64_default_moduli(n)
#define COUNT_TEXT AS_STRING(OZAKI64_DEFAULT_MODULI_SHORT) " moduli below n = " AS_STRING(OZAKI64_LONG_SUMS) ", " \
    AS_STRING(OZAKI64_DEFAULT_MODULI_LONG) " from there, " AS_STRING(OZAKI64_DEFAULT_MODULI_LONGEST) " from n = " \
    AS_STRING(OZAKI64_LONGEST_SUMS)
#endif
#define MOST_PLANES (SHORT_COUNT + 1) /* the most moduli a run takes, then the check's bytes */
#define BT64_K 128 /* k per block of B's residue pass: its columns' sums come in chunks of it */
#define A64_K (4 * 256) /* k per block of A's residue pass: its rows' sums come in chunks of it */
#define A64_CHUNKS(padded) (((padded) + A64_K - 1) / A64_K)

const struct step_info step_info = {
    .program = "step20",
    .lesson = "FP64 from INT8 products: Ozaki scheme II with " COUNT_TEXT ", on step 18's schedule",
    .chapter = "tensor-cores",
    .min_cc = 90,
    .needs = "Hopper's TMA and INT8 wgmma, in sm_90a code",
    .precision = PRECISION_FP64,
    .element = ELEMENT_FP64,
    /* in doubles an element: 3 bytes a plane (A's, Bt's, the products'), 18 planes, and the marks */
    .scratch_matrices = (3 * MOST_PLANES + 1 + 7) / 8,
    .special_path = "where a row of A and a column of B together fail FP64's span condition (R), step 16's check "
                    "after the products (a 7-bit INT8 product, a lower bound of |A||B|) accepts each of their elements "
                    "or refuses it; an FP64 loop computes the refused ones and every element of a row or column that "
                    "holds NaN or Inf; the run report counts the rows, columns and elements",
    .builds_on = "step18 step16", /* step 18's products on its schedule; step 16's arithmetic and check */
};

/* ---- 1. The lines' facts ---- */

/* A row's largest magnitude (finite), its smallest nonzero, whether it holds NaN or Inf: a block
 * per row (its sum of magnitudes needs the largest's 2^e first, so A's residue pass adds it).
 * Magnitudes are compared as their bits (nonnegative doubles order as their bits). */
/* A magnitude into a line's largest, smallest nonzero (as bits) and NaN/Inf mark. */
__device__ static __forceinline__ void note_magnitude(double x, unsigned long long *most, unsigned long long *least,
                                                      int *special)
{
    const unsigned long long bits = (unsigned long long)__double_as_longlong(x);
    if (isfinite(x)) {
        *most = max(*most, bits);
        if (bits)
            *least = min(*least, bits);
    } else {
        *special = 1;
    }
}

#define FACT_THREADS 256
__global__ static void __launch_bounds__(FACT_THREADS)
    row_facts(const double *a, size_t lda, int n, double *row_max, double *row_min, int *row_special,
              int *any_special)
{
    __shared__ unsigned long long warp_max[FACT_THREADS / 32], warp_min[FACT_THREADS / 32];
    __shared__ int warp_special[FACT_THREADS / 32];
    const int i = blockIdx.x, t = threadIdx.x, warp = t / 32, lane = t % 32;
    const double *row = a + (size_t)i * lda;
    unsigned long long most = 0, least = ~0ull;
    int special = 0;
    for (int k = t; k < n; k += FACT_THREADS) {
        note_magnitude(fabs(row[k]), &most, &least, &special);
    }
    for (int d = 16; d > 0; d /= 2) {
        most = max(most, __shfl_xor_sync(0xffffffffu, most, d));
        least = min(least, __shfl_xor_sync(0xffffffffu, least, d));
    }
    special = __any_sync(0xffffffffu, special);
    if (lane == 0)
        warp_max[warp] = most, warp_min[warp] = least, warp_special[warp] = special;
    __syncthreads();
    if (t == 0) {
        for (int w = 0; w < FACT_THREADS / 32; w++)
            most = max(most, warp_max[w]), least = min(least, warp_min[w]), special |= warp_special[w];
        row_max[i] = __longlong_as_double((long long)most);
        row_min[i] = least == ~0ull ? 0.0 : __longlong_as_double((long long)least);
        if (special) {
            row_special[i] = 1;
            *any_special = 1;
        }
    }
}

/* A column's largest and smallest magnitudes and NaN/Inf: a thread per column, a block per chunk of
 * COL_CHUNK rows, met by atomics on the bits. */
#define COL_CHUNK 64
__global__ static void __launch_bounds__(256)
    col_extremes(const double *b, size_t ldb, int n, unsigned long long *col_max_bits,
                 unsigned long long *col_min_bits, int *col_special, int *any_special)
{
    const int j = blockIdx.x * 256 + threadIdx.x, k0 = blockIdx.y * COL_CHUNK;
    if (j >= n)
        return;
    unsigned long long most = 0, least = ~0ull;
    int special = 0;
    for (int k = k0; k < k0 + COL_CHUNK && k < n; k++) {
        note_magnitude(fabs(b[(size_t)k * ldb + j]), &most, &least, &special);
    }
    if (most)
        atomicMax(&col_max_bits[j], most);
    if (least != ~0ull)
        atomicMin(&col_min_bits[j], least);
    if (special) {
        col_special[j] = 1;
        *any_special = 1;
    }
}

/* One line's facts for the check (step 16's line_facts, FP64's formulas), and the count of lines
 * past (R) even against an exact line. */
__device__ static void line_fact64(double big, double small, double abs_sum, int n, int bits,
                                   const struct line_facts *f, int at, int *past)
{
    const double rho = ozaki64_span_rho(big, small, bits);
    f->rho[at] = rho;
    f->half[at] = ozaki_half_step(rho, bits);
    f->limit[at] = ozaki64_span_limit(rho, n);
    f->norm[at] = ozaki64_norm_bound(abs_sum, n, f->half[at]);
    if (!ozaki64_span_ok(rho, 0.0, n))
        atomicAdd(past, 1);
}

/* Every row's and column's facts, a thread for row i and column i (padded of each; the padding's
 * lines are empty: rho 0). */
__global__ static void span_facts(const double *row_max, const double *row_min, const double *row_abs_sums,
                                  const unsigned long long *col_max_bits, const unsigned long long *col_min_bits,
                                  const double *col_abs_sums, int n, int padded, int alpha, int beta,
                                  struct line_facts rows, struct line_facts cols, struct check_counts *counts)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= padded)
        return;
    double row_sum = 0.0, col_sum = 0.0; /* the chunks past n hold 0 */
    for (int c = 0; c < A64_CHUNKS(padded); c++)
        row_sum = __dadd_rn(row_sum, row_abs_sums[(size_t)c * padded + i]);
    for (int c = 0; c < padded / BT64_K; c++)
        col_sum = __dadd_rn(col_sum, col_abs_sums[(size_t)c * padded + i]);
    const bool inside = i < n;
    const unsigned long long min_bits = inside ? col_min_bits[i] : ~0ull;
    line_fact64(inside ? row_max[i] : 0.0, inside ? row_min[i] : 0.0, row_sum, n, alpha,
                &rows, i, &counts->rows_past);
    line_fact64(inside ? __longlong_as_double((long long)col_max_bits[i]) : 0.0,
                min_bits == ~0ull ? 0.0 : __longlong_as_double((long long)min_bits), col_sum, n, beta, &cols, i,
                &counts->cols_past);
}

/* ---- 2. The residues ---- */

/* The residues on the FP64 units (ozaki64.h: ozaki64_split_of, ozaki64_residue_byte), a few
 * operations a modulus instead of 64-bit integer remainders. */
/* Four split values' residues mod modulus l, a byte each in one word (byte q: s[q]). */
__device__ static __forceinline__ uint32_t residue_word(const struct ozaki64_split s[4], int l)
{
    const int p = ozaki_modulus(l);
    return ozaki64_residue_byte(s[0], p) | ozaki64_residue_byte(s[1], p) << 8 | ozaki64_residue_byte(s[2], p) << 16 |
           ozaki64_residue_byte(s[3], p) << 24;
}

/* x scaled by 2^shift and rounded to the nearest integer (ties to even: ozaki64_scaled_fpu, which
 * the CPU model checks against the exact integer form), split. */
__device__ static __forceinline__ struct ozaki64_split scaled_split(double x, int shift)
{
    return ozaki64_split_of(isfinite(x) ? rint(ozaki64_times_pow2(x, shift)) : 0.0);
}

/* A's residues, row-major, the check's bytes of its first check_terms columns, and the row's sum of
 * magnitudes relative to its 2^e over the block's A64_K columns: a thread per four neighbours (a
 * word per plane), the padding's elements 0. The sum in the order the CPU model repeats: each thread
 * its four terms in order, each warp's lanes pair up (xor 16, 8, 4, 2, 1), then thread 0 adds the
 * eight warps' sums in order: the chunk's sum, which span_facts adds chunk after chunk. */
template <int COUNT>
__global__ static void __launch_bounds__(256)
    residues_a64(const double *a, size_t lda, int n, int padded, int check_terms, const double *row_max, int alpha,
                 int8_t *ra, double *row_abs_sums)
{
    __shared__ double warp_sum[8];
    const int i = blockIdx.y, k = 4 * (blockIdx.x * 256 + threadIdx.x);
    const int e = i < n ? ozaki64_exponent(row_max[i]) : 0;
    struct ozaki64_split v[4];
    int bytes[4];
    double sum = 0.0;
    for (int q = 0; q < 4; q++) {
        const double x = i < n && k + q < n ? a[(size_t)i * lda + k + q] : 0.0;
        v[q] = scaled_split(x, alpha - e);
        bytes[q] = ozaki64_magnitude_byte(x, e);
        if (isfinite(x))
            sum = __dadd_rn(sum, ozaki64_times_pow2(fabs(x), -e));
    }
    for (int d = 16; d > 0; d /= 2)
        sum = __dadd_rn(sum, __shfl_xor_sync(0xffffffffu, sum, d));
    if (threadIdx.x % 32 == 0)
        warp_sum[threadIdx.x / 32] = sum;
    __syncthreads();
    if (threadIdx.x == 0) {
        double chunk = 0.0;
        for (int w = 0; w < 8; w++)
            chunk = __dadd_rn(chunk, warp_sum[w]);
        row_abs_sums[(size_t)blockIdx.x * padded + i] = chunk;
    }
    if (k >= padded)
        return;
    const size_t plane = (size_t)padded * padded, at = (size_t)i * padded + k;
#pragma unroll
    for (int l = 0; l < COUNT; l++)
        *(uint32_t *)(ra + l * plane + at) = residue_word(v, l);
    if (k < check_terms)
        *(uint32_t *)(ra + COUNT * plane + at) =
            bytes[0] | (uint32_t)bytes[1] << 8 | (uint32_t)bytes[2] << 16 | (uint32_t)bytes[3] << 24;
}

/* B's residues transposed (Bt's row j is B's column j, K-major), the check's bytes where
 * k < check_terms, and the column's sum of magnitudes relative to its 2^f over the block's k. A block
 * takes 32 columns by BT64_K of k; a thread, four groups of four neighbours down its column (each
 * read: 32 columns side by side), k = k0 + 32 g + 4 ty + q. Their bytes go to shared memory at
 * [plane][column][k] as words (rows of BT64_K + 4 bytes), and the block writes rows of Bt 16 bytes
 * at a time. The sum, in the order the CPU model repeats: each thread adds its sixteen terms in
 * (g, q) order, then the eight threads of a column are added in ty order: the chunk's sum, which
 * span_facts adds chunk after chunk. */
#define BT64_ROW (BT64_K + 4) /* 33 words: the 32 columns' words fall in distinct banks */
#define BT64_SMEM(count) (((count) + 1) * 32 * BT64_ROW)
template <int COUNT>
__global__ static void __launch_bounds__(256, 3)
    residues_bt64(const double *b, size_t ldb, int n, int padded, int check_terms, const unsigned long long *col_max_bits,
                  int beta, int8_t *rbt, double *col_abs_sums)
{
    extern __shared__ uint32_t bt_words[]; /* [plane][column][BT64_ROW / 4] */
    __shared__ double partial[8][32];
    const int tx = threadIdx.x % 32, ty = threadIdx.x / 32;
    const int j0 = blockIdx.x * 32, k0 = blockIdx.y * BT64_K, j = j0 + tx;
    const int f = j < n ? ozaki64_exponent(__longlong_as_double((long long)col_max_bits[j])) : 0;
    double x[4][4];
#pragma unroll
    for (int g = 0; g < 4; g++) /* all sixteen reads in flight */
        for (int q = 0; q < 4; q++) {
            const int k = k0 + 32 * g + 4 * ty + q;
            x[g][q] = j < n && k < n ? b[(size_t)k * ldb + j] : 0.0;
        }
    double sum = 0.0;
#pragma unroll
    for (int g = 0; g < 4; g++) {
        struct ozaki64_split v[4];
        uint32_t mag = 0;
        for (int q = 0; q < 4; q++) {
            v[q] = scaled_split(x[g][q], beta - f);
            mag |= (uint32_t)ozaki64_magnitude_byte(x[g][q], f) << 8 * q;
            if (isfinite(x[g][q]))
                sum = __dadd_rn(sum, ozaki64_times_pow2(fabs(x[g][q]), -f));
        }
        const int at = tx * (BT64_ROW / 4) + 8 * g + ty;
#pragma unroll
        for (int l = 0; l < COUNT; l++)
            bt_words[l * 32 * (BT64_ROW / 4) + at] = residue_word(v, l);
        bt_words[COUNT * 32 * (BT64_ROW / 4) + at] = mag;
    }
    partial[ty][tx] = sum;
    __syncthreads();
    if (ty == 0) {
        double chunk = 0.0;
        for (int t = 0; t < 8; t++)
            chunk = __dadd_rn(chunk, partial[t][tx]);
        col_abs_sums[(size_t)blockIdx.y * padded + j] = chunk;
    }
    const size_t plane = (size_t)padded * padded;
    const int planes = COUNT + (k0 < check_terms), chunks = 32 * (BT64_K / 16);
    for (int c = threadIdx.x; c < planes * chunks; c += 256) {
        const int l = c / chunks, jj = c % chunks / (BT64_K / 16), part = c % (BT64_K / 16);
        const uint32_t *from = bt_words + (l * 32 + jj) * (BT64_ROW / 4) + 4 * part;
        *(uint4 *)(rbt + l * plane + (size_t)(j0 + jj) * padded + k0 + 16 * part) =
            make_uint4(from[0], from[1], from[2], from[3]);
    }
}

/* ---- 4. The remainder theorem ---- */

/* Four neighbours of a row per thread: a word of each plane (a byte each), r_l made a double by
 * the magic-number trick (no conversion unit). Up to 15 moduli, the FP64 units' form
 * (ozaki64_chunked): three fused multiply-adds a modulus into the chunks' sums, then
 * ozaki64_chunks_finish, whose rare refusal (y / P near a half-integer) takes the exact path. From
 * 16, y = sum r_l q_l modulo 2^192 with q_l in six 32-bit limbs, each limb's sum in 64 bits (r_l
 * q_l,i < 2^40: twenty of them stay below 2^45, no carry on the way), the carries once at the end,
 * f = sum r_l w_l in ozaki64_recon_add's order, and ozaki64_recon_finish. Either way
 * ozaki64_reconstruct_fast's double, bit for bit. */
#ifndef RECON_RUN
#define RECON_RUN 4 /* elements a thread: 4 or 8 (a word or two of each plane) */
#endif
#define RECON_WORDS (RECON_RUN / 4)

/* a b, 32 x 32 -> 64 bits: one multiply-add with the sum it goes into (written so, the compiler
 * made it a 64 x 64-bit multiply, three instructions) */
__device__ static __forceinline__ uint64_t wide_product(uint32_t a, uint32_t b)
{
    uint64_t p;
    asm("mul.wide.u32 %0, %1, %2;" : "=l"(p) : "r"(a), "r"(b));
    return p;
}

/* Element q of the run into *out; 1 instead where ozaki64_chunks_finish leaves it to the exact
 * path (reconstruct_exact, after the run: the rare case kept out of the common one's registers). */
template <int COUNT>
__device__ static __forceinline__ int reconstruct_one(const struct ozaki64_plan &plan, const uint32_t *words, int q,
                                                      int e, double *out)
{
    if (COUNT <= OZAKI64_CHUNKED_MODULI) {
        double A[3] = {0.0, 0.0, 0.0};
#pragma unroll
        for (int l = 0; l < COUNT; l++) {
            const double r = __hiloint2double(0x43300000, (int)(words[l] >> 8 * q & 0xffu)) - 0x1p52;
#pragma unroll
            for (int h = 0; h < 3; h++)
                A[h] = __fma_rn(r, plan.chunk[l][h], A[h]);
        }
        return ozaki64_chunks_finish(&plan, A, e, out);
    }
    double f = 0.0;
    uint64_t limb[6] = {0, 0, 0, 0, 0, 0};
#pragma unroll
    for (int l = 0; l < COUNT; l++) {
        const uint32_t res = words[l] >> 8 * q & 0xffu;
        f = __fma_rn(__hiloint2double(0x43300000, (int)res) - 0x1p52, plan.w[l], f);
#pragma unroll
        for (int h = 0; h < 6; h++)
            limb[h] += wide_product(res, (uint32_t)(plan.q[l].w[h / 2] >> 32 * (h % 2)));
    }
    struct ozaki64_u192 y;
    uint64_t carry = 0;
    for (int w = 0; w < 3; w++) { /* y.w = limb[2w] + limb[2w + 1] 2^32 + carry, 64 bits at a time */
        const uint64_t lo = limb[2 * w] + carry, hi = limb[2 * w + 1];
        const uint64_t sum = lo + (hi << 32);
        carry = (hi >> 32) + (sum < lo);
        y.w[w] = sum;
    }
    *out = ozaki64_recon_finish(&plan, f, y, e);
    return 0;
}

/* ozaki64_reconstruct for the element at `from` (its residues a plane apart): the sum in 192 bits,
 * reduced exactly. Out of line, reading its bytes again, so that the common path keeps its
 * registers. */
template <int COUNT>
__device__ static double reconstruct_exact(const struct ozaki64_plan &plan, const uint8_t *from,
                                                        size_t plane, int e)
{
    struct ozaki64_u192 y = {{0, 0, 0}};
#pragma unroll
    for (int l = 0; l < COUNT; l++)
        ozaki64_mac(&y, &plan.q[l], from[l * plane]);
    int negative;
    const struct ozaki64_u192 m = ozaki64_reduce(&plan, y, &negative);
    return ozaki64_to_double(&m, negative, e);
}

template <int COUNT>
__global__ static void __launch_bounds__(128, 4)
    reconstruct64(const uint8_t *r, int padded, int n, const double *row_max, const unsigned long long *col_max_bits,
                  const __grid_constant__ struct ozaki64_plan plan, double *c, size_t ldc)
{
    const int j = RECON_RUN * (blockIdx.x * 128 + threadIdx.x), i = blockIdx.y;
    if (j >= n)
        return;
    const size_t plane = (size_t)padded * padded;
    const uint8_t *from = r + (size_t)i * padded + j;
    uint32_t words[RECON_WORDS][COUNT];
#pragma unroll
    for (int l = 0; l < COUNT; l++) {
        if (RECON_WORDS == 2) {
            const uint2 pair = *(const uint2 *)(from + l * plane);
            words[0][l] = pair.x, words[RECON_WORDS - 1][l] = pair.y;
        } else {
            words[0][l] = *(const uint32_t *)(from + l * plane);
        }
    }
    const int e_row = ozaki64_exponent(row_max[i]) - plan.alpha - plan.beta;
    int exact = 0;
#pragma unroll
    for (int q = 0; q < RECON_RUN; q++) {
        if (j + q >= n)
            break;
        const int e = e_row + ozaki64_exponent(__longlong_as_double((long long)col_max_bits[j + q]));
        double out;
        if (reconstruct_one<COUNT>(plan, words[q / 4], q % 4, e, &out))
            exact |= 1 << q;
        else
            c[(size_t)i * ldc + j + q] = out;
    }
    for (int q = 0; exact; q++, exact >>= 1)
        if (exact & 1)
            c[(size_t)i * ldc + j + q] = reconstruct_exact<COUNT>(
                plan, from + q, plane,
                e_row + ozaki64_exponent(__longlong_as_double((long long)col_max_bits[j + q])));
}

/* ---- 5. The FP64 loop ---- */

/* C's elements that the products cannot give: those the check refused and those of rows or columns
 * with NaN or Inf (IEEE's NaN and Inf come with the fused multiply-adds). Few refused (the check's
 * list held them all: at most padded of them) are a warp each: one element of C is k dependent steps,
 * too long a chain for one thread, so lane l adds the terms k = l, l + 32, ... in k order from 0.0
 * and the 32 sums are added pairwise (lane l and l + 16, then 8, 4, 2, 1). The rest (the lines with
 * NaN or Inf, or refusals past the list) are a thread each, one fused multiply-add a term in k order,
 * in tiles of 16 x 16 that the blocks stride over. Nothing refused and nothing special: the blocks
 * return at once. The CPU model (tests/ozaki64_model.c) follows both orders. */
#define LOOP_TILE 16
__device__ static double warp_dot(const double *x, const double *y, size_t ldy, int n, int lane)
{
    double sum = 0.0;
#pragma unroll 8
    for (int k = lane; k < n; k += 32)
        sum = __fma_rn(x[k], y[(size_t)k * ldy], sum);
    for (int d = 16; d > 0; d /= 2)
        sum = __dadd_rn(sum, __shfl_xor_sync(0xffffffffu, sum, d));
    return sum;
}

__global__ static void fp64_loop(const double *a, size_t lda, const double *b, size_t ldb, double *c, size_t ldc,
                                 int n, int padded, const uint8_t *refused, const int *tile_refused,
                                 const long long *list, const int *row_special, const int *col_special,
                                 const int *any_special, const struct check_counts *counts)
{
    const bool listed = counts->refused <= padded; /* then the list holds every refused element */
    if (listed) {
        const int thread = threadIdx.y * blockDim.x + threadIdx.x, warps_per_block = blockDim.x * blockDim.y / 32;
        const int lane = thread % 32; /* a warp is 32 consecutive threads of the block, x fastest */
        for (int t = blockIdx.x * warps_per_block + thread / 32; t < counts->refused; t += gridDim.x * warps_per_block) {
            const int i = (int)(list[t] / padded), j = (int)(list[t] % padded);
            if (row_special[i] || col_special[j]) /* the tiles below take it */
                continue;
            const double sum = warp_dot(a + (size_t)i * lda, b + j, ldb, n, lane);
            if (lane == 0)
                c[(size_t)i * ldc + j] = sum;
        }
        if (!*any_special)
            return;
    }
    const int tiles = (n + LOOP_TILE - 1) / LOOP_TILE;
    for (int tile = blockIdx.x; tile < tiles * tiles; tile += gridDim.x) {
        const int i = tile / tiles * LOOP_TILE + threadIdx.y, j = tile % tiles * LOOP_TILE + threadIdx.x;
        if (i >= n || j >= n)
            continue;
        const bool marked =
            !listed && tile_refused[(i / BM) * (padded / BN) + j / BN] && refused[(size_t)i * padded + j];
        if (!marked && !row_special[i] && !col_special[j])
            continue;
        double sum = 0.0;
        for (int k = 0; k < n; k++)
            sum = __fma_rn(a[(size_t)i * lda + k], b[(size_t)k * ldb + j], sum);
        c[(size_t)i * ldc + j] = sum;
    }
}

/* ---- The workspace and the launches ---- */

/* The residues of A and of Bt (the moduli's planes, then the check's), of the products, the check's
 * marks; the lines' doubles; then the ints and bits, zeroed at each launch (the column extremes'
 * minima set to all ones after). */
struct workspace64 {
    int8_t *ra, *rbt;
    uint8_t *r, *refused;
    struct line_facts rows, cols;
    double *row_max, *row_min, *row_abs_sums, *col_abs_sums;
    unsigned long long *col_max_bits, *col_min_bits;
    int *row_special, *col_special, *any_special;
    struct check_counts *counts;
    int *tile_refused;
    long long *list;
    size_t zeroed_bytes;
};

static size_t line_doubles(int padded)
{
    /* the lines' facts, A's and B's chunk sums, the list */
    return 10 * (size_t)padded + (size_t)(A64_CHUNKS(padded) + padded / BT64_K) * padded + padded;
}

static size_t zeroed64_bytes(int padded)
{
    return sizeof(unsigned long long) * 2 * (size_t)padded + sizeof(int) * (2 * (size_t)padded + 2) +
           sizeof(struct check_counts) + sizeof(int) * (size_t)(padded / BM) * (padded / BN);
}

static struct workspace64 workspace64_of(void *base, int padded)
{
    struct workspace64 w;
    const size_t plane = (size_t)padded * padded, p = padded;
    w.ra = (int8_t *)base;
    w.rbt = w.ra + MOST_PLANES * plane;
    w.r = (uint8_t *)(w.rbt + MOST_PLANES * plane);
    w.refused = w.r + MOST_PLANES * plane;
    double *d = (double *)(w.refused + plane);
    w.rows = (struct line_facts){d, d + p, d + 2 * p, d + 3 * p};
    w.cols = (struct line_facts){d + 4 * p, d + 5 * p, d + 6 * p, d + 7 * p};
    w.row_max = d + 8 * p, w.row_min = d + 9 * p;
    w.row_abs_sums = d + 10 * p;
    w.col_abs_sums = w.row_abs_sums + A64_CHUNKS(padded) * p;
    w.list = (long long *)(d + line_doubles(padded) - p);
    w.col_max_bits = (unsigned long long *)(d + line_doubles(padded));
    w.col_min_bits = w.col_max_bits + p;
    w.row_special = (int *)(w.col_min_bits + p), w.col_special = w.row_special + p;
    w.any_special = w.col_special + p;
    w.counts = (struct check_counts *)(w.any_special + 2);
    w.tile_refused = (int *)(w.counts + 1);
    w.zeroed_bytes = zeroed64_bytes(padded);
    return w;
}

static size_t workspace64_bytes(int padded, const struct step_config *config)
{
    (void)config;
    return (3 * (size_t)MOST_PLANES + 1) * padded * padded + sizeof(double) * line_doubles(padded) +
           zeroed64_bytes(padded);
}

/* What setup builds: the plan for n, the maps of the residues (the moduli's planes stacked; the
 * check's product reads its plane through maps shifted so that step 16's CHECK_PLANE lands on it),
 * the products' clusters. */
struct step_state {
    struct ozaki64_plan plan;
    CUtensorMap a_map, bt_half_map, check_maps[2];
    int clusters, loop_blocks;
};

static void setup(struct step_run *run)
{
    static_assert(TILE % (BM * CLUSTER) == 0 && TILE % BT64_K == 0 && TILE % LOOP_TILE == 0 &&
                      OZAKI_CHECK_STEP % BT64_K == 0,
                  "the padding: every tile whole");
    static_assert(SHORT_COUNT <= PRODUCT_MAX_MODULI && SHORT_COUNT >= LONG_COUNT && LONG_COUNT >= LONGEST_COUNT &&
                      LONGEST_COUNT > CHECK_PLANE,
                  "the products take the plan; the shifted check maps stay inside A's residues");
    struct step_state *state = (struct step_state *)run->state;
    const int padded = run->mats.padded, n = run->mats.n;
    if (n > OZAKI64_MAX_K) {
        fprintf(stderr, "%s: n = %d: INT32 sums of k products of residues up to 128 in magnitude are exact "
                        "below k = 131072\n", step_info.program, n);
        exit(EXIT_USAGE);
    }
    const int count = COUNT_FOR(n);
    if (ozaki64_plan_make(count, n, &state->plan) != 0) {
        fprintf(stderr, "%s: %d moduli leave no bits for sums of n = %d products\n", step_info.program, count, n);
        exit(EXIT_USAGE);
    }
    const struct workspace64 w = workspace64_of(run->workspace, padded);
    const size_t plane = (size_t)padded * padded;
    encode(&state->a_map, w.ra, count * padded, padded, BM);
    encode(&state->bt_half_map, w.rbt, count * padded, padded, BN / CLUSTER);
    encode(&state->check_maps[0], w.ra + (count - CHECK_PLANE) * plane, (CHECK_PLANE + 1) * padded, padded, BM);
    encode(&state->check_maps[1], w.rbt + (count - CHECK_PLANE) * plane, (CHECK_PLANE + 1) * padded, padded, BN);
    CUDA_CHECK(cudaFuncSetAttribute(moduli_products, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM));
    CUDA_CHECK(cudaFuncSetAttribute(residue_products<true>, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM));
    CUDA_CHECK(cudaFuncSetAttribute(residues_bt64<SHORT_COUNT>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    BT64_SMEM(SHORT_COUNT)));
    CUDA_CHECK(cudaFuncSetAttribute(residues_bt64<LONG_COUNT>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    BT64_SMEM(LONG_COUNT)));
    CUDA_CHECK(cudaFuncSetAttribute(residues_bt64<LONGEST_COUNT>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    BT64_SMEM(LONGEST_COUNT)));
    state->clusters = schedule_clusters((const void *)moduli_products, CLUSTER, THREADS, SMEM);
    int device;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&state->loop_blocks, cudaDevAttrMultiProcessorCount, device));
    state->loop_blocks *= 8;
}

/* 1 and 2. */
template <int COUNT>
static void passes_before_products(const struct step_run *run, const struct step_state *state)
{
    const struct dev_mats *m = &run->mats;
    const int padded = m->padded, n = m->n;
    const struct workspace64 w = workspace64_of(run->workspace, padded);
    const int check_terms = ozaki_check_terms(n) < padded ? ozaki_check_terms(n) : padded;
    CUDA_CHECK(cudaMemsetAsync(w.col_max_bits, 0, w.zeroed_bytes));
    CUDA_CHECK(cudaMemsetAsync(w.col_min_bits, 0xff, sizeof(unsigned long long) * padded));
    row_facts<<<n, FACT_THREADS>>>(m->a64, m->lda, n, w.row_max, w.row_min, w.row_special, w.any_special);
    const dim3 col_grid((n + 255) / 256, (n + COL_CHUNK - 1) / COL_CHUNK);
    col_extremes<<<col_grid, 256>>>(m->b64, m->ldb, n, w.col_max_bits, w.col_min_bits, w.col_special, w.any_special);
    residues_a64<COUNT><<<dim3(A64_CHUNKS(padded), padded), 256>>>(m->a64, m->lda, n, padded, check_terms, w.row_max,
                                                                  state->plan.alpha, w.ra, w.row_abs_sums);
    residues_bt64<COUNT><<<dim3(padded / 32, padded / BT64_K), 256, BT64_SMEM(COUNT)>>>(
        m->b64, m->ldb, n, padded, check_terms, w.col_max_bits, state->plan.beta, w.rbt, w.col_abs_sums);
    span_facts<<<padded / 64, 64>>>(w.row_max, w.row_min, w.row_abs_sums, w.col_max_bits, w.col_min_bits,
                                    w.col_abs_sums, n, padded, state->plan.alpha, state->plan.beta, w.rows, w.cols,
                                    w.counts);
}

/* 3's check, 4 and 5. */
template <int COUNT>
static void passes_after_products(const struct step_run *run, const struct step_state *state)
{
    const struct dev_mats *m = &run->mats;
    const int padded = m->padded, n = m->n;
    const struct workspace64 w = workspace64_of(run->workspace, padded);
    const int check_terms = ozaki_check_terms(n) < padded ? ozaki_check_terms(n) : padded;
    /* bound -1: step 16's check_needed judges by FP32's (R); here the check always runs (an eighth of
     * one modulus's product) and its epilogue judges by FP64's (the lines' limits, (k - 1) u). */
    const struct check_args check = {w.rows, w.cols, -1.0, (double)(n - 1) * OZAKI64_UNIT_ROUNDOFF, n,
                                     state->plan.alpha, state->plan.beta, check_terms / BK, w.counts, w.refused,
                                     w.tile_refused, w.list};
    struct ozaki_plan unused;
    memset(&unused, 0, sizeof unused);
    residue_products<true><<<(padded / BM) * (padded / BN), THREADS, SMEM>>>(
        state->check_maps[0], state->check_maps[1], w.r, padded, unused, check);
    reconstruct64<COUNT><<<dim3((n + 128 * RECON_RUN - 1) / (128 * RECON_RUN), n), 128>>>(w.r, padded, n, w.row_max, w.col_max_bits, state->plan,
                                                            m->c64, m->ldc);
    const int tiles = ((n + LOOP_TILE - 1) / LOOP_TILE) * ((n + LOOP_TILE - 1) / LOOP_TILE);
    fp64_loop<<<tiles < state->loop_blocks ? tiles : state->loop_blocks, dim3(LOOP_TILE, LOOP_TILE)>>>(
        m->a64, m->lda, m->b64, m->ldb, m->c64, m->ldc, n, padded, w.refused, w.tile_refused, w.list, w.row_special,
        w.col_special, w.any_special, w.counts);
}

static void launch(const struct step_run *run)
{
    const struct step_state *state = (const struct step_state *)run->state;
    const int padded = run->mats.padded, count = state->plan.count;
    const int items = (padded / (BM * CLUSTER)) * (padded / BN) * count;
    if (count == SHORT_COUNT)
        passes_before_products<SHORT_COUNT>(run, state);
    else if (count == LONG_COUNT)
        passes_before_products<LONG_COUNT>(run, state);
    else
        passes_before_products<LONGEST_COUNT>(run, state);
    moduli_products<<<schedule_blocks(state->clusters, items, CLUSTER), THREADS, SMEM>>>(
        state->a_map, state->bt_half_map, workspace64_of(run->workspace, padded).r, padded,
        product_moduli_of(count, state->plan.p, state->plan.magic));
    if (count == SHORT_COUNT)
        passes_after_products<SHORT_COUNT>(run, state);
    else if (count == LONG_COUNT)
        passes_after_products<LONG_COUNT>(run, state);
    else
        passes_after_products<LONGEST_COUNT>(run, state);
}

/* The run report's line: the lines past (R) alone, and the elements the check refused. */
static void report(const struct step_run *run, char *line, size_t size)
{
    const struct workspace64 w = workspace64_of(run->workspace, run->mats.padded);
    const struct step_state *state = (const struct step_state *)run->state;
    struct check_counts counts;
    CUDA_CHECK(cudaMemcpy(&counts, w.counts, sizeof counts, cudaMemcpyDeviceToHost));
    const long long elements = (long long)run->mats.n * run->mats.n;
    snprintf(line, size, "Span check (%d moduli, alpha = %d, beta = %d): %d rows of A and %d columns of B past FP64's "
             "condition (R) alone; %d of %lld elements (%.2f%%) refused by the check and computed by the FP64 loop",
             state->plan.count, state->plan.alpha, state->plan.beta, counts.rows_past, counts.cols_past,
             counts.refused, elements, 100.0 * counts.refused / (double)elements);
}

static const struct step_ops ops = {.workspace_bytes = workspace64_bytes, .state_bytes = sizeof(struct step_state),
                                    .setup = setup, .launch = launch, .report = report};

/* Step 06's padded allocation (common/padded.c): every tile whole, the padding zero. */
MATMULT_GPU_PADDED(TILE, ops)
