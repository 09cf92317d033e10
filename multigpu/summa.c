/* SUMMA (van de Geijn and Watts, 1997), the algorithm distributed GEMM libraries use. The
 * GPUs form a prow x pcol grid; GPU (i, j) holds one block of each matrix:
 *   A_ij: rows part i of prow, columns part j of pcol;
 *   B_ij: rows part i of prow, columns part j of pcol;
 *   C_ij: rows part i of prow, columns part j of pcol.
 * C_ij = sum over k of A(rows i, k) B(k, columns j): the sum runs over panels of k. For each
 * panel, the GPUs of grid column j that own those columns of A broadcast them along their
 * grid rows, and the GPUs of grid row i that own those rows of B broadcast them along their
 * grid columns; then every GPU adds the panel's product to its C_ij. Each GPU receives
 * about n^2 (1 / pcol + 1 / prow) floats in all, against rows.c's n^2: less as the grid grows.
 * The broadcasts of panel t + 1 run on a stream of their own while panel t is multiplied,
 * into the other of two buffers, so the communication hides behind the products. */
#include "cluster.h"

#include <omp.h>

struct summa_gpu {
    int i, j;                        /* its place in the grid */
    long m, nc, ka, kb;              /* rows of A_ij and C_ij, columns of B_ij and C_ij,
                                      * columns of A_ij, rows of B_ij */
    float *a, *b, *c;
    float *a_panel[2], *b_panel[2];  /* two of each: one multiplied while the next arrives */
    ncclComm_t row_comm, col_comm;   /* its grid row (rank j), its grid column (rank i) */
    cudaStream_t comm_stream;
    cudaEvent_t arrived[2], done_with[2];
};
static struct summa_gpu mine[MAX_GPUS];

static double summa_device_bytes(const struct cluster *cl)
{
    const double n = (double)cl->n, m = (double)cl->n / cl->prow + 1, nc = (double)cl->n / cl->pcol + 1;
    const double w = (double)(cl->panel < cl->n ? cl->panel : cl->n);
    /* A_ij, B_ij (whose other sides are n / pcol and n / prow), C_ij and the two panel pairs */
    return sizeof(float) * (m * (n / cl->pcol + 1) + (n / cl->prow + 1) * nc + m * nc + 2.0 * w * (m + nc));
}

static void summa_setup(struct cluster *cl, int g, const float *a, const float *b)
{
    const long n = cl->n;
    struct summa_gpu *s = &mine[g];
    s->i = g / cl->pcol;
    s->j = g % cl->pcol;
    s->m = part_size(n, cl->prow, s->i);
    s->nc = part_size(n, cl->pcol, s->j);
    s->ka = part_size(n, cl->pcol, s->j);
    s->kb = part_size(n, cl->prow, s->i);
    /* The row and column communicators: made once, by one thread, for every GPU. */
#pragma omp single
    {
        int devs[MAX_GPUS];
        ncclComm_t comms[MAX_GPUS];
        for (int i = 0; i < cl->prow; i++) {
            for (int j = 0; j < cl->pcol; j++)
                devs[j] = i * cl->pcol + j;
            NCCL_CHECK(ncclCommInitAll(comms, cl->pcol, devs));
            for (int j = 0; j < cl->pcol; j++)
                mine[i * cl->pcol + j].row_comm = comms[j];
        }
        for (int j = 0; j < cl->pcol; j++) {
            for (int i = 0; i < cl->prow; i++)
                devs[i] = i * cl->pcol + j;
            NCCL_CHECK(ncclCommInitAll(comms, cl->prow, devs));
            for (int i = 0; i < cl->prow; i++)
                mine[i * cl->pcol + j].col_comm = comms[i];
        }
    } /* (a barrier: every GPU's communicators exist before any is used) */
    CUDA_CHECK(cudaSetDevice(g));
    const long w = cl->panel < n ? cl->panel : n;
    s->a = device_alloc(sizeof(float) * (size_t)(s->m * s->ka));
    s->b = device_alloc(sizeof(float) * (size_t)(s->kb * s->nc));
    s->c = device_alloc(sizeof(float) * (size_t)(s->m * s->nc));
    for (int t = 0; t < 2; t++) {
        s->a_panel[t] = device_alloc(sizeof(float) * (size_t)(s->m * w));
        s->b_panel[t] = device_alloc(sizeof(float) * (size_t)(w * s->nc));
        CUDA_CHECK(cudaEventCreateWithFlags(&s->arrived[t], cudaEventDisableTiming));
        CUDA_CHECK(cudaEventCreateWithFlags(&s->done_with[t], cudaEventDisableTiming));
    }
    CUDA_CHECK(cudaStreamCreateWithFlags(&s->comm_stream, cudaStreamNonBlocking));
    const long r0 = part_start(n, cl->prow, s->i), c0 = part_start(n, cl->pcol, s->j);
    copy_block(s->a, s->ka, a + r0 * n + c0, n, s->m, s->ka, cudaMemcpyHostToDevice, cl->stream[g]);
    copy_block(s->b, s->nc, b + r0 * n + c0, n, s->kb, s->nc, cudaMemcpyHostToDevice, cl->stream[g]);
    if (s->m * s->nc > 0)
        CUDA_CHECK(cudaMemsetAsync(s->c, POISON_BYTE, sizeof(float) * (size_t)(s->m * s->nc), cl->stream[g]));
    CUDA_CHECK(cudaStreamSynchronize(cl->stream[g]));
}

