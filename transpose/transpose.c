/* transpose: the transpose chapter. Transposes a rows x cols float matrix with each
 * variant, checks every result for exact equality, and reports the median time per
 * transpose and the effective bandwidth (bytes read + bytes written). */
#define _GNU_SOURCE
#include "args.h"
#include "conditions.h"
#include "gpu.h"
#include "matrix.h"
#include "timing.h"
#include "transpose.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PROGRAM "transpose"
/* CPU repeats stop once they have taken this long (at least one is always timed). */
#define CPU_BUDGET_MS 3000.0

static const char *const names[T_NUM] = {"cpu", "cpu_blocked", "naive", "shared", "shared_padded", "tiled32x8",
                                         "copy", "copy_kernel"};
static const char *const what[T_NUM] = {
    "CPU loop", "CPU, 32 x 32 blocks", "one thread per element, writes strided",
    "16 x 16 shared-memory tile (the text's)", "the tile padded by one column",
    "32 x 32 tile, 32 x 8 threads, 4 elements each", "cudaMemcpy device to device (the ceiling)",
    "tiled32x8's pattern without transposing"};

struct topts {
    int rows, cols, iters;
    int on[T_NUM];
    int explicit_variants, csv, csv_header;
    uint64_t seed;
};

static void usage(void)
{
    printf("Usage: " PROGRAM " [--rows R] [--cols C] [--iters K] [--variant V|all] [--csv] [--help]\n"
           "The transpose chapter: out = transpose of a rows x cols float matrix, by each variant,\n"
           "checked for exact equality; median time per transpose (CUDA events on the GPU, the\n"
           "wall clock on the CPU) and effective bandwidth (bytes read + written, decimal GB/s).\n"
           "\n"
           "Variants (--variant, comma-separated, or all):\n");
    for (int v = 0; v < T_NUM; v++)
        printf("  %-14s %s\n", names[v], what[v]);
    printf("\n"
           "Options:\n"
           "  --rows R        rows of the input (default 1536: the text's matrix, 2048 wide, 1536 high)\n"
           "  --cols C        columns of the input (default 2048)\n"
           "  --iters K       timed runs after a warm-up, median reported (default 20, the text's)\n"
           "  --variant LIST  which variants (default all)\n"
           "  --seed S        input seed (default 0)\n"
           "  --csv           one CSV line per variant (--csv-header adds the header)\n"
           "  --help          this help\n"
           "\n"
           "Exit status: 0 every result exact, 1 some not, 2 bad usage; when a GPU variant is\n"
           "asked for, 3 no GPU, 5 the driver is older than this build, 6 no code for this GPU\n"
           "in the binary, 7 any other CUDA error (the README's table of exit codes).\n");
}

static void help(const void *unused)
{
    (void)unused;
    usage();
}

static void parse(int argc, char **argv, struct topts *o)
{
    memset(o, 0, sizeof *o);
    o->rows = 1536;
    o->cols = 2048;
    o->iters = 20;
    for (int i = 0; i < T_NUM; i++)
        o->on[i] = 1;
    const struct option_spec specs[] = {
        {.name = "rows", .kind = OPTION_COUNT, .into = &o->rows, .min = 1, .max = INT_MAX},
        {.name = "cols", .kind = OPTION_COUNT, .into = &o->cols, .min = 1, .max = INT_MAX},
        {.name = "iters", .kind = OPTION_COUNT, .into = &o->iters, .min = 1, .max = 100000},
        {.name = "variant", .kind = OPTION_LIST, .into = o->on, .given = &o->explicit_variants, .names = names,
         .count = T_NUM},
        {.name = "seed", .kind = OPTION_SEED, .into = &o->seed},
        {.name = "csv", .kind = OPTION_FLAG, .into = &o->csv},
        {.name = "csv-header", .kind = OPTION_FLAG, .into = &o->csv_header, .also = &o->csv},
        {.name = NULL},
    };
    parse_options(PROGRAM, argc, argv, specs, help, NULL);
}

static int is_gpu(int v)
{
    return v != T_CPU && v != T_CPU_BLOCKED;
}

/* Median ms of one CPU variant: a warm-up, then up to iters runs within the budget. */
static double time_cpu(int v, const float *in, float *out, int rows, int cols, int iters, int *done)
{
    double samples[1024];
    const int max = iters < 1024 ? iters : 1024;
    void (*f)(const float *, float *, int, int) = v == T_CPU ? transpose_cpu : transpose_cpu_blocked;
    f(in, out, rows, cols);
    double spent = 0.0;
    int r = 0;
    while (r < max && (r == 0 || spent < CPU_BUDGET_MS)) {
        poison_mat(out, (size_t)rows * cols);
        double t0 = wall_ms();
        f(in, out, rows, cols);
        samples[r] = wall_ms() - t0;
        spent += samples[r++];
    }
    *done = r;
    return median_of(samples, r);
}

/* Median ms of one GPU variant: a warm-up launch, then iters launches each between two
 * CUDA events; out is poisoned first, so the last launch must have written all of it. The SM
 * clock is read into clock once per timed launch, while it runs (common/conditions.h says why
 * there). */
