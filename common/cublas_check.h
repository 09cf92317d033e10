/* cuBLAS's errors, checked like CUDA's (gpu.h's CUDA_CHECK): one line naming the call and
 * the error, exit EXIT_CUDA_ERROR. For the programs that call cuBLAS (the ceiling, the
 * multi-GPU chapter); the others never link it. */
#ifndef CUBLAS_CHECK_H
#define CUBLAS_CHECK_H

#include <cublas_api.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CUBLAS_CHECK(call) cublas_check((call), #call, __FILE__, __LINE__)
void cublas_check(cublasStatus_t status, const char *what, const char *file, int line);

#ifdef __cplusplus
}
#endif
#endif
