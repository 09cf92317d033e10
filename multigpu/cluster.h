/* The multi-GPU chapter's shared part: the GPUs of one host driven by one process, one
 * OpenMP thread per GPU (thread g drives GPU g), NCCL between them, cuBLAS on each.
 * Each way of splitting the product (rows.c, summa.c, cublasmp.c) is an algorithm: it
 * places its blocks of A and B on the GPUs, multiplies, and hands its blocks of C back.
 * Plain C11 host code: NCCL and cuBLAS are C libraries, and no kernel of our own is needed. */
#ifndef CLUSTER_H
#define CLUSTER_H

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <cublas_v2.h>
#include <nccl.h>

#include "cublas_check.h"
#include "exit_codes.h"
#include "gpu.h"
#include "matrix.h"
#include "partition.h"

#define MAX_GPUS 16

/* NCCL's errors, like CUDA_CHECK's: one line, exit EXIT_CUDA_ERROR (cuBLAS's: CUBLAS_CHECK,
 * common/cublas_check.h). */
#define NCCL_CHECK(call) nccl_check((call), #call, __FILE__, __LINE__)
void nccl_check(ncclResult_t r, const char *what, const char *file, int line);

/* One run traced (--trace): each GPU's operations as spans between two timed events, read
 * against an event recorded on its stream before the run (trace_begin, trace_end). */
#define TRACE_SPANS 64
struct trace_span {
    const char *what;
    int index;
    cudaEvent_t begin, end;
};
struct trace {
    cudaEvent_t zero;
    int spans;
    int dropped; /* spans past TRACE_SPANS, not recorded (the run says how many) */
    struct trace_span span[TRACE_SPANS];
};

struct cluster {
    int gpus;                   /* how many GPUs take part, 0 .. gpus - 1 */
    int prow, pcol;             /* the process grid of the 2-D algorithms: prow x pcol = gpus */
    long n;
    long panel;                 /* SUMMA's panel width, cuBLASMp's block size */
    int tf32;                   /* 1: the local products on TF32 tensor cores (--local tf32) */
    int copy_engines;           /* 1: SUMMA's panels sent by cudaMemcpyPeerAsync (--comm copy), not NCCL */
    struct trace *trace[MAX_GPUS]; /* NULL but in the one traced run */
    ncclComm_t world[MAX_GPUS]; /* all GPUs, rank g on GPU g */
    cudaStream_t stream[MAX_GPUS];
    cublasHandle_t blas[MAX_GPUS];
    /* GPU g's own struct for the algorithm running (its blocks, communicators, events: its
     * state_bytes), zeroed; the driver allocates every GPU's before setup and frees them after
     * teardown, so an algorithm keeps nothing between runs and a GPU may read its peers'. */
    void *state[MAX_GPUS];
};


/* What to run: the communication, the local products, or both (the algorithm itself).
 * The first two alone tell how much of the time each takes and how much overlap hid. */
enum run_parts { RUN_COMM = 1, RUN_GEMM = 2, RUN_ALL = 3 };

struct algorithm {
    const char *name; /* what --algo takes */
    const char *what; /* one line for --help and the report */
    /* 1: run can do its communication alone and its products alone (RUN_COMM, RUN_GEMM); 0:
     * they are one library call, timed only together. */
    int parts_apart;
    /* The size of the struct each GPU keeps from setup to teardown (cluster.state[g]), as a
     * step's state_bytes (common/step.h); 0: none. */
    size_t state_bytes;
    /* NULL when it can run here, else why not (cuBLASMp not built, its NCCL too old), in one
     * line that may be written into why (why_size bytes, the caller's). */
    const char *(*unavailable)(const struct cluster *cl, char *why, size_t why_size);
    /* Device memory one GPU needs, in bytes, the largest over the GPUs. */
    double (*device_bytes)(const struct cluster *cl);
    /* On GPU g (the calling thread's): allocate, copy its blocks of the row-major host
     * matrices a and b in. Not timed: every algorithm starts with its blocks in place. */
    void (*setup)(struct cluster *cl, int g, const float *a, const float *b);
    void (*run)(struct cluster *cl, int g, enum run_parts parts);
    /* Write GPU g's blocks of C into the row-major host matrix c. */
    void (*gather)(struct cluster *cl, int g, float *c);
    void (*teardown)(struct cluster *cl, int g);
};

extern const struct algorithm rows_algorithm, summa_algorithm, cublasmp_algorithm;
/* cuBLASMp's version (CUBLASMP_VERSION: 901 = 0.9.1), 0 in a build without it. */
int cublasmp_version(void);

/* The local product on GPU g, row-major: C (m x n) = A (m x k) B (k x n) + beta C, on the
 * handle's stream. cuBLAS is column-major: it computes C^T = B^T A^T, which is the same
 * memory. Empty products are skipped. */
void local_gemm(struct cluster *cl, int g, long m, long n, long k, const float *a, long lda, const float *b,
                long ldb, float beta, float *c, long ldc);

/* The same, A k-major: column k of A (m rows) at a + k * lda, as SUMMA's band of A holds it. */
void local_gemm_kmajor(struct cluster *cl, int g, long m, long n, long k, const float *a, long lda, const float *b,
                       long ldb, float beta, float *c, long ldc);

/* A span of the traced run on GPU g's stream: what (a string that outlives the run) and its
 * index; trace_end closes the span trace_begin opened. Both do nothing when not tracing. */
int trace_begin(struct cluster *cl, int g, cudaStream_t stream, const char *what, int index);
void trace_end(struct cluster *cl, int g, cudaStream_t stream, int span);

/* cudaMalloc that says how much it wanted when it fails; NULL for 0 bytes. */
void *device_alloc(size_t bytes);
/* Copy a rows x cols block between row-major matrices (leading dimensions in elements);
 * nothing for an empty block. */
void copy_block(float *dst, long ld_dst, const float *src, long ld_src, long rows, long cols,
                enum cudaMemcpyKind kind, cudaStream_t stream);

#endif
