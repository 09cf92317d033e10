/* Hopper's instructions, one wrapper at a time, on the GPU: the TMA (common/device/tma.h), the
 * mbarrier (common/device/mbarrier.h), wgmma and setmaxnreg (common/device/wgmma.h). One block copies a
 * 64 x 32 tile of A and an N x 32 tile of Bt (B stored N x K, K-major, as TF32 wgmma wants it)
 * into shared memory with two TMA copies that complete on one mbarrier, multiplies them with
 * four k-steps of wgmma m64nNk8, and writes its accumulators to C through the fragment layout
 * of common/device/wgmma.h. The inputs are multiples of 1/8 between -2 and 2, exact in TF32, and
 * every sum is exact in FP32: C must equal the CPU's product bit for bit, whatever the order
 * of the additions. The checks, one TAP line each:
 *   1-3  N = 64, 128, 256: the copy, the 128-byte swizzle as wgmma reads it, the descriptor
 *        and its k-steps, scale-d = 0 on the first step (the accumulators start as NaN),
 *        the accumulator layout;
 *   4    a 50 x 29 A and a 40 x 29 Bt in the same 64 x 32 boxes: the copy engine must fill
 *        what lies past the matrices with zeros (the memory there holds 1024s, and shared
 *        memory starts as NaN), so C is the small product with zeros around it;
 *   5    two warpgroups: a producer that gives registers back (setmaxnreg.dec) and issues
 *        the copies, a consumer that takes more (setmaxnreg.inc) and multiplies;
 *   6-7  INT8: byte tiles through tma_encode_2d_i8 (64 x 128 and N x 128, N = 128, 256), four
 *        k-steps of wgmma m64nNk32 .s32.s8.s8, 32-bit sums equal to the CPU's (-128 and 127
 *        among the values: the ends of the range).
 * C starts as NaN on the device, so an element nobody wrote fails too.
 *
 * Build (the Makefile builds it as a test helper; tests/16-hopper.t runs it):
 *   nvcc -O3 -gencode=arch=compute_90a,code=sm_90a -Icommon tests/hopper_test.cu -o obj/test/hopper_test
 * Exit codes: 0 every check passed, 1 one failed, 3 no CUDA GPU, 4 a GPU other than compute
 * capability 9.0 (sm_90a code runs nowhere else), 7 any other CUDA error. Standalone: it links
 * none of the harness, so it checks CUDA calls itself (check() below). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <cuda_runtime.h>

#include "exit_codes.h"
#include "device/tma.h"
#include "device/mbarrier.h"
#include "device/wgmma.h"
#include "tap.h"

#define PROGRAM "hopper_test"

/* The boxes: 64 rows of A (wgmma's M), N rows of Bt, 32 floats of k each: 128 bytes, the
 * span of the 128-byte swizzle, four k-steps of 8. */
#define TILE_M 64
#define TILE_K 32
#define K_STEP 8
/* INT8's boxes: 128 bytes of k, the swizzle's span; wgmma's k-step for 8-bit types is 32. */
#define I8_TILE_K 128
#define I8_K_STEP 32
/* Outside the matrices, in the same allocations: a value the zero fill must keep out. */
#define OUTSIDE 1024.0f
/* What the kernels report besides C. */
#define STATUS_MISALIGNED 1 /* a tile's shared memory is not at a 1024-byte boundary */
/* How long a kernel may run before the check gives up on it (a lost copy or an
 * unfinished phase would otherwise hang the test). */
#define KERNEL_TIMEOUT_S 10.0

/* setmaxnreg's numbers for the two-warpgroup kernel. __launch_bounds__(256, 2) fixes the
 * register count at entry to 65536 / (256 x 2) = 128 a thread (ptxas -v says 128). The
 * producer gives back 128 - 40 = 88 a thread, the consumer takes 216 - 128 = 88: the pool
 * balances, as in CUTLASS's 3-warpgroup kernels (168 at entry, 40 and 2 x 232). With a
 * minimum of 1 block, ptxas -v (CUDA 13.0) reports the kernel at the largest count it asks
 * for (232 with an inc to 232): every warp would start there, and the inc would move nothing. */
