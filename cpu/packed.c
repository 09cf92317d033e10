/* Packed panels and a register-blocked micro-kernel: the loop structure of GotoBLAS
 * and BLIS.
 *
 *   for jc (NC columns of B and C)         B panel KC x NC    -> L3
 *     for pc (KC of the k dimension)       packed once, shared by all threads
 *       for ic (MC rows of A and C)        A block MC x KC    -> L2, packed per thread
 *         for jr (NR columns)              B sliver KC x NR   -> L1
 *           for ir (MR rows)               micro-kernel: MR x NR of C in registers
 *
 * Packing copies each block into the order the micro-kernel reads it, contiguous, with
 * zeros past the edges of the matrix, so the micro-kernel never checks bounds; partial
 * tiles of C are computed into a small buffer and only their valid part is added. */
#include "variants.h"

#include <immintrin.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* One instruction set's micro-kernel and block sizes. */
struct kernel {
    const char *name;
    int mr, nr;     /* the micro-tile of C held in registers */
    int mc, kc, nc; /* cache blocks: A block MC x KC in L2, B sliver KC x NR in L1 */
    /* c[MR x NR] (leading dimension ldc) += a (MR x kc, packed) * b (kc x NR, packed) */
    void (*micro)(int kc, const float *a, const float *b, float *c, size_t ldc);
};

/* AVX-512: 12 x 32 = 24 zmm accumulators (of 32 registers). Per k: 2 loads of B,
 * 12 broadcasts of A, 24 FMAs: the two FMA ports are the limit, not the loads. */
#define MR512 12
#define NR512 32
__attribute__((target("avx512f"))) static void micro_avx512(int kc, const float *a, const float *b, float *c,
                                                            size_t ldc)
{
    __m512 acc[MR512][2];
#pragma GCC unroll 12
    for (int r = 0; r < MR512; r++) {
        acc[r][0] = acc[r][1] = _mm512_setzero_ps();
        /* C is read once, at the end: start fetching it now, not then. */
        _mm_prefetch((const char *)(c + r * ldc), _MM_HINT_T0);
        _mm_prefetch((const char *)(c + r * ldc + NR512 - 1), _MM_HINT_T0);
    }
    for (int k = 0; k < kc; k++) {
        const __m512 b0 = _mm512_load_ps(b), b1 = _mm512_load_ps(b + 16);
#pragma GCC unroll 12
        for (int r = 0; r < MR512; r++) {
            const __m512 ar = _mm512_set1_ps(a[r]);
            acc[r][0] = _mm512_fmadd_ps(ar, b0, acc[r][0]);
            acc[r][1] = _mm512_fmadd_ps(ar, b1, acc[r][1]);
        }
        a += MR512;
        b += NR512;
    }
#pragma GCC unroll 12
    for (int r = 0; r < MR512; r++) {
        float *cr = c + r * ldc;
        _mm512_storeu_ps(cr, _mm512_add_ps(_mm512_loadu_ps(cr), acc[r][0]));
        _mm512_storeu_ps(cr + 16, _mm512_add_ps(_mm512_loadu_ps(cr + 16), acc[r][1]));
    }
}

/* AVX2: 6 x 16 = 12 ymm accumulators (of 16 registers). Per k: 2 loads of B,
 * 6 broadcasts of A, 12 FMAs. */
#define MR256 6
#define NR256 16
__attribute__((target("avx2,fma"))) static void micro_avx2(int kc, const float *a, const float *b, float *c,
                                                          size_t ldc)
{
    __m256 acc[MR256][2];
#pragma GCC unroll 6
    for (int r = 0; r < MR256; r++) {
        acc[r][0] = acc[r][1] = _mm256_setzero_ps();
        /* C is read once, at the end: start fetching it now, not then. */
        _mm_prefetch((const char *)(c + r * ldc), _MM_HINT_T0);
        _mm_prefetch((const char *)(c + r * ldc + NR256 - 1), _MM_HINT_T0);
    }
    for (int k = 0; k < kc; k++) {
        const __m256 b0 = _mm256_load_ps(b), b1 = _mm256_load_ps(b + 8);
#pragma GCC unroll 6
        for (int r = 0; r < MR256; r++) {
            const __m256 ar = _mm256_broadcast_ss(&a[r]);
            acc[r][0] = _mm256_fmadd_ps(ar, b0, acc[r][0]);
            acc[r][1] = _mm256_fmadd_ps(ar, b1, acc[r][1]);
        }
        a += MR256;
        b += NR256;
    }
#pragma GCC unroll 6
    for (int r = 0; r < MR256; r++) {
        float *cr = c + r * ldc;
        _mm256_storeu_ps(cr, _mm256_add_ps(_mm256_loadu_ps(cr), acc[r][0]));
        _mm256_storeu_ps(cr + 8, _mm256_add_ps(_mm256_loadu_ps(cr + 8), acc[r][1]));
    }
}

/* Block sizes: KC x NR of B (32 KB for AVX-512, 16 KB for AVX2) fits in L1 beside a
 * sliver of A; MC x KC of A (120 KB, 144 KB) in L2; KC x NC of B in L3. Chosen by
 * measurement (cpu/README.md): PACKED_KC=... PACKED_MC=... try others. */
static const struct kernel kernel_avx512 = {"avx512", MR512, NR512, 120, 256, 2048, micro_avx512};
static const struct kernel kernel_avx2 = {"avx2", MR256, NR256, 144, 256, 2048, micro_avx2};

enum isa cpu_isa(void)
{
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f"))
        return ISA_AVX512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return ISA_AVX2;
    return ISA_NONE;
}

