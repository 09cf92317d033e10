/* SUMMA (van de Geijn and Watts, 1997), the algorithm distributed GEMM libraries use. The
 * GPUs form a prow x pcol grid; GPU (i, j) owns one block of each matrix:
 *   A_ij: rows part i of prow, columns part j of pcol;
 *   B_ij: rows part i of prow, columns part j of pcol;
 *   C_ij: rows part i of prow, columns part j of pcol.
 * C_ij = sum over k of A(rows i, k) B(k, columns j): the sum runs over panels of k. For each
 * panel, the GPU of grid row i that owns those columns of A broadcasts them along the grid row,
 * and the GPU of grid column j that owns those rows of B broadcasts them along the grid column;
 * every GPU adds the panels' product to its C_ij. Each GPU receives about n^2 (1 / pcol +
 * 1 / prow) floats in all, against rows.c's n^2: less as the grid grows.
 *
 * Where the overlap pays (the chapter's README measures each choice):
 *  - Every panel lands in its place in a band that holds all of the GPU's rows of A (and one that
 *    holds all of its columns of B), not in a pair of panel buffers reused turn by turn. So all
 *    the broadcasts are issued at once, at the start, and no product waits for a buffer to free.
 *  - A's band is k-major (column k of A's rows at a_band + k * m) and B's is row-major: a panel is
 *    one contiguous piece of each, sent in place with no packing copy, and any run of panels is
 *    one matrix to cuBLAS. So the products are as few, as large calls as the arrivals allow: the
 *    k that the GPU owns of both A and B first (it waits for nothing), then the rest in one call;
 *    where it owns no such k, the first panel, then the rest.
 *  - The broadcasts run on a stream of the highest priority, so their kernels get SMs as soon as
 *    the products free any; or, with --comm copy, on the copy engines (cudaMemcpyPeerAsync from
 *    the owner to each GPU of its grid row or column), which take no SM at all.
 * What this costs: A's and B's bands, n^2 (1 / prow + 1 / pcol) floats a GPU, where the two-buffer
 * form holds n^2 / P of each and two panels. */
#include "cluster.h"

#include <omp.h>

/* Each GPU's: cl->state[g] (cluster.h), its peers' read through cl->state[h] too. */
struct summa_gpu {
    int i, j;                /* its place in the grid */
    long m, nc;              /* rows of its C block, columns */
    long a_lo, a_hi;         /* the k it owns of A: its block's columns, part j of pcol */
    long b_lo, b_hi;         /* the k it owns of B: its block's rows, part i of prow */
    float *a_band;           /* A(rows part i, all k), k-major: column k at a_band + k * m */
    float *b_band;           /* B(all k, columns part j), row-major: row k at b_band + k * nc */
    float *c;
    ncclComm_t row_comm, col_comm; /* its grid row (rank j), its grid column (rank i) */
    cudaStream_t comm_stream;
    cudaEvent_t start;       /* a run's start on the compute stream: its sends wait for it */
    int panels;
    long *k_at;              /* panel p is k in [k_at[p], k_at[p + 1]) */
    cudaEvent_t *a_ready, *b_ready; /* per panel: recorded where it has arrived (NCCL), or where the
                                     * owner has sent it (copy engines) */
};

static double summa_device_bytes(const struct cluster *cl)
{
    const double n = (double)cl->n, m = n / cl->prow + 1, nc = n / cl->pcol + 1;
    /* the bands, C, and during setup the block of A read in before it is turned k-major */
    return sizeof(float) * (m * n + n * nc + m * nc + m * (n / cl->pcol + 1));
}

static int owner_of_a(const struct cluster *cl, const struct summa_gpu *s, long k)
{
    return s->i * cl->pcol + part_of(cl->n, cl->pcol, k);
}
static int owner_of_b(const struct cluster *cl, const struct summa_gpu *s, long k)
{
    return part_of(cl->n, cl->prow, k) * cl->pcol + s->j;
}

