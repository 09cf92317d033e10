/* wgmma, Hopper's warpgroup matrix multiply: the four consecutive warps of a warpgroup
 * (128 threads, the first warp's index a multiple of 4) multiply a 64 x 8 tile of A by an
 * 8 x N tile of B (TF32, N from 8 to 256) and add the product into a 64 x N FP32 tile held in
 * their registers, N / 2 floats per thread. A and B are read from shared memory through
 * matrix descriptors, and asynchronously: the warpgroup may issue several before any is done.
 *
 *   wgmma_fence();                         accumulators and shared memory ready for wgmma
 *   wgmma_m64n64k8_tf32(d, da, db, 0/1);   ... one or more, k-step after k-step
 *   wgmma_commit_group();                  the ones issued so far form a group
 *   wgmma_wait_group<0>();                 wait until at most 0 groups are in flight
 *
 * Between the fence and the wait, the accumulators belong to the tensor core: the code must
 * not read or write them (wgmma_fence_operand keeps the compiler from moving its own
 * accesses into that window). A warpgroup is four consecutive warps whose first has an index
 * that is a multiple of 4 (threads 128 w ... 128 w + 127): wgmma, like every .sync.aligned
 * instruction here, is issued by all 128 of its threads together, with the same operands.
 * TF32's k is 8: one instruction multiplies 8 columns of A by 8 rows of B (FP16's is 16).
 *
 * The accumulator fragment (the PTX ISA's figure for wgmma .m64nNk8, "register fragment
 * layout for accumulator matrix D", the same for every N; CUTLASS's CLayout_64xN agrees):
 * thread t of the warpgroup, w = t / 32 its warp, l = t % 32 its lane, holds in d[i]
 *     row = 16 w + l / 4 + 8 ((i / 2) % 2)        col = 8 (i / 4) + 2 (l % 4) + i % 2
 * so each warp owns 16 rows, and d[i], d[i + 1] (i even) are two neighbours in one row: for
 * each 8 columns, a 16 x 8 piece laid out as mma.sync's m16n8 accumulator (common/device/tf32_mma.h).
 *
 * wgmma and setmaxnreg exist only on sm_90a (the arch-specific target, -gencode
 * arch=compute_90a,code=sm_90a, which defines __CUDA_ARCH_FEAT_SM90_ALL): not on plain sm_90,
 * nor on Blackwell, which has tcgen05 instead. Every other target compiles the mma wrappers to
 * a trap that the harness never reaches (step_info.min_cc and the step's architectures), and
 * the fence, commit, wait and setmaxnreg to nothing. CUDA C, included by .cu files only. */
#ifndef WGMMA_H
#define WGMMA_H

#include <stdint.h>

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define WGMMA_AVAILABLE 1
#else
#define WGMMA_AVAILABLE 0
#endif

/* Order this warpgroup's earlier register and shared-memory accesses before the wgmma that
 * follow; needed before the first wgmma and whenever the accumulators (or A in registers)
 * were touched since. Shared memory written by ordinary stores also needs
 * fence_proxy_async_shared_cta (common/device/tma.h) in the writing threads; memory the TMA wrote
 * is ready once its mbarrier phase is seen complete. */
__device__ static __forceinline__ void wgmma_fence(void)
{
#if WGMMA_AVAILABLE
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#endif
}

/* Close a group: the wgmma issued since the previous commit. */
__device__ static __forceinline__ void wgmma_commit_group(void)
{
#if WGMMA_AVAILABLE
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
#endif
}

/* Wait until at most GROUPS committed groups are still running (0: all done; 1 lets the
 * latest group run on while the next tile is prepared). The count is part of the
 * instruction, an immediate: hence the template. */
template <int GROUPS>
__device__ static __forceinline__ void wgmma_wait_group(void)
{
    static_assert(GROUPS >= 0 && GROUPS <= 7, "wgmma_wait_group: 0 to 7 groups, the bound CUTLASS asserts");
#if WGMMA_AVAILABLE
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(GROUPS) : "memory");
#endif
}

/* Not an instruction: an empty asm that tells the compiler the value may change here, so
 * that it neither reads an accumulator before wgmma_wait_group nor moves a write to it past
 * wgmma_fence (the asm of a wgmma names its accumulators, the wait's does not: without this,
 * a read after the wait could legally be scheduled before it). Applied to each accumulator
 * after the wait, before it is read (steps 13 and 14), and before the fence where ordinary
 * code wrote it (tests/hopper_test.cu; the steps start each sum with scale-d 0 instead). */
