/* multigpu: C = A B for one n x n product spread over the GPUs of one host. One process,
 * one OpenMP thread per GPU, NCCL between the GPUs, cuBLAS on each. Each algorithm
 * (--algo) starts with its blocks of A and B already on the GPUs, as a distributed
 * application holds them, and is timed from there to its blocks of C: the median of
 * --reps runs after a warm-up, all GPUs started together and waited for. Its communication
 * alone and its local products alone are timed the same way. The result is gathered and
 * checked against the harness's double-precision reference (every row up to n = 2048, a
 * sample of rows above). */
#define _POSIX_C_SOURCE 200809L /* strdup, access, dirname: --trace's checks */
#include "args.h"
#include "cluster.h"
#include "conditions.h"
#include "matrix.h"
#include "timing.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <omp.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PROGRAM "multigpu"

static const struct algorithm *const algorithms[] = {&rows_algorithm, &summa_algorithm, &cublasmp_algorithm};
#define NUM_ALGORITHMS 3
static const char *const algorithm_names[NUM_ALGORITHMS] = {"rows", "summa", "cublasmp"};
static const char *const local_names[] = {"sgemm", "tf32"};
static const char *const comm_names[] = {"nccl", "copy"};

struct mg_options {
    int n, gpus, reps, csv, csv_header, features, algos_given, gpus_given;
    int on[NUM_ALGORITHMS];
    int prow, pcol; /* 0: the squarest grid */
    long panel;
    int local;      /* 0 sgemm, 1 tf32 */
    int comm;       /* SUMMA's panels: 0 NCCL, 1 the copy engines */
    const char *trace; /* a file for one traced run's spans, or NULL */
    uint64_t seed;
    enum check_mode check;
    int check_given;
    enum input_dist dist;
};

static void usage(void)
{
    printf("Usage: " PROGRAM " [-n N] [--gpus G] [--algo LIST] [--grid RxC] [--panel W] [--local sgemm|tf32]\n"
           "                [--comm nccl|copy] [--reps R] [--seed S] [--dist D] [--check full|sample|none]\n"
           "                [--trace FILE] [--csv] [--features]\n"
           "C = A B, n x n floats, spread over G GPUs of this host (one OpenMP thread per GPU, NCCL\n"
           "between them, cuBLAS on each); checked against a double-precision reference.\n"
           "\n"
           "Algorithms (--algo, comma-separated, or all):\n");
    for (int a = 0; a < NUM_ALGORITHMS; a++)
        printf("  %-9s %s\n", algorithms[a]->name, algorithms[a]->what);
    printf("\n"
           "Options:\n"
           "  -n N            the size (default 4096)\n"
           "  --gpus G        how many GPUs (default: every visible one)\n"
           "  --algo LIST     which algorithms (default all; cublasmp is skipped, saying why, where it\n"
           "                  cannot run, unless asked for by name)\n"
           "  --grid RxC      the 2-D algorithms' grid of GPUs, R x C = G (default: the squarest,\n"
           "                  R <= C: 1x2, 2x2, 2x4)\n"
           "  --panel W       SUMMA's panel width and cuBLASMp's block size (default 8192)\n"
           "  --local L       the GPUs' own products: sgemm (cuBLAS FP32, default) or tf32 (cuBLAS on\n"
           "                  TF32 tensor cores, judged by the TF32 bound)\n"
           "  --comm C        how SUMMA sends its panels: nccl (NCCL broadcasts, default) or copy (the\n"
           "                  copy engines: cudaMemcpyPeerAsync from each panel's owner, no SM used)\n"
           "  --reps R        timed runs after a warm-up, median reported (default 5)\n"
           "  --seed S        input seed (default 1)\n"
           "  --dist D        inputs: uniform (default), wide, or an end of FP32's range (common/matrix.h\n"
           "                  says what each holds):");
    for (int d = DIST_WIDE + 1; d < DIST_COUNT; d++)
        printf(" %s", dist_name((enum input_dist)d));
    printf("\n"
           "  --check MODE    full, sample (64 rows) or none (default: full up to n = 2048)\n"
           "  --trace FILE    one more run of each algorithm, traced: each GPU's broadcasts and products\n"
           "                  as spans (ms from the run's start on that GPU), CSV into FILE\n"
           "  --csv           one CSV line per algorithm (--csv-header adds the header)\n"
           "  --features      what this build and machine have (NCCL, cuBLASMp, GPUs), and exit\n"
           "  --help          this help\n"
           "\n"
           "Exit status: 0 every result within its bound, 1 some not, 2 bad usage or too large,\n"
           "3 no GPU, 4 fewer GPUs than --gpus or an algorithm asked for that cannot run here,\n"
           "5 driver older than this build, 7 any other CUDA, cuBLAS, NCCL or cuBLASMp error.\n");
}

