/* Step 15, version 1: the next fragment split during the products. Each consumer holds two
 * fragments of A in registers, multiplies with one while it loads and splits the other. It was
 * faster than splitting just before the products when it came, slower once the rest was tuned:
 * the step takes it back.
 *
 * Step 15: step 14's 3xTF32 with the data's preparation inside the kernel. The TMA loads A and
 * B as they are, plain FP32, and three warpgroups prepare them while the tensor cores work:
 * - A's split happens in registers. Each consumer loads its fragment of the A tile from shared
 *   memory, splits it (big = tf32(x), small = tf32(x - big)) and hands both halves to wgmma's
 *   register-source form: A never needs a split copy anywhere.
 * - B's split and transpose happen in shared memory. B arrives N-major (its rows), TF32 wgmma
 *   reads B K-major only, so a transform warpgroup reads each column of the raw tile, splits
 *   it, and writes Bt_big and Bt_small K-major in the 128-byte swizzle wgmma reads.
 * - The power-of-two shifts that keep the split clear of underflow and overflow (step 12's
 *   rule) are found from the tiles themselves: per row of A and per column of B within each
 *   stage of 32 of k, not per whole row and column. Each stage's sums are scaled back before
 *   they join the running sums; on inputs that need no shift (every element of every row and
 *   column below 2^50, each stage's largest at least 2^-50) the arithmetic is step 14's,
 *   product for product, and C is the same bit for bit.
 * - NaN and Inf enter the split as 0; the rows and columns that hold one are marked as the
 *   tiles pass, and step 14's last pass gives those elements what an FP32 GEMM gives.
 * No pre-pass is left: the step is one kernel, after a memset of the marks and before the
 * NaN/Inf pass that returns at once when no input holds one. */
#include "step.h"
#include "../../step13_wgmma_tf32/block_order.h"
#include "device/mbarrier.h"
#include "device/tma.h"
#include "device/tf32_mma.h"
#include "../../step14_wgmma_3xtf32/three_tf32.h"
#include "device/wgmma.h"

#define BM 128       /* rows of C per block: one 64-row wgmma per consumer warpgroup */
#define BK 32        /* k per stage: 32 floats, one 128-byte row, the swizzle's span */
#define CONSUMERS 2  /* warpgroups that multiply */
#define THREADS (128 * (CONSUMERS + 2)) /* + the producer and the transform warpgroup */
#define TILE 128     /* the padding: BM and every BN divide it */
#define GROUP_M 8    /* blocks run in bands of 8 block rows (step 13's block_order.h) */
#define FOURTH_PRODUCT_MAX_N 32 /* small x small kept up to this n (step 14's rule) */

/* A stage: the raw A tile (BM x BK, K-major, swizzled by the TMA), the raw B tile (BK rows of
 * BN floats, as in B), and the transform's Bt_big and Bt_small (BN x BK, K-major, swizzled);
 * then, after all stages, a flag per stage and transform warp (any of its columns shifted),
 * each stage's column shifts, three barriers per stage, and 1024 bytes to align the tiles as
 * the swizzle needs. */
#define TILE_A (BM * BK * 4)
#define TILE_B(BN) ((BN) * BK * 4)
#define LOAD_BYTES(BN) (TILE_A + TILE_B(BN))
#define STAGE_BYTES(BN) (TILE_A + 3 * TILE_B(BN))
#define SMEM(BN, STAGES) ((STAGES) * (STAGE_BYTES(BN) + 3 * 8 + 4 * (BN) + 4 * 4) + 1024)

/* Step 14's two configurations: a 128 x 128 tile with three stages in flight from n = 2048,
 * a 128 x 64 tile with four below it, twice the blocks for the 132 SMs. */
