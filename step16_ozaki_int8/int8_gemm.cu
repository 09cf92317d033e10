/* cuBLAS's INT8 GEMM, C = A B with INT8 inputs and INT32 sums (cublasGemmEx, CUBLAS_COMPUTE_32I):
 * the measured ceiling of this step's residue products, which are INT8 GEMMs of the same shape.
 * Both operands K-major, as the step's. Not a step: its inputs are random bytes, not floats, and its answer is exact, so it is checked
 * element by element against the CPU's integer sums (sampled rows), and timed with CUDA events
 * (warm-up, then the median of --reps launches). Exit codes as every program's. */
#include "args.h"
#include "conditions.h"
#include "cublas_check.h"
#include "gpu.h"

#include <cublas_v2.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PROGRAM "int8_gemm"
#define MAX_SIZES 16
#define MAX_N 32768
#define CHECKED_ROWS 16

static void usage(FILE *to, const char *self)
{
    fprintf(to, "usage: %s [--sizes \"4096 8192\"] [--reps R] [--csv] [--help]\n"
                "cuBLAS's INT8 GEMM (INT32 sums) on random bytes at each n (a multiple of 4, at most %d):\n"
                "kernel ms (median of R launches after a warm-up, default 10) and tera-operations per second\n"
                "(2 n^3 / time), the result checked exactly on %d rows (every row of a smaller n).\n--csv: one row per n with a header.\n",
                self, MAX_N, CHECKED_ROWS);
}

/* The operands of the product being timed, and cuBLAS's handle (made in main): the run's
 * state, as a step's, so that the launch keeps nothing of its own. */
struct int8_operands {
    cublasHandle_t handle;
    const int8_t *a, *bt;
    int32_t *c;
};

/* As the step's products: both operands K-major, A (row i: a_i0 ... a_ik) and Bt (row j: b_0j ...
 * b_kj), C = A Bt^T row-major. cuBLAS is column-major: row-major C is C^T there, C^T = Bt A^T,
 * with row-major Bt read as its transpose (CUBLAS_OP_T) and row-major A as A^T (CUBLAS_OP_N):
 * the "TN" layout its INT8 kernels are built for. */
static void gemm_int8(const struct step_run *run)
{
    const struct int8_operands *op = (const struct int8_operands *)run->state;
    const int n = run->mats.n;
    const int32_t one = 1, zero = 0;
    CUBLAS_CHECK(cublasGemmEx(op->handle, CUBLAS_OP_T, CUBLAS_OP_N, n, n, n, &one, op->bt, CUDA_R_8I, n, op->a,
                              CUDA_R_8I, n, &zero, op->c, CUDA_R_32I, n, CUBLAS_COMPUTE_32I, CUBLAS_GEMM_DEFAULT));
}

/* Bytes from a fixed generator, so that every run multiplies the same matrices. */
static void fill(int8_t *x, size_t count, uint64_t seed)
{
    for (size_t i = 0; i < count; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        x[i] = (int8_t)(seed >> 56);
    }
}

/* An argument that looks like a size given another way (-n 4096, --size, a bare number): its
 * message says how sizes are given. */
static int looks_like_a_size(const char *arg)
{
    return !strncmp(arg, "-n", 2) || !strncmp(arg, "--n", 3) || !strncmp(arg, "--size", 6) ||
           (arg[0] >= '0' && arg[0] <= '9');
}