static double time_gpu(int v, const float *din, float *dout, int rows, int cols, int iters, struct sm_clock *clock)
{
    const size_t bytes = sizeof(float) * (size_t)rows * cols;
    double *samples = malloc(sizeof *samples * (size_t)iters);
    cudaEvent_t start, stop;
    if (!samples)
        usage_error(PROGRAM, "out of host memory");
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    transpose_gpu((enum tvariant)v, din, dout, rows, cols);
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemset(dout, POISON_BYTE, bytes));
    for (int r = 0; r < iters; r++) {
        float ms;
        CUDA_CHECK(cudaEventRecord(start, 0));
        transpose_gpu((enum tvariant)v, din, dout, rows, cols);
        CUDA_CHECK(cudaEventRecord(stop, 0));
        sm_clock_read(clock);
        CUDA_CHECK(cudaEventSynchronize(stop));
        CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        samples[r] = ms;
    }
    double median = median_of(samples, iters);
    free(samples);
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    return median;
}

#define CSV_HEADER "program,rows,cols,device,kernel_ms,gbps,iters,status,device_uuid," CONDITIONS_CSV_HEADER

int main(int argc, char **argv)
{
    struct topts o;
    parse(argc, argv, &o);
    const int rows = o.rows, cols = o.cols;
    const size_t count = (size_t)rows * cols, bytes = sizeof(float) * count;

    /* Host: in, out and the reference; decided before the GPU is touched. */
    const double have = host_memory_bytes();
    if (3.0 * sizeof(float) * (double)rows * cols > (have > 0 ? have : 1e300) || count > SIZE_MAX / 16)
        usage_error(PROGRAM, "%d x %d needs %.1f GB of host memory; this machine has %.1f GB", rows, cols,
                    3.0 * sizeof(float) * (double)rows * cols / 1e9, have / 1e9);

    int any_gpu = 0;
    for (int v = 0; v < T_NUM; v++)
        any_gpu |= o.on[v] && is_gpu(v);
    struct gpu_device dev;
    const char *device = "CPU";
    /* NVML for a CSV row's conditions (common/conditions.h); empty without it, and for the CPU's rows. */
    struct nvml nvml = {0};
    void *nvml_gpu = NULL;
    if (any_gpu) {
        gpu_open(PROGRAM, &dev);
        if (2.0 * bytes > (double)dev.free_mem)
            usage_error(PROGRAM, "%d x %d needs %.1f GB of device memory; %s has %.1f GB free", rows, cols,
                        2.0 * bytes / 1e9, dev.name, dev.free_mem / 1e9);
        device = dev.name;
        if (o.csv && nvml_open(&nvml, NVML_LIBRARY) == 0)
            nvml_gpu = nvml_device(&nvml, dev.uuid);
    }

    float *in = malloc(bytes), *out = malloc(bytes), *ref = malloc(bytes);
    if (!in || !out || !ref)
        usage_error(PROGRAM, "cannot allocate %.1f GB of host memory", 3.0 * bytes / 1e9);
    uint64_t state = o.seed;
    matgen_rect(in, (size_t)cols, rows, cols, &state);
    transpose_cpu(in, ref, rows, cols); /* the reference: the plainest loop */

    float *din = NULL, *dout = NULL;
    if (any_gpu) {
        CUDA_CHECK(cudaMalloc((void **)&din, bytes));
        CUDA_CHECK(cudaMalloc((void **)&dout, bytes));
        CUDA_CHECK(cudaMemcpy(din, in, bytes, cudaMemcpyHostToDevice));
    }

    if (o.csv_header)
        printf("%s\n", CSV_HEADER);
    if (!o.csv)
        printf("%d x %d floats (rows x cols), %.1f MB, on %s; median of %d\n%-14s %12s %10s  %s\n", rows, cols,
               bytes / 1e6, device, o.iters, "variant", "ms", "GB/s", "result");
    int all_exact = 1;
    for (int v = 0; v < T_NUM; v++) {
        if (!o.on[v])
            continue;
        int done = o.iters;
        double ms;
        struct sm_clock clock = {.nvml = &nvml, .device = nvml_gpu};
        poison_mat(out, count);
        if (is_gpu(v)) {
            ms = time_gpu(v, din, dout, rows, cols, o.iters, &clock);
            CUDA_CHECK(cudaMemcpy(out, dout, bytes, cudaMemcpyDeviceToHost));
        } else {
            ms = time_cpu(v, in, out, rows, cols, o.iters, &done);
        }
        /* The copies must reproduce in; the transposes the reference, bit for bit. */
        const float *want = v == T_COPY || v == T_COPY_KERNEL ? in : ref;
        const int exact = memcmp(out, want, bytes) == 0;
        all_exact &= exact;
        const double gbps = 2.0 * bytes / (ms * 1e6);
        char conditions_fields[512] = ",,,,";
        if (o.csv && is_gpu(v)) {
            struct run_conditions conditions;
            conditions_read(&conditions, &nvml, &nvml_gpu, &clock, 1, dev.runtime_version);
            conditions_csv(&conditions, conditions_fields, sizeof conditions_fields);
        }
        if (o.csv)
            printf("%s,%d,%d,%s,%.6f,%.2f,%d,%s,%s,%s\n", names[v], rows, cols, is_gpu(v) ? device : "CPU", ms, gbps,
                   done, exact ? "exact" : "WRONG", is_gpu(v) ? dev.uuid : "", conditions_fields);
        else
            printf("%-14s %12.4f %10.2f  %s\n", names[v], ms, gbps, exact ? "exact" : "WRONG");
        fflush(stdout);
    }
    if (any_gpu) {
        CUDA_CHECK(cudaFree(din));
        CUDA_CHECK(cudaFree(dout));
    }
    nvml_close(&nvml);
    free(in);
    free(out);
    free(ref);
    return all_exact ? EXIT_PASS : EXIT_INACCURATE;
}