#define SPLIT_THREADS 256
#define SPLIT_MIN_BLOCKS 2
#define PRODUCER_REGS 40
#define CONSUMER_REGS 216

static void check(cudaError_t err, const char *what, int line)
{
    if (err == cudaSuccess)
        return;
    fprintf(stderr, PROGRAM ": CUDA error %s (%d): %s, in %s at line %d\n", cudaGetErrorName(err), (int)err,
            cudaGetErrorString(err), what, line);
    exit(EXIT_CUDA_ERROR);
}
#define CHECK(call) check((call), #call, __LINE__)

/* Copy A's and Bt's boxes at (0, 0) into sa and sb, completing on bar: the one thread that
 * calls it announces the bytes, then issues the copies. */
__device__ static void load_tiles(float *sa, float *sb, int n_tile, const CUtensorMap *map_a,
                                  const CUtensorMap *map_bt, uint64_t *bar)
{
    prefetch_tensormap(map_a);
    prefetch_tensormap(map_bt);
    /* Whole boxes, zero-filled parts included. */
    mbarrier_arrive_expect_tx(bar, (TILE_M + n_tile) * TILE_K * sizeof(float));
    cp_async_bulk_tensor_2d_global_to_shared(sa, map_a, 0, 0, bar);
    cp_async_bulk_tensor_2d_global_to_shared(sb, map_bt, 0, 0, bar);
}

/* Thread t's accumulators d into c (64 x N, row-major), where common/device/wgmma.h's layout
 * puts them (the same for FP32 and 32-bit integer sums). */
template <int N, typename T>
__device__ static void store_accumulators(const T *d, T *c, int t)
{
    const int warp = t / 32, lane = t % 32;
#pragma unroll
    for (int i = 0; i < N / 2; i++) {
        const int row = 16 * warp + lane / 4 + 8 * ((i / 2) % 2);
        const int col = 8 * (i / 4) + 2 * (lane % 4) + i % 2;
        c[row * N + col] = d[i];
    }
}

/* c (64 x N, row-major) = the tiles' product, by the warpgroup of threads t = 0...127. */
template <int N>
__device__ static void multiply_tiles(const float *sa, const float *sb, float *c, int t)
{
    float d[N / 2];
    /* NaN: the first k-step, with scale-d 0, must not read them. */
#pragma unroll
    for (int i = 0; i < N / 2; i++) {
        d[i] = __int_as_float(0x7fc00000);
        wgmma_fence_operand(&d[i]);
    }
    wgmma_fence();
#pragma unroll
    for (int s = 0; s < TILE_K / K_STEP; s++) {
        /* k-step s starts 8 floats (32 bytes) into each swizzled 128-byte row. */
        const uint64_t da = wgmma_desc_k_sw128(sa + K_STEP * s), db = wgmma_desc_k_sw128(sb + K_STEP * s);
        if (N == 64)
            wgmma_m64n64k8_tf32(d, da, db, s > 0);
        else if (N == 128)
            wgmma_m64n128k8_tf32(d, da, db, s > 0);
        else
            wgmma_m64n256k8_tf32(d, da, db, s > 0);
    }
    wgmma_commit_group();
    wgmma_wait_group<0>();
#pragma unroll
    for (int i = 0; i < N / 2; i++)
        wgmma_fence_operand(&d[i]);
    store_accumulators<N>(d, c, t);
}

/* One warpgroup: thread 0 loads, all 128 multiply. N is a template parameter because the
 * accumulators are a register array, whose size must be known when compiling. */
