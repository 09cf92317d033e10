/* cpu_gemm: the CPU chapter. Runs the variants of C = A B on the CPU at the given
 * sizes, checks each against the double-precision reference of common/, and reports
 * the median wall-clock time and GFLOPS. */
#define _GNU_SOURCE
#include "args.h"
#include "exit_codes.h"
#include "matrix.h"
#include "timing.h"
#include "variants.h"

#include <float.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PROGRAM "cpu_gemm"
#define MAX_SIZES 64
#define MAX_BLOCK (1 << 20) /* --block's largest */
/* A run longer than this is timed once: at that length warming up changes nothing. */
#define LONG_RUN_MS 5000.0
/* Repeats stop once they have taken this long (at least one is always timed). */
#define REPS_BUDGET_MS 3000.0

enum variant { BASELINE, AVX, AVX_BLOCKED, AVX_BLOCKED_BT, PACKED, PACKED_OMP, OPENBLAS, NUM_VARIANTS };
static const char *const variant_names[NUM_VARIANTS] = {"baseline", "avx", "avx_blocked", "avx_blocked_bt",
                                                  "packed", "packed_omp", "openblas"};

struct cpu_options {
    int sizes[MAX_SIZES];
    int nsizes;
    int variants[NUM_VARIANTS]; /* 1 = run it */
    int explicit_variants;
    int threads, block, reps;
    uint64_t seed;
    enum check_mode check;
    int check_given, csv, csv_header;
    enum input_dist dist;
    const char *load_dir; /* --load DIR: a.npy and b.npy instead of generated inputs */
    enum isa isa;         /* --isa: the packed micro-kernel's, ISA_NONE for the best there is */
};

static void usage(void)
{
    printf("Usage: " PROGRAM " [options]\n"
           "The CPU chapter: C = A B for n x n float matrices, variant by variant, each checked\n"
           "against the double-precision reference; median wall-clock time and GFLOPS.\n"
           "\n"
           "Variants (--variant, comma-separated, or all):\n"
           "  baseline        the triple loop\n"
           "  avx             AVX2: broadcast A[i][k], FMA into 8 columns of C at a time\n"
           "  avx_blocked     the same over --block x --block tiles\n"
           "  avx_blocked_bt  the same with B transposed first\n"
           "  packed          packed panels + register-blocked micro-kernel (AVX-512 or AVX2)\n"
           "  packed_omp      the same, on --threads threads (OpenMP)\n"
           "  openblas        cblas_sgemm from OpenBLAS on --threads threads: the ceiling\n"
           "\n"
           "Options:\n"
           "  -n N            a size (repeat for several; default 128 256 512 1000 1024 2048)\n"
           "  --variant LIST  which variants (default all)\n"
           "  --threads T     threads for packed_omp and openblas (default 1)\n"
           "  --block B       tile size of the blocked variants, a multiple of 8 up to %d\n"
           "                  (default 64)\n"
           "  --isa ISA       auto, avx2 or avx512: the micro-kernel of packed (default auto)\n"
           "  --reps R        timed runs after a warm-up, median reported (default 5; runs over\n"
           "                  %.0f s are timed once, repeats stop after %.0f s)\n"
           "  --seed S        input seed (default 0)\n"
           "  --dist D        the inputs: uniform (the article's, [0, 1), the default) or wide\n"
           "                  (+-m * 2^e, m in [1, 2), e in -8..8: signed, sums cancel); the ends of\n"
           "                  FP32's range: subnormal, tiny, rowscale, mixed, huge (common/matrix.h)\n"
           "  --load DIR      multiply DIR/a.npy by DIR/b.npy (float32, n x n, C order, as NumPy's\n"
           "                  np.save writes them) instead; n is theirs\n"
           "  --check MODE    full, sample or none (default: full up to n = %d)\n"
           "  --csv           CSV lines instead of the table (--csv-header adds the header)\n"
           "  --features      print what this CPU and build support, and exit\n"
           "  --help          this help\n"
           "\n"
           "Each result is judged by its componentwise error |c - ref| / (|A| |B|) against the\n"
           "bound of an FP32 sum (the fp32 class of the GPU programs).\n"
           "\n"
           "Exit status: 0 all within tolerance, 1 some not, 2 bad usage, 4 a variant this CPU\n"
           "or build cannot run was asked for.\n",
           MAX_BLOCK, LONG_RUN_MS / 1e3, REPS_BUDGET_MS / 1e3, FULL_CHECK_MAX_N);
}

