/* The transpose chapter: out (cols x rows) = transpose of in (rows x cols), row-major. */
#ifndef TRANSPOSE_H
#define TRANSPOSE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum tvariant { T_CPU, T_CPU_BLOCKED, T_NAIVE, T_SHARED, T_SHARED_PADDED, T_TILED32X8, T_COPY, T_COPY_KERNEL,
                T_NUM };

/* CPU versions (cpu.c). */
void transpose_cpu(const float *in, float *out, int rows, int cols);
void transpose_cpu_blocked(const float *in, float *out, int rows, int cols);

/* Launch one GPU variant on device buffers (kernels.cu): asynchronous, on stream 0.
 * T_COPY and T_COPY_KERNEL copy in to out unchanged: the same bytes, no transposition. */
void transpose_gpu(enum tvariant v, const float *in, float *out, int rows, int cols);

#ifdef __cplusplus
}
#endif
#endif