template <int N>
__global__ void __launch_bounds__(128) tma_wgmma_kernel(const __grid_constant__ CUtensorMap map_a,
                                                        const __grid_constant__ CUtensorMap map_bt, float *c,
                                                        int *status)
{
    __shared__ __align__(1024) float sa[TILE_M * TILE_K];
    __shared__ __align__(1024) float sb[N * TILE_K];
    __shared__ __align__(8) uint64_t full;
    const int t = threadIdx.x;

    /* NaN in the tiles, so that only what the copies write can pass. The fence orders these
     * ordinary stores before the copy engine's writes to the same bytes. */
    for (int i = t; i < TILE_M * TILE_K; i += blockDim.x)
        sa[i] = __int_as_float(0x7fc00000);
    for (int i = t; i < N * TILE_K; i += blockDim.x)
        sb[i] = __int_as_float(0x7fc00000);
    fence_proxy_async_shared_cta();
    if (t == 0) {
        if (((unsigned)__cvta_generic_to_shared(sa) | (unsigned)__cvta_generic_to_shared(sb)) % 1024)
            atomicOr(status, STATUS_MISALIGNED);
        /* Two arrivals a phase: the loader's, with the bytes, and a plain one from warp 1,
         * so that mbarrier_arrive is tested too. */
        mbarrier_init(&full, 2);
        fence_mbarrier_init();
    }
    __syncthreads();
    if (t == 0)
        load_tiles(sa, sb, N, &map_a, &map_bt, &full);
    else if (t == 32)
        mbarrier_arrive(&full);
    mbarrier_wait_parity(&full, 0);
    multiply_tiles<N>(sa, sb, c, t);
}

/* Two warpgroups, each role one branch of a single if/else: the producer gives registers
 * back and loads, the consumer takes them and multiplies. The minimum of blocks in
 * __launch_bounds__ fixes the register count at entry, without which setmaxnreg is ignored. */
__global__ void __launch_bounds__(SPLIT_THREADS, SPLIT_MIN_BLOCKS) setmaxnreg_kernel(const __grid_constant__ CUtensorMap map_a,
                                                                      const __grid_constant__ CUtensorMap map_bt,
                                                                      float *c, int *status)
{
    __shared__ __align__(1024) float sa[TILE_M * TILE_K];
    __shared__ __align__(1024) float sb[64 * TILE_K];
    __shared__ __align__(8) uint64_t full;
    const int t = threadIdx.x;

    if (t == 0) {
        if (((unsigned)__cvta_generic_to_shared(sa) | (unsigned)__cvta_generic_to_shared(sb)) % 1024)
            atomicOr(status, STATUS_MISALIGNED);
        mbarrier_init(&full, 1);
        fence_mbarrier_init();
    }
    __syncthreads();
    if (t < 128) {
        setmaxnreg_dec<PRODUCER_REGS>();
        if (t == 0)
            load_tiles(sa, sb, 64, &map_a, &map_bt, &full);
    } else {
        setmaxnreg_inc<CONSUMER_REGS>();
        mbarrier_wait_parity(&full, 0);
        multiply_tiles<64>(sa, sb, c, t - 128);
    }
}

/* INT8: one warpgroup copies a 64 x 128 tile of A and an N x 128 tile of Bt, bytes (one
 * 128-byte swizzled row each), and multiplies them with four k-steps of wgmma m64nNk32 .s8 into
 * 32-bit integer sums, written to c in the same fragment layout as the floats'. */