/* -n, repeated: one more size. */
static void add_size(const char *program, const char *value, void *into)
{
    struct cpu_options *o = into;
    if (o->nsizes == MAX_SIZES)
        usage_error(program, "at most %d sizes", MAX_SIZES);
    o->sizes[o->nsizes++] = parse_size(program, value);
}

/* --block B: the blocked variants' tile, a multiple of 8 (one AVX2 vector of floats), at most
 * MAX_BLOCK: any larger is one tile at every n this machine can hold, and the loops' i + block
 * stays far from overflowing an int. */
static void take_block(const char *program, const char *value, void *into)
{
    long v;
    const enum number_problem problem = check_long(value, 8, MAX_BLOCK, &v);
    if (problem == NUMBER_TOO_LARGE)
        usage_error(program, "bad --block '%s': too large, the largest accepted is %d", value, MAX_BLOCK);
    if (problem != NUMBER_OK || v % 8)
        usage_error(program, "bad --block '%s': expected a multiple of 8 from 8 to %d", value, MAX_BLOCK);
    *(int *)into = (int)v;
}

/* --isa auto|avx2|avx512: the packed micro-kernel; one this CPU lacks is exit 4. */
static void take_isa(const char *program, const char *value, void *into)
{
    enum isa *isa = into;
    if (strcmp(value, "avx2") == 0)
        *isa = ISA_AVX2;
    else if (strcmp(value, "avx512") == 0)
        *isa = ISA_AVX512;
    else if (strcmp(value, "auto") != 0)
        usage_error(program, "bad --isa '%s': expected auto, avx2 or avx512", value);
    if (strcmp(value, "auto") != 0 && ((strcmp(value, "avx512") == 0 && cpu_isa() != ISA_AVX512) ||
                                       cpu_isa() == ISA_NONE)) {
        fprintf(stderr, "%s: --isa %s: this CPU does not have it\n", program, value);
        exit(EXIT_NO_FEATURE);
    }
}

static void help(const void *unused)
{
    (void)unused;
    usage();
}

static void parse(int argc, char **argv, struct cpu_options *o, int *features)
{
    int dist_given = 0;
    memset(o, 0, sizeof *o);
    for (int i = 0; i < NUM_VARIANTS; i++)
        o->variants[i] = 1;
    o->threads = 1;
    o->block = 64;
    o->reps = 5;
    const struct option_spec specs[] = {
        {.name = "n", .kind = OPTION_CUSTOM, .into = o, .custom = add_size},
        {.name = "variant", .kind = OPTION_LIST, .into = o->variants, .given = &o->explicit_variants,
         .names = variant_names, .count = NUM_VARIANTS},
        {.name = "threads", .kind = OPTION_COUNT, .into = &o->threads, .min = 1, .max = 1024},
        {.name = "block", .kind = OPTION_CUSTOM, .into = &o->block, .custom = take_block},
        {.name = "isa", .kind = OPTION_CUSTOM, .into = &o->isa, .custom = take_isa},
        {.name = "reps", .kind = OPTION_COUNT, .into = &o->reps, .min = 1, .max = 100000},
        {.name = "seed", .kind = OPTION_SEED, .into = &o->seed},
        {.name = "check", .kind = OPTION_CHECK, .into = &o->check, .given = &o->check_given},
        {.name = "csv", .kind = OPTION_FLAG, .into = &o->csv},
        {.name = "csv-header", .kind = OPTION_FLAG, .into = &o->csv_header, .also = &o->csv},
        {.name = "features", .kind = OPTION_FLAG, .into = features},
        {.name = "dist", .kind = OPTION_DIST, .into = &o->dist, .given = &dist_given},
        {.name = "load", .kind = OPTION_TEXT, .into = &o->load_dir, .expected = "a directory holding a.npy and b.npy"},
        {.name = NULL},
    };
    parse_options(PROGRAM, argc, argv, specs, help, NULL);
    if (o->load_dir && dist_given)
        usage_error(PROGRAM, "--dist and --load: loaded inputs have no distribution to choose");
    if (o->load_dir && o->nsizes > 1)
        usage_error(PROGRAM, "--load: the files' n is the only size; give at most one -n");
    if (o->nsizes == 0 && !o->load_dir) {
        static const int sweep[] = {128, 256, 512, 1000, 1024, 2048};
        for (size_t i = 0; i < sizeof sweep / sizeof *sweep; i++)
            o->sizes[o->nsizes++] = sweep[i];
    }
}

/* The CPU's model name, as /proc/cpuinfo gives it. */
static void cpu_model(char *out, size_t size)
{
    snprintf(out, size, "unknown CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) == 0) {
            char *colon = strchr(line, ':');
            if (colon) {
                colon += 1 + (colon[1] == ' ');
                colon[strcspn(colon, "\n")] = '\0';
                snprintf(out, size, "%s", colon);
            }
            break;
        }
    }
    fclose(f);
}

