/* The CPU chapter's variants: C = A B for n x n row-major float matrices. Each one
 * writes all of C (it is poisoned before every run). Plain C11 with intrinsics. */
#ifndef VARIANTS_H
#define VARIANTS_H

#include <stddef.h>

/* 1. The lab's triple loop. */
void gemm_baseline(const float *a, const float *b, float *c, int n);
/* 2. The lab's AVX loop: broadcast A[i][k], 8 columns of B, FMA into 8 of C. */
void gemm_avx(const float *a, const float *b, float *c, int n);
/* 3. The same over block x block tiles, C accumulated tile by tile. */
void gemm_avx_blocked(const float *a, const float *b, float *c, int n, int block);
/* 4. The same with B transposed first, as the lab tried it. */
void gemm_avx_blocked_bt(const float *a, const float *b, float *c, int n, int block);
/* Instruction sets, detected at run time. */
enum isa { ISA_NONE, ISA_AVX2, ISA_AVX512 };
enum isa cpu_isa(void); /* the best this CPU has */

/* 5. Packed panels and a register-blocked micro-kernel (the GotoBLAS/BLIS loops);
 *    threads > 1 runs the loop over blocks of rows of C with OpenMP. isa: the micro-kernel's
 *    instruction set, ISA_NONE for the best this CPU has. */
void gemm_packed(const float *a, const float *b, float *c, int n, int threads, enum isa isa);
const char *packed_isa_name(enum isa isa); /* what gemm_packed runs with it: "avx512", "avx2" */

/* OpenBLAS's cblas_sgemm, the ceiling; 0 when the program was built without it. */
int have_openblas(void);
void gemm_openblas(const float *a, const float *b, float *c, int n, int threads);
const char *openblas_config_string(void);

#endif
