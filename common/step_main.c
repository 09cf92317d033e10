/* main() of every step program: everything that is not the step's lesson. */
#define _GNU_SOURCE
#include "args.h"
#include "conditions.h"
#include "step.h"
#include "timing.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The end-to-end time is the median of this many passes, after one warm-up pass. */
#define E2E_PASSES 3

static double gflops(int n, double ms)
{
    return ms > 0 ? 2.0 * n * n * (double)n / (ms * 1e6) : 0.0;
}

/* Decided before the GPU is touched: A, B and C in host memory. */
static void check_host_memory(const char *program, int n, size_t bytes)
{
    double need = 3.0 * n * (double)n * bytes;
    const double have = host_memory_bytes();
    if (need > (double)SIZE_MAX / 2 || (have > 0 && need > have))
        usage_error(program, "n = %d needs %.1f GB of host memory for A, B and C; this machine has %.1f GB",
                    n, need / 1e9, have / 1e9);
}

/* Decided right after the device query, before any allocation. Counts the largest
 * layout any step uses: rows rounded up to 16 and pitched to 512 bytes; the step's scratch
 * matrices too. */
static void check_device_memory(const char *program, int n, size_t bytes, const struct gpu_device *dev)
{
    double rows = ceil(n / 16.0) * 16.0;
    double row_bytes = ceil(rows * bytes / 512.0) * 512.0;
    double need = (3.0 + step_info.scratch_matrices) * rows * row_bytes;
    if (need > (double)dev->free_mem)
        usage_error(program, "n = %d needs %.1f GB of device memory for A, B and C%s; %s has %.1f GB free",
                    n, need / 1e9, step_info.scratch_matrices ? " and the step's own copies" : "", dev->name,
                    dev->free_mem / 1e9);
    if (step_info.dynamic_smem_bytes) {
        size_t smem = step_info.dynamic_smem_bytes(n);
        if (smem > dev->smem_per_block_optin)
            usage_error(program, "n = %d needs %zu bytes of shared memory per block; %s allows at most %zu",
                        n, smem, dev->name, dev->smem_per_block_optin);
    }
}

/* --math '?': the arithmetics --math takes, one line each (a program with a single one: that
 * one), then exit 0. */
static void list_maths(void)
{
    if (!step_info.maths) {
        printf("%s: a single arithmetic, used without --math:\n  %s, precision class %s: %s\n", step_info.program,
               step_info.program, precision_name(step_info.precision), step_info.lesson);
        exit(EXIT_PASS);
    }
    printf("%s: --math NAME, one of (the first is the default):\n", step_info.program);
    for (const struct step_math *m = step_info.maths; m->name; m++)
        printf("  %-8s %s, precision class %s: %s\n", m->name, m->row_name, precision_name(m->precision), m->lesson);
    exit(EXIT_PASS);
}

/* --math's name, checked before the GPU is touched; the list's first without --math, NULL
 * for a program with one arithmetic. */
static const struct step_math *choose_math(const char *program, const struct options *opt)
{
    if (opt->math && strcmp(opt->math, "?") == 0)
        list_maths();
    if (!step_info.maths) {
        if (opt->math)
            usage_error(program, "bad --math '%s': %s has a single arithmetic", opt->math, program);
        return NULL;
    }
    char names[256] = "";
    for (const struct step_math *m = step_info.maths; m->name; m++) {
        if (!opt->math || strcmp(m->name, opt->math) == 0)
            return m;
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", m == step_info.maths ? "" : ", ",
                 m->name);
    }
    usage_error(program, "bad --math '%s': expected one of %s", opt->math, names);
}

/* --load DIR: DIR/a.npy and DIR/b.npy, both n x n float32 (float64 for an FP64 run); any problem
 * is one line and exit 2, before the GPU is touched. n becomes theirs (-n, if given, must agree). */
static void load_inputs(const char *program, struct options *opt, enum element_type element, void **a, void **b)
{
    char err[1024];
    int n;
    if (load_npy_pair_as(opt->load_dir, a, b, &n, element, err, sizeof err) != 0)
        usage_error(program, "%s", err);
    if (opt->n_given && opt->n != n)
        usage_error(program, "-n %d, but '%s' holds %d x %d matrices", opt->n, opt->load_dir, n, n);
    opt->n = n;
    if (!opt->check_given)
        opt->check = opt->n <= FULL_CHECK_MAX_N ? CHECK_FULL : CHECK_SAMPLE;
}