__device__ static __forceinline__ void wgmma_fence_operand(float *r)
{
#if defined(__CUDA_ARCH__)
    asm volatile("" : "+f"(*r)::"memory");
#endif
}

/* The shared-memory matrix descriptor (PTX ISA, "Matrix Descriptor Format") for a K-major
 * tile stored as the TMA writes it with CU_TENSOR_MAP_SWIZZLE_128B: rows of 128 bytes (32
 * floats of k), one after the other, the 16-byte chunks of row r permuted by r % 8 (chunk j
 * stored at j ^ (r % 8)). Bits, in 16-byte units:
 *   0-13   start address >> 4: the tile's first row at this k-step's first column
 *   16-29  leading dimension byte offset: unused by K-major swizzled layouts, set to 1
 *   32-45  stride dimension byte offset: from one group of 8 rows to the next, 8 x 128 bytes
 *   49-51  base offset: 0, the swizzle pattern starting at a 1024-byte boundary
 *   62-63  swizzle mode: 1 = 128-byte
 * For the k-steps inside the 128-byte row, pass the address of column 8 s (s = 0...3, 32
 * bytes further each): the hardware applies the swizzle to the address it computes, so the
 * permuted chunks are found, as long as the tile itself starts at a 1024-byte boundary. */
__device__ static __forceinline__ uint64_t wgmma_desc_k_sw128(const void *tile)
{
    const uint64_t start = ((unsigned)__cvta_generic_to_shared(tile) & 0x3ffff) >> 4;
    const uint64_t leading = 1;
    const uint64_t stride = (8 * 128) >> 4;
    const uint64_t swizzle_128b = 1;
    return start | leading << 16 | stride << 32 | swizzle_128b << 62;
}

/* The accumulator operands, eight at a time, "+f": read when scale_d is 1, written always. */
#define WGMMA_D8(i) "+f"(d[(i) + 0]), "+f"(d[(i) + 1]), "+f"(d[(i) + 2]), "+f"(d[(i) + 3]), \
                    "+f"(d[(i) + 4]), "+f"(d[(i) + 5]), "+f"(d[(i) + 6]), "+f"(d[(i) + 7])
#define WGMMA_D32(i) WGMMA_D8((i) + 0), WGMMA_D8((i) + 8), WGMMA_D8((i) + 16), WGMMA_D8((i) + 24)

/* Their names in the instruction's text, %0 ... %127. */
#define WGMMA_REGS_0_31 \
    "%0, %1, %2, %3, %4, %5, %6, %7, " \
    "%8, %9, %10, %11, %12, %13, %14, %15, " \
    "%16, %17, %18, %19, %20, %21, %22, %23, " \
    "%24, %25, %26, %27, %28, %29, %30, %31"
#define WGMMA_REGS_32_63 \
    "%32, %33, %34, %35, %36, %37, %38, %39, " \
    "%40, %41, %42, %43, %44, %45, %46, %47, " \
    "%48, %49, %50, %51, %52, %53, %54, %55, " \
    "%56, %57, %58, %59, %60, %61, %62, %63"
#define WGMMA_REGS_64_127 \
    "%64, %65, %66, %67, %68, %69, %70, %71, " \
    "%72, %73, %74, %75, %76, %77, %78, %79, " \
    "%80, %81, %82, %83, %84, %85, %86, %87, " \
    "%88, %89, %90, %91, %92, %93, %94, %95, " \
    "%96, %97, %98, %99, %100, %101, %102, %103, " \
    "%104, %105, %106, %107, %108, %109, %110, %111, " \
    "%112, %113, %114, %115, %116, %117, %118, %119, " \
    "%120, %121, %122, %123, %124, %125, %126, %127"

/* d = a b + (scale_d ? d : 0) for a 64 x 8 tile of A and an 8 x N tile of B, both read from
 * shared memory through their descriptors. TF32 takes both operands K-major only (A's rows
 * and B's columns along k: B stored as Bt, N rows of k), so the instruction has no transpose
 * operands; the two 1s after the predicate are imm-scale-a and imm-scale-b (no negation).
 * scale_d = 0 on the first k-step starts the sum from zero without clearing d. The tensor
 * core reads the top 19 bits of each float (it truncates), multiplies exactly, cuts the nine
 * terms d, a_0 b_0 ... a_7 b_7 to a common grid 2^-25 below the largest exponent, and rounds
 * their sum toward zero: tests/tf32_model.h models it bit for bit, tests/tensor_core_arith.cu
 * measures it on the GPU. Issued by all 128 threads of the warpgroup with the same
 * descriptors. */
