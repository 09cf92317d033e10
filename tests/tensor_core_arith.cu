/* The tensor core's arithmetic, measured: what happens to the bits on the way in and in the sum.
 *   1  the copy engine (TMA) with a tensor map typed TFLOAT32: how it rounds each float to TF32
 *      (crafted values: ties, both signs, subnormals, the largest floats, Inf, NaN; and random
 *      ones), compared with round to nearest ties to even (cvt.rn), ties away (cvt.rna) and
 *      truncation: it is ties to even, which also rounds the largest floats up to Inf;
 *   2  wgmma m64n64k8 TF32: one instruction, d = c + a_0 b_0 + ... + a_7 b_7, on thousands of
 *      crafted dot products (long and short mantissas, spreads of exponents, cancellation,
 *      operands with bits below TF32's), each result compared bit for bit with the CPU model
 *      in tests/tf32_model.h (operands truncated, products exact, the nine terms aligned to
 *      the largest and cut, the sum rounded toward zero).
 * With --dump DIR it also writes the raw inputs and outputs (float32, little-endian) there.
 *
 * Build (the Makefile builds it as a test helper; tests/16-hopper.t runs it):
 *   nvcc -O3 -gencode=arch=compute_90a,code=sm_90a -Icommon -Itests tests/tensor_core_arith.cu
 * Exit codes: 0 every check passed, 1 one failed, 2 bad usage, 3 no CUDA GPU, 4 a GPU other than
 * compute capability 9.0, 7 any other CUDA error. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>

#include "exit_codes.h"
#include "device/tma.h"
#include "device/mbarrier.h"
#include "device/wgmma.h"
#include "tap.h"
#include "tf32_model.h"

#define PROGRAM "tensor_core_arith"

static void check(cudaError_t err, const char *what, int line)
{
    if (err == cudaSuccess)
        return;
    fprintf(stderr, PROGRAM ": CUDA error %s (%d): %s, in %s at line %d\n", cudaGetErrorName(err), (int)err,
            cudaGetErrorString(err), what, line);
    exit(EXIT_CUDA_ERROR);
}
#define CHECK(call) check((call), #call, __LINE__)

static uint32_t f2u(float x)
{
    uint32_t u;
    memcpy(&u, &x, 4);
    return u;
}
static float u2f(uint32_t u)
{
    float x;
    memcpy(&x, &u, 4);
    return x;
}

/* SplitMix64, as the harness's inputs. */
static uint64_t next64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void dump(const char *dir, const char *name, const void *data, size_t bytes)
{
    if (!dir)
        return;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, bytes, f) != bytes) {
        fprintf(stderr, PROGRAM ": cannot write %s\n", path);
        exit(EXIT_USAGE);
    }
    fclose(f);
}

/* ---- 1: the TMA's TF32 rounding ---- */

#define ROUND_ROWS 64
#define ROUND_COLS 32 /* 128 bytes a row */

__global__ void tma_round_kernel(const __grid_constant__ CUtensorMap map, float *out)
{
    __shared__ __align__(1024) float tile[ROUND_ROWS * ROUND_COLS];
    __shared__ __align__(8) uint64_t full;
    if (threadIdx.x == 0) {
        mbarrier_init(&full, 1);
        fence_mbarrier_init();
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        mbarrier_arrive_expect_tx(&full, sizeof tile);
        cp_async_bulk_tensor_2d_global_to_shared(tile, &map, 0, 0, &full);
    }
    mbarrier_wait_parity(&full, 0);
    for (int i = threadIdx.x; i < ROUND_ROWS * ROUND_COLS; i += blockDim.x)
        out[i] = tile[i];
}