enum { WIDE_3, NARROW_4 };
static const struct step_config wide_list[] = {
    {WIDE_3, "128x128x32/3", SMEM(128, 3)},
    {NARROW_4, "128x64x32/4", SMEM(64, 4)},
};
static const struct step_config narrow_list[] = {
    {NARROW_4, "128x64x32/4", SMEM(64, 4)},
    {WIDE_3, "128x128x32/3", SMEM(128, 3)},
};
static int wgmma_configs(int n, const struct step_config **list)
{
    *list = n < 2048 ? narrow_list : wide_list;
    return 2;
}

const struct step_info step_info = {
    .program = "step15_v1",
    .lesson = "step 15, version 1: the next fragment split during the products",
    .chapter = "tensor-cores",
    .min_cc = 90,
    .needs = "Hopper's TMA and wgmma, in sm_90a code",
    .configs = wgmma_configs,
    .config_legend = "tile BM x BN x BK / stages in flight",
    .precision = PRECISION_FP32,
    .change = "the split inside the kernel: A split in registers for wgmma's register-source form, B "
        "transposed and split in shared memory by a transform warpgroup, shifts per stage from the tiles; "
        "each consumer splits the next stage's fragment of A while the tensor cores multiply this stage's",
};

/* x's shifted split into big and small TF32 halves, as the bits wgmma reads. FINITE: its row
 * or column holds no NaN or Inf, so split's test for one is skipped; SHIFTED: false where the
 * shift is 0, the usual case, so the multiplication is skipped (the results are the same). */
template <bool FINITE, bool SHIFTED>
__device__ static __forceinline__ void split_bits(float x, float scale, uint32_t *big, uint32_t *small)
{
    float b, s;
    if (!SHIFTED)
        scale = 1.0f; /* and x * 1 is x: the compiler drops the multiplication */
    if (FINITE) {
        b = __uint_as_float(to_tf32_exact(x * scale));
        s = __uint_as_float(to_tf32_exact(x * scale - b));
    } else {
        split(x * scale, &b, &s);
    }
    *big = __float_as_uint(b);
    *small = __float_as_uint(s);
}

/* A running largest magnitude and a trap for NaN and Inf, two instructions per value:
 * fmaxf(m, |x|) skips a NaN (and keeps an Inf), and x * 0 is 0 for every finite x, NaN for
 * NaN and Inf, so the trap ends NaN exactly when a value was not finite. Only then is the
 * largest finite magnitude taken again, value by value (largest_finite). */
__device__ static __forceinline__ void scan(float x, float *m, float *trap)
{
    *m = fmaxf(*m, fabsf(x));
    *trap = fmaf(x, 0.0f, *trap);
}

/* shift_for(m) != 0, without its ilogbf: m is 0 or inside [2^-50, 2^50) almost always. */
__device__ static __forceinline__ bool needs_shift(float m)
{
    return m != 0.0f && (m < 0x1p-50f || m >= 0x1p50f);
}

__device__ static __forceinline__ float largest_finite(float m, float x)
{
    return isfinite(x) ? fmaxf(m, fabsf(x)) : m;
}

/* The transform of one column j of the raw B tile: its largest finite magnitude and its
 * shift (kept for the consumers), then the split values as row j of Bt_big and Bt_small:
 * k = 4q ... 4q + 3 in 16-byte chunk q ^ (j % 8), the TMA's 128-byte swizzle, so that eight
 * neighbouring threads fill the 32 banks. */
template <bool FINITE, bool SHIFTED>
__device__ static __forceinline__ void write_bt(const float x[BK], float scale, unsigned char *big,
                                                unsigned char *small, int j)
{
#pragma unroll
    for (int q = 0; q < BK / 4; q++) {
        uint4 b4, s4;
        split_bits<FINITE, SHIFTED>(x[4 * q + 0], scale, &b4.x, &s4.x);
        split_bits<FINITE, SHIFTED>(x[4 * q + 1], scale, &b4.y, &s4.y);
        split_bits<FINITE, SHIFTED>(x[4 * q + 2], scale, &b4.z, &s4.z);
        split_bits<FINITE, SHIFTED>(x[4 * q + 3], scale, &b4.w, &s4.w);
        const int at = j * 128 + ((q ^ (j % 8)) * 16);
        *(uint4 *)(big + at) = b4;
        *(uint4 *)(small + at) = s4;
    }
}