template <int N>
__global__ void __launch_bounds__(128) int8_wgmma_kernel(const __grid_constant__ CUtensorMap map_a,
                                                         const __grid_constant__ CUtensorMap map_bt, int *c,
                                                         int *status)
{
    __shared__ __align__(1024) int8_t sa[TILE_M * I8_TILE_K];
    __shared__ __align__(1024) int8_t sb[N * I8_TILE_K];
    __shared__ __align__(8) uint64_t full;
    const int t = threadIdx.x;
    for (int i = t; i < TILE_M * I8_TILE_K; i += blockDim.x)
        sa[i] = 127; /* only what the copies write may pass */
    for (int i = t; i < N * I8_TILE_K; i += blockDim.x)
        sb[i] = 127;
    fence_proxy_async_shared_cta();
    if (t == 0) {
        if (((unsigned)__cvta_generic_to_shared(sa) | (unsigned)__cvta_generic_to_shared(sb)) % 1024)
            atomicOr(status, STATUS_MISALIGNED);
        mbarrier_init(&full, 1);
        fence_mbarrier_init();
    }
    __syncthreads();
    if (t == 0) {
        prefetch_tensormap(&map_a);
        prefetch_tensormap(&map_bt);
        mbarrier_arrive_expect_tx(&full, (TILE_M + N) * I8_TILE_K);
        cp_async_bulk_tensor_2d_global_to_shared(sa, &map_a, 0, 0, &full);
        cp_async_bulk_tensor_2d_global_to_shared(sb, &map_bt, 0, 0, &full);
    }
    mbarrier_wait_parity(&full, 0);
    int d[N / 2];
    wgmma_fence();
#pragma unroll
    for (int s = 0; s < I8_TILE_K / I8_K_STEP; s++) {
        /* k-step s starts 32 bytes into each swizzled 128-byte row, as TF32's does. */
        const uint64_t da = wgmma_desc_k_sw128(sa + I8_K_STEP * s), db = wgmma_desc_k_sw128(sb + I8_K_STEP * s);
        if (N == 128)
            wgmma_m64n128k32_s8(d, da, db, s > 0);
        else
            wgmma_m64n256k32_s8(d, da, db, s > 0);
    }
    wgmma_commit_group();
    wgmma_wait_group<0>();
#pragma unroll
    for (int i = 0; i < N / 2; i++)
        wgmma_fence_operand_int(&d[i]);
    store_accumulators<N>(d, c, t);
}

/* Multiples of 1/8 in [-2, 2]: 5 significant bits, exact in TF32; a product has at most
 * 10 bits above 2^-6 and a sum of 32 of them stays below 2^7, exact in FP32. */
static float next_value(uint32_t *state)
{
    *state = *state * 1664525u + 1013904223u;
    return (float)((int)((*state >> 16) % 33) - 16) / 8.0f;
}

/* Wait for the kernel, at most KERNEL_TIMEOUT_S: 1 when it finished. */
static int kernel_finished(void)
{
    struct timespec start, now, pause = {0, 1000000};
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (;;) {
        cudaError_t err = cudaStreamQuery(0);
        if (err == cudaSuccess)
            return 1;
        if (err != cudaErrorNotReady)
            CHECK(err);
        clock_gettime(CLOCK_MONOTONIC, &now);
        if ((double)(now.tv_sec - start.tv_sec) + 1e-9 * (double)(now.tv_nsec - start.tv_nsec) > KERNEL_TIMEOUT_S)
            return 0;
        nanosleep(&pause, NULL);
    }
}

enum kernel_kind { ONE_WARPGROUP, SPLIT_WARPGROUPS };

/* A (m x k) times B, given as Bt (n x k), both stored with 32 floats a row in allocations of
 * the boxes' size, the rest holding OUTSIDE; C comes back as a 64 x n_tile tile, checked
 * against the CPU exactly, zeros past m and n included. */