static void summa_setup(struct cluster *cl, int g, const float *a, const float *b)
{
    const long n = cl->n;
    struct summa_gpu *s = cl->state[g];
    s->i = g / cl->pcol;
    s->j = g % cl->pcol;
    s->m = part_size(n, cl->prow, s->i);
    s->nc = part_size(n, cl->pcol, s->j);
    s->a_lo = part_start(n, cl->pcol, s->j);
    s->a_hi = part_start(n, cl->pcol, s->j + 1);
    s->b_lo = part_start(n, cl->prow, s->i);
    s->b_hi = part_start(n, cl->prow, s->i + 1);
    /* The row and column communicators: made once, by one thread, for every GPU. */
#pragma omp single
    {
        int devs[MAX_GPUS];
        ncclComm_t comms[MAX_GPUS];
        for (int i = 0; i < cl->prow; i++) {
            for (int j = 0; j < cl->pcol; j++)
                devs[j] = i * cl->pcol + j;
            NCCL_CHECK(ncclCommInitAll(comms, cl->pcol, devs));
            for (int j = 0; j < cl->pcol; j++) {
                struct summa_gpu *member = cl->state[i * cl->pcol + j];
                member->row_comm = comms[j];
            }
        }
        for (int j = 0; j < cl->pcol; j++) {
            for (int i = 0; i < cl->prow; i++)
                devs[i] = i * cl->pcol + j;
            NCCL_CHECK(ncclCommInitAll(comms, cl->prow, devs));
            for (int i = 0; i < cl->prow; i++) {
                struct summa_gpu *member = cl->state[i * cl->pcol + j];
                member->col_comm = comms[i];
            }
        }
    } /* (a barrier: every GPU's communicators exist before any is used) */
    CUDA_CHECK(cudaSetDevice(g));
    s->panels = 0;
    for (long k0 = 0; k0 < n; k0 = panel_end(n, cl->prow, cl->pcol, cl->panel, k0))
        s->panels++;
    s->k_at = malloc(sizeof *s->k_at * (size_t)(s->panels + 1));
    s->a_ready = malloc(sizeof *s->a_ready * (size_t)s->panels);
    s->b_ready = malloc(sizeof *s->b_ready * (size_t)s->panels);
    if (!s->k_at || !s->a_ready || !s->b_ready) {
        fprintf(stderr, "multigpu: out of host memory\n");
        exit(EXIT_USAGE);
    }
    s->k_at[0] = 0;
    for (int p = 0; p < s->panels; p++) {
        s->k_at[p + 1] = panel_end(n, cl->prow, cl->pcol, cl->panel, s->k_at[p]);
        CUDA_CHECK(cudaEventCreateWithFlags(&s->a_ready[p], cudaEventDisableTiming));
        CUDA_CHECK(cudaEventCreateWithFlags(&s->b_ready[p], cudaEventDisableTiming));
    }
    CUDA_CHECK(cudaEventCreateWithFlags(&s->start, cudaEventDisableTiming));
    int least, greatest;
    CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    CUDA_CHECK(cudaStreamCreateWithPriority(&s->comm_stream, cudaStreamNonBlocking, greatest));
    if (cl->copy_engines) /* the peers it sends to: its grid row and its grid column */
        for (int h = 0; h < cl->gpus; h++) {
            int can = 0;
            if (h == g || (h / cl->pcol != s->i && h % cl->pcol != s->j))
                continue;
            CUDA_CHECK(cudaDeviceCanAccessPeer(&can, g, h));
            const cudaError_t e = can ? cudaDeviceEnablePeerAccess(h, 0) : cudaSuccess;
            if (e == cudaErrorPeerAccessAlreadyEnabled)
                (void)cudaGetLastError();
            else
                CUDA_CHECK(e);
        }
    s->a_band = device_alloc(sizeof(float) * (size_t)(s->m * n));
    s->b_band = device_alloc(sizeof(float) * (size_t)(n * s->nc));
    s->c = device_alloc(sizeof(float) * (size_t)(s->m * s->nc));
    /* Its block of A, row-major as the host holds it, turned k-major into its place in the band
     * (cuBLAS's geam: the transpose of an m x ka row-major block is the same memory read
     * column-major); its block of B copied into its rows of the band. */
    const long ka = s->a_hi - s->a_lo;
    if (s->m > 0 && ka > 0) {
        float *block = device_alloc(sizeof(float) * (size_t)(s->m * ka));
        const float one = 1.0f, zero = 0.0f;
        copy_block(block, ka, a + s->b_lo * n + s->a_lo, n, s->m, ka, cudaMemcpyHostToDevice, cl->stream[g]);
        CUBLAS_CHECK(cublasSgeam_64(cl->blas[g], CUBLAS_OP_T, CUBLAS_OP_N, s->m, ka, &one, block, ka,
                                 &zero, block, s->m, s->a_band + s->a_lo * s->m, s->m));
        CUDA_CHECK(cudaStreamSynchronize(cl->stream[g]));
        CUDA_CHECK(cudaFree(block));
    }
    copy_block(s->b_band + s->b_lo * s->nc, s->nc, b + s->b_lo * n + s->a_lo, n, s->b_hi - s->b_lo, s->nc,
               cudaMemcpyHostToDevice, cl->stream[g]);
    if (s->m * s->nc > 0)
        CUDA_CHECK(cudaMemsetAsync(s->c, POISON_BYTE, sizeof(float) * (size_t)(s->m * s->nc), cl->stream[g]));
    CUDA_CHECK(cudaStreamSynchronize(cl->stream[g]));
}