/* A consumer thread's share of a stage's A tile, split: wgmma's register fragment of each of
 * the four steps of 8 of k, big and small, and its two rows' shifts for the stage. */
struct a_fragment {
    uint32_t big[BK / 8][4], small[BK / 8][4];
    int e_up, e_down;
    int cols_shifted; /* the stage's flags: any column of B's tile shifted */
};

template <bool FINITE, bool SHIFTED>
__device__ static __forceinline__ void split_fragment(const float x[BK / 8][4], float scale_up, float scale_down,
                                                      struct a_fragment *f)
{
#pragma unroll
    for (int k8 = 0; k8 < BK / 8; k8++)
#pragma unroll
        for (int v = 0; v < 4; v++)
            split_bits<FINITE, SHIFTED>(x[k8][v], v % 2 ? scale_down : scale_up, &f->big[k8][v], &f->small[k8][v]);
}

/* Load and split it. x[k8][v] sits at row r_up + 8 (v % 2), k = 8 k8 + t + 4 (v / 2), in 16-byte
 * chunk (2 k8 + v / 2) ^ g of its 128-byte row (the rows' index mod 8 is g): the 32 lanes hit 32
 * different banks. The rows' largest magnitudes over the stage: this thread's eight values of
 * each, then the quad's (lanes 4g ... 4g + 3 hold the rest of both rows). */
__device__ static __forceinline__ void load_fragment(const unsigned char *tile, const int *col_shifted, int r_up,
                                                     int m0, int *row_special, int *any_special, struct a_fragment *f)
{
    /* The transform's flags for the stage (the stage is handed back thread by thread, after
     * each thread's last read of it). */
    const int4 flags = *(const int4 *)col_shifted;
    f->cols_shifted = flags.x | flags.y | flags.z | flags.w;
    const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    float x[BK / 8][4], m_up = 0.0f, m_down = 0.0f, trap_up = 0.0f, trap_down = 0.0f;
#pragma unroll
    for (int k8 = 0; k8 < BK / 8; k8++)
#pragma unroll
        for (int v = 0; v < 4; v++) {
            x[k8][v] = *(const float *)(tile + (r_up + 8 * (v % 2)) * 128 + (((2 * k8 + v / 2) ^ g) * 16) + t * 4);
            if (v % 2)
                scan(x[k8][v], &m_down, &trap_down);
            else
                scan(x[k8][v], &m_up, &trap_up);
        }
    const int special_up = isnan(trap_up), special_down = isnan(trap_down);
    if (special_up | special_down) {
        m_up = m_down = 0.0f;
#pragma unroll
        for (int k8 = 0; k8 < BK / 8; k8++) {
            m_up = largest_finite(largest_finite(m_up, x[k8][0]), x[k8][2]);
            m_down = largest_finite(largest_finite(m_down, x[k8][1]), x[k8][3]);
        }
        if (special_up)
            row_special[m0 + r_up] = 1;
        if (special_down)
            row_special[m0 + r_up + 8] = 1;
        *any_special = 1;
    }
    for (int d = 1; d < 4; d *= 2) {
        m_up = fmaxf(m_up, __shfl_xor_sync(0xffffffffu, m_up, d));
        m_down = fmaxf(m_down, __shfl_xor_sync(0xffffffffu, m_down, d));
    }
    if (!(special_up | special_down | needs_shift(m_up) | needs_shift(m_down))) {
        f->e_up = f->e_down = 0;
        split_fragment<true, false>(x, 1.0f, 1.0f, f);
        return;
    }
    f->e_up = shift_for(m_up);
    f->e_down = shift_for(m_down);
    split_fragment<false, true>(x, pow2f(f->e_up), pow2f(f->e_down), f);
}