__device__ static __forceinline__ void wgmma_m64n64k8_tf32(float d[32], uint64_t desc_a, uint64_t desc_b,
                                                           int scale_d)
{
#if WGMMA_AVAILABLE
    asm volatile("{\n"
                 ".reg .pred p;\n"
                 "setp.ne.b32 p, %34, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 {" WGMMA_REGS_0_31 "}, %32, %33, p, 1, 1;\n"
                 "}\n"
                 : WGMMA_D32(0)
                 : "l"(desc_a), "l"(desc_b), "r"(scale_d)
                 : "memory");
#else
    __trap();
#endif
}

__device__ static __forceinline__ void wgmma_m64n128k8_tf32(float d[64], uint64_t desc_a, uint64_t desc_b,
                                                            int scale_d)
{
#if WGMMA_AVAILABLE
    asm volatile("{\n"
                 ".reg .pred p;\n"
                 "setp.ne.b32 p, %66, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 {" WGMMA_REGS_0_31 ", " WGMMA_REGS_32_63
                 "}, %64, %65, p, 1, 1;\n"
                 "}\n"
                 : WGMMA_D32(0), WGMMA_D32(32)
                 : "l"(desc_a), "l"(desc_b), "r"(scale_d)
                 : "memory");
#else
    __trap();
#endif
}

__device__ static __forceinline__ void wgmma_m64n256k8_tf32(float d[128], uint64_t desc_a, uint64_t desc_b,
                                                            int scale_d)
{
#if WGMMA_AVAILABLE
    asm volatile("{\n"
                 ".reg .pred p;\n"
                 "setp.ne.b32 p, %130, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 {" WGMMA_REGS_0_31 ", " WGMMA_REGS_32_63
                 ", " WGMMA_REGS_64_127 "}, %128, %129, p, 1, 1;\n"
                 "}\n"
                 : WGMMA_D32(0), WGMMA_D32(32), WGMMA_D32(64), WGMMA_D32(96)
                 : "l"(desc_a), "l"(desc_b), "r"(scale_d)
                 : "memory");
#else
    __trap();
#endif
}

/* The register-source form: A from registers, B from shared memory as above. Each thread
 * holds its share of the 64 x 8 tile of A, four TF32 values (the PTX ISA's "register fragment
 * layout for matrix A", .tf32; CUTLASS's ALayout_64x8): thread t, w = t / 32, l = t % 32,
 *     a[v]: row = 16 w + l / 4 + 8 (v % 2)        col (k) = l % 4 + 4 (v / 2)
 * so a thread can build its operand itself (split it, scale it) between shared memory and
 * the tensor core. The registers are read asynchronously too: ptxas keeps them unchanged
 * until the wgmma_wait_group that covers the instruction. */
__device__ static __forceinline__ void wgmma_m64n64k8_tf32_rs(float d[32], const uint32_t a[4], uint64_t desc_b,
                                                              int scale_d)
{
#if WGMMA_AVAILABLE
    asm volatile("{\n"
                 ".reg .pred p;\n"
                 "setp.ne.b32 p, %37, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 {" WGMMA_REGS_0_31 "}, {%32, %33, %34, %35}, "
                 "%36, p, 1, 1;\n"
                 "}\n"
                 : WGMMA_D32(0)
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(scale_d)
                 : "memory");
#else
    __trap();
#endif
}

__device__ static __forceinline__ void wgmma_m64n128k8_tf32_rs(float d[64], const uint32_t a[4], uint64_t desc_b,
                                                               int scale_d)
{
#if WGMMA_AVAILABLE
    asm volatile("{\n"
                 ".reg .pred p;\n"
                 "setp.ne.b32 p, %69, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 {" WGMMA_REGS_0_31 ", " WGMMA_REGS_32_63
                 "}, {%64, %65, %66, %67}, %68, p, 1, 1;\n"
                 "}\n"
                 : WGMMA_D32(0), WGMMA_D32(32)
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(scale_d)
                 : "memory");
#else
    __trap();
#endif
}

__device__ static __forceinline__ void wgmma_m64n256k8_tf32_rs(float d[128], const uint32_t a[4], uint64_t desc_b,
                                                               int scale_d)
{
#if WGMMA_AVAILABLE
    asm volatile("{\n"
                 ".reg .pred p;\n"
                 "setp.ne.b32 p, %133, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 {" WGMMA_REGS_0_31 ", " WGMMA_REGS_32_63
                 ", " WGMMA_REGS_64_127 "}, {%128, %129, %130, %131}, %132, p, 1, 1;\n"
                 "}\n"
                 : WGMMA_D32(0), WGMMA_D32(32), WGMMA_D32(64), WGMMA_D32(96)
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(scale_d)
                 : "memory");
#else
    __trap();
#endif
}

