/* The engine to reach for: cuBLASMp, NVIDIA's distributed GEMM over NCCL, on the same
 * grid. Its matrices are column-major and 2-D block-cyclic: blocks of nb x nb dealt out
 * over the grid like cards, which keeps every GPU busy however the sizes fall. Our row-major
 * A, B and C are, read column-major, A^T, B^T and C^T; C^T = B^T A^T, so cuBLASMp is asked
 * for that product and writes C where we want it. Built only where make cublasmp fetched it
 * (HAVE_CUBLASMP); elsewhere the algorithm says why it cannot run. */
#include "cluster.h"

#ifdef HAVE_CUBLASMP
#include <cublasmp.h>
#include <dlfcn.h>
#include <string.h>

/* Loaded when first asked for (dlopen), not linked: cuBLASMp needs the CUDA driver to load at
 * all, and a program linked with it could not even say "no GPU here" on a machine without one. */
#define MP_CORE(X) X(cublasMpCreate) X(cublasMpDestroy) X(cublasMpGridCreate) X(cublasMpGridDestroy) \
    X(cublasMpNumroc) X(cublasMpMatrixDescriptorCreate) X(cublasMpMatrixDescriptorDestroy) \
    X(cublasMpGemm_bufferSize) X(cublasMpGemm) X(cublasMpGetVersion)
/* From 0.8 on, a workspace registered with NCCL (cublasMpMalloc) lets cuBLASMp overlap its
 * communication with the products; 0.7 takes a plain one. */
#if CUBLASMP_VERSION >= 800
#define MP_FUNCTIONS(X) MP_CORE(X) X(cublasMpMalloc) X(cublasMpFree)
#else
#define MP_FUNCTIONS(X) MP_CORE(X)
#endif
/* The functions, as dlsym finds them: a table that whoever loads the library owns (each GPU's
 * state, or the caller that only asks whether it loads). */
#define MP_POINTER(f) __typeof__(f) *f;
struct mp_library {
    MP_FUNCTIONS(MP_POINTER)
};

/* NULL once loaded into mp, else why not (written into why). A second call finds the library
 * loaded already (dlopen counts them) and resolves the same functions again. */
