#include "transpose.h"

/* The text's CPU loop: reads along rows of in, writes down columns of out, one cache
 * line of out per element once a column is longer than the cache. */
void transpose_cpu(const float *in, float *out, int rows, int cols)
{
    for (int y = 0; y < rows; y++)
        for (int x = 0; x < cols; x++)
            out[(size_t)x * rows + y] = in[(size_t)y * cols + x];
}

/* Cache-blocked: BLOCK x BLOCK tiles, so the lines of out written by one tile are
 * still in cache for the next element of each line. */
#define BLOCK 32
void transpose_cpu_blocked(const float *in, float *out, int rows, int cols)
{
    for (int y0 = 0; y0 < rows; y0 += BLOCK)
        for (int x0 = 0; x0 < cols; x0 += BLOCK) {
            const int ymax = y0 + BLOCK < rows ? y0 + BLOCK : rows;
            const int xmax = x0 + BLOCK < cols ? x0 + BLOCK : cols;
            for (int x = x0; x < xmax; x++)
                for (int y = y0; y < ymax; y++)
                    out[(size_t)x * rows + y] = in[(size_t)y * cols + x];
        }
}