static void product_check(enum kernel_kind kind, int n_tile, int m, int n, int k, const char *what)
{
    const size_t a_count = (size_t)TILE_M * TILE_K, b_count = (size_t)n_tile * TILE_K;
    const size_t c_count = (size_t)TILE_M * n_tile;
    float *a = (float *)malloc(a_count * sizeof(float)), *bt = (float *)malloc(b_count * sizeof(float));
    float *c = (float *)malloc(c_count * sizeof(float)), *want = (float *)malloc(c_count * sizeof(float));
    if (!a || !bt || !c || !want) {
        fprintf(stderr, PROGRAM ": out of host memory\n");
        exit(EXIT_CUDA_ERROR);
    }
    uint32_t state = 12345u + (uint32_t)(n_tile * 7 + m * 3 + k);
    for (int r = 0; r < TILE_M; r++)
        for (int j = 0; j < TILE_K; j++)
            a[r * TILE_K + j] = r < m && j < k ? next_value(&state) : OUTSIDE;
    for (int r = 0; r < n_tile; r++)
        for (int j = 0; j < TILE_K; j++)
            bt[r * TILE_K + j] = r < n && j < k ? next_value(&state) : OUTSIDE;
    for (int r = 0; r < TILE_M; r++)
        for (int col = 0; col < n_tile; col++) {
            double sum = 0.0; /* past m or n: the zero fill's rows give 0 */
            if (r < m && col < n)
                for (int j = 0; j < k; j++)
                    sum += (double)a[r * TILE_K + j] * (double)bt[col * TILE_K + j];
            want[r * n_tile + col] = (float)sum;
        }

    float *d_a, *d_bt, *d_c;
    int *d_status, status = 0;
    CHECK(cudaMalloc((void **)&d_a, a_count * sizeof(float)));
    CHECK(cudaMalloc((void **)&d_bt, b_count * sizeof(float)));
    CHECK(cudaMalloc((void **)&d_c, c_count * sizeof(float)));
    CHECK(cudaMalloc((void **)&d_status, sizeof(int)));
    CHECK(cudaMemcpy(d_a, a, a_count * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_bt, bt, b_count * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_c, 0xff, c_count * sizeof(float))); /* NaN */
    CHECK(cudaMemset(d_status, 0, sizeof(int)));

    CUtensorMap map_a, map_bt;
    char why[512];
    cudaError_t err = tma_encode_2d_f32(&map_a, d_a, m, k, TILE_K, TILE_M, TILE_K, CU_TENSOR_MAP_SWIZZLE_128B, why,
                                        sizeof why);
    if (err == cudaSuccess)
        err = tma_encode_2d_f32(&map_bt, d_bt, n, k, TILE_K, n_tile, TILE_K, CU_TENSOR_MAP_SWIZZLE_128B, why,
                                sizeof why);
    if (err != cudaSuccess) {
        fprintf(stderr, PROGRAM ": %s\n", why);
        check(err, "tma_encode_2d_f32", __LINE__);
    }

    if (kind == SPLIT_WARPGROUPS)
        setmaxnreg_kernel<<<1, SPLIT_THREADS>>>(map_a, map_bt, d_c, d_status);
    else if (n_tile == 64)
        tma_wgmma_kernel<64><<<1, 128>>>(map_a, map_bt, d_c, d_status);
    else if (n_tile == 128)
        tma_wgmma_kernel<128><<<1, 128>>>(map_a, map_bt, d_c, d_status);
    else
        tma_wgmma_kernel<256><<<1, 128>>>(map_a, map_bt, d_c, d_status);
    CHECK(cudaGetLastError());
    if (!kernel_finished()) {
        ok(0, "%s: the kernel finished within %g s", what, KERNEL_TIMEOUT_S);
        printf("Bail out! %s: the kernel did not finish (a copy that never completed its mbarrier phase, or a "
               "setmaxnreg.inc waiting for registers no one gave back)\n", what);
        fflush(stdout);
        exit(EXIT_INACCURATE);
    }
    CHECK(cudaMemcpy(c, d_c, c_count * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&status, d_status, sizeof(int), cudaMemcpyDeviceToHost));

    int wrong = 0, first = -1;
    for (size_t i = 0; i < c_count; i++)
        if (!(c[i] == want[i])) { /* NaN (unwritten) included */
            if (first < 0)
                first = (int)i;
            wrong++;
        }
    ok(wrong == 0 && status == 0, "%s: C is the exact product (%d of %d elements wrong%s)", what, wrong,
       (int)c_count, status & STATUS_MISALIGNED ? "; shared tiles not 1024-byte aligned" : "");
    if (first >= 0)
        printf("#   first wrong: C[%d][%d] = %g, expected %g\n", first / n_tile, first % n_tile, c[first], want[first]);

    CHECK(cudaFree(d_a));
    CHECK(cudaFree(d_bt));
    CHECK(cudaFree(d_c));
    CHECK(cudaFree(d_status));
    free(a);
    free(bt);
    free(c);
    free(want);
}

