/* Thread block clusters (sm_90): the CTAs of a cluster run at once on neighbouring SMs and can
 * reach one another's shared memory. This header: a CTA's rank in its cluster, the cluster-wide
 * barrier, and an arrive on an mbarrier in another CTA's shared memory. CUDA C, included by .cu
 * files only. */
#ifndef CLUSTER_H
#define CLUSTER_H

#include <stdint.h>

/* This CTA's rank in its cluster, 0 ... cluster size - 1 (0 for a launch without clusters). */
__device__ static __forceinline__ unsigned cluster_ctarank(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    unsigned rank;
    asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(rank));
    return rank;
#else
    __trap();
    return 0;
#endif
}

/* Every thread of every CTA in the cluster meets here (release, then acquire): what each wrote
 * before, its mbarriers' initialisation included, is visible to all after. Every thread runs it,
 * the whole warp together (.aligned). */
__device__ static __forceinline__ void cluster_sync(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("barrier.cluster.arrive.release.aligned;\n"
                 "barrier.cluster.wait.acquire.aligned;\n" ::: "memory");
#else
    __trap();
#endif
}

/* Arrive on the mbarrier at the same shared-memory offset as bar in the CTA of rank cta (this
 * one's own included): mapa turns the local address into that CTA's. The arrive's default
 * semantics (release, at the CTA's scope) are what a consumer's "done reading this stage" needs,
 * as CUTLASS's cluster pipelines use it: the stage is read by the async proxy (wgmma), already
 * waited for, and only the other CTA's copy engine writes it next. */
__device__ static __forceinline__ void mbarrier_arrive_cluster(uint64_t *bar, unsigned cta)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("{\n"
                 ".reg .b32 remote;\n"
                 "mapa.shared::cluster.u32 remote, %0, %1;\n"
                 "mbarrier.arrive.shared::cluster.b64 _, [remote];\n"
                 "}\n" ::"r"((unsigned)__cvta_generic_to_shared(bar)),
                 "r"(cta)
                 : "memory");
#else
    __trap();
#endif
}

#endif