static void help(const void *unused)
{
    (void)unused;
    usage();
}

/* --trace FILE: whether it can be written is asked before anything runs (one line, exit 2, with
 * the reason); it is opened only once the runs start, so that a run that stops before them (no
 * GPU, too large) leaves no empty file, and an existing one as it was. */
static void check_trace_path(const char *path)
{
    struct stat st;
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode))
            usage_error(PROGRAM, "cannot write --trace '%s': it is a folder", path);
        if (access(path, W_OK) != 0)
            usage_error(PROGRAM, "cannot write --trace '%s': %s", path, strerror(errno));
        return;
    }
    char *copy = strdup(path);
    if (!copy)
        usage_error(PROGRAM, "out of host memory");
    const char *folder = dirname(copy);
    if (stat(folder, &st) != 0 || !S_ISDIR(st.st_mode))
        usage_error(PROGRAM, "cannot write --trace '%s': no folder '%s'", path, folder);
    if (access(folder, W_OK | X_OK) != 0)
        usage_error(PROGRAM, "cannot write --trace '%s': folder '%s': %s", path, folder, strerror(errno));
    free(copy);
}

/* --grid RxC: at least one GPU a side, at most MAX_GPUS in all. */
static void parse_grid(const char *program, const char *value, void *into)
{
    int *grid = into;
    char side[2][64], tail;
    long r = 0, c = 0;
    if (sscanf(value, "%63[0-9]x%63[0-9]%c", side[0], side[1], &tail) != 2)
        usage_error(program, "bad --grid '%s': expected RxC, e.g. 2x2", value);
    const enum number_problem rp = check_long(side[0], 1, MAX_GPUS, &r), cp = check_long(side[1], 1, MAX_GPUS, &c);
    if (rp == NUMBER_TOO_LARGE || cp == NUMBER_TOO_LARGE || (rp == NUMBER_OK && cp == NUMBER_OK && r * c > MAX_GPUS))
        usage_error(program, "bad --grid '%s': too large, this program drives at most %d GPUs", value, MAX_GPUS);
    if (rp != NUMBER_OK || cp != NUMBER_OK)
        usage_error(program, "bad --grid '%s': expected RxC, each at least 1, e.g. 2x2", value);
    grid[0] = (int)r;
    grid[1] = (int)c;
}

static void parse_local(const char *program, const char *value, void *into)
{
    for (int i = 0; i < 2; i++)
        if (strcmp(value, local_names[i]) == 0) {
            *(int *)into = i;
            return;
        }
    usage_error(program, "bad --local '%s': expected sgemm or tf32", value);
}

static void parse_comm(const char *program, const char *value, void *into)
{
    for (int i = 0; i < 2; i++)
        if (strcmp(value, comm_names[i]) == 0) {
            *(int *)into = i;
            return;
        }
    usage_error(program, "bad --comm '%s': expected nccl or copy", value);
}