/* The INT8 product: values over the whole of -128 ... 127 (the ends included), a 64 x 128 A by a
 * 128 x N B given as Bt; every sum is exact in 32 bits, so C must equal the CPU's. */
static void int8_check(int n_tile, const char *what)
{
    const size_t a_count = (size_t)TILE_M * I8_TILE_K, b_count = (size_t)n_tile * I8_TILE_K;
    const size_t c_count = (size_t)TILE_M * n_tile;
    int8_t *a = (int8_t *)malloc(a_count), *bt = (int8_t *)malloc(b_count);
    int *c = (int *)malloc(c_count * sizeof(int)), *want = (int *)malloc(c_count * sizeof(int));
    if (!a || !bt || !c || !want) {
        fprintf(stderr, PROGRAM ": out of host memory\n");
        exit(EXIT_CUDA_ERROR);
    }
    uint32_t state = 777u + (uint32_t)n_tile;
    for (size_t i = 0; i < a_count; i++) {
        state = state * 1664525u + 1013904223u;
        a[i] = (int8_t)(i < 4 ? (i % 2 ? 127 : -128) : (int)(state >> 24) - 128);
    }
    for (size_t i = 0; i < b_count; i++) {
        state = state * 1664525u + 1013904223u;
        bt[i] = (int8_t)(i < 4 ? -128 : (int)(state >> 24) - 128);
    }
    for (int r = 0; r < TILE_M; r++)
        for (int col = 0; col < n_tile; col++) {
            int sum = 0;
            for (int k = 0; k < I8_TILE_K; k++)
                sum += a[r * I8_TILE_K + k] * bt[col * I8_TILE_K + k];
            want[r * n_tile + col] = sum;
        }
    int8_t *d_a, *d_bt;
    int *d_c, *d_status, status = 0;
    CHECK(cudaMalloc((void **)&d_a, a_count));
    CHECK(cudaMalloc((void **)&d_bt, b_count));
    CHECK(cudaMalloc((void **)&d_c, c_count * sizeof(int)));
    CHECK(cudaMalloc((void **)&d_status, sizeof(int)));
    CHECK(cudaMemcpy(d_a, a, a_count, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_bt, bt, b_count, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_c, 0x7f, c_count * sizeof(int))); /* 0x7f7f7f7f: no sum here reaches it */
    CHECK(cudaMemset(d_status, 0, sizeof(int)));
    CUtensorMap map_a, map_bt;
    char why[512];
    cudaError_t err = tma_encode_2d_i8(&map_a, d_a, TILE_M, I8_TILE_K, I8_TILE_K, TILE_M, I8_TILE_K,
                                       CU_TENSOR_MAP_SWIZZLE_128B, why, sizeof why);
    if (err == cudaSuccess)
        err = tma_encode_2d_i8(&map_bt, d_bt, n_tile, I8_TILE_K, I8_TILE_K, n_tile, I8_TILE_K,
                               CU_TENSOR_MAP_SWIZZLE_128B, why, sizeof why);
    if (err != cudaSuccess) {
        fprintf(stderr, PROGRAM ": %s\n", why);
        check(err, "tma_encode_2d_i8", __LINE__);
    }
    if (n_tile == 128)
        int8_wgmma_kernel<128><<<1, 128>>>(map_a, map_bt, d_c, d_status);
    else
        int8_wgmma_kernel<256><<<1, 128>>>(map_a, map_bt, d_c, d_status);
    CHECK(cudaGetLastError());
    if (!kernel_finished()) {
        ok(0, "%s: the kernel finished within %g s", what, KERNEL_TIMEOUT_S);
        printf("Bail out! %s: the kernel did not finish\n", what);
        fflush(stdout);
        exit(EXIT_INACCURATE);
    }
    CHECK(cudaMemcpy(c, d_c, c_count * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&status, d_status, sizeof(int), cudaMemcpyDeviceToHost));
    int wrong = 0, first = -1;
    for (size_t i = 0; i < c_count; i++)
        if (c[i] != want[i]) {
            if (first < 0)
                first = (int)i;
            wrong++;
        }
    ok(wrong == 0 && status == 0, "%s: C is the exact integer product (%d of %d elements wrong%s)", what, wrong,
       (int)c_count, status & STATUS_MISALIGNED ? "; shared tiles not 1024-byte aligned" : "");
    if (first >= 0)
        printf("#   first wrong: C[%d][%d] = %d, expected %d\n", first / n_tile, first % n_tile, c[first],
               want[first]);
    CHECK(cudaFree(d_a));
    CHECK(cudaFree(d_bt));
    CHECK(cudaFree(d_c));
    CHECK(cudaFree(d_status));
    free(a);
    free(bt);
    free(c);
    free(want);
}