/* Every panel, at once: the ones it owns sent, the others received, in place in the bands. */
static void communicate(struct cluster *cl, int g)
{
    struct summa_gpu *s = cl->state[g];
    for (int p = 0; p < s->panels; p++) {
        const long k0 = s->k_at[p], w = s->k_at[p + 1] - k0;
        float *a_panel = s->a_band + k0 * s->m, *b_panel = s->b_band + k0 * s->nc;
        const int span = trace_begin(cl, g, s->comm_stream, "panel", p);
        if (!cl->copy_engines) {
            /* A grid row's GPUs have the same m, a grid column's the same nc: an empty block's
             * row or column skips its broadcasts together. */
            if (cl->pcol > 1 && s->m > 0) {
                NCCL_CHECK(ncclBroadcast(a_panel, a_panel, (size_t)(s->m * w), ncclFloat, part_of(cl->n, cl->pcol, k0),
                                         s->row_comm, s->comm_stream));
                CUDA_CHECK(cudaEventRecord(s->a_ready[p], s->comm_stream));
            }
            if (cl->prow > 1 && s->nc > 0) {
                NCCL_CHECK(ncclBroadcast(b_panel, b_panel, (size_t)(w * s->nc), ncclFloat, part_of(cl->n, cl->prow, k0),
                                         s->col_comm, s->comm_stream));
                CUDA_CHECK(cudaEventRecord(s->b_ready[p], s->comm_stream));
            }
        } else {
            if (owner_of_a(cl, s, k0) == g && s->m > 0) {
                for (int j = 0; j < cl->pcol; j++) {
                    const int to = s->i * cl->pcol + j;
                    const struct summa_gpu *peer = cl->state[to];
                    if (to != g)
                        CUDA_CHECK(cudaMemcpyPeerAsync(peer->a_band + k0 * s->m, to, a_panel, g,
                                                       sizeof(float) * (size_t)(s->m * w), s->comm_stream));
                }
                CUDA_CHECK(cudaEventRecord(s->a_ready[p], s->comm_stream));
            }
            if (owner_of_b(cl, s, k0) == g && s->nc > 0) {
                for (int i = 0; i < cl->prow; i++) {
                    const int to = i * cl->pcol + s->j;
                    const struct summa_gpu *peer = cl->state[to];
                    if (to != g)
                        CUDA_CHECK(cudaMemcpyPeerAsync(peer->b_band + k0 * s->nc, to, b_panel, g,
                                                       sizeof(float) * (size_t)(w * s->nc), s->comm_stream));
                }
                CUDA_CHECK(cudaEventRecord(s->b_ready[p], s->comm_stream));
            }
        }
        trace_end(cl, g, s->comm_stream, span);
    }
}

/* Before a product over panels first .. last: wait for each panel of A and of B that another
 * GPU owns (NCCL: its arrival here; copy engines: the owner's sending, there). */
static void wait_for(struct cluster *cl, int g, cudaStream_t compute, int first, int last)
{
    const struct summa_gpu *s = cl->state[g];
    for (int p = first; p <= last; p++) {
        const int from_a = owner_of_a(cl, s, s->k_at[p]), from_b = owner_of_b(cl, s, s->k_at[p]);
        const struct summa_gpu *sender_a = cl->state[from_a], *sender_b = cl->state[from_b];
        if (from_a != g)
            CUDA_CHECK(cudaStreamWaitEvent(compute, cl->copy_engines ? sender_a->a_ready[p] : s->a_ready[p], 0));
        if (from_b != g)
            CUDA_CHECK(cudaStreamWaitEvent(compute, cl->copy_engines ? sender_b->b_ready[p] : s->b_ready[p], 0));
    }
}

