/* The tensor memory accelerator (TMA), Hopper's copy engine for tiles: the host describes a
 * matrix once (a tensor map: address, sizes, row stride, the box to copy, the shared-memory
 * swizzle), and one thread of a block asks for a box at given coordinates with one
 * instruction; the engine copies it to shared memory, writes zeros where the box reaches
 * past the matrix, and counts the bytes it delivered on an mbarrier (common/device/mbarrier.h),
 * which the threads that need the tile wait on.
 *
 * Host part (C, also includable from a .c file compiled by gcc): tma_encode_2d builds the
 * map (tma_encode_2d_f32 for the bits as they are, tma_encode_2d_tf32 rounding to TF32,
 * tma_encode_2d_i8 for bytes). It
 * asks the runtime for the driver's cuTensorMapEncodeTiled (cudaGetDriverEntryPoint-
 * ByVersion), so no -lcuda is needed; cuda.h and cudaTypedefs.h are included for the types.
 * Device part (.cu only): the copy, the tensor-map prefetch, and the proxy fence. These
 * instructions exist from compute capability 9.0 on every target (plain sm_90 too, not only
 * sm_90a), so they are guarded by __CUDA_ARCH__ >= 900; older targets compile them to a trap
 * the harness never reaches (step_info.min_cc), as common/device/cp_async.h does, and the fence to
 * nothing. */
#ifndef TMA_H
#define TMA_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>

#if CUDART_VERSION < 12000
#error "common/device/tma.h needs CUDA 12.0 or newer (tensor maps)"
#endif

/* The bytes of one element of the types used here: 1 for UINT8 (INT8 data copied as it is), 4 for
 * FLOAT32 and TFLOAT32. */
static inline size_t tma_element_bytes(CUtensorMapDataType type)
{
    return type == CU_TENSOR_MAP_DATA_TYPE_UINT8 ? 1 : 4;
}

/* Describe a rows x cols row-major matrix of the type's elements (leading dimension ld
 * elements, ld >= cols), read as type (FLOAT32; TFLOAT32 to round each element to TF32 in the
 * copy; UINT8 for bytes, INT8 included), for copies of box_rows x box_cols boxes into shared
 * memory laid out with the given swizzle. Elements of a box outside the matrix arrive as
 * zeros. The TMA's rules, checked here so that the message can say which one failed: base
 * 16-byte aligned, a row (ld elements) a multiple of 16 bytes, a box row a multiple of 16
 * bytes and, when swizzled, no wider than the swizzle span (128 bytes = 32 floats or 128 bytes
 * for CU_TENSOR_MAP_SWIZZLE_128B), each box side 1...256.
 * Returns cudaSuccess, or an error without exiting: the caller decides (CUDA_CHECK in the
 * steps, common/gpu.h); when why is not NULL it receives one line saying what went wrong.
 * Call it once a context exists (gpu_open makes one), in a step's setup (common/step.h): it
 * asks the driver for the function at every call, and keeps nothing. The map is then passed
 * to the kernel by value, as a `const __grid_constant__ CUtensorMap` parameter. */
