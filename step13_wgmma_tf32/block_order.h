/* The order in which a GEMM's blocks walk the tiles of C (step 13's lesson, shared with
 * steps 14-18). Blocks start roughly in the order of their index, so the grid is walked in bands of
 * group_m block rows, column after column: the blocks running at once share their tiles of A
 * (one band) and of B (a few columns), which stay in L2; row after row, each wave would read
 * a band of A and all of B. CUDA C, included by .cu files only. */
#ifndef BLOCK_ORDER_H
#define BLOCK_ORDER_H

/* Tile t of an m_tiles x n_tiles grid in that order: bands of group_m tile rows, column after
 * column. A persistent kernel's blocks (step 17) walk t = their index, + the number of blocks, ... */
__device__ static inline void banded_tile(int t, int group_m, int m_tiles, int n_tiles, int *m_tile, int *n_tile)
{
    const int band = t / (group_m * n_tiles), first = band * group_m;
    const int rows = min(group_m, m_tiles - first), in_band = t % (group_m * n_tiles);
    *m_tile = first + in_band % rows;
    *n_tile = in_band / rows;
}

/* The tile (m_tile, n_tile) of an m_tiles x n_tiles grid that block blockIdx.x computes. */
__device__ static inline void block_tile(int group_m, int m_tiles, int n_tiles, int *m_tile, int *n_tile)
{
    banded_tile(blockIdx.x, group_m, m_tiles, n_tiles, m_tile, n_tile);
}

#endif
