/* The TF32 tensor-core instructions, step 11's lesson, shared by every step that uses them: rounding
 * to TF32, the mma.sync of one 16 x 8 x 8 piece, and ldmatrix. Inline PTX; from compute
 * capability 8.0 (the sm_75 build compiles them to a trap the harness never reaches, as
 * common/device/cp_async.h does). CUDA C, included by .cu files only. */
#ifndef TF32_MMA_H
#define TF32_MMA_H

#include <stdint.h>

/* Round an FP32 value to TF32, to nearest: the 19-bit pattern the tensor core reads, in a
 * 32-bit register (it ignores the low 13 bits). Hopper and later have one instruction for
 * it, ties to even (cvt.rn; cvt.rna takes two there); on Ampere and Ada, cvt.rna (ties
 * away from zero). Both keep Inf, and NaN unless its payload is all in the low 13 bits (a
 * signalling NaN such as 0x7f800001), which the tensor core, reading the top 19 bits only,
 * would take for Inf in any case; the usual NaNs (0x7fc00000, CUDA's 0x7fffffff) stay NaN. */
__device__ static inline uint32_t to_tf32(float x)
{
    uint32_t r;
#if __CUDA_ARCH__ >= 900
    asm("cvt.rn.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
#elif __CUDA_ARCH__ >= 800
    asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
#else
    r = __float_as_uint(x);
    __trap();
#endif
    return r;
}

/* to_tf32 as the bits of a float equal to the TF32 value, its low 13 bits zero, for FP32
 * arithmetic on it (3xTF32's x - big). cvt.rn (sm_90 and later) writes them as zeros;
 * after cvt.rna they are masked. */
__device__ static inline uint32_t to_tf32_exact(float x)
{
#if __CUDA_ARCH__ >= 900
    return to_tf32(x);
#else
    return to_tf32(x) & 0xffffe000u;
#endif
}

/* d += a b for one 16 x 8 x 8 piece: a is 16 x 8 (4 registers per lane), b 8 x 8 (2), d
 * 16 x 8 (4). Lane l holds, with g = l / 4 and t = l % 4:
 *   a: (g, t), (g + 8, t), (g, t + 4), (g + 8, t + 4)     b: (t, g), (t + 4, g)
 *   d: (g, 2t), (g, 2t + 1), (g + 8, 2t), (g + 8, 2t + 1)                              */
__device__ static inline void mma_tf32(float d[4], const uint32_t a[4], const uint32_t b[2])
{
#if __CUDA_ARCH__ >= 800
    asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
    __trap();
#endif
}

/* ldmatrix: the warp reads four 8 x 8 matrices of 16-bit values from shared memory, each
 * lane giving the address of one row of 16 bytes (lanes 0-7 the first matrix's rows, 8-15
 * the second's, ...), and lane l receives, of each matrix, row l / 4, 4 bytes at (l % 4) * 4.
 * For 32-bit values a matrix is 8 rows x 4 floats, and lane l gets (l / 4, l % 4): with the
 * four matrices rows 0-7 and 8-15 at k 0-3, then at k 4-7, that is an A fragment in one
 * instruction instead of four loads. */
__device__ static inline void ldmatrix_x4(uint32_t r[4], const float *row_address)
{
#if __CUDA_ARCH__ >= 800
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"((unsigned)__cvta_generic_to_shared(row_address)));
#else
    __trap();
#endif
}

#endif
