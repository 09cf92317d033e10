/* cuBLAS's error check (cublas_check.h): in a file of its own, so that only the programs that
 * call cuBLAS take it from the harness library, and with it libcublas. */
#include "cublas_check.h"
#include "exit_codes.h"
#include "gpu.h"

#include <stdio.h>
#include <stdlib.h>

void cublas_check(cublasStatus_t status, const char *what, const char *file, int line)
{
    if (status == CUBLAS_STATUS_SUCCESS)
        return;
    fprintf(stderr, "%s: cuBLAS error %s (%d) in %s at %s:%d (not a problem of the input: check the GPU "
            "with nvidia-smi)\n", gpu_program_name(), cublasGetStatusName(status), (int)status, what, file, line);
    exit(EXIT_CUDA_ERROR);
}