static const struct kernel *choose_kernel(enum isa isa)
{
    if (isa == ISA_NONE)
        isa = cpu_isa();
    return isa == ISA_AVX512 ? &kernel_avx512 : &kernel_avx2;
}

const char *packed_isa_name(enum isa isa)
{
    return choose_kernel(isa)->name;
}

static int min_int(int x, int y)
{
    return x < y ? x : y;
}

/* A block (mc x kc at a, leading dimension n) into MR-row slivers: for each sliver,
 * k by k, MR consecutive floats; rows past the matrix are zeros. */
static void pack_a(const struct kernel *kn, int mc, int kc, const float *a, int n, float *ap)
{
    for (int i = 0; i < mc; i += kn->mr) {
        const int rows = min_int(kn->mr, mc - i);
        for (int k = 0; k < kc; k++) {
            for (int r = 0; r < rows; r++)
                ap[r] = a[(size_t)(i + r) * n + k];
            for (int r = rows; r < kn->mr; r++)
                ap[r] = 0.0f;
            ap += kn->mr;
        }
    }
}

/* One NR-column sliver of a B panel (kc x cols at b): k by k, NR consecutive floats;
 * columns past the matrix are zeros. */
static void pack_b_sliver(const struct kernel *kn, int kc, int cols, const float *b, int n, float *bp)
{
    for (int k = 0; k < kc; k++) {
        memcpy(bp, &b[(size_t)k * n], sizeof *bp * (size_t)cols);
        for (int c = cols; c < kn->nr; c++)
            bp[c] = 0.0f;
        bp += kn->nr;
    }
}

/* C[ic.., jc..] += packed A block x packed B panel, one micro-tile at a time. */
static void macro_kernel(const struct kernel *kn, int mc, int nc, int kc, const float *ap, const float *bp,
                         float *c, int n)
{
    for (int j = 0; j < nc; j += kn->nr) {
        const int cols = min_int(kn->nr, nc - j);
        for (int i = 0; i < mc; i += kn->mr) {
            const int rows = min_int(kn->mr, mc - i);
            const float *as = ap + (size_t)i * kc, *bs = bp + (size_t)j * kc;
            float *cij = c + (size_t)i * n + j;
            if (rows == kn->mr && cols == kn->nr) {
                kn->micro(kc, as, bs, cij, (size_t)n);
            } else { /* an edge tile: compute it whole in a buffer, add the valid part */
                float edge[MR512 * NR512];
                memset(edge, 0, sizeof edge);
                kn->micro(kc, as, bs, edge, (size_t)kn->nr);
                for (int r = 0; r < rows; r++)
                    for (int s = 0; s < cols; s++)
                        cij[(size_t)r * n + s] += edge[r * kn->nr + s];
            }
        }
    }
}

static void *aligned_floats(size_t count)
{
    size_t bytes = (sizeof(float) * count + 63) / 64 * 64;
    void *p = aligned_alloc(64, bytes ? bytes : 64);
    if (!p)
        abort(); /* a few MB; main checked the host's memory */
    return p;
}

/* PACKED_MC, PACKED_KC, PACKED_NC override the block sizes, for tuning experiments. */
static int block_size(const char *name, int fallback, int multiple)
{
    const char *text = getenv(name);
    int v = text ? atoi(text) : 0;
    return v > 0 ? (v + multiple - 1) / multiple * multiple : fallback;
}

void gemm_packed(const float *a, const float *b, float *c, int n, int threads, enum isa isa)
{
    const struct kernel *kn = choose_kernel(isa);
    const int kc_max = block_size("PACKED_KC", kn->kc, 1), nc_max = block_size("PACKED_NC", kn->nc, kn->nr);
    /* With several threads each takes blocks of rows of C as it finishes the last
     * (dynamic schedule): about three blocks per thread keep them all busy to the end. */
    int mc_max = block_size("PACKED_MC", kn->mc, kn->mr);
    if (threads > 1 && !getenv("PACKED_MC")) {
        int share = (n + 3 * threads - 1) / (3 * threads);
        share = (share + kn->mr - 1) / kn->mr * kn->mr;
        mc_max = min_int(mc_max, share);
    }
    const int nc_round = (min_int(nc_max, n) + kn->nr - 1) / kn->nr * kn->nr;
    float *bp = aligned_floats((size_t)kc_max * nc_round);

    memset(c, 0, sizeof *c * (size_t)n * n);
#pragma omp parallel num_threads(threads) if (threads > 1)
    {
        float *ap = aligned_floats((size_t)(mc_max + kn->mr) * kc_max);
        for (int jc = 0; jc < n; jc += nc_max) {
            const int nc = min_int(nc_max, n - jc);
            for (int pc = 0; pc < n; pc += kc_max) {
                const int kc = min_int(kc_max, n - pc);
                /* All threads pack the shared B panel, a sliver each; the barrier at
                 * the end of the loop makes it complete before anyone uses it. */
#pragma omp for schedule(static)
                for (int j = 0; j < nc; j += kn->nr)
                    pack_b_sliver(kn, kc, min_int(kn->nr, nc - j), &b[(size_t)pc * n + jc + j], n,
                                  bp + (size_t)j * kc);
#pragma omp for schedule(dynamic, 1)
                for (int ic = 0; ic < n; ic += mc_max) {
                    const int mc = min_int(mc_max, n - ic);
                    pack_a(kn, mc, kc, &a[(size_t)ic * n + pc], n, ap);
                    macro_kernel(kn, mc, nc, kc, ap, bp, &c[(size_t)ic * n + jc], n);
                }
                /* implicit barrier: B's panel is not repacked while others still read it */
            }
        }
        free(ap);
    }
    free(bp);
}