static void summa_run(struct cluster *cl, int g, enum run_parts parts)
{
    const long n = cl->n;
    struct summa_gpu *s = &mine[g];
    cudaStream_t compute = cl->stream[g];
    /* Both buffers are free once everything before this run is done. */
    for (int t = 0; t < 2; t++)
        CUDA_CHECK(cudaEventRecord(s->done_with[t], compute));
    int t = 0;
    for (long k0 = 0; k0 < n; k0 = panel_end(n, cl->prow, cl->pcol, cl->panel, k0), t ^= 1) {
        const long k1 = panel_end(n, cl->prow, cl->pcol, cl->panel, k0), w = k1 - k0;
        const int owner_col = part_of(n, cl->pcol, k0), owner_row = part_of(n, cl->prow, k0);
        /* Where this panel of A and of B is read from: the GPU's own block when the grid has
         * one column (or one row), else the buffer the broadcast fills. */
        const float *a_use = cl->pcol == 1 ? s->a + k0 : s->a_panel[t];
        const long lda = cl->pcol == 1 ? s->ka : w;
        const float *b_use = cl->prow == 1 ? s->b + k0 * s->nc : s->b_panel[t];
        if (parts & RUN_COMM) {
            CUDA_CHECK(cudaStreamWaitEvent(s->comm_stream, s->done_with[t], 0));
            if (cl->pcol > 1 && s->m > 0) {
                if (s->j == owner_col) /* its columns k0 .. k1 of A, packed into the panel */
                    copy_block(s->a_panel[t], w, s->a + (k0 - part_start(n, cl->pcol, owner_col)), s->ka, s->m, w,
                               cudaMemcpyDeviceToDevice, s->comm_stream);
                NCCL_CHECK(ncclBroadcast(s->a_panel[t], s->a_panel[t], (size_t)(s->m * w), ncclFloat, owner_col,
                                         s->row_comm, s->comm_stream));
            }
            if (cl->prow > 1 && s->nc > 0) {
                const float *rows_k = s->b + (k0 - part_start(n, cl->prow, owner_row)) * s->nc;
                NCCL_CHECK(ncclBroadcast(s->i == owner_row ? rows_k : s->b_panel[t], s->b_panel[t],
                                         (size_t)(w * s->nc), ncclFloat, owner_row, s->col_comm, s->comm_stream));
            }
            CUDA_CHECK(cudaEventRecord(s->arrived[t], s->comm_stream));
        }
        if (parts & RUN_GEMM) {
            if (parts & RUN_COMM)
                CUDA_CHECK(cudaStreamWaitEvent(compute, s->arrived[t], 0));
            local_gemm(cl, g, s->m, s->nc, w, a_use, lda, b_use, s->nc, k0 == 0 ? 0.0f : 1.0f, s->c, s->nc);
            CUDA_CHECK(cudaEventRecord(s->done_with[t], compute));
        }
    }
}

static void summa_gather(struct cluster *cl, int g, float *c)
{
    const long n = cl->n;
    struct summa_gpu *s = &mine[g];
    copy_block(c + part_start(n, cl->prow, s->i) * n + part_start(n, cl->pcol, s->j), n, s->c, s->nc, s->m, s->nc,
               cudaMemcpyDeviceToHost, cl->stream[g]);
    CUDA_CHECK(cudaStreamSynchronize(cl->stream[g]));
}

static void summa_teardown(struct cluster *cl, int g)
{
    struct summa_gpu *s = &mine[g];
    CUDA_CHECK(cudaDeviceSynchronize());
    for (int t = 0; t < 2; t++) {
        CUDA_CHECK(cudaFree(s->a_panel[t]));
        CUDA_CHECK(cudaFree(s->b_panel[t]));
        CUDA_CHECK(cudaEventDestroy(s->arrived[t]));
        CUDA_CHECK(cudaEventDestroy(s->done_with[t]));
    }
    CUDA_CHECK(cudaFree(s->a));
    CUDA_CHECK(cudaFree(s->b));
    CUDA_CHECK(cudaFree(s->c));
    CUDA_CHECK(cudaStreamDestroy(s->comm_stream));
    /* As they were made: by one thread, for every GPU, once all are done with them. */
#pragma omp barrier
#pragma omp single
    for (int h = 0; h < cl->gpus; h++) {
        NCCL_CHECK(ncclCommDestroy(mine[h].row_comm));
        NCCL_CHECK(ncclCommDestroy(mine[h].col_comm));
    }
}

const struct algorithm summa_algorithm = {
    .name = "summa",
    .what = "2-D grid; panels of A broadcast along grid rows, of B along grid columns, overlapped with the products",
    .parts_apart = 1,
    .device_bytes = summa_device_bytes,
    .setup = summa_setup,
    .run = summa_run,
    .gather = summa_gather,
    .teardown = summa_teardown,
};