static inline cudaError_t tma_encode_2d(CUtensorMap *map, CUtensorMapDataType type, const void *base, uint64_t rows,
                                        uint64_t cols, uint64_t ld, uint32_t box_rows, uint32_t box_cols,
                                        CUtensorMapSwizzle swizzle, char *why, size_t why_size)
{
    char scratch[8];
    if (!why || !why_size) {
        why = scratch;
        why_size = sizeof scratch;
    }
    why[0] = '\0';

    const uint64_t span = swizzle == CU_TENSOR_MAP_SWIZZLE_NONE ? 0
                        : swizzle == CU_TENSOR_MAP_SWIZZLE_32B  ? 32
                        : swizzle == CU_TENSOR_MAP_SWIZZLE_64B  ? 64 : 128;
    const size_t bytes = tma_element_bytes(type);
    if ((uintptr_t)map % 64 || (uintptr_t)base % 16 || rows < 1 || cols < 1 || ld < cols || ld * bytes % 16
        || box_rows < 1 || box_rows > 256 || box_cols < 1 || box_cols > 256 || box_cols * bytes % 16
        || (span && box_cols * bytes > span)) {
        snprintf(why, why_size, "tensor map for a %llu x %llu matrix (ld %llu elements of %zu bytes, at %p) "
                 "in %u x %u boxes, "
                 "swizzle %llu bytes: the TMA needs the map 64-byte and the matrix 16-byte aligned, ld >= cols, "
                 "rows of a multiple of 16 bytes, box sides 1...256, box rows of a multiple of 16 bytes and no "
                 "wider than the swizzle", (unsigned long long)rows, (unsigned long long)cols,
                 (unsigned long long)ld, bytes, base, box_rows, box_cols, (unsigned long long)span);
        return cudaErrorInvalidValue;
    }

    void *fn = NULL;
    enum cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
    /* The function as CUDA 12.0 defined it, the version its typedef names. */
#if CUDART_VERSION >= 12050
    cudaError_t err = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault,
                                                       &found);
#else
    cudaError_t err = cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", &fn, cudaEnableDefault, &found);
#endif
    if (err != cudaSuccess) {
        snprintf(why, why_size, "looking up cuTensorMapEncodeTiled in the driver: %s", cudaGetErrorString(err));
        return err;
    }
    if (found != cudaDriverEntryPointSuccess || !fn) {
        snprintf(why, why_size, "the NVIDIA driver has no cuTensorMapEncodeTiled (CUDA 12.0 or newer): "
                 "install a newer driver");
        return found == cudaDriverEntryPointVersionNotSufficent ? cudaErrorCallRequiresNewerDriver
                                                                : cudaErrorSymbolNotFound;
    }
    const PFN_cuTensorMapEncodeTiled_v12000 encode = (PFN_cuTensorMapEncodeTiled_v12000)fn;

    /* The TMA counts dimensions from the innermost: 0 is the column, 1 the row. The stride
     * of dimension 0 is the element itself; only the row stride is given, in bytes. */
    const cuuint64_t dims[2] = {cols, rows};
    const cuuint64_t strides[1] = {ld * bytes};
    const cuuint32_t box[2] = {box_cols, box_rows};
    const cuuint32_t steps[2] = {1, 1};
    /* OOB_FILL_NONE means zeros (the other choice is a NaN). */
    CUresult r = encode(map, type, 2, (void *)base, dims, strides, box, steps,
                        CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                        CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) {
        snprintf(why, why_size, "cuTensorMapEncodeTiled refused a %llu x %llu matrix (ld %llu) in %u x %u boxes: "
                 "CUresult %d", (unsigned long long)rows, (unsigned long long)cols, (unsigned long long)ld, box_rows,
                 box_cols, (int)r);
        return r == CUDA_ERROR_NOT_INITIALIZED || r == CUDA_ERROR_INVALID_CONTEXT ? cudaErrorInitializationError
                                                                                 : cudaErrorInvalidValue;
    }
    return cudaSuccess;
}

/* FLOAT32: the bits arrive unchanged (a tensor core reading them as TF32 keeps the top 19 of
 * each: it truncates). */
static inline cudaError_t tma_encode_2d_f32(CUtensorMap *map, const float *base, uint64_t rows, uint64_t cols,
                                            uint64_t ld, uint32_t box_rows, uint32_t box_cols,
                                            CUtensorMapSwizzle swizzle, char *why, size_t why_size)
{
    return tma_encode_2d(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, base, rows, cols, ld, box_rows, box_cols, swizzle,
                         why, why_size);
}

/* TFLOAT32: the copy engine rounds each float to TF32 on its way into shared memory, to
 * nearest with ties to even, as cvt.rn.tf32.f32 does (tests/tensor_core_arith.cu measures
 * it; floats from 0x7f7ff000 up round to Inf), so a tensor core reads rounded values. */
