/* Split the rows: GPU g computes rows [r_g, r_g+1) of C = A B, for which it needs its rows
 * of A and all of B. Every GPU starts with its own rows of A, B and C (what splitting all
 * three by rows leaves it), so each first broadcasts its block of B to all the others: one
 * NCCL broadcast per GPU, all in one group (an all-gather whose parts may differ by a row).
 * Then one local product. Each GPU receives (P - 1) / P of B and holds all of it: the
 * traffic per GPU stays near n^2 floats while its share of the work shrinks as 1 / P. */
#include "cluster.h"

/* Each GPU's: cl->state[g] (cluster.h). */
struct rows_gpu {
    float *a, *b, *c; /* its rows of A (m x n), all of B (n x n), its rows of C (m x n) */
};

static double rows_device_bytes(const struct cluster *cl)
{
    const double n = (double)cl->n, m = (double)part_size(cl->n, cl->gpus, 0) + 1;
    return sizeof(float) * (2.0 * m * n + n * n);
}

static void rows_setup(struct cluster *cl, int g, const float *a, const float *b)
{
    const long n = cl->n, r0 = part_start(n, cl->gpus, g), m = part_size(n, cl->gpus, g);
    struct rows_gpu *s = cl->state[g];
    s->a = device_alloc(sizeof(float) * (size_t)(m * n));
    s->b = device_alloc(sizeof(float) * (size_t)(n * n));
    s->c = device_alloc(sizeof(float) * (size_t)(m * n));
    copy_block(s->a, n, a + r0 * n, n, m, n, cudaMemcpyHostToDevice, cl->stream[g]);
    /* Only its own rows of B: the broadcast brings the rest. */
    copy_block(s->b + r0 * n, n, b + r0 * n, n, m, n, cudaMemcpyHostToDevice, cl->stream[g]);
    if (m > 0)
        CUDA_CHECK(cudaMemsetAsync(s->c, POISON_BYTE, sizeof(float) * (size_t)(m * n), cl->stream[g]));
    CUDA_CHECK(cudaStreamSynchronize(cl->stream[g]));
}

static void rows_run(struct cluster *cl, int g, enum run_parts parts)
{
    const long n = cl->n;
    struct rows_gpu *s = cl->state[g];
    if ((parts & RUN_COMM) && cl->gpus > 1) {
        const int span = trace_begin(cl, g, cl->stream[g], "broadcast", 0);
        /* In place: the root sends from, and every other GPU receives into, the same rows. */
        NCCL_CHECK(ncclGroupStart());
        for (int root = 0; root < cl->gpus; root++) {
            float *rows_of_root = s->b + part_start(n, cl->gpus, root) * n;
            NCCL_CHECK(ncclBroadcast(rows_of_root, rows_of_root, (size_t)(part_size(n, cl->gpus, root) * n),
                                     ncclFloat, root, cl->world[g], cl->stream[g]));
        }
        NCCL_CHECK(ncclGroupEnd());
        trace_end(cl, g, cl->stream[g], span);
    }
    if (parts & RUN_GEMM) {
        const int span = trace_begin(cl, g, cl->stream[g], "product", 0);
        local_gemm(cl, g, part_size(n, cl->gpus, g), n, n, s->a, n, s->b, n, 0.0f, s->c, n);
        trace_end(cl, g, cl->stream[g], span);
    }
}

static void rows_gather(struct cluster *cl, int g, float *c)
{
    const long n = cl->n;
    const struct rows_gpu *s = cl->state[g];
    copy_block(c + part_start(n, cl->gpus, g) * n, n, s->c, n, part_size(n, cl->gpus, g), n,
               cudaMemcpyDeviceToHost, cl->stream[g]);
    CUDA_CHECK(cudaStreamSynchronize(cl->stream[g]));
}

static void rows_teardown(struct cluster *cl, int g)
{
    struct rows_gpu *s = cl->state[g];
    CUDA_CHECK(cudaFree(s->a));
    CUDA_CHECK(cudaFree(s->b));
    CUDA_CHECK(cudaFree(s->c));
}

const struct algorithm rows_algorithm = {
    .name = "rows",
    .what = "split the rows of C; B broadcast to every GPU, then one local product",
    .parts_apart = 1,
    .state_bytes = sizeof(struct rows_gpu),
    .device_bytes = rows_device_bytes,
    .setup = rows_setup,
    .run = rows_run,
    .gather = rows_gather,
    .teardown = rows_teardown,
};