static void parse(int argc, char **argv, struct mg_options *o)
{
    memset(o, 0, sizeof *o);
    o->n = 4096;
    o->reps = 5;
    o->seed = 1;
    o->panel = 8192;
    o->dist = DIST_UNIFORM;
    int grid[2] = {0, 0}, panel = 8192;
    for (int a = 0; a < NUM_ALGORITHMS; a++)
        o->on[a] = 1;
    const struct option_spec specs[] = {
        {.name = "n", .kind = OPTION_SIZE, .into = &o->n},
        {.name = "gpus", .kind = OPTION_COUNT, .into = &o->gpus, .given = &o->gpus_given, .min = 1, .max = MAX_GPUS},
        {.name = "algo", .kind = OPTION_LIST, .into = o->on, .given = &o->algos_given, .names = algorithm_names,
         .count = NUM_ALGORITHMS},
        {.name = "grid", .kind = OPTION_CUSTOM, .into = grid, .custom = parse_grid},
        {.name = "panel", .kind = OPTION_COUNT, .into = &panel, .min = 1, .max = INT_MAX},
        {.name = "local", .kind = OPTION_CUSTOM, .into = &o->local, .custom = parse_local},
        {.name = "comm", .kind = OPTION_CUSTOM, .into = &o->comm, .custom = parse_comm},
        {.name = "trace", .kind = OPTION_TEXT, .into = &o->trace, .expected = "a file to write"},
        {.name = "reps", .kind = OPTION_COUNT, .into = &o->reps, .min = 1, .max = 1000},
        {.name = "seed", .kind = OPTION_SEED, .into = &o->seed},
        {.name = "dist", .kind = OPTION_DIST, .into = &o->dist},
        {.name = "check", .kind = OPTION_CHECK, .into = &o->check, .given = &o->check_given},
        {.name = "csv", .kind = OPTION_FLAG, .into = &o->csv},
        {.name = "csv-header", .kind = OPTION_FLAG, .into = &o->csv_header, .also = &o->csv},
        {.name = "features", .kind = OPTION_FLAG, .into = &o->features},
        {.name = NULL},
    };
    parse_options(PROGRAM, argc, argv, specs, help, NULL);
    o->prow = grid[0];
    o->pcol = grid[1];
    o->panel = panel;
    /* What the options alone decide, before any CUDA call: a grid needs exactly its number of
     * GPUs (without --gpus, every visible one: checked once they are counted). */
    if (o->prow && o->gpus_given && o->prow * o->pcol != o->gpus)
        usage_error(PROGRAM, "--grid %dx%d has %d places for %d GPUs (--gpus %d)", o->prow, o->pcol,
                    o->prow * o->pcol, o->gpus, o->gpus);
    if (!o->check_given)
        o->check = o->n <= FULL_CHECK_MAX_N ? CHECK_FULL : CHECK_SAMPLE;
}

/* The squarest grid of g GPUs with prow <= pcol. */
static void squarest(int g, int *prow, int *pcol)
{
    *prow = 1;
    for (int r = 1; r * r <= g; r++)
        if (g % r == 0)
            *prow = r;
    *pcol = g / *prow;
}

/* Median ms of parts of alg over reps runs after a warm-up: every GPU's thread starts
 * together (a barrier), and the time ends when the last GPU is done. With clocks (one per GPU),
 * each GPU's thread reads its SM clock once per timed run, after queueing its part and before
 * waiting for it (common/conditions.h says why then). */
static double time_parts(const struct algorithm *alg, struct cluster *cl, enum run_parts parts, int reps,
                         struct sm_clock *clocks)
{
    double *samples = malloc(sizeof *samples * (size_t)reps), t0 = 0.0;
    if (!samples)
        usage_error(PROGRAM, "out of host memory");
#pragma omp parallel num_threads(cl->gpus)
    {
        const int g = omp_get_thread_num();
        CUDA_CHECK(cudaSetDevice(g));
        for (int r = -1; r < reps; r++) {
#pragma omp barrier
#pragma omp master
            t0 = wall_ms();
#pragma omp barrier
            alg->run(cl, g, parts);
            if (clocks && r >= 0)
                sm_clock_read(&clocks[g]);
            CUDA_CHECK(cudaDeviceSynchronize());
#pragma omp barrier
#pragma omp master
            if (r >= 0)
                samples[r] = wall_ms() - t0;
        }
    }
    const double median = median_of(samples, reps);
    free(samples);
    return median;
}

#define CSV_HEADER "algo,local,n,gpus,grid,panel,device,ms,tflops,comm_ms,gemm_ms,max_rel_err,max_comp_err,bound,status,rows_checked,reps,dist,comm,uuids," CONDITIONS_CSV_HEADER
#define TRACE_HEADER "algo,comm,n,gpus,grid,panel,device,gpu,what,index,start_ms,end_ms"

/* One more run of alg, traced: each GPU's spans, in ms from an event recorded on its compute
 * stream just before the run (the GPUs start together, as in time_parts), into trace. */