static void tma_rounding(const char *dir)
{
    const int count = ROUND_ROWS * ROUND_COLS;
    uint32_t *in = (uint32_t *)malloc(count * 4), *out = (uint32_t *)malloc(count * 4);
    int k = 0;
    /* Crafted: each low-13-bit pattern that decides a rounding (0, just below half, half, just
     * above, all ones) under an even and an odd kept bit, both signs, in a normal binade, in
     * the subnormals and at the top of the range; then the specials. */
    const uint32_t lows[] = {0x0000, 0x0001, 0x0fff, 0x1000, 0x1001, 0x1fff};
    const uint32_t highs[] = {0x3f800000, 0x3f802000, 0x00000000, 0x00002000, 0x7f7fc000, 0x7f7fe000, 0x00800000};
    for (unsigned h = 0; h < sizeof highs / sizeof *highs; h++)
        for (unsigned l = 0; l < sizeof lows / sizeof *lows; l++)
            for (int sign = 0; sign < 2; sign++)
                in[k++] = (highs[h] | lows[l]) ^ (sign ? 0x80000000u : 0);
    in[k++] = 0x7f800000u; /* Inf */
    in[k++] = 0xff800000u;
    in[k++] = 0x7fc00000u; /* NaN */
    in[k++] = 0x7f800001u; /* a signalling NaN's bits */
    in[k++] = 0x7fffffffu;
    uint64_t state = 2025;
    while (k < count) {
        uint32_t u = (uint32_t)next64(&state);
        if ((u & 0x7f800000u) == 0x7f800000u)
            u &= 0xbfffffffu; /* keep random ones finite */
        in[k++] = u;
    }
    float *d_in, *d_out;
    CHECK(cudaMalloc((void **)&d_in, count * 4));
    CHECK(cudaMalloc((void **)&d_out, count * 4));
    CHECK(cudaMemcpy(d_in, in, count * 4, cudaMemcpyHostToDevice));
    CUtensorMap map;
    char why[512];
    if (tma_encode_2d_tf32(&map, d_in, ROUND_ROWS, ROUND_COLS, ROUND_COLS, ROUND_ROWS, ROUND_COLS,
                           CU_TENSOR_MAP_SWIZZLE_NONE, why, sizeof why) != cudaSuccess) {
        fprintf(stderr, PROGRAM ": %s\n", why);
        exit(EXIT_CUDA_ERROR);
    }
    tma_round_kernel<<<1, 128>>>(map, d_out);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(out, d_out, count * 4, cudaMemcpyDeviceToHost));
    dump(dir, "tma_in.bin", in, count * 4);
    dump(dir, "tma_out.bin", out, count * 4);

    int miss_rna = 0, miss_rne = 0, miss_trunc = 0, first_rne = -1;
    for (int i = 0; i < count; i++) {
        const float x = u2f(in[i]);
        const uint32_t got = out[i];
        if (isnan(x)) { /* any NaN is a NaN: compared as such */
            const int nan_out = (got & 0x7f800000u) == 0x7f800000u && (got & 0x7fffffu);
            miss_rna += !nan_out;
            miss_rne += !nan_out;
            miss_trunc += !nan_out;
            continue;
        }
        miss_rna += got != tf32_round_away(in[i]);
        if (got != tf32_round_even(in[i])) {
            miss_rne++;
            if (first_rne < 0)
                first_rne = i;
        }
        miss_trunc += got != (in[i] & 0xffffe000u);
    }
    printf("# TMA, TFLOAT32 map, %d floats: differ from round-to-nearest-ties-away in %d, from ties-to-even in %d, "
           "from truncation in %d\n", count, miss_rna, miss_rne, miss_trunc);
    if (first_rne >= 0)
        printf("#   first difference from ties-to-even: %08x -> %08x (ties-to-even gives %08x)\n", in[first_rne],
               out[first_rne], tf32_round_even(in[first_rne]));
    ok(miss_rne == 0 && miss_rna > 0, "the TMA rounds FP32 to TF32 to nearest, ties to even, as cvt.rn.tf32.f32 "
       "does, not ties away as cvt.rna does (%d of %d differ from ties-to-even, %d from ties-away)", miss_rne, count,
       miss_rna);
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    free(in);
    free(out);
}

/* ---- 2: one wgmma's sum ---- */

#define M 64
#define N 64
#define K 8      /* one instruction's k */
#define ROW 32   /* floats per row of the 128-byte swizzled tiles; only the first K are used */
#define BLOCKS 96

/* Block b: d = c + A_b Bt_b^T over k = 0 ... 7, one wgmma with scale-d 1. */
__global__ void __launch_bounds__(128) wgmma_sum_kernel(const __grid_constant__ CUtensorMap map_a,
                                                        const __grid_constant__ CUtensorMap map_bt, const float *c,
                                                        float *d_out)
{
    __shared__ __align__(1024) float sa[M * ROW];
    __shared__ __align__(1024) float sb[N * ROW];
    __shared__ __align__(8) uint64_t full;
    const int t = threadIdx.x, b = blockIdx.x;
    if (t == 0) {
        mbarrier_init(&full, 1);
        fence_mbarrier_init();
    }
    __syncthreads();
    if (t == 0) {
        mbarrier_arrive_expect_tx(&full, (M + N) * ROW * sizeof(float));
        cp_async_bulk_tensor_2d_global_to_shared(sa, &map_a, b * M, 0, &full);
        cp_async_bulk_tensor_2d_global_to_shared(sb, &map_bt, b * N, 0, &full);
    }
    const int warp = t / 32, lane = t % 32;
    float d[N / 2];
#pragma unroll
    for (int i = 0; i < N / 2; i++) {
        const int row = 16 * warp + lane / 4 + 8 * ((i / 2) % 2), col = 8 * (i / 4) + 2 * (lane % 4) + i % 2;
        d[i] = c[(size_t)b * M * N + row * N + col];
        wgmma_fence_operand(&d[i]);
    }
    mbarrier_wait_parity(&full, 0);
    wgmma_fence();
    wgmma_m64n64k8_tf32(d, wgmma_desc_k_sw128(sa), wgmma_desc_k_sw128(sb), 1);
    wgmma_commit_group();
    wgmma_wait_group<0>();
#pragma unroll
    for (int i = 0; i < N / 2; i++) {
        wgmma_fence_operand(&d[i]);
        const int row = 16 * warp + lane / 4 + 8 * ((i / 2) % 2), col = 8 * (i / 4) + 2 * (lane % 4) + i % 2;
        d_out[(size_t)b * M * N + row * N + col] = d[i];
    }
}