/* wgmma's n is part of the instruction: one wrapper per width. */
template <int BN>
__device__ static __forceinline__ void wgmma_tf32_rs(float *d, const uint32_t a[4], uint64_t db, int scale_d)
{
    if (BN == 128)
        wgmma_m64n128k8_tf32_rs(d, a, db, scale_d);
    else
        wgmma_m64n64k8_tf32_rs(d, a, db, scale_d);
}

/* The shared memory of a block, as the kernel's parts see it. */
struct block_smem {
    unsigned char *tiles; /* STAGES stages of STAGE_BYTES, 1024-byte aligned */
    int *col_shifted;     /* [STAGES][4]: any of a transform warp's columns shifted */
    int *col_shift;       /* [STAGES][BN] */
    uint64_t *full, *split_done, *empty;
};

/* One stage of a consumer: multiply with the fragment already split (cur), and while the
 * tensor cores work, load and split the next stage's (next); then wait, scale the stage's sums
 * back if a shift was taken, hand the stage back and add its sums to the running ones. */
template <int BN, int STAGES, bool FOURTH>
__device__ static __forceinline__ void consume_stage(const struct block_smem *sm, int kt, int kt_count, int r_up,
                                                     int m0, int *row_special, int *any_special,
                                                     const struct a_fragment *cur, struct a_fragment *next,
                                                     float acc[BN / 2], float sum[BN / 2])
{
    const int s = kt % STAGES, t = threadIdx.x % 4;
    const unsigned char *stage = sm->tiles + s * STAGE_BYTES(BN);
    const uint64_t b_big = wgmma_desc_k_sw128(stage + TILE_A + TILE_B(BN));
    const uint64_t b_small = wgmma_desc_k_sw128(stage + TILE_A + 2 * TILE_B(BN));
    wgmma_fence();
    /* Step 14's order: the small products first, the smallest first, into fresh sums, then
     * big x big. */
#pragma unroll
    for (int k8 = 0; k8 < BK / 8; k8++) {
        if (FOURTH)
            wgmma_tf32_rs<BN>(acc, cur->small[k8], b_small + 2 * k8, k8 > 0);
        wgmma_tf32_rs<BN>(acc, cur->small[k8], b_big + 2 * k8, FOURTH || k8 > 0);
        wgmma_tf32_rs<BN>(acc, cur->big[k8], b_small + 2 * k8, 1);
    }
#pragma unroll
    for (int k8 = 0; k8 < BK / 8; k8++)
        wgmma_tf32_rs<BN>(acc, cur->big[k8], b_big + 2 * k8, 1);
    wgmma_commit_group();

    if (kt + 1 < kt_count) {
        const int s1 = (kt + 1) % STAGES;
        mbarrier_wait_parity(&sm->split_done[s1], ((kt + 1) / STAGES) & 1);
        load_fragment(sm->tiles + s1 * STAGE_BYTES(BN), sm->col_shifted + s1 * 4, r_up, m0, row_special, any_special,
                      next);
    }

    wgmma_wait_group<0>();
    for (int i = 0; i < BN / 2; i++)
        wgmma_fence_operand(&acc[i]);
    /* The stage's sums back to the inputs' scale (exact unless C's element is subnormal),
     * when a shift was taken. The accumulators' layout: value i sits in column
     * 8 (i / 4) + 2 t + i % 2, of the upper row for i % 4 < 2, the lower one else. */
    if (cur->cols_shifted) { /* the same for the whole warpgroup: the stage's flags */
        const int *shift = sm->col_shift + s * BN + 2 * t;
        for (int i = 0; i < BN / 2; i++)
            acc[i] = ldexpf(acc[i], -(i % 4 < 2 ? cur->e_up : cur->e_down) - shift[8 * (i / 4) + i % 2]);
    } else if (cur->e_up | cur->e_down) {
        for (int i = 0; i < BN / 2; i++)
            acc[i] = ldexpf(acc[i], -(i % 4 < 2 ? cur->e_up : cur->e_down));
    }
    /* Each thread hands the stage back after its own last read of it (the raw A tile, the
     * flags, the column shifts): its arrival releases exactly the reads it made, an order
     * compute-sanitizer's racecheck can follow (one arrival per warp after __syncwarp is as
     * correct, but racecheck reported the transform's next writes of the flags as races). */
    mbarrier_arrive(&sm->empty[s]);
    for (int i = 0; i < BN / 2; i++)
        sum[i] += acc[i];
}