static int needs_avx2(int v)
{
    return v != BASELINE && v != OPENBLAS;
}

static void run_variant(int v, const float *a, const float *b, float *c, int n, const struct cpu_options *o)
{
    switch (v) {
    case BASELINE: gemm_baseline(a, b, c, n); break;
    case AVX: gemm_avx(a, b, c, n); break;
    case AVX_BLOCKED: gemm_avx_blocked(a, b, c, n, o->block); break;
    case AVX_BLOCKED_BT: gemm_avx_blocked_bt(a, b, c, n, o->block); break;
    case PACKED: gemm_packed(a, b, c, n, 1, o->isa); break;
    case PACKED_OMP: gemm_packed(a, b, c, n, o->threads, o->isa); break;
    case OPENBLAS: gemm_openblas(a, b, c, n, o->threads); break;
    }
}

/* Warm up, then time reps runs (fewer for long runs); C is poisoned before each run
 * so the last one, which is checked, cannot pass on an earlier run's output. */
static double time_variant(int v, const float *a, const float *b, float *c, int n, const struct cpu_options *o,
                           int *reps_done)
{
    double samples[64];
    const int max_reps = o->reps < 64 ? o->reps : 64;
    poison_mat(c, (size_t)n * n);
    double t0 = wall_ms();
    run_variant(v, a, b, c, n, o);
    double first = wall_ms() - t0;
    if (first > LONG_RUN_MS) {
        *reps_done = 1;
        return first;
    }
    int r = 0;
    double spent = 0.0;
    while (r < max_reps && (r == 0 || spent < REPS_BUDGET_MS)) {
        poison_mat(c, (size_t)n * n);
        t0 = wall_ms();
        run_variant(v, a, b, c, n, o);
        samples[r] = wall_ms() - t0;
        spent += samples[r++];
    }
    *reps_done = r;
    return median_of(samples, r);
}

#define CSV_HEADER "program,n,threads,block,isa,host,cpus,ms,gflops,max_rel_err,avg_rel_err,reps,check,tolerance,status"