/* A value +-m 2^e: m with `bits` significant bits (1 ... 24), the rest zero, or, with `tail`,
 * random bits below TF32's 11 too (what the tensor core must cut off). */
static float value(uint64_t *s, int e, int bits, int tail, int negative_ok)
{
    uint32_t frac = (uint32_t)next64(s) & 0x7fffffu;
    frac &= ~((1u << (24 - bits)) - 1u);
    if (tail)
        frac |= (uint32_t)next64(s) & 0x1fffu;
    float x = ldexpf(u2f(0x3f800000u | frac), e);
    return negative_ok && (next64(s) & 1) ? -x : x;
}

/* The kinds of dot products, one per block in turn: each stresses one part of the sum. */
enum { SAME_BINADE, SPREAD_4, SPREAD_16, SPREAD_40, BIG_C, SMALL_C, CANCEL, TAILS, KINDS };
static const char *const kind_names[KINDS] = {"one binade", "exponents within 4", "within 16", "within 40",
                                              "c far above the products", "c far below", "cancelling pairs",
                                              "operands with bits below TF32"};

static void make_block(int kind, uint64_t *s, float *a, float *bt, float *c)
{
    const int spread = kind == SPREAD_4 ? 4 : kind == SPREAD_16 ? 16 : kind == SPREAD_40 ? 40 : 2;
    const int signs = kind != SAME_BINADE;
    for (int r = 0; r < M; r++)
        for (int k = 0; k < ROW; k++) {
            const int e = (int)(next64(s) % (unsigned)(spread + 1)) - spread / 2;
            a[r * ROW + k] = k < K ? value(s, e, 1 + (int)(next64(s) % 11), kind == TAILS, signs) : 0.0f;
        }
    for (int r = 0; r < N; r++)
        for (int k = 0; k < ROW; k++) {
            const int e = (int)(next64(s) % (unsigned)(spread + 1)) - spread / 2;
            bt[r * ROW + k] = k < K ? value(s, e, 1 + (int)(next64(s) % 11), kind == TAILS, signs) : 0.0f;
        }
    if (kind == CANCEL) /* b_1 = -b_0 a_0 / a_1 where exact: pairs of products that cancel, near enough */
        for (int r = 0; r < N; r++)
            for (int k = 1; k < K; k += 2)
                bt[r * ROW + k] = -bt[r * ROW + k - 1];
    for (int i = 0; i < M * N; i++) {
        const int e = kind == BIG_C ? 12 + (int)(next64(s) % 14) : kind == SMALL_C ? -30 + (int)(next64(s) % 20)
                                                                                   : (int)(next64(s) % 9) - 4;
        c[i] = next64(s) % 8 == 0 ? 0.0f : value(s, e, 24, 0, signs || kind == SAME_BINADE);
    }
    if (kind == CANCEL)
        for (int r = 0; r < M; r++)
            for (int k = 1; k < K; k += 2)
                a[r * ROW + k] = a[r * ROW + k - 1];
}