static int panel_at(const struct summa_gpu *s, long k)
{
    int p = 0;
    while (s->k_at[p + 1] <= k)
        p++;
    return p;
}

static void summa_run(struct cluster *cl, int g, enum run_parts parts)
{
    const long n = cl->n;
    struct summa_gpu *s = cl->state[g];
    cudaStream_t compute = cl->stream[g];
    if (parts & RUN_COMM) {
        /* The broadcasts start after everything before this run on this GPU. */
        CUDA_CHECK(cudaEventRecord(s->start, compute));
        CUDA_CHECK(cudaStreamWaitEvent(s->comm_stream, s->start, 0));
        communicate(cl, g);
    }
    /* With the copy engines a GPU waits on events its peers record: all are recorded first. */
#pragma omp barrier
    if (!(parts & RUN_GEMM))
        return;
    /* The calls: the k it owns of both A and B (no wait), then what precedes and what follows
     * it; where it owns none, the first panel, then the rest. */
    long call[3][2];
    int calls = 0;
    const long own_lo = s->a_lo > s->b_lo ? s->a_lo : s->b_lo, own_hi = s->a_hi < s->b_hi ? s->a_hi : s->b_hi;
    if (own_lo < own_hi) {
        call[calls][0] = own_lo, call[calls++][1] = own_hi;
        if (own_lo > 0)
            call[calls][0] = 0, call[calls++][1] = own_lo;
        if (own_hi < n)
            call[calls][0] = own_hi, call[calls++][1] = n;
    } else {
        call[calls][0] = 0, call[calls++][1] = s->k_at[1];
        if (s->k_at[1] < n)
            call[calls][0] = s->k_at[1], call[calls++][1] = n;
    }
    for (int c = 0; c < calls; c++) {
        const long k0 = call[c][0], k1 = call[c][1];
        if (parts & RUN_COMM)
            wait_for(cl, g, compute, panel_at(s, k0), panel_at(s, k1 - 1));
        const int span = trace_begin(cl, g, compute, "product", c);
        local_gemm_kmajor(cl, g, s->m, s->nc, k1 - k0, s->a_band + k0 * s->m, s->m, s->b_band + k0 * s->nc, s->nc,
                          c == 0 ? 0.0f : 1.0f, s->c, s->nc);
        trace_end(cl, g, compute, span);
    }
}

static void summa_gather(struct cluster *cl, int g, float *c)
{
    const long n = cl->n;
    const struct summa_gpu *s = cl->state[g];
    copy_block(c + s->b_lo * n + s->a_lo, n, s->c, s->nc, s->m, s->nc, cudaMemcpyDeviceToHost, cl->stream[g]);
    CUDA_CHECK(cudaStreamSynchronize(cl->stream[g]));
}

static void summa_teardown(struct cluster *cl, int g)
{
    struct summa_gpu *s = cl->state[g];
    CUDA_CHECK(cudaDeviceSynchronize());
    /* Every GPU done before any frees a band another may still be sending into. */
#pragma omp barrier
    for (int p = 0; p < s->panels; p++) {
        CUDA_CHECK(cudaEventDestroy(s->a_ready[p]));
        CUDA_CHECK(cudaEventDestroy(s->b_ready[p]));
    }
    CUDA_CHECK(cudaEventDestroy(s->start));
    free(s->k_at);
    free(s->a_ready);
    free(s->b_ready);
    CUDA_CHECK(cudaFree(s->a_band));
    CUDA_CHECK(cudaFree(s->b_band));
    CUDA_CHECK(cudaFree(s->c));
    CUDA_CHECK(cudaStreamDestroy(s->comm_stream));
    /* As they were made: by one thread, for every GPU, once all are done with them. */
#pragma omp barrier
#pragma omp single
    for (int h = 0; h < cl->gpus; h++) {
        const struct summa_gpu *member = cl->state[h];
        NCCL_CHECK(ncclCommDestroy(member->row_comm));
        NCCL_CHECK(ncclCommDestroy(member->col_comm));
    }
}

const struct algorithm summa_algorithm = {
    .name = "summa",
    .what = "2-D grid; panels of A broadcast along grid rows, of B along grid columns, overlapped with the products",
    .parts_apart = 1,
    .state_bytes = sizeof(struct summa_gpu),
    .device_bytes = summa_device_bytes,
    .setup = summa_setup,
    .run = summa_run,
    .gather = summa_gather,
    .teardown = summa_teardown,
};