/* One block: C[m0 : m0 + BM, n0 : n0 + BN] over all of k. Warpgroup 0 loads, 1 transforms B,
 * 2 and 3 split A and multiply. full[s]: stage s holds its raw tiles (the TMA's bytes arrived);
 * split[s]: its Bt_big and Bt_small are written; empty[s]: the 256 consumer threads are done with it.
 * Each barrier's phase flips every STAGES tiles. FOURTH: the short sums' kernel, with
 * small x small. */
template <int BN, int STAGES, bool FOURTH>
__global__ static void __launch_bounds__(THREADS, 1)
    matmult_kernel(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map, float *c,
                   size_t ldc, int tiles, int *row_special, int *col_special, int *any_special)
{
    /* Aligned by an offset from the array itself, so that the compiler still knows these are
     * shared-memory addresses (LDS and STS, not generic loads and stores). */
    extern __shared__ unsigned char smem_raw[];
    const unsigned raw_at = (unsigned)__cvta_generic_to_shared(smem_raw);
    struct block_smem sm;
    sm.tiles = smem_raw + (((raw_at + 1023) & ~1023u) - raw_at);
    sm.col_shifted = (int *)(sm.tiles + STAGES * STAGE_BYTES(BN));
    sm.col_shift = sm.col_shifted + STAGES * 4;
    sm.full = (uint64_t *)(sm.col_shift + STAGES * BN);
    sm.split_done = sm.full + STAGES;
    sm.empty = sm.split_done + STAGES;
    const int warpgroup = threadIdx.x / 128, kt_count = tiles * TILE / BK;
    int m_tile, n_tile;
    block_tile(GROUP_M, tiles * TILE / BM, tiles * TILE / BN, &m_tile, &n_tile);
    const int m0 = m_tile * BM, n0 = n_tile * BN;

    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; s++) {
            mbarrier_init(&sm.full[s], 1);
            mbarrier_init(&sm.split_done[s], 128);
            mbarrier_init(&sm.empty[s], 128 * CONSUMERS); /* one arrival per consumer thread */
        }
        fence_mbarrier_init();
    }
    __syncthreads();

    if (warpgroup == 0) {
        setmaxnreg_dec<24>();
        if (threadIdx.x == 0) {
            prefetch_tensormap(&a_map);
            prefetch_tensormap(&b_map);
            for (int kt = 0; kt < kt_count; kt++) {
                const int s = kt % STAGES;
                /* Wait until the consumers freed the stage (the first round passes: a fresh
                 * barrier's previous phase counts as complete). */
                mbarrier_wait_parity(&sm.empty[s], ((kt / STAGES) & 1) ^ 1);
                unsigned char *stage = sm.tiles + s * STAGE_BYTES(BN);
                mbarrier_arrive_expect_tx(&sm.full[s], LOAD_BYTES(BN));
                cp_async_bulk_tensor_2d_global_to_shared(stage, &a_map, m0, kt * BK, &sm.full[s]);
                cp_async_bulk_tensor_2d_global_to_shared(stage + TILE_A, &b_map, kt * BK, n0, &sm.full[s]);
            }
        }
        return;
    }

    if (warpgroup == 1) {
        /* The transform: thread j takes column j of the raw B tile (a warp reads 32 neighbours
         * of a row, one 128-byte line). */
        setmaxnreg_dec<56>();
        const int j = threadIdx.x - 128;
        for (int kt = 0; kt < kt_count; kt++) {
            const int s = kt % STAGES;
            /* The consumers' reads of the stage's last round (its flags and column shifts) are
             * over before its TMA copy can even start; waiting for the same phase the producer
             * waited for (done by then) says so directly, where a checker can see it. */
            mbarrier_wait_parity(&sm.empty[s], ((kt / STAGES) & 1) ^ 1);
            mbarrier_wait_parity(&sm.full[s], (kt / STAGES) & 1);
            unsigned char *stage = sm.tiles + s * STAGE_BYTES(BN);
            int e = 0;
            if (j < BN) {
                const float *raw = (const float *)(stage + TILE_A);
                float x[BK], m = 0.0f, trap = 0.0f;
#pragma unroll
                for (int k = 0; k < BK; k++) {
                    x[k] = raw[k * BN + j];
                    scan(x[k], &m, &trap);
                }
                const int special = isnan(trap);
                if (special) {
                    m = 0.0f;
#pragma unroll
                    for (int k = 0; k < BK; k++)
                        m = largest_finite(m, x[k]);
                    col_special[n0 + j] = 1;
                    *any_special = 1;
                }
                unsigned char *big = stage + TILE_A + TILE_B(BN), *small = big + TILE_B(BN);
                if (special | needs_shift(m)) {
                    e = shift_for(m);
                    write_bt<false, true>(x, pow2f(e), big, small, j);
                } else {
                    write_bt<true, false>(x, 1.0f, big, small, j);
                }
                sm.col_shift[s * BN + j] = e;
            }
            const int shifted = __any_sync(0xffffffffu, e != 0);
            if (threadIdx.x % 32 == 0)
                sm.col_shifted[s * 4 + (threadIdx.x / 32) % 4] = shifted;
            /* Written by ordinary stores, read by wgmma (the async proxy): fence, then tell. */
            fence_proxy_async_shared_cta();
            mbarrier_arrive(&sm.split_done[s]);
        }
        return;
    }

    /* The consumers: two fragments of A in turn, one multiplied while the other is loaded and
     * split (the stages two by two: kt_count is a multiple of 4). */
    setmaxnreg_inc<216>();
    const int consumer = warpgroup - 2, warp = threadIdx.x / 32 % 4, lane = threadIdx.x % 32;
    const int r_up = consumer * 64 + warp * 16 + lane / 4; /* the upper of this thread's two rows */
    float acc[BN / 2], sum[BN / 2];
    for (int i = 0; i < BN / 2; i++)
        sum[i] = 0.0f;
    struct a_fragment even, odd;
    mbarrier_wait_parity(&sm.split_done[0], 0);
    load_fragment(sm.tiles, sm.col_shifted, r_up, m0, row_special, any_special, &even);
    for (int kt = 0; kt < kt_count; kt += 2) {
        consume_stage<BN, STAGES, FOURTH>(&sm, kt, kt_count, r_up, m0, row_special, any_special, &even, &odd,
                                          acc, sum);
        consume_stage<BN, STAGES, FOURTH>(&sm, kt + 1, kt_count, r_up, m0, row_special, any_special, &odd,
                                          &even, acc, sum);
    }

    const int row = m0 + r_up, col = n0 + 2 * (lane % 4);
    float *out = c + (size_t)row * ldc + col;
    for (int i = 0; i < BN / 2; i += 4) {
        *(float2 *)(out + 8 * (i / 4)) = make_float2(sum[i], sum[i + 1]);
        *(float2 *)(out + 8 * ldc + 8 * (i / 4)) = make_float2(sum[i + 2], sum[i + 3]);
    }
}