static void traced_run(const struct algorithm *alg, struct cluster *cl, FILE *trace, const char *prefix)
{
#pragma omp parallel num_threads(cl->gpus)
    {
        const int g = omp_get_thread_num();
        CUDA_CHECK(cudaSetDevice(g));
        struct trace *t = calloc(1, sizeof *t);
        if (!t)
            usage_error(PROGRAM, "out of host memory");
        CUDA_CHECK(cudaEventCreate(&t->zero));
        cl->trace[g] = t;
#pragma omp barrier
        CUDA_CHECK(cudaEventRecord(t->zero, cl->stream[g]));
        alg->run(cl, g, RUN_ALL);
        CUDA_CHECK(cudaDeviceSynchronize());
#pragma omp critical
        for (int i = 0; i < t->spans; i++) {
            float begin = 0.0f, end = 0.0f;
            CUDA_CHECK(cudaEventElapsedTime(&begin, t->zero, t->span[i].begin));
            CUDA_CHECK(cudaEventElapsedTime(&end, t->zero, t->span[i].end));
            fprintf(trace, "%s,%d,%s,%d,%.4f,%.4f\n", prefix, g, t->span[i].what, t->span[i].index, begin, end);
            CUDA_CHECK(cudaEventDestroy(t->span[i].begin));
            CUDA_CHECK(cudaEventDestroy(t->span[i].end));
        }
        if (t->dropped)
            fprintf(stderr, PROGRAM ": --trace: GPU %d's first %d spans recorded, %d more not (a wider --panel has fewer)\n",
                    g, TRACE_SPANS, t->dropped);
        CUDA_CHECK(cudaEventDestroy(t->zero));
        cl->trace[g] = NULL;
        free(t);
    }
}

/* The GPUs' UUIDs as nvidia-smi writes them ("GPU-8a299dd6-2059-..."), space-separated. */
static void gpu_uuids(int gpus, char *out, size_t size)
{
    out[0] = '\0';
    for (int g = 0; g < gpus; g++) {
        char one[48];
        gpu_uuid(g, one, sizeof one);
        snprintf(out + strlen(out), size - strlen(out), "%s%s", g ? " " : "", one);
    }
}