/* The configurations at size n of the program in arithmetic math (NULL: its only one): the
 * arithmetic's own list, else the step's; 0 for a program with one. */
static int configs_of(const struct step_math *math, int n, const struct step_config **list)
{
    if (math && math->configs)
        return math->configs(n, list);
    if (step_info.configs)
        return step_info.configs(n, list);
    *list = NULL;
    return 0;
}

/* --config's name, checked before the GPU is touched: a bad one is bad usage. */
static const struct step_config *named_config(const char *program, const struct options *opt,
                                              const struct step_math *math)
{
    if (!opt->config)
        return NULL;
    const struct step_config *list;
    const int count = configs_of(math, opt->n, &list);
    if (!count)
        usage_error(program, "bad --config '%s': %s has a single configuration", opt->config, program);
    char names[512] = "";
    for (int i = 0; i < count; i++) {
        if (strcmp(list[i].name, opt->config) == 0)
            return &list[i];
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "", list[i].name);
    }
    usage_error(program, "bad --config '%s': expected one of %s", opt->config, names);
}

/* The configuration to run: the one --config named, or the first of the step's list
 * that fits the device's shared memory per block (MATMUL_SMEM_LIMIT can lower it); NULL for
 * a step with one. Each pass hands it to the step (gpu_run's config, then step_run's). */
static const struct step_config *choose_config(const char *program, int n, const struct step_math *math,
                                               const struct step_config *named, const struct gpu_device *dev)
{
    if (named) {
        if (named->smem_bytes > dev->smem_per_block_optin)
            usage_error(program, "--config %s needs %zu bytes of shared memory per block; %s allows at most %zu",
                        named->name, named->smem_bytes, dev->name, dev->smem_per_block_optin);
        return named;
    }
    const struct step_config *list;
    const int count = configs_of(math, n, &list);
    if (!count)
        return NULL;
    for (int i = 0; i < count; i++) {
        if (list[i].smem_bytes <= dev->smem_per_block_optin)
            return &list[i];
    }
    usage_error(program, "n = %d: no configuration fits in %zu bytes of shared memory per block (%s)", n,
                dev->smem_per_block_optin, dev->name);
}

/* Dynamic shared memory per block of this run. */
static size_t run_smem_bytes(int n, const struct step_config *config)
{
    return config ? config->smem_bytes : step_info.dynamic_smem_bytes ? step_info.dynamic_smem_bytes(n) : 0;
}

static void *host_matrix(const char *program, int n, size_t bytes)
{
    void *m = malloc(bytes * (size_t)n * n);
    if (!m)
        usage_error(program, "cannot allocate %.1f GB of host memory for n = %d", bytes * (double)n * n / 1e9, n);
    return m;
}

static const char *check_name(enum check_mode mode)
{
    return mode == CHECK_FULL ? "full" : mode == CHECK_SAMPLE ? "sample" : "none";
}

/* --save DIR: made (or found, a directory we may write into) before the GPU is touched, so
 * that a folder that cannot be made is said at once, not after the run. */
static void make_save_dir(const char *program, const char *dir)
{
    struct stat st;
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "%s: --save: cannot create directory '%s': %s\n", program, dir, strerror(errno));
        exit(EXIT_USAGE);
    }
    const char *why = stat(dir, &st) != 0 ? strerror(errno)
                    : !S_ISDIR(st.st_mode) ? strerror(ENOTDIR)
                    : access(dir, W_OK | X_OK) != 0 ? strerror(errno) : NULL;
    if (why) {
        fprintf(stderr, "%s: --save: cannot write into '%s': %s\n", program, dir, why);
        exit(EXIT_USAGE);
    }
}

/* Into the directory make_save_dir made. */
static void save_all(const char *program, const char *dir, const void *a, const void *b, const void *c, int n,
                     enum element_type element)
{
    const char *names[3] = {"a.npy", "b.npy", "c.npy"};
    const void *mats[3] = {a, b, c};
    for (int i = 0; i < 3; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (save_npy_as(path, mats[i], n, n, element) != 0) {
            fprintf(stderr, "%s: cannot write '%s': %s\n", program, path, strerror(errno));
            exit(EXIT_USAGE);
        }
    }
}

/* One block of key=value lines for a program and one of its arithmetics (m, or NULL for
 * the program's only one): what the scripts and tests ask instead of keeping lists. */