static void encode(CUtensorMap *map, const float *m, size_t ld, int padded, int box_rows, int box_cols,
                   CUtensorMapSwizzle swizzle)
{
    char why[512];
    if (tma_encode_2d_f32(map, m, padded, padded, ld, box_rows, box_cols, swizzle, why, sizeof why) != cudaSuccess) {
        fprintf(stderr, "step15_v1: %s\n", why);
        exit(EXIT_CUDA_ERROR);
    }
}

/* The workspace: the marks (rows, columns, any). */
static size_t workspace_bytes(int padded, const struct step_config *config)
{
    (void)config;
    return sizeof(int) * (2 * (size_t)padded + 1);
}

/* What setup builds for the launches: the tensor maps of A and B themselves. */
struct step_state {
    CUtensorMap maps[2];
};

/* One configuration's setup: the maps and its kernel's shared memory. */
template <int BN, int STAGES, bool FOURTH>
static void setup_shape(struct step_run *run)
{
    /* What the comments above promise, checked by the compiler for every shape built. */
    static_assert(BM == 64 * CONSUMERS, "one 64-row wgmma per consumer warpgroup");
    static_assert(TILE % BM == 0 && TILE % BN == 0, "the padding: BM and BN divide it, so every tile is whole");
    static_assert(BK * 4 == 128, "a tile row is 128 bytes, the swizzle's span");
    static_assert(BN <= 128, "one transform thread per column of B's tile");
    static_assert(TILE / BK % 2 == 0, "the consumers take the stages two by two");
    static_assert(TILE_A % 1024 == 0 && TILE_B(BN) % 1024 == 0,
                  "every tile starts 1024 bytes aligned, as the 128-byte swizzle needs");
    static_assert(SMEM(BN, STAGES) <= 227 * 1024, "fits sm_90's 227 KB of shared memory per block");
    struct step_state *state = (struct step_state *)run->state;
    const struct dev_mats *m = &run->mats;
    encode(&state->maps[0], m->a, m->lda, m->padded, BM, BK, CU_TENSOR_MAP_SWIZZLE_128B); /* A: BM rows of BK */
    encode(&state->maps[1], m->b, m->ldb, m->padded, BK, BN, CU_TENSOR_MAP_SWIZZLE_NONE);  /* B: BK rows of BN */
    CUDA_CHECK(cudaFuncSetAttribute(matmult_kernel<BN, STAGES, FOURTH>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    SMEM(BN, STAGES)));
}