static const char *mp_load(struct mp_library *mp, char *why, size_t why_size)
{
    void *lib = dlopen(CUBLASMP_LIB, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(why, why_size, "cannot load cuBLASMp: %s", dlerror());
        return why;
    }
#define MP_RESOLVE(f) \
    if (!(mp->f = (__typeof__(f) *)dlsym(lib, #f))) { \
        snprintf(why, why_size, "cuBLASMp at " CUBLASMP_LIB " lacks " #f); \
        return why; \
    }
    MP_FUNCTIONS(MP_RESOLVE)
    return NULL;
}

#define MP_CHECK(call) mp_check((call), #call)
static void mp_check(cublasMpStatus_t s, const char *what)
{
    if (s == CUBLASMP_STATUS_SUCCESS)
        return;
    fprintf(stderr, "multigpu: %s failed: cuBLASMp status %d\n", what, (int)s);
    exit(EXIT_CUDA_ERROR);
}

/* Each GPU's: cl->state[g] (cluster.h). */
struct mp_gpu {
    struct mp_library mp; /* cuBLASMp's functions, loaded in setup */
    cublasMpHandle_t handle;
    cublasMpGrid_t grid;
    cublasMpMatrixDescriptor_t desc_at, desc_bt, desc_ct; /* A^T, B^T, C^T */
    float *at, *bt, *ct;                                  /* their local blocks */
    long rows, cols, lld;                                 /* local size, column-major */
    int myrow, mycol;
    void *d_work, *h_work;
    size_t d_bytes, h_bytes;
};

static long block_size(const struct cluster *cl)
{
    return cl->panel < cl->n ? cl->panel : cl->n;
}

static const char *mp_unavailable(const struct cluster *cl, char *why, size_t why_size)
{
    (void)cl;
    struct mp_library mp;
    const char *not_loaded = mp_load(&mp, why, why_size);
    if (not_loaded)
        return not_loaded;
    int nccl = 0;
    NCCL_CHECK(ncclGetVersion(&nccl));
    /* From 0.8 on, cuBLASMp calls NCCL 2.29's one-sided operations (ncclPutSignal). */
    if (CUBLASMP_VERSION >= 800 && nccl < 22902) {
        snprintf(why, why_size, "cuBLASMp %d.%d.%d needs NCCL 2.29.2 or newer; this NCCL is %d.%d.%d",
                 CUBLASMP_VER_MAJOR, CUBLASMP_VER_MINOR, CUBLASMP_VER_PATCH, nccl / 10000, nccl / 100 % 100,
                 nccl % 100);
        return why;
    }
    return NULL;
}

static double mp_device_bytes(const struct cluster *cl)
{
    /* A^T, B^T and C^T's local blocks (at most this many rows and columns); the workspace,
     * known only once the grid exists, is checked by cuBLASMp itself. */
    const double nb = (double)block_size(cl), blocks = (double)((cl->n + block_size(cl) - 1) / block_size(cl));
    return 3.0 * sizeof(float) * (blocks / cl->prow + 1) * nb * (blocks / cl->pcol + 1) * nb;
}

/* Copy between the row-major host matrix x (n x n) and the local blocks of x^T, column-major
 * (lld), that this GPU holds: local block (bi, bj) is global block (bi prow + myrow,
 * bj pcol + mycol) of x^T, whose element (r, c) is x[c][r]. Read as row-major, the local
 * storage holds x's block transposed back: rows c, columns r, leading dimension lld. */
static void exchange(const struct cluster *cl, struct mp_gpu *s, float *local, float *x, int to_device,
                     cudaStream_t stream)
{
    const long n = cl->n, nb = block_size(cl);
    for (long lbj = 0; lbj * nb < s->cols; lbj++) {
        const long gj0 = (lbj * cl->pcol + s->mycol) * nb, w = n - gj0 < nb ? n - gj0 : nb;
        for (long lbi = 0; lbi * nb < s->rows; lbi++) {
            const long gi0 = (lbi * cl->prow + s->myrow) * nb, h = n - gi0 < nb ? n - gi0 : nb;
            float *loc = local + lbi * nb + lbj * nb * s->lld, *glob = x + gj0 * n + gi0;
            if (to_device)
                copy_block(loc, s->lld, glob, n, w, h, cudaMemcpyHostToDevice, stream);
            else
                copy_block(glob, n, loc, s->lld, w, h, cudaMemcpyDeviceToHost, stream);
        }
    }
}

static void mp_setup(struct cluster *cl, int g, const float *a, const float *b)
{
    struct mp_gpu *s = cl->state[g];
    const long n = cl->n, nb = block_size(cl);
    char why[300];
    if (mp_load(&s->mp, why, sizeof why)) { /* loaded before, by mp_unavailable: not expected */
        fprintf(stderr, "multigpu: %s\n", why);
        exit(EXIT_NO_FEATURE);
    }
    /* Column-major grid: rank g sits at (g mod prow, g / prow). */
    s->myrow = g % cl->prow;
    s->mycol = g / cl->prow;
    MP_CHECK(s->mp.cublasMpCreate(&s->handle, cl->stream[g]));
    MP_CHECK(s->mp.cublasMpGridCreate(cl->prow, cl->pcol, CUBLASMP_GRID_LAYOUT_COL_MAJOR, cl->world[g], &s->grid));
    s->rows = s->mp.cublasMpNumroc(n, nb, (uint32_t)s->myrow, 0, (uint32_t)cl->prow);
    s->cols = s->mp.cublasMpNumroc(n, nb, (uint32_t)s->mycol, 0, (uint32_t)cl->pcol);
    s->lld = s->rows > 1 ? s->rows : 1;
    cublasMpMatrixDescriptor_t *descs[3] = {&s->desc_at, &s->desc_bt, &s->desc_ct};
    float **locals[3] = {&s->at, &s->bt, &s->ct};
    for (int d = 0; d < 3; d++) {
        MP_CHECK(s->mp.cublasMpMatrixDescriptorCreate(n, n, nb, nb, 0, 0, s->lld, CUDA_R_32F, s->grid, descs[d]));
        *locals[d] = device_alloc(sizeof(float) * (size_t)(s->lld * (s->cols > 0 ? s->cols : 1)));
    }
    exchange(cl, s, s->at, (float *)a, 1, cl->stream[g]);
    exchange(cl, s, s->bt, (float *)b, 1, cl->stream[g]);
    CUDA_CHECK(cudaMemsetAsync(s->ct, POISON_BYTE, sizeof(float) * (size_t)(s->lld * (s->cols > 0 ? s->cols : 1)),
                               cl->stream[g]));
    const float one = 1.0f, zero = 0.0f;
    const cublasComputeType_t compute = cl->tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    MP_CHECK(s->mp.cublasMpGemm_bufferSize(s->handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, s->bt, 1, 1, s->desc_bt,
                                        s->at, 1, 1, s->desc_at, &zero, s->ct, 1, 1, s->desc_ct, compute, &s->d_bytes,
                                        &s->h_bytes));
#if CUBLASMP_VERSION >= 800
    MP_CHECK(s->mp.cublasMpMalloc(s->grid, &s->d_work, s->d_bytes > 0 ? s->d_bytes : 1));
#else
    s->d_work = device_alloc(s->d_bytes > 0 ? s->d_bytes : 1);
#endif
    s->h_work = malloc(s->h_bytes > 0 ? s->h_bytes : 1);
    if (!s->h_work) {
        fprintf(stderr, "multigpu: out of host memory for cuBLASMp's workspace\n");
        exit(EXIT_USAGE);
    }
    CUDA_CHECK(cudaStreamSynchronize(cl->stream[g]));
}

static void mp_run(struct cluster *cl, int g, enum run_parts parts)
{
    struct mp_gpu *s = cl->state[g];
    const long n = cl->n;
    const float one = 1.0f, zero = 0.0f;
    const cublasComputeType_t compute = cl->tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    (void)parts; /* cuBLASMp's communication and products are one call */
    MP_CHECK(s->mp.cublasMpGemm(s->handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, s->bt, 1, 1, s->desc_bt, s->at, 1,
                                1, s->desc_at, &zero, s->ct, 1, 1, s->desc_ct, compute, s->d_work, s->d_bytes,
                                s->h_work, s->h_bytes));
}

static void mp_gather(struct cluster *cl, int g, float *c)
{
    struct mp_gpu *s = cl->state[g];
    exchange(cl, s, s->ct, c, 0, cl->stream[g]);
    CUDA_CHECK(cudaStreamSynchronize(cl->stream[g]));
}

static void mp_teardown(struct cluster *cl, int g)
{
    struct mp_gpu *s = cl->state[g];
    CUDA_CHECK(cudaDeviceSynchronize());
#if CUBLASMP_VERSION >= 800
    MP_CHECK(s->mp.cublasMpFree(s->grid, s->d_work));
#else
    CUDA_CHECK(cudaFree(s->d_work));
#endif
    free(s->h_work);
    MP_CHECK(s->mp.cublasMpMatrixDescriptorDestroy(s->desc_at));
    MP_CHECK(s->mp.cublasMpMatrixDescriptorDestroy(s->desc_bt));
    MP_CHECK(s->mp.cublasMpMatrixDescriptorDestroy(s->desc_ct));
    CUDA_CHECK(cudaFree(s->at));
    CUDA_CHECK(cudaFree(s->bt));
    CUDA_CHECK(cudaFree(s->ct));
    MP_CHECK(s->mp.cublasMpGridDestroy(s->grid));
    MP_CHECK(s->mp.cublasMpDestroy(s->handle));
}

const struct algorithm cublasmp_algorithm = {
    .name = "cublasmp",
    .what = "cuBLASMp's cublasMpGemm, 2-D block-cyclic on the same grid (nb = --panel)",
    .state_bytes = sizeof(struct mp_gpu),
    .unavailable = mp_unavailable,
    .device_bytes = mp_device_bytes,
    .setup = mp_setup,
    .run = mp_run,
    .gather = mp_gather,
    .teardown = mp_teardown,
};

int cublasmp_version(void)
{
    int version = 0;
    char why[300];
    struct mp_library mp;
    if (mp_load(&mp, why, sizeof why) != NULL || mp.cublasMpGetVersion(&version) != CUBLASMP_STATUS_SUCCESS)
        return 0;
    return version;
}

#else /* built without cuBLASMp */

static const char *mp_unavailable(const struct cluster *cl, char *why, size_t why_size)
{
    (void)cl, (void)why, (void)why_size;
    return "built without cuBLASMp (make cublasmp fetches it)";
}

const struct algorithm cublasmp_algorithm = {
    .name = "cublasmp",
    .what = "cuBLASMp's cublasMpGemm, 2-D block-cyclic on the same grid (nb = --panel)",
    .unavailable = mp_unavailable,
};

int cublasmp_version(void)
{
    return 0;
}
#endif
