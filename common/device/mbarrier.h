/* The mbarrier, the shared-memory barrier that TMA copies (common/device/tma.h) complete on: a
 * 64-bit object in shared memory that counts arrivals of threads and, since Hopper, bytes
 * of transactions (the tx-count). A phase completes when the expected number of threads
 * have arrived and every byte announced with expect_tx has landed; the barrier then starts
 * the next phase by itself. Waiters name the phase by its parity: 0 for the first phase, 1
 * for the second, 0 again for the third, so a pipeline stage used once per k-tile waits on
 * (k-tile / stages) % 2.
 *
 * The usual pattern: one thread runs mbarrier_init and fence_mbarrier_init, then
 * __syncthreads(); the producer thread calls mbarrier_arrive_expect_tx with the bytes of the
 * copies it is about to issue and issues them; the consumers call mbarrier_wait_parity.
 *
 * One wrapper per instruction; the barrier is passed as a pointer to shared memory and
 * reaches the instruction as its 32-bit shared-memory address. These instructions exist on
 * every target from compute capability 9.0 (plain sm_90 too), so they are guarded by
 * __CUDA_ARCH__ >= 900; older targets compile them to a trap that the harness never reaches
 * (step_info.min_cc), as common/device/cp_async.h does, and the fence to nothing. CUDA C, included
 * by .cu files only. */
#ifndef MBARRIER_H
#define MBARRIER_H

#include <stdint.h>

/* Set the barrier up for its first phase, expecting `count` arrivals per phase. Once, by
 * one thread, before any other use. (bar: 8-byte aligned shared memory.) */
__device__ static __forceinline__ void mbarrier_init(uint64_t *bar, unsigned count)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"((unsigned)__cvta_generic_to_shared(bar)),
                 "r"(count)
                 : "memory");
#else
    __trap();
#endif
}

/* Make the initialisation visible (release, at cluster scope) before the barrier is used by
 * other threads or the copy engine; run by the initialising thread, followed by a
 * __syncthreads() (or a cluster barrier) that the users pass. */
__device__ static __forceinline__ void fence_mbarrier_init(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
#endif
}

/* One arrival of this thread on the current phase (release: its earlier writes are visible
 * to the threads that see the phase complete). The state the instruction returns is
 * discarded (_): waiters use the parity instead. */
__device__ static __forceinline__ void mbarrier_arrive(uint64_t *bar)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"((unsigned)__cvta_generic_to_shared(bar))
                 : "memory");
#else
    __trap();
#endif
}

/* Announce `bytes` more bytes of copies for the current phase, then arrive: the phase
 * cannot complete before the copies' complete_tx has counted them all. The producer calls
 * it before issuing the copies; bytes are the whole boxes, also where the copy fills
 * elements past the matrix's edge with zeros. */
__device__ static __forceinline__ void mbarrier_arrive_expect_tx(uint64_t *bar, unsigned bytes)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(
                     (unsigned)__cvta_generic_to_shared(bar)),
                 "r"(bytes)
                 : "memory");
#else
    __trap();
#endif
}

/* Has the phase of this parity completed? 1 if so (acquire: what the arriving threads and
 * the copies wrote is visible to this thread), 0 if not yet; the hardware may suspend the
 * thread a while before answering 0, so a loop over it does not spin hot. Valid for the
 * current phase and the one before it only. */
__device__ static __forceinline__ int mbarrier_try_wait_parity(uint64_t *bar, unsigned parity)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    unsigned done;
    asm volatile("{\n"
                 ".reg .pred p;\n"
                 "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                 "selp.u32 %0, 1, 0, p;\n"
                 "}\n"
                 : "=r"(done)
                 : "r"((unsigned)__cvta_generic_to_shared(bar)), "r"(parity)
                 : "memory");
    return (int)done;
#else
    __trap();
    return 1;
#endif
}

/* Wait until the phase of this parity has completed. Not an instruction of its own: the
 * loop over try_wait that every user writes. */
__device__ static __forceinline__ void mbarrier_wait_parity(uint64_t *bar, unsigned parity)
{
    while (!mbarrier_try_wait_parity(bar, parity)) {
    }
}

#endif