/* One configuration's launch: the kernel over the padded matrix, its blocks in one line
 * (block_tile orders them). */
template <int BN, int STAGES, bool FOURTH>
static void launch_shape(const struct step_run *run, int *marks)
{
    const struct step_state *state = (const struct step_state *)run->state;
    const int padded = run->mats.padded;
    matmult_kernel<BN, STAGES, FOURTH><<<(padded / BM) * (padded / BN), THREADS, SMEM(BN, STAGES)>>>(
        state->maps[0], state->maps[1], run->mats.c, run->mats.ldc, padded / TILE, marks, marks + padded,
        marks + 2 * padded);
}

static void setup(struct step_run *run)
{
    const bool fourth = run->mats.n <= FOURTH_PRODUCT_MAX_N;
    if (run->config->id == WIDE_3)
        fourth ? setup_shape<128, 3, true>(run) : setup_shape<128, 3, false>(run);
    else
        fourth ? setup_shape<64, 4, true>(run) : setup_shape<64, 4, false>(run);
}

/* The marks cleared, the kernel, then the NaN and Inf. */
static void launch(const struct step_run *run)
{
    const struct dev_mats *m = &run->mats;
    const int padded = m->padded;
    int *marks = (int *)run->workspace;
    CUDA_CHECK(cudaMemsetAsync(marks, 0, sizeof(int) * (2 * padded + 1)));
    const bool fourth = m->n <= FOURTH_PRODUCT_MAX_N;
    if (run->config->id == WIDE_3)
        fourth ? launch_shape<128, 3, true>(run, marks) : launch_shape<128, 3, false>(run, marks);
    else
        fourth ? launch_shape<64, 4, true>(run, marks) : launch_shape<64, 4, false>(run, marks);
    special_values_launch(m, marks, marks + padded, marks + 2 * padded);
}

static const struct step_ops ops = {.workspace_bytes = workspace_bytes, .state_bytes = sizeof(struct step_state),
                                    .setup = setup, .launch = launch};

/* Step 06's padded allocation (common/padded.c): every tile whole, no bounds checks. */
MATMULT_GPU_PADDED(TILE, ops)