static void wgmma_sums(const char *dir)
{
    const size_t a_count = (size_t)BLOCKS * M * ROW, b_count = (size_t)BLOCKS * N * ROW, c_count = (size_t)BLOCKS * M * N;
    float *a = (float *)malloc(a_count * 4), *bt = (float *)malloc(b_count * 4);
    float *c = (float *)malloc(c_count * 4), *d = (float *)malloc(c_count * 4);
    uint64_t state = 90;
    for (int b = 0; b < BLOCKS; b++)
        make_block(b % KINDS, &state, a + (size_t)b * M * ROW, bt + (size_t)b * N * ROW, c + (size_t)b * M * N);
    float *d_a, *d_bt, *d_c, *d_d;
    CHECK(cudaMalloc((void **)&d_a, a_count * 4));
    CHECK(cudaMalloc((void **)&d_bt, b_count * 4));
    CHECK(cudaMalloc((void **)&d_c, c_count * 4));
    CHECK(cudaMalloc((void **)&d_d, c_count * 4));
    CHECK(cudaMemcpy(d_a, a, a_count * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_bt, bt, b_count * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_c, c, c_count * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_d, 0xff, c_count * 4));
    CUtensorMap map_a, map_bt;
    char why[512];
    if (tma_encode_2d_f32(&map_a, d_a, (uint64_t)BLOCKS * M, ROW, ROW, M, ROW, CU_TENSOR_MAP_SWIZZLE_128B, why,
                          sizeof why) != cudaSuccess ||
        tma_encode_2d_f32(&map_bt, d_bt, (uint64_t)BLOCKS * N, ROW, ROW, N, ROW, CU_TENSOR_MAP_SWIZZLE_128B, why,
                          sizeof why) != cudaSuccess) {
        fprintf(stderr, PROGRAM ": %s\n", why);
        exit(EXIT_CUDA_ERROR);
    }
    wgmma_sum_kernel<<<BLOCKS, 128>>>(map_a, map_bt, d_c, d_d);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(d, d_d, c_count * 4, cudaMemcpyDeviceToHost));
    dump(dir, "wgmma_a.bin", a, a_count * 4);
    dump(dir, "wgmma_bt.bin", bt, b_count * 4);
    dump(dir, "wgmma_c.bin", c, c_count * 4);
    dump(dir, "wgmma_d.bin", d, c_count * 4);

    int wrong[KINDS] = {0}, total[KINDS] = {0};
    long first = -1;
    uint32_t first_model = 0;
    for (int b = 0; b < BLOCKS; b++)
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++) {
                float x[K], y[K];
                for (int k = 0; k < K; k++) {
                    x[k] = a[(size_t)b * M * ROW + i * ROW + k];
                    y[k] = bt[(size_t)b * N * ROW + j * ROW + k];
                }
                const size_t at = (size_t)b * M * N + (size_t)i * N + j;
                const float want = tf32_mma_k8(c[at], x, y);
                total[b % KINDS]++;
                if (f2u(want) != f2u(d[at])) {
                    wrong[b % KINDS]++;
                    if (first < 0) {
                        first = (long)at;
                        first_model = f2u(want);
                    }
                }
            }
    for (int kind = 0; kind < KINDS; kind++)
        ok(wrong[kind] == 0, "wgmma m64n64k8 TF32, %s: %d of %d sums as the model has them, bit for bit",
           kind_names[kind], total[kind] - wrong[kind], total[kind]);
    if (first >= 0)
        printf("#   first difference: sum %ld: wgmma %08x, the model %08x\n", first, f2u(d[first]), first_model);
    CHECK(cudaFree(d_a));
    CHECK(cudaFree(d_bt));
    CHECK(cudaFree(d_c));
    CHECK(cudaFree(d_d));
    free(a);
    free(bt);
    free(c);
    free(d);
}

int main(int argc, char **argv)
{
    const char *dir = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--dump") == 0 && i + 1 < argc)
            dir = argv[++i];
        else if (strcmp(argv[i], "--help") == 0) {
            printf("usage: %s [--dump DIR]\nThe TMA's TF32 rounding and wgmma's TF32 sums on this GPU, against "
                   "tests/tf32_model.h (TAP); --dump writes the raw inputs and outputs to DIR.\n", argv[0]);
            return 0;
        } else {
            fprintf(stderr, PROGRAM ": unknown option '%s' (try --help)\n", argv[i]);
            return EXIT_USAGE;
        }
    }
    int driver = 0, count = 0;
    cudaDriverGetVersion(&driver);
    if (driver == 0) {
        fprintf(stderr, "no CUDA GPU: no NVIDIA driver installed\n");
        return EXIT_NO_GPU;
    }
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err == cudaErrorNoDevice || (err == cudaSuccess && count == 0)) {
        fprintf(stderr, "no CUDA GPU: no CUDA device visible\n");
        return EXIT_NO_GPU;
    }
    CHECK(err);
    struct cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    if (prop.major != 9 || prop.minor != 0) {
        fprintf(stderr, PROGRAM " needs compute capability 9.0 (sm_90a: TMA, wgmma); this GPU (%s) is %d.%d\n",
                prop.name, prop.major, prop.minor);
        return EXIT_NO_FEATURE;
    }
    printf("# %s, compute capability %d.%d\n", prop.name, prop.major, prop.minor);
    tma_rounding(dir);
    wgmma_sums(dir);
    return done_testing();
}