int main(int argc, char **argv)
{
    int sizes[MAX_SIZES], n_sizes = 0, reps = 10, csv = 0;
    const char *size_text = "1000 4096 8192 16384";
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        long value;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout, argv[0]);
            return EXIT_PASS;
        } else if (!strcmp(argv[i], "--csv")) {
            csv = 1;
        } else if ((!strcmp(argv[i], "--sizes") || !strcmp(argv[i], "--reps")) && !v) {
            usage_error(PROGRAM, "option '%s' needs a value", argv[i]);
        } else if (!strcmp(argv[i], "--sizes")) {
            size_text = argv[++i];
        } else if (!strcmp(argv[i], "--reps")) {
            if (parse_long(argv[++i], 1, 1000, &value))
                number_error(PROGRAM, "--reps", argv[i], 1, 1000);
            reps = (int)value;
        } else if (looks_like_a_size(argv[i])) {
            usage_error(PROGRAM, "%s '%s': sizes are given with --sizes \"4096 8192\"",
                        argv[i][0] == '-' ? "unknown option" : "unexpected argument", argv[i]);
        } else {
            usage_error(PROGRAM, "%s '%s'", argv[i][0] == '-' ? "unknown option" : "unexpected argument", argv[i]);
        }
    }
    char words[256];
    if (strlen(size_text) >= sizeof words)
        usage_error(PROGRAM, "--sizes is longer than %zu characters", sizeof words - 1);
    snprintf(words, sizeof words, "%s", size_text);
    for (char *w = strtok(words, " ,"); w; w = strtok(NULL, " ,")) {
        long n;
        const enum number_problem problem = check_long(w, 4, MAX_N, &n);
        if (n_sizes == MAX_SIZES)
            usage_error(PROGRAM, "bad --sizes '%s': more than %d sizes", size_text, MAX_SIZES);
        if (problem == NUMBER_TOO_LARGE)
            usage_error(PROGRAM, "bad --sizes '%s': %s is too large, the largest accepted is %d", size_text, w, MAX_N);
        /* Said apart: a word that is no number, a number below 4, one that is not a multiple of 4. */
        if (problem != NUMBER_OK && check_long(w, LONG_MIN, LONG_MAX, &n) != NUMBER_OK)
            usage_error(PROGRAM, "bad --sizes '%s': %s is not a number", size_text, w);
        if (problem != NUMBER_OK)
            usage_error(PROGRAM, "bad --sizes '%s': %s is too small: a size must be at least 4", size_text, w);
        if (n % 4)
            usage_error(PROGRAM, "bad --sizes '%s': %s is not a multiple of 4 (cuBLAS's INT8 GEMM reads rows of 4 "
                                 "bytes)", size_text, w);
        sizes[n_sizes++] = (int)n;
    }
    if (!n_sizes)
        usage_error(PROGRAM, "--sizes is empty");
    /* Every size's memory before anything runs: A and B (a byte an element) and C (four) on the
     * host; on the GPU a byte an element more, room for cuBLAS's workspace. */
    const double host = host_memory_bytes();
    for (int s = 0; s < n_sizes; s++) {
        const double elements = (double)sizes[s] * sizes[s];
        if (host > 0 && 6 * elements > host)
            usage_error(PROGRAM, "n = %d needs %.1f GB of host memory; this machine has %.1f GB", sizes[s],
                        6e-9 * elements, 1e-9 * host);
    }

    struct gpu_device dev;
    gpu_open(PROGRAM, &dev);
    gpu_require(PROGRAM, &dev, 75, "INT8 tensor cores");
    for (int s = 0; s < n_sizes; s++) {
        const double elements = (double)sizes[s] * sizes[s];
        if (7 * elements > (double)dev.free_mem)
            usage_error(PROGRAM, "n = %d needs %.1f GB of GPU memory, %.1f GB free", sizes[s], 7e-9 * elements,
                        1e-9 * dev.free_mem);
    }
    cublasHandle_t handle;
    CUBLAS_CHECK(cublasCreate(&handle));
    char date[32];
    const time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%MZ", gmtime(&now));
    /* The rows' conditions (common/conditions.h): NVML for a CSV row; without it, those columns empty. */
    struct nvml nvml = {0};
    if (csv)
        nvml_open(&nvml, NVML_LIBRARY);
    void *nvml_gpu = nvml_device(&nvml, dev.uuid);
    if (csv)
        printf("date,command,program,n,device,kernel_ms,tops,reps,rows_checked,status,device_uuid,"
               CONDITIONS_CSV_HEADER "\n");
    int failed = 0;
    for (int s = 0; s < n_sizes; s++) {
        const int n = sizes[s];
        const size_t bytes = (size_t)n * n;
        int8_t *a = (int8_t *)malloc(bytes), *b = (int8_t *)malloc(bytes);
        int32_t *c = (int32_t *)malloc(4 * bytes);
        if (!a || !b || !c)
            usage_error(PROGRAM, "n = %d: not enough host memory", n);
        fill(a, bytes, 1 + n), fill(b, bytes, 2 + n);
        int8_t *da, *db;
        int32_t *dc;
        CUDA_CHECK(cudaMalloc((void **)&da, bytes));
        CUDA_CHECK(cudaMalloc((void **)&db, bytes));
        CUDA_CHECK(cudaMalloc((void **)&dc, 4 * bytes));
        CUDA_CHECK(cudaMemcpy(da, a, bytes, cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(db, b, bytes, cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemset(dc, 0xff, 4 * bytes)); /* poison: an unwritten element shows */
        struct int8_operands op = {.handle = handle, .a = da, .bt = db, .c = dc};
        struct sm_clock clock = {.nvml = &nvml, .device = nvml_gpu};
        struct step_run run = {.mats = {.n = n}, .state = &op, .sm_clock = &clock};
        const double median = time_kernel(gemm_int8, &run, reps); /* a warm-up, then the median */
        CUDA_CHECK(cudaMemcpy(c, dc, 4 * bytes, cudaMemcpyDeviceToHost));
        /* Exact: |sum| <= n 128^2 < 2^31 for n <= 32768. Rows spread over the matrix, every column. */
        int wrong = 0;
        const int rows = n < CHECKED_ROWS ? n : CHECKED_ROWS; /* every row of a small matrix */
        for (int k = 0; k < rows; k++) {
            const int i = rows == n ? k : (int)((int64_t)k * (n - 1) / (CHECKED_ROWS - 1));
            for (int j = 0; j < n; j++) {
                int32_t want = 0;
                for (int q = 0; q < n; q++)
                    want += (int32_t)a[(size_t)i * n + q] * b[(size_t)j * n + q];
                wrong += c[(size_t)i * n + j] != want;
            }
        }
        const double tops = 2.0 * n * (double)n * n / (median * 1e-3) / 1e12;
        failed |= wrong != 0;
        if (csv) {
            struct run_conditions conditions;
            char conditions_fields[512];
            conditions_read(&conditions, &nvml, &nvml_gpu, &clock, 1, dev.runtime_version);
            conditions_csv(&conditions, conditions_fields, sizeof conditions_fields);
            printf("%s,%s --sizes %d --reps %d --csv,cublas_int8,%d,%s,%.6f,%.1f,%d,%d,%s,%s,%s\n", date, argv[0], n,
                   reps, n, dev.name, median, tops, reps, rows, wrong ? "FAIL" : "pass", dev.uuid, conditions_fields);
        } else {
            printf("%s: cuBLAS INT8 GEMM, n = %d: %.3f ms, %.0f TOPS; %d rows checked exactly: %s\n", dev.name, n,
                   median, tops, rows, wrong ? "WRONG" : "exact");
        }
        free(a), free(b), free(c);
        CUDA_CHECK(cudaFree(da));
        CUDA_CHECK(cudaFree(db));
        CUDA_CHECK(cudaFree(dc));
    }
    CUBLAS_CHECK(cublasDestroy(handle));
    nvml_close(&nvml);
    return failed ? EXIT_INACCURATE : EXIT_PASS;
}