static inline cudaError_t tma_encode_2d_tf32(CUtensorMap *map, const float *base, uint64_t rows, uint64_t cols,
                                             uint64_t ld, uint32_t box_rows, uint32_t box_cols,
                                             CUtensorMapSwizzle swizzle, char *why, size_t why_size)
{
    return tma_encode_2d(map, CU_TENSOR_MAP_DATA_TYPE_TFLOAT32, base, rows, cols, ld, box_rows, box_cols, swizzle,
                         why, why_size);
}

/* UINT8: bytes as they are; INT8 matrices travel so (the copy does not look at the values). */
static inline cudaError_t tma_encode_2d_i8(CUtensorMap *map, const int8_t *base, uint64_t rows, uint64_t cols,
                                           uint64_t ld, uint32_t box_rows, uint32_t box_cols,
                                           CUtensorMapSwizzle swizzle, char *why, size_t why_size)
{
    return tma_encode_2d(map, CU_TENSOR_MAP_DATA_TYPE_UINT8, base, rows, cols, ld, box_rows, box_cols, swizzle, why,
                         why_size);
}

#ifdef __CUDACC__

/* Copy the box whose top-left element is at (row, col) of the map's matrix into shared
 * memory at dst (1024-byte aligned for the 128-byte swizzle, so that the pattern starts
 * where wgmma expects it), and count its bytes on the mbarrier bar when they have landed
 * (complete_tx). Issued by one thread; dst and bar as 32-bit shared-memory addresses. The
 * destination state space is written .shared::cluster, which every sm_90 toolkit accepts; a
 * block launched without a cluster is a cluster of one, so its own address is the right one.
 * Coordinates go innermost first: the column, then the row. */
__device__ static __forceinline__ void cp_async_bulk_tensor_2d_global_to_shared(void *dst, const CUtensorMap *map,
                                                                                int row, int col, uint64_t *bar)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], "
                 "[%4];\n" ::"r"((unsigned)__cvta_generic_to_shared(dst)),
                 "l"((uint64_t)map), "r"(col), "r"(row), "r"((unsigned)__cvta_generic_to_shared(bar))
                 : "memory");
#else
    __trap();
#endif
}

/* The same copy, multicast: the box lands at dst in every CTA of the cluster whose bit is set in
 * cta_mask, and each of them counts its bytes on its own mbarrier at bar's offset. Tiles that
 * neighbouring CTAs both need are read from L2 once. */
__device__ static __forceinline__ void cp_async_bulk_tensor_2d_global_to_shared_multicast(void *dst, const CUtensorMap *map,
                                                                                          int row, int col, uint64_t *bar,
                                                                                          uint16_t cta_mask)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster "
                 "[%0], [%1, {%2, %3}], [%4], %5;\n" ::"r"((unsigned)__cvta_generic_to_shared(dst)),
                 "l"((uint64_t)map), "r"(col), "r"(row), "r"((unsigned)__cvta_generic_to_shared(bar)), "h"(cta_mask)
                 : "memory");
#else
    __trap();
#endif
}

/* Fetch the tensor map (a kernel parameter, in global memory behind it) into the copy
 * engine's cache ahead of the first copy; a hint only. */
__device__ static __forceinline__ void prefetch_tensormap(const CUtensorMap *map)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("prefetch.tensormap [%0];\n" ::"l"((uint64_t)map) : "memory");
#endif
}

/* Ordinary loads and stores (the generic proxy) and the TMA and wgmma (the async proxy) see
 * shared memory through different paths. A thread that wrote shared memory with ordinary
 * stores that the TMA will overwrite, or wgmma will read, runs this fence before the barrier
 * that hands the memory over. (The mbarrier itself the TMA reaches through the generic
 * proxy: its initialisation needs fence_mbarrier_init, common/device/mbarrier.h, not this.) */
__device__ static __forceinline__ void fence_proxy_async_shared_cta(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
#endif
}

#endif /* __CUDACC__ */
#endif