/* The integer form: d = a b + (scale_d ? d : 0) for a 64 x 32 tile of A and a 32 x N tile of
 * B, signed bytes (.s8) from shared memory through their descriptors, into signed 32-bit sums
 * in the accumulators' usual layout (above). k is 32: a byte is a quarter of a TF32 word, so
 * one k-step still spans 32 bytes of each 128-byte row, and the descriptor advances by the
 * same 2 (16-byte units) per step. Both operands K-major only; no negation or scale operands.
 * Every product and every sum is exact as long as the sum fits 32 bits (k 128^2 < 2^31). */
#define WGMMA_I8(i) "+r"(d[(i) + 0]), "+r"(d[(i) + 1]), "+r"(d[(i) + 2]), "+r"(d[(i) + 3]), \
                    "+r"(d[(i) + 4]), "+r"(d[(i) + 5]), "+r"(d[(i) + 6]), "+r"(d[(i) + 7])
#define WGMMA_I32(i) WGMMA_I8((i) + 0), WGMMA_I8((i) + 8), WGMMA_I8((i) + 16), WGMMA_I8((i) + 24)

__device__ static __forceinline__ void wgmma_m64n128k32_s8(int d[64], uint64_t desc_a, uint64_t desc_b, int scale_d)
{
#if WGMMA_AVAILABLE
    asm volatile("{\n"
                 ".reg .pred p;\n"
                 "setp.ne.b32 p, %66, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n128k32.s32.s8.s8 {" WGMMA_REGS_0_31 ", " WGMMA_REGS_32_63
                 "}, %64, %65, p;\n"
                 "}\n"
                 : WGMMA_I32(0), WGMMA_I32(32)
                 : "l"(desc_a), "l"(desc_b), "r"(scale_d)
                 : "memory");
#else
    __trap();
#endif
}

__device__ static __forceinline__ void wgmma_m64n256k32_s8(int d[128], uint64_t desc_a, uint64_t desc_b, int scale_d)
{
#if WGMMA_AVAILABLE
    asm volatile("{\n"
                 ".reg .pred p;\n"
                 "setp.ne.b32 p, %130, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n256k32.s32.s8.s8 {" WGMMA_REGS_0_31 ", " WGMMA_REGS_32_63
                 ", " WGMMA_REGS_64_127 "}, %128, %129, p;\n"
                 "}\n"
                 : WGMMA_I32(0), WGMMA_I32(32), WGMMA_I32(64), WGMMA_I32(96)
                 : "l"(desc_a), "l"(desc_b), "r"(scale_d)
                 : "memory");
#else
    __trap();
#endif
}

/* wgmma_fence_operand for an integer accumulator. */
__device__ static __forceinline__ void wgmma_fence_operand_int(int *r)
{
#if defined(__CUDA_ARCH__)
    asm volatile("" : "+r"(*r)::"memory");
#endif
}

#undef WGMMA_I8
#undef WGMMA_I32
#undef WGMMA_D8
#undef WGMMA_D32
#undef WGMMA_REGS_0_31
#undef WGMMA_REGS_32_63
#undef WGMMA_REGS_64_127

/* Warp specialisation: a warpgroup that only issues copies needs few registers, one that
 * holds accumulators many. setmaxnreg moves registers between the warps of a block: dec
 * gives this warpgroup's above REGS back to the block's pool, inc waits until the pool can
 * raise it to REGS. REGS is per thread, 24 to 256 in steps of 8, an immediate. All warps of
 * the warpgroup execute the same one; it takes effect only when the kernel's register count
 * at entry is fixed (__launch_bounds__ with its minimum blocks, or -maxrregcount), else the
 * compiler ignores it with warning C7508. An inc can only take what decs released: keep
 * the increases no larger than the decreases, or the inc waits for ever. */
template <int REGS>
__device__ static __forceinline__ void setmaxnreg_inc(void)
{
    static_assert(REGS >= 24 && REGS <= 256 && REGS % 8 == 0, "setmaxnreg: 24 to 256 registers, a multiple of 8");
#if WGMMA_AVAILABLE
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(REGS));
#endif
}

template <int REGS>
__device__ static __forceinline__ void setmaxnreg_dec(void)
{
    static_assert(REGS >= 24 && REGS <= 256 && REGS % 8 == 0, "setmaxnreg: 24 to 256 registers, a multiple of 8");
#if WGMMA_AVAILABLE
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(REGS));
#endif
}

#endif