static void describe_block(const struct step_math *m, int n)
{
    printf("row=%s\n", m ? m->row_name : step_info.program);
    printf("program=%s\n", step_info.program);
    printf("math=%s\n", m ? m->name : "");
    printf("lesson=%s\n", m ? m->lesson : step_info.lesson);
    printf("chapter=%s\n", step_info.chapter ? step_info.chapter : "");
    printf("precision=%s\n", precision_name(m ? m->precision : step_info.precision));
    printf("element=%s\n", element_name(m ? m->element : step_info.element));
    printf("compensated=%d\n", step_info.compensated);
    const int min_cc = m && m->min_cc > step_info.min_cc ? m->min_cc : step_info.min_cc;
    printf("min_cc=%d.%d\n", min_cc / 10, min_cc % 10);
    const int exact_cc = archs_exact_cc(step_archs);
    if (exact_cc)
        printf("exact_cc=%d.%d\n", exact_cc / 10, exact_cc % 10);
    else
        printf("exact_cc=\n");
    printf("needs=%s\n", m && m->needs ? m->needs : step_info.needs ? step_info.needs : "");
    printf("archs=%s\n", step_archs);
    printf("configs=");
    const struct step_config *list;
    const int count = configs_of(m, n, &list);
    for (int i = 0; i < count; i++)
        printf("%s%s", i ? " " : "", list[i].name);
    printf("\nconfig_legend=%s\n", step_info.config_legend ? step_info.config_legend : "");
    printf("tf32_inputs=%s\n", step_info.tf32_inputs ? step_info.tf32_inputs : "");
    printf("change=%s\n", step_info.change ? step_info.change : "");
    printf("fails_on_purpose=%s\n", step_info.fails_on_purpose ? step_info.fails_on_purpose : "");
    const char *outside = m && m->outside_bound ? m->outside_bound : step_info.outside_bound;
    printf("outside_bound=%s\n", outside ? outside : "");
    printf("special_path=%s\n", step_info.special_path ? step_info.special_path : "");
    printf("builds_on=%s\n", step_info.builds_on ? step_info.builds_on : "");
}

/* --describe: every arithmetic's block (or the one --math named: chosen), blank lines between. */
static void describe(const struct options *opt, const struct step_math *chosen)
{
    if (!step_info.maths) {
        describe_block(NULL, opt->n);
        return;
    }
    for (const struct step_math *m = step_info.maths; m->name; m++) {
        if (opt->math && m != chosen)
            continue;
        printf("%s", m == step_info.maths || opt->math ? "" : "\n");
        describe_block(m, opt->n);
    }
}

#define CSV_HEADER "program,n,device,kernel_ms,gflops,total_ms,max_rel_err,avg_rel_err," \
                   "e2e_gflops,alloc_ms,h2d_ms,kernel_e2e_ms,d2h_ms,free_ms,reps,check," \
                   "rows_checked,tolerance,status,config,smem_bytes,smem_limit,dist,precision," \
                   "max_comp_err,avg_comp_err,device_uuid," CONDITIONS_CSV_HEADER

/* One run of the program, as its command line asks: what main() does, and what --batch does for
 * each of its lines. Returns the exit code. */
