/* The ceiling: cuBLAS SGEMM in its default math mode (FP32 arithmetic, no TF32),
 * with the same harness, options and output as the steps. */
#include "step.h"

#include <cublas_v2.h>
#include <stdio.h>
#include <stdlib.h>

const struct step_info step_info = {"cublas", "cuBLAS SGEMM (FP32, default math): the ceiling", 0, NULL};

static void cublas_check(cublasStatus_t status, const char *what, int line)
{
    if (status == CUBLAS_STATUS_SUCCESS)
        return;
    fprintf(stderr, "cuBLAS error %s (%d) in %s at %s:%d\n", cublasGetStatusName(status), (int)status,
            what, __FILE__, line);
    exit(EXIT_NO_GPU);
}
#define CUBLAS_CHECK(call) cublas_check((call), #call, __LINE__)

/* Created once, in the warm-up pass, so that no timed pass pays for it. */
static cublasHandle_t handle;

static void launch(const struct dev_mats *m)
{
    const float one = 1.0f, zero = 0.0f;
    /* cuBLAS is column-major: a row-major matrix is its transpose. Row-major
     * C = A B is column-major C^T = B^T A^T, so pass B first, then A. */
    CUBLAS_CHECK(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, m->n, m->n, m->n, &one, m->b, (int)m->ldb,
                             m->a, (int)m->lda, &zero, m->c, (int)m->ldc));
}

void matmult_gpu(const float *a, int lda, const float *b, int ldb, float *c, int ldc, int n,
                 int kernel_reps, struct gpu_run *run)
{
    float *ac, *bc, *cc;
    const size_t row_bytes = sizeof(float) * n;
    struct phase_clock clock;

    if (!handle) {
        CUBLAS_CHECK(cublasCreate(&handle));
        /* The default: FP32 arithmetic. TF32 would have to be asked for. */
        CUBLAS_CHECK(cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH));
    }

    phase_start(&clock);
    CUDA_CHECK(cudaMalloc((void **)&ac, row_bytes * n));
    CUDA_CHECK(cudaMalloc((void **)&bc, row_bytes * n));
    CUDA_CHECK(cudaMalloc((void **)&cc, row_bytes * n));
    CUDA_CHECK(cudaMemset(cc, POISON_BYTE, row_bytes * n)); /* harness: catch unwritten elements */
    run->alloc_ms = phase_lap(&clock);

    CUDA_CHECK(cudaMemcpy2D(ac, row_bytes, a, sizeof(float) * lda, row_bytes, n, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy2D(bc, row_bytes, b, sizeof(float) * ldb, row_bytes, n, cudaMemcpyHostToDevice));
    run->h2d_ms = phase_lap(&clock);

    const struct dev_mats m = {ac, (size_t)n, bc, (size_t)n, cc, (size_t)n, n};
    launch(&m);
    CUDA_CHECK_LAUNCH();
    run->kernel_ms = phase_lap(&clock);

    CUDA_CHECK(cudaMemcpy2D(c, sizeof(float) * ldc, cc, row_bytes, row_bytes, n, cudaMemcpyDeviceToHost));
    run->d2h_ms = phase_lap(&clock);

    run->kernel_median_ms = time_kernel(launch, &m, kernel_reps); /* outside the end-to-end time */

    phase_start(&clock);
    CUDA_CHECK(cudaFree(ac));
    CUDA_CHECK(cudaFree(bc));
    CUDA_CHECK(cudaFree(cc));
    run->free_ms = phase_lap(&clock);
}