int main(void)
{
    int driver = 0, count = 0;
    cudaDriverGetVersion(&driver);
    if (driver == 0) {
        fprintf(stderr, "no CUDA GPU: no NVIDIA driver installed\n");
        return EXIT_NO_GPU;
    }
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err == cudaErrorNoDevice || (err == cudaSuccess && count == 0)) {
        fprintf(stderr, "no CUDA GPU: no CUDA device visible (the driver supports CUDA %d.%d)\n", driver / 1000,
                driver % 1000 / 10);
        return EXIT_NO_GPU;
    }
    CHECK(err);
    int dev;
    struct cudaDeviceProp prop;
    CHECK(cudaGetDevice(&dev));
    CHECK(cudaGetDeviceProperties(&prop, dev));
    if (prop.major != 9 || prop.minor != 0) {
        fprintf(stderr, PROGRAM " needs compute capability 9.0 (sm_90a: TMA, mbarrier, wgmma); this GPU (%s) is %d.%d\n",
                prop.name, prop.major, prop.minor);
        return EXIT_NO_FEATURE;
    }
    printf("# %s, compute capability %d.%d\n", prop.name, prop.major, prop.minor);

    product_check(ONE_WARPGROUP, 64, 64, 64, 32, "TMA 64x32 + 64x32, wgmma m64n64k8 x 4");
    product_check(ONE_WARPGROUP, 128, 64, 128, 32, "TMA 64x32 + 128x32, wgmma m64n128k8 x 4");
    product_check(ONE_WARPGROUP, 256, 64, 256, 32, "TMA 64x32 + 256x32, wgmma m64n256k8 x 4");
    product_check(ONE_WARPGROUP, 64, 50, 40, 29, "TMA boxes past the edge of a 50x29 A and a 40x29 Bt: zero fill");
    char split[128];
    snprintf(split, sizeof split, "two warpgroups, setmaxnreg: the producer's .dec to %d, the consumer's .inc to %d",
             PRODUCER_REGS, CONSUMER_REGS);
    product_check(SPLIT_WARPGROUPS, 64, 64, 64, 32, split);
    int8_check(128, "INT8: TMA 64x128 + 128x128 bytes, wgmma m64n128k32 .s8 x 4");
    int8_check(256, "INT8: TMA 64x128 + 256x128 bytes, wgmma m64n256k32 .s8 x 4");
    return done_testing();
}