static int run_once(int argc, char **argv)
{
    struct options opt;
    const char *program = step_info.program;
    parse_args(program, step_info.lesson, argc, argv, &opt);
    const struct step_math *math = choose_math(program, &opt);
    if (math)
        program = math->row_name;
    if (opt.describe) {
        describe(&opt, math);
        return EXIT_PASS;
    }
    const char *lesson = math ? math->lesson : step_info.lesson;
    const enum precision_class precision = math ? math->precision : step_info.precision;
    const enum precision_class judged = opt.judge >= 0 ? (enum precision_class)opt.judge : precision;
    const enum element_type element = math ? math->element : step_info.element;
    const size_t bytes = element_bytes(element);
    const int fp64 = element == ELEMENT_FP64;
    if (fp64 && !matmult_gpu64) /* a program that declares FP64 without MATMULT_GPU_PADDED: its bug */
        usage_error(program, "declares FP64 matrices but defines no matmult_gpu64 (MATMULT_GPU_PADDED does)");
    void *a = NULL, *b = NULL;
    if (opt.load_dir)
        load_inputs(program, &opt, element, &a, &b);
    const int n = opt.n;
    check_host_memory(program, n, bytes);
    const struct step_config *named = named_config(program, &opt, math);
    if (opt.save_dir && !opt.gpu_check)
        make_save_dir(program, opt.save_dir);

    struct gpu_device dev;
    gpu_open(program, &dev);
#ifdef FORCE_MIN_CC /* the tests' way to see the "lacks a feature" paths on any GPU */
    gpu_require(program, &dev, FORCE_MIN_CC, "FORCE_MIN_CC, a test build");
#endif
#ifdef FORCE_EXACT_CC
    gpu_require_exact(program, &dev, FORCE_EXACT_CC, "FORCE_EXACT_CC, a test build");
#endif
    gpu_require(program, &dev, step_info.min_cc, step_info.needs);
    gpu_require_exact(program, &dev, archs_exact_cc(step_archs), step_info.needs);
    if (math && math->min_cc)
        gpu_require(program, &dev, math->min_cc, math->needs);
    const struct step_config *config = choose_config(program, n, math, named, &dev);
    check_device_memory(program, n, bytes, &dev);
    if (opt.gpu_check) {
        printf("%s: runs on %s (compute capability %d.%d)", program, dev.name, dev.cc_major, dev.cc_minor);
        if (config)
            printf(", at n = %d as %s (%s): %zu bytes of shared memory per block of %zu", n, config->name,
                   step_info.config_legend, config->smem_bytes, dev.smem_per_block_optin);
        printf("\n");
        return EXIT_PASS;
    }

    void *c = host_matrix(program, n, bytes);
    const size_t count = (size_t)n * n;
    if (!opt.load_dir) {
        a = host_matrix(program, n, bytes);
        b = host_matrix(program, n, bytes);
        uint64_t state = opt.seed;
        if (fp64) {
            matgen_dist64(opt.dist, 'A', (double *)a, n, n, n, &state);
            matgen_dist64(opt.dist, 'B', (double *)b, n, n, n, &state);
        } else {
            matgen_dist(opt.dist, 'A', (float *)a, n, n, n, &state);
            matgen_dist(opt.dist, 'B', (float *)b, n, n, n, &state);
        }
    }
    /* NaN or Inf among the inputs, or values large enough for a sum to overflow: C holds NaN
     * and Inf where an FP32 (FP64) GEMM would, which only the reference of a row can tell, so
     * every row is compared. The largest product, times n, against the largest finite value, in
     * halves: in FP64 the product itself may overflow. */
    const int finite_inputs = fp64 ? all_finite64((const double *)a, count) && all_finite64((const double *)b, count)
                                   : all_finite((const float *)a, count) && all_finite((const float *)b, count);
    const double a_max = fp64 ? max_abs64((const double *)a, count) : max_abs((const float *)a, count);
    const double b_max = fp64 ? max_abs64((const double *)b, count) : max_abs((const float *)b, count);
    const double largest = fp64 ? DBL_MAX : FLT_MAX;
    const int may_overflow = a_max * 0.5 * b_max * 0.5 * n >= largest * 0.25;
    if (!finite_inputs || may_overflow)
        opt.check = CHECK_FULL;
    const char *inputs = opt.load_dir ? "loaded" : dist_name(opt.dist);

    /* The conditions of the row (conditions.h): NVML is opened for a CSV row alone, the one output
     * that records them (its start-up would slow each of the test suite's thousands of runs), and
     * the SM clock is read during the kernel's timed launches, those of the last pass. Without
     * NVML the nvml stays empty, and so do its columns. */
    struct nvml nvml = {0};
    if (opt.csv)
        nvml_open(&nvml, NVML_LIBRARY);
    struct sm_clock clock = {.nvml = &nvml, .device = nvml_device(&nvml, dev.uuid)};

    /* Pass 0 warms up (module load, allocator, clocks); then E2E_PASSES timed passes,
     * the last of which also times the kernel alone. C is poisoned before each pass. */
    struct gpu_run runs[E2E_PASSES];
    double totals[E2E_PASSES];
    for (int pass = 0; pass <= E2E_PASSES; pass++) {
        struct gpu_run run;
        memset(&run, 0, sizeof run);
        run.config = config;
        run.math = math;
        run.sm_clock = pass == E2E_PASSES ? &clock : NULL;
        memset(c, POISON_BYTE, bytes * count);
        const int reps = pass == E2E_PASSES ? opt.reps : 0;
        if (fp64)
            matmult_gpu64((const double *)a, n, (const double *)b, n, (double *)c, n, n, reps, &run);
        else
            matmult_gpu((const float *)a, n, (const float *)b, n, (float *)c, n, n, reps, &run);
        if (pass > 0) {
            runs[pass - 1] = run;
            totals[pass - 1] = gpu_run_total_ms(&run);
        }
    }
    double kernel_ms = runs[E2E_PASSES - 1].kernel_median_ms;
    /* The phases reported are those of the pass with the median total. */
    double sorted[E2E_PASSES];
    memcpy(sorted, totals, sizeof totals);
    double median_total = median_of(sorted, E2E_PASSES);
    struct gpu_run e2e = runs[0];
    for (int i = 0; i < E2E_PASSES; i++)
        if (totals[i] == median_total)
            e2e = runs[i];
    double total_ms = gpu_run_total_ms(&e2e);
    struct run_conditions conditions;
    void *const nvml_devices[1] = {clock.device};
    conditions_read(&conditions, &nvml, nvml_devices, &clock, 1, dev.runtime_version);
    nvml_close(&nvml);

    struct check_result res;
    if (fp64)
        check_product64((const double *)a, (const double *)b, (const double *)c, n, opt.check, opt.seed, &res);
    else
        check_product((const float *)a, (const float *)b, (const float *)c, n, opt.check, opt.seed, &res);
    double tol = precision_bound(judged, step_info.compensated, n);
    int pass = check_passes(&res, tol);
    double avg = res.compared ? res.sum_rel_err / res.compared : 0.0;
    double avg_comp = res.compared ? res.sum_comp_err / res.compared : 0.0;
    const size_t bad_nonfinite = res.nonfinite - res.expected_nonfinite + res.wrong_nonfinite;

    if (opt.save_dir)
        save_all(program, opt.save_dir, a, b, c, n, element);

    if (opt.csv) {
        if (opt.csv_header)
            printf("%s\n", CSV_HEADER);
        char conditions_fields[512];
        conditions_csv(&conditions, conditions_fields, sizeof conditions_fields);
        printf("%s,%d,%s,%.6f,%.2f,%.6f,%.6e,%.6e,%.2f,%.6f,%.6f,%.6f,%.6f,%.6f,%d,%s,%zu,%.3e,%s,%s,%zu,%zu,"
               "%s,%s,%.6e,%.6e,%s,%s\n",
               program, n, dev.name, kernel_ms, gflops(n, kernel_ms), total_ms, res.max_rel_err, avg,
               gflops(n, total_ms), e2e.alloc_ms, e2e.h2d_ms, e2e.kernel_ms, e2e.d2h_ms, e2e.free_ms,
               opt.reps, check_name(opt.check), res.rows_checked, tol, pass ? "pass" : "FAIL",
               config ? config->name : "", run_smem_bytes(n, config), dev.smem_per_block_optin, inputs,
               precision_name(judged), res.max_comp_err, avg_comp, dev.uuid, conditions_fields);
    } else {
        printf("%s: %s\n", program, lesson);
        printf("Device: %s (%d SMs, compute capability %d.%d), n = %d\n", dev.name, dev.sm_count,
               dev.cc_major, dev.cc_minor, n);
        if (config)
            printf("Configuration: %s (%s), %zu bytes of shared memory per block; the limit is %zu\n",
                   config->name, step_info.config_legend, config->smem_bytes, dev.smem_per_block_optin);
        if (e2e.pitch_bytes)
            printf("Pitch: rows of %zu bytes are allocated %zu bytes apart\n",
                   bytes * (size_t)(e2e.padded_n ? e2e.padded_n : n), e2e.pitch_bytes);
        if (e2e.padded_n)
            printf("Padded allocation: %d x %d zero-filled for n = %d\n", e2e.padded_n, e2e.padded_n, n);
        printf("Inputs: %s%s%s%s%s\n", opt.load_dir ? "loaded from " : dist_name(opt.dist),
               opt.load_dir ? opt.load_dir : " (",
               opt.load_dir ? "" : fp64 ? dist_description64(opt.dist) : dist_description(opt.dist),
               opt.load_dir ? "" : ")",
               !finite_inputs ? ", with NaN or Inf: every row is compared"
               : may_overflow ? ", large enough to overflow: every row is compared" : "");
        if (opt.check == CHECK_NONE)
            printf("Max error: not checked (--check none)\n");
        else
            printf("Max error: %g Average error: %g (%zu of %d rows against the %s reference%s)\n"
                   "Componentwise error |c - ref| / (|A| |B|): max %g, average %g\n",
                   res.max_rel_err, avg, res.rows_checked, n, fp64 ? "double-double" : "double",
                   opt.check == CHECK_SAMPLE && (int)res.rows_checked < n ? ", a sample" : "", res.max_comp_err,
                   avg_comp);
        printf("Time used: %.4f s (%.2f GFLOPS) end-to-end, median of %d\n", total_ms / 1e3,
               gflops(n, total_ms), E2E_PASSES);
        if (opt.breakdown)
            printf("  allocate %.3f ms, copy in %.3f ms, kernel %.3f ms, copy out %.3f ms, free %.3f ms\n",
                   e2e.alloc_ms, e2e.h2d_ms, e2e.kernel_ms, e2e.d2h_ms, e2e.free_ms);
        printf("Kernel: %.4f ms (%.2f GFLOPS), median of %d after a warm-up\n", kernel_ms,
               gflops(n, kernel_ms), opt.reps);
        if (e2e.step_report[0])
            printf("%s\n", e2e.step_report);
        if (res.unwritten || bad_nonfinite) {
            printf("FAIL: %zu unwritten, %zu NaN/Inf elements an %s GEMM does not give there, %zu finite where it "
                   "gives NaN or Inf", res.unwritten, res.nonfinite - res.expected_nonfinite, fp64 ? "FP64" : "FP32",
                   res.wrong_nonfinite);
            if (finite_inputs && res.first_bad >= 0) /* else the first non-finite may be an expected one */
                printf("; the first unwritten or NaN/Inf at row %ld column %ld", res.first_bad / n, res.first_bad % n);
            printf("\n");
        }
        else if (opt.check != CHECK_NONE)
            printf("%s: componentwise error %.3g %s %.3g, the %s bound%s\n", pass ? "PASS" : "FAIL",
                   res.max_comp_err, pass ? "<=" : ">", tol,
                   step_info.compensated && judged == PRECISION_FP32 ? "compensated fp32" : precision_name(judged),
                   judged != precision ? " (--judge)" : "");
        else
            printf("PASS: every element written and finite (accuracy not checked)\n");
    }
    free(a);
    free(b);
    free(c);
    return pass ? EXIT_PASS : EXIT_INACCURATE;
}