int main(int argc, char **argv)
{
    struct cpu_options o;
    int features = 0;
    parse(argc, argv, &o, &features);
    float *loaded_a = NULL, *loaded_b = NULL;
    if (o.load_dir) { /* the files' n is the size; -n, if given, must agree */
        char err[1024];
        int n;
        if (load_npy_pair(o.load_dir, &loaded_a, &loaded_b, &n, err, sizeof err) != 0)
            usage_error(PROGRAM, "%s", err);
        if (o.nsizes == 1 && o.sizes[0] != n)
            usage_error(PROGRAM, "-n %d, but '%s' holds %d x %d matrices", o.sizes[0], o.load_dir, n, n);
        o.sizes[0] = n;
        o.nsizes = 1;
    }
    const enum isa isa = cpu_isa();
    const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    char host[256];
    cpu_model(host, sizeof host);
    for (char *p = host; *p; p++)
        if (*p == ',')
            *p = ' '; /* it goes into a CSV field */

    if (features) {
        printf("cpu=%s\ncpus=%ld\nisa=%s\npacked_isa=%s\nopenblas=%d\nopenmp=%d\nopenblas_config=%s\n", host, cpus,
               isa == ISA_AVX512 ? "avx512" : isa == ISA_AVX2 ? "avx2" : "none",
               isa == ISA_NONE ? "none" : packed_isa_name(o.isa), have_openblas(),
#ifdef _OPENMP
               1,
#else
               0,
#endif
               openblas_config_string());
        return EXIT_PASS;
    }

    /* All sizes decided first, so that a bad size gets its one line before any
     * other message, and before anything is allocated: A, B, C, B's transpose, the reference. */
    const double have = host_memory_bytes();
    for (int s = 0; s < o.nsizes; s++) {
        double n = o.sizes[s], need = 4.0 * n * n * sizeof(float) + n * n * sizeof(double);
        if (have > 0 && need > have)
            usage_error(PROGRAM, "n = %d needs %.1f GB of host memory; this machine has %.1f GB", o.sizes[s],
                        need / 1e9, have / 1e9);
    }

    /* What can run here; asked for by name, a variant that cannot is an error. */
    for (int v = 0; v < NUM_VARIANTS; v++) {
        const char *why = NULL;
        if (o.variants[v] && needs_avx2(v) && isa == ISA_NONE)
            why = "needs AVX2 and FMA, which this CPU does not have";
        char no_blas[128];
        if (o.variants[v] && v == OPENBLAS && !have_openblas()) {
            snprintf(no_blas, sizeof no_blas, "needs OpenBLAS; this build has %s", openblas_config_string());
            why = no_blas;
        }
        if (why) {
            if (o.explicit_variants) {
                fprintf(stderr, PROGRAM ": variant %s %s\n", variant_names[v], why);
                return EXIT_NO_FEATURE;
            }
            fprintf(stderr, PROGRAM ": skipping %s: it %s\n", variant_names[v], why);
            o.variants[v] = 0;
        }
    }

    if (o.csv_header)
        printf("%s\n", CSV_HEADER);
    int all_pass = 1;
    for (int s = 0; s < o.nsizes; s++) {
        const int n = o.sizes[s];
        const size_t count = (size_t)n * n;
        float *a = malloc(sizeof *a * count), *b = malloc(sizeof *b * count), *c = malloc(sizeof *c * count);
        struct reference ref;
        enum check_mode mode = o.check_given ? o.check : n <= FULL_CHECK_MAX_N ? CHECK_FULL : CHECK_SAMPLE;
        if (!a || !b || !c)
            usage_error(PROGRAM, "cannot allocate host memory for n = %d", n);
        if (o.load_dir) {
            memcpy(a, loaded_a, sizeof *a * count);
            memcpy(b, loaded_b, sizeof *b * count);
        } else {
            uint64_t state = o.seed;
            matgen_dist(o.dist, 'A', a, n, n, n, &state);
            matgen_dist(o.dist, 'B', b, n, n, n, &state);
        }
        /* NaN or Inf among the inputs, or sums that may overflow: NaN and Inf are expected in C
         * where FP32 puts them, which only the reference of a row tells: every row is compared. */
        if (!all_finite(a, count) || !all_finite(b, count) || max_abs(a, count) * max_abs(b, count) * n >= FLT_MAX)
            mode = CHECK_FULL;
        if (make_reference(a, b, n, mode, o.seed, &ref))
            usage_error(PROGRAM, "cannot allocate host memory for the reference at n = %d", n);
        const double tol = precision_bound(PRECISION_FP32, 0, n);
        if (!o.csv)
            printf("\nn = %d on %s (%ld CPUs), check: %s\n%-15s %7s %8s %12s %10s %12s  %s\n", n, host, cpus,
                   mode == CHECK_FULL ? "every row" : mode == CHECK_SAMPLE ? "64 sampled rows" : "none",
                   "variant", "threads", "isa", "ms", "GFLOPS", "max rel err", "status");
        for (int v = 0; v < NUM_VARIANTS; v++) {
            if (!o.variants[v])
                continue;
            int reps = 0;
            const double ms = time_variant(v, a, b, c, n, &o, &reps);
            struct check_result res;
            check_with_reference(&ref, c, &res);
            const int pass = check_passes(&res, tol);
            all_pass &= pass;
            const int threads = v == PACKED_OMP || v == OPENBLAS ? o.threads : 1;
            const char *isa_used = v == BASELINE ? "scalar" : v == OPENBLAS ? "openblas"
                                 : v == PACKED || v == PACKED_OMP ? packed_isa_name(o.isa) : "avx2";
            const double gflops = 2.0 * n * (double)n * n / (ms * 1e6);
            const double avg = res.compared ? res.sum_rel_err / res.compared : 0.0;
            if (o.csv)
                printf("%s,%d,%d,%d,%s,%s,%ld,%.4f,%.2f,%.6e,%.6e,%d,%s,%.3e,%s\n", variant_names[v], n, threads,
                       v == AVX_BLOCKED || v == AVX_BLOCKED_BT ? o.block : 0, isa_used, host, cpus, ms, gflops,
                       res.max_rel_err, avg, reps,
                       mode == CHECK_FULL ? "full" : mode == CHECK_SAMPLE ? "sample" : "none", tol,
                       pass ? "pass" : "FAIL");
            else
                printf("%-15s %7d %8s %12.3f %10.2f %12.3e  %s%s\n", variant_names[v], threads, isa_used, ms,
                       gflops, res.max_rel_err, pass ? "pass" : "FAIL",
                       res.unwritten ? " (unwritten elements)" : res.nonfinite ? " (NaN/Inf)" : "");
            fflush(stdout);
        }
        free_reference(&ref);
        free(a);
        free(b);
        free(c);
    }
    free(loaded_a);
    free(loaded_b);
    return all_pass ? EXIT_PASS : EXIT_INACCURATE;
}
