/* The helpers every multi-GPU algorithm shares: NCCL's errors, the parts of a split, the local
 * product, allocation and block copies. */
#include "cluster.h"

void nccl_check(ncclResult_t r, const char *what, const char *file, int line)
{
    if (r == ncclSuccess)
        return;
    fprintf(stderr, "multigpu: %s failed at %s:%d: %s\n", what, file, line, ncclGetErrorString(r));
    exit(EXIT_CUDA_ERROR);
}

/* Row-major C = A B is column-major C^T = B^T A^T: B first, the sizes swapped. A row-major A is
 * A^T column-major as it lies (a_op N); a k-major A is read transposed (a_op T). */
static void gemm(struct cluster *cl, int g, cublasOperation_t a_op, long m, long n, long k, const float *a, long lda,
                 const float *b, long ldb, float beta, float *c, long ldc)
{
    if (m == 0 || n == 0 || k == 0)
        return;
    const float one = 1.0f;
    CUBLAS_CHECK(cublasSgemm_64(cl->blas[g], CUBLAS_OP_N, a_op, n, m, k, &one, b, ldb, a, lda, &beta, c, ldc));
}

void local_gemm(struct cluster *cl, int g, long m, long n, long k, const float *a, long lda, const float *b,
                long ldb, float beta, float *c, long ldc)
{
    gemm(cl, g, CUBLAS_OP_N, m, n, k, a, lda, b, ldb, beta, c, ldc);
}

void local_gemm_kmajor(struct cluster *cl, int g, long m, long n, long k, const float *a, long lda, const float *b,
                       long ldb, float beta, float *c, long ldc)
{
    gemm(cl, g, CUBLAS_OP_T, m, n, k, a, lda, b, ldb, beta, c, ldc);
}

int trace_begin(struct cluster *cl, int g, cudaStream_t stream, const char *what, int index)
{
    struct trace *t = cl->trace[g];
    if (!t)
        return -1;
    if (t->spans == TRACE_SPANS) {
        t->dropped++;
        return -1;
    }
    struct trace_span *s = &t->span[t->spans];
    s->what = what;
    s->index = index;
    CUDA_CHECK(cudaEventCreate(&s->begin));
    CUDA_CHECK(cudaEventCreate(&s->end));
    CUDA_CHECK(cudaEventRecord(s->begin, stream));
    return t->spans++;
}

void trace_end(struct cluster *cl, int g, cudaStream_t stream, int span)
{
    if (span >= 0)
        CUDA_CHECK(cudaEventRecord(cl->trace[g]->span[span].end, stream));
}

void *device_alloc(size_t bytes)
{
    void *p = NULL;
    if (bytes == 0)
        return NULL;
    cudaError_t err = cudaMalloc(&p, bytes);
    if (err == cudaErrorMemoryAllocation) {
        int dev = 0;
        cudaGetDevice(&dev);
        fprintf(stderr, "multigpu: GPU %d has no room for %.2f GB more\n", dev, bytes / 1e9);
        exit(EXIT_USAGE);
    }
    CUDA_CHECK(err);
    return p;
}

void copy_block(float *dst, long ld_dst, const float *src, long ld_src, long rows, long cols,
                enum cudaMemcpyKind kind, cudaStream_t stream)
{
    if (rows == 0 || cols == 0)
        return;
    CUDA_CHECK(cudaMemcpy2DAsync(dst, sizeof(float) * (size_t)ld_dst, src, sizeof(float) * (size_t)ld_src,
                                 sizeof(float) * (size_t)cols, (size_t)rows, kind, stream));
}