/* --batch FILE: the runs FILE lists, one a line (the arguments separated by tabs), made one after
 * the other in this one process, each exactly as the program started with those arguments would
 * make it. What it saves is the CUDA start-up, paid once instead of once a run: for a test suite of
 * a few thousand small runs the larger part of its time. After each run the program writes a line
 * BATCH_MARK, its exit code and its wall seconds, to stdout and to stderr (each stream is flushed
 * there, so that what a run printed is whole and its own). A run that ends the process (bad usage,
 * a GPU that lacks a feature, a CUDA error) ends it with its own exit code, after its own output: the
 * runs after it did not happen (tests/lib.pl makes them again). The first line on stdout says the
 * program takes --batch at all. */
#define BATCH_MARK "\036batch"
#define BATCH_MAX_ARGS 64
static int run_batch(const char *program, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        usage_error(program, "--batch %s: %s", path, strerror(errno));
    printf(BATCH_MARK " start\n");
    char line[16384];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        char *args[BATCH_MAX_ARGS + 2] = {(char *)program};
        int count = 1;
        for (char *word = strtok(line, "\t"); word; word = strtok(NULL, "\t")) {
            if (count > BATCH_MAX_ARGS)
                usage_error(program, "--batch %s: a line of more than %d arguments", path, BATCH_MAX_ARGS);
            args[count++] = word;
        }
        args[count] = NULL;
        const double started = wall_ms();
        const int code = run_once(count, args);
        const double took = (wall_ms() - started) / 1e3;
        printf(BATCH_MARK " %d %.3f\n", code, took);
        fprintf(stderr, BATCH_MARK " %d\n", code);
        fflush(stdout);
        fflush(stderr);
    }
    fclose(f);
    return EXIT_PASS;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "--batch") == 0) {
        if (argc != 3)
            usage_error(step_info.program, "--batch takes one file and nothing beside it");
        return run_batch(step_info.program, argv[2]);
    }
    return run_once(argc, argv);
}