int main(int argc, char **argv)
{
    struct mg_options o;
    parse(argc, argv, &o);
    omp_set_dynamic(0); /* one thread per GPU, always */
    int nccl_version = 0;
    NCCL_CHECK(ncclGetVersion(&nccl_version));

    struct gpu_device dev;
    if (o.features) {
        int count = 0;
        if (cudaGetDeviceCount(&count) != cudaSuccess)
            count = 0;
        char buffer[300];
        const char *why = cublasmp_algorithm.unavailable(NULL, buffer, sizeof buffer);
        printf("nccl=%d.%d.%d\ncublasmp=%d\ncublasmp_why=%s\ngpus=%d\n", nccl_version / 10000, nccl_version / 100 % 100,
               nccl_version % 100, why ? 0 : cublasmp_version(), why ? why : "", count);
        return EXIT_PASS;
    }
    const long n = o.n;
    if (o.trace)
        check_trace_path(o.trace);
    const double host_need = 3.0 * sizeof(float) * (double)n * n, have = host_memory_bytes();
    if (host_need > (have > 0 ? have : 1e300) || (size_t)n * (size_t)n > SIZE_MAX / 16)
        usage_error(PROGRAM, "n = %ld needs %.1f GB of host memory; this machine has %.1f GB", n, host_need / 1e9,
                    have / 1e9);

    gpu_open(PROGRAM, &dev); /* no GPU: exit 3; a driver too old: exit 5 */
    int count = 0;
    CUDA_CHECK(cudaGetDeviceCount(&count));
    struct cluster cl = {.n = n, .panel = o.panel, .tf32 = o.local == 1, .copy_engines = o.comm == 1};
    cl.gpus = o.gpus_given ? o.gpus : (count < MAX_GPUS ? count : MAX_GPUS);
    if (cl.gpus > count) {
        fprintf(stderr, PROGRAM ": --gpus %d asks for %d GPUs; this machine has %d\n", cl.gpus, cl.gpus, count);
        return EXIT_NO_FEATURE;
    }
    if (o.prow) {
        if (o.prow * o.pcol != cl.gpus) /* --gpus was checked with the options: these are every visible GPU */
            usage_error(PROGRAM, "--grid %dx%d has %d places for %d GPUs, every one visible (--gpus G picks G)",
                        o.prow, o.pcol, o.prow * o.pcol, cl.gpus);
        cl.prow = o.prow;
        cl.pcol = o.pcol;
    } else {
        squarest(cl.gpus, &cl.prow, &cl.pcol);
    }

    /* Which algorithms run: one asked for by name that cannot run here is the machine's
     * answer (exit 4); among all, it is skipped, saying why. */
    int run_it[NUM_ALGORITHMS] = {0};
    for (int a = 0; a < NUM_ALGORITHMS; a++) {
        if (!o.on[a])
            continue;
        char buffer[300];
        const char *why = algorithms[a]->unavailable ? algorithms[a]->unavailable(&cl, buffer, sizeof buffer) : NULL;
        if (why && o.algos_given) {
            fprintf(stderr, PROGRAM ": %s cannot run here: %s\n", algorithms[a]->name, why);
            return EXIT_NO_FEATURE;
        }
        if (why)
            fprintf(stderr, PROGRAM ": %s skipped: %s\n", algorithms[a]->name, why);
        run_it[a] = !why;
    }
    for (int a = 0; a < NUM_ALGORITHMS; a++) {
        if (!run_it[a])
            continue;
        const double need = algorithms[a]->device_bytes(&cl);
        for (int g = 0; g < cl.gpus; g++) {
            size_t free_b = 0, total_b = 0;
            CUDA_CHECK(cudaSetDevice(g));
            CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
            if (need > (double)free_b)
                usage_error(PROGRAM, "n = %ld needs %.1f GB on each GPU for %s on %d GPUs; GPU %d has %.1f GB free", n,
                            need / 1e9, algorithms[a]->name, cl.gpus, g, free_b / 1e9);
        }
    }

    /* The inputs and the reference, on the host, once for every algorithm. */
    float *a = malloc(sizeof(float) * (size_t)(n * n)), *b = malloc(sizeof(float) * (size_t)(n * n)),
          *c = malloc(sizeof(float) * (size_t)(n * n));
    if (!a || !b || !c)
        usage_error(PROGRAM, "cannot allocate %.1f GB of host memory", host_need / 1e9);
    uint64_t state = o.seed;
    matgen_dist(o.dist, 'A', a, (size_t)n, (int)n, (int)n, &state);
    matgen_dist(o.dist, 'B', b, (size_t)n, (int)n, (int)n, &state);
    struct reference ref;
    if (make_reference(a, b, (int)n, o.check, o.seed, &ref) != 0)
        usage_error(PROGRAM, "out of host memory for the reference");
    const double bound = precision_bound(cl.tf32 ? PRECISION_TF32 : PRECISION_FP32, 0, (int)n);

    int devs[MAX_GPUS];
    for (int g = 0; g < cl.gpus; g++)
        devs[g] = g;
    NCCL_CHECK(ncclCommInitAll(cl.world, cl.gpus, devs));
    for (int g = 0; g < cl.gpus; g++) {
        CUDA_CHECK(cudaSetDevice(g));
        CUDA_CHECK(cudaStreamCreateWithFlags(&cl.stream[g], cudaStreamNonBlocking));
        CUBLAS_CHECK(cublasCreate(&cl.blas[g]));
        CUBLAS_CHECK(cublasSetStream(cl.blas[g], cl.stream[g]));
        CUBLAS_CHECK(cublasSetMathMode(cl.blas[g], cl.tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH));
    }

    char grid[32], uuids[MAX_GPUS * 48];
    snprintf(grid, sizeof grid, "%dx%d", cl.prow, cl.pcol);
    gpu_uuids(cl.gpus, uuids, sizeof uuids);
    /* The rows' conditions (common/conditions.h): NVML for a CSV row, each GPU found by its UUID;
     * without NVML those columns are empty. */
    struct nvml nvml = {0};
    void *nvml_gpus[MAX_GPUS] = {NULL};
    if (o.csv && nvml_open(&nvml, NVML_LIBRARY) == 0)
        for (int g = 0; g < cl.gpus; g++) {
            char uuid[48];
            gpu_uuid(g, uuid, sizeof uuid);
            nvml_gpus[g] = nvml_device(&nvml, uuid);
        }
    FILE *trace = NULL;
    if (o.trace) {
        if (!(trace = fopen(o.trace, "w")))
            usage_error(PROGRAM, "cannot write --trace '%s': %s", o.trace, strerror(errno));
        fprintf(trace, "%s\n", TRACE_HEADER);
    }
    if (o.csv_header)
        printf("%s\n", CSV_HEADER);
    if (!o.csv)
        printf("n = %ld on %d x %s (grid %s, panel %ld, SUMMA's panels by %s), %s inputs, local products: cuBLAS %s;"
               " median of %d\n"
               "%-9s %10s %8s %9s %9s %12s %12s  %s\n",
               n, cl.gpus, dev.name, grid, o.panel, comm_names[o.comm], dist_name(o.dist), cl.tf32 ? "TF32" : "SGEMM", o.reps, "algo",
               "ms", "TFLOPS", "comm ms", "gemm ms", "max rel err", "comp err", "result");
    int all_pass = 1;
    for (int al = 0; al < NUM_ALGORITHMS; al++) {
        if (!run_it[al])
            continue;
        const struct algorithm *alg = algorithms[al];
        /* Every GPU's state, zeroed, before any GPU's setup: SUMMA's GPUs read their peers'. */
        for (int g = 0; g < cl.gpus; g++)
            if (alg->state_bytes && !(cl.state[g] = calloc(1, alg->state_bytes)))
                usage_error(PROGRAM, "out of host memory");
#pragma omp parallel num_threads(cl.gpus)
        {
            const int g = omp_get_thread_num();
            CUDA_CHECK(cudaSetDevice(g));
            alg->setup(&cl, g, a, b);
        }
        struct sm_clock clocks[MAX_GPUS];
        for (int g = 0; g < cl.gpus; g++)
            clocks[g] = (struct sm_clock){.nvml = &nvml, .device = nvml_gpus[g]};
        const double ms = time_parts(alg, &cl, RUN_ALL, o.reps, clocks);
        /* The result of the last timed run, gathered over poison: a block no GPU wrote stays
         * poison and fails the check. */
        poison_mat(c, (size_t)(n * n));
#pragma omp parallel num_threads(cl.gpus)
        {
            const int g = omp_get_thread_num();
            CUDA_CHECK(cudaSetDevice(g));
            alg->gather(&cl, g, c);
        }
        if (trace) {
            char prefix[400];
            snprintf(prefix, sizeof prefix, "%s,%s,%ld,%d,%s,%ld,%s", alg->name, comm_names[o.comm], n, cl.gpus, grid,
                     o.panel, dev.name);
            traced_run(alg, &cl, trace, prefix);
        }
        double comm_ms = NAN, gemm_ms = NAN;
        if (alg->parts_apart) {
            comm_ms = time_parts(alg, &cl, RUN_COMM, o.reps, NULL);
            gemm_ms = time_parts(alg, &cl, RUN_GEMM, o.reps, NULL);
        }
#pragma omp parallel num_threads(cl.gpus)
        {
            const int g = omp_get_thread_num();
            CUDA_CHECK(cudaSetDevice(g));
            alg->teardown(&cl, g);
        }
        for (int g = 0; g < cl.gpus; g++) {
            free(cl.state[g]);
            cl.state[g] = NULL;
        }
        struct check_result r;
        check_with_reference(&ref, c, &r);
        const int pass = o.check == CHECK_NONE ? !r.unwritten && r.nonfinite == r.expected_nonfinite
                                               : check_passes(&r, bound);
        all_pass &= pass;
        const char *status = o.check == CHECK_NONE ? (pass ? "unchecked" : "FAIL") : pass ? "pass" : "FAIL";
        const double tflops = 2.0 * (double)n * n * n / (ms * 1e-3) / 1e12;
        if (o.csv) {
            struct run_conditions conditions;
            char conditions_fields[512];
            conditions_read(&conditions, &nvml, nvml_gpus, clocks, cl.gpus, dev.runtime_version);
            conditions_csv(&conditions, conditions_fields, sizeof conditions_fields);
            printf("%s,%s,%ld,%d,%s,%ld,%s,%.4f,%.2f,%.4f,%.4f,%.3e,%.3e,%.3e,%s,%zu,%d,%s,%s,%s,%s\n", alg->name,
                   local_names[o.local], n, cl.gpus, grid, o.panel, dev.name, ms, tflops, comm_ms, gemm_ms,
                   r.max_rel_err, r.max_comp_err, bound, status, r.rows_checked, o.reps, dist_name(o.dist),
                   comm_names[o.comm], uuids, conditions_fields);
        }
        else
            printf("%-9s %10.3f %8.2f %9.3f %9.3f %12.3e %12.3e  %s\n", alg->name, ms, tflops, comm_ms, gemm_ms,
                   r.max_rel_err, r.max_comp_err, status);
        if (!pass)
            fprintf(stderr, PROGRAM ": %s: %zu unwritten, %zu unexpected NaN/Inf, componentwise error %.3e (bound %.3e)\n",
                    alg->name, r.unwritten, r.nonfinite - r.expected_nonfinite, r.max_comp_err, bound);
    }
    for (int g = 0; g < cl.gpus; g++) {
        CUDA_CHECK(cudaSetDevice(g));
        CUBLAS_CHECK(cublasDestroy(cl.blas[g]));
        CUDA_CHECK(cudaStreamDestroy(cl.stream[g]));
        NCCL_CHECK(ncclCommDestroy(cl.world[g]));
    }
    if (trace)
        fclose(trace);
    nvml_close(&nvml);
    free_reference(&ref);
    free(a);
    free(b);
    free(c);
    return all_pass ? EXIT_PASS : EXIT_INACCURATE;
}
