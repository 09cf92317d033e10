/* cp.async, step 10's lesson, shared by the steps that pipeline their loads (10-12): copy
 * global to shared memory without passing through registers; the copies of one commit
 * group complete together, and wait_group N waits until at most N groups are still in
 * flight. The instruction exists from compute capability 8.0: the sm_75 build still
 * compiles these steps, but the harness never launches them there (step_info.min_cc),
 * and a launch by mistake would stop at the trap. CUDA C, included by .cu files only. */
#ifndef CP_ASYNC_H
#define CP_ASYNC_H

__device__ static inline void cp_async4(float *dst, const float *src)
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"((unsigned)__cvta_generic_to_shared(dst)),
                 "l"(src));
#else
    __trap();
#endif
}
__device__ static inline void cp_async16(float *dst, const float *src)
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"((unsigned)__cvta_generic_to_shared(dst)),
                 "l"(src));
#else
    __trap();
#endif
}
__device__ static inline void cp_async_commit(void)
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::);
#endif
}
template <int GROUPS>
__device__ static inline void cp_async_wait(void)
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;\n" ::"n"(GROUPS));
#endif
}

#endif
