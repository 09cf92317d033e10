/* The GPU transposes and the copy they are measured against. Every kernel handles
 * any shape: threads outside the matrix do nothing, tiles at the edges are partial. */
#include "gpu.h"
#include "transpose.h"

#define TILE16 16 /* the text's 16 x 16 blocks */
#define TILE 32   /* tiled32x8: 32 x 32 tiles moved by 32 x 8 threads, 4 elements each */
#define ROWS 8

/* One thread per element, in 16 x 16 blocks: a warp (two rows of 16 threads) reads two
 * runs of 16 consecutive floats of in (coalesced), and writes 16 pairs of floats a whole
 * column of out apart: 16 sectors for 128 useful bytes. */
__global__ static void transpose_naive(const float *in, float *out, int rows, int cols, int block_row0)
{
    const int x = blockIdx.x * TILE16 + threadIdx.x;
    const long y = (long)(blockIdx.y + block_row0) * TILE16 + threadIdx.y;
    if (x < cols && y < rows)
        out[(size_t)x * rows + y] = in[(size_t)y * cols + x];
}

/* The text's shared-memory transpose: read a 16 x 16 tile along rows of in, write it
 * along rows of out; the transposition happens inside shared memory. Reading the tile
 * by column (tile[threadIdx.x][threadIdx.y]) hits the same banks many times over. */
__global__ static void transpose_shared(const float *in, float *out, int rows, int cols, int block_row0)
{
    __shared__ float tile[TILE16][TILE16];
    const long by = (long)(blockIdx.y + block_row0) * TILE16;
    int x = blockIdx.x * TILE16 + threadIdx.x;
    long y = by + threadIdx.y;
    if (x < cols && y < rows)
        tile[threadIdx.y][threadIdx.x] = in[(size_t)y * cols + x];
    __syncthreads();
    x = (int)(by + threadIdx.x);          /* column of out = row of in */
    y = blockIdx.x * TILE16 + threadIdx.y; /* row of out = column of in */
    if (x < rows && y < cols)
        out[(size_t)y * rows + x] = tile[threadIdx.x][threadIdx.y];
}

/* The same with one extra column in the tile: the elements of a tile column now fall
 * in different banks. */
__global__ static void transpose_shared_padded(const float *in, float *out, int rows, int cols, int block_row0)
{
    __shared__ float tile[TILE16][TILE16 + 1];
    const long by = (long)(blockIdx.y + block_row0) * TILE16;
    int x = blockIdx.x * TILE16 + threadIdx.x;
    long y = by + threadIdx.y;
    if (x < cols && y < rows)
        tile[threadIdx.y][threadIdx.x] = in[(size_t)y * cols + x];
    __syncthreads();
    x = (int)(by + threadIdx.x);
    y = blockIdx.x * TILE16 + threadIdx.y;
    if (x < rows && y < cols)
        out[(size_t)y * rows + x] = tile[threadIdx.x][threadIdx.y];
}

/* 32 x 32 tiles (a warp reads or writes 128 bytes of one row), padded by one column,
 * moved by 32 x 8 threads that each handle 4 elements: fewer, fuller blocks, and four
 * independent loads in flight per thread. */
__global__ static void transpose_tiled32x8(const float *in, float *out, int rows, int cols, int block_row0)
{
    __shared__ float tile[TILE][TILE + 1];
    const long by = (long)(blockIdx.y + block_row0) * TILE;
    int x = blockIdx.x * TILE + threadIdx.x;
    long y = by + threadIdx.y;
#pragma unroll
    for (int j = 0; j < TILE; j += ROWS)
        if (x < cols && y + j < rows)
            tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * cols + x];
    __syncthreads();
    x = (int)(by + threadIdx.x);
    y = blockIdx.x * TILE + threadIdx.y;
#pragma unroll
    for (int j = 0; j < TILE; j += ROWS)
        if (x < rows && y + j < cols)
            out[(size_t)(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}

/* The ceiling for a kernel: tiled32x8's access pattern without the transposition. All
 * four loads are issued before the first store, as in the transpose (where the barrier
 * forces it): with load, store, load, store the compiler must assume out may alias in,
 * and each thread has only one load in flight. */
__global__ static void copy_tiled32x8(const float *in, float *out, int rows, int cols, int block_row0)
{
    const int x = blockIdx.x * TILE + threadIdx.x;
    const long y = (long)(blockIdx.y + block_row0) * TILE + threadIdx.y;
    float v[TILE / ROWS];
#pragma unroll
    for (int j = 0; j < TILE; j += ROWS)
        if (x < cols && y + j < rows)
            v[j / ROWS] = in[(size_t)(y + j) * cols + x];
#pragma unroll
    for (int j = 0; j < TILE; j += ROWS)
        if (x < cols && y + j < rows)
            out[(size_t)(y + j) * cols + x] = v[j / ROWS];
}

typedef void (*tkernel)(const float *, float *, int, int, int);

/* A grid has at most 65535 blocks in y: taller matrices are launched in slices. */
static void launch_2d(tkernel k, int tile, int threads_y, const float *in, float *out, int rows, int cols)
{
    const int bx = (cols + tile - 1) / tile;
    const long by = ((long)rows + tile - 1) / tile;
    for (long y0 = 0; y0 < by; y0 += 65535) {
        const int slice = (int)(by - y0 < 65535 ? by - y0 : 65535);
        k<<<dim3(bx, slice), dim3(tile, threads_y)>>>(in, out, rows, cols, (int)y0);
        CUDA_CHECK_LAUNCH();
    }
}

void transpose_gpu(enum tvariant v, const float *in, float *out, int rows, int cols)
{
    switch (v) {
    case T_NAIVE: launch_2d(transpose_naive, TILE16, TILE16, in, out, rows, cols); break;
    case T_SHARED: launch_2d(transpose_shared, TILE16, TILE16, in, out, rows, cols); break;
    case T_SHARED_PADDED: launch_2d(transpose_shared_padded, TILE16, TILE16, in, out, rows, cols); break;
    case T_TILED32X8: launch_2d(transpose_tiled32x8, TILE, ROWS, in, out, rows, cols); break;
    case T_COPY_KERNEL: launch_2d(copy_tiled32x8, TILE, ROWS, in, out, rows, cols); break;
    case T_COPY:
        CUDA_CHECK(cudaMemcpyAsync(out, in, sizeof(float) * (size_t)rows * cols, cudaMemcpyDeviceToDevice, 0));
        break;
    default: break;
    }
}
