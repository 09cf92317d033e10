#define _GNU_SOURCE /* getopt_long */
#include "args.h"
#include "exit_codes.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void usage_error(const char *program, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: ", program);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, " (try --help)\n");
    exit(EXIT_USAGE);
}

int parse_long(const char *text, long min, long max, long *out)
{
    if (!text || !*text || isspace((unsigned char)text[0]))
        return -1;
    if (min >= 0 && (text[0] == '-' || text[0] == '+'))
        return -1;
    char *end = NULL;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || end == text || *end != '\0' || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

void option_error(const char *program, int c, char **argv, int first_long_code)
{
    if (c == ':') {
        if (optopt && optopt < first_long_code)
            usage_error(program, "option '-%c' needs a value", optopt);
        usage_error(program, "option '%s' needs a value", argv[optind - 1]);
    }
    if (optopt && optopt < first_long_code)
        usage_error(program, "unknown option '-%c'", optopt);
    usage_error(program, "unknown option '%s'", argv[optind - 1]);
}

int parse_size(const char *program, const char *text)
{
    long v;
    if (parse_long(text, 1, INT_MAX, &v))
        usage_error(program, "bad size -n '%s': expected a whole number >= 1", text);
    return (int)v;
}

double host_memory_bytes(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && page > 0 ? (double)pages * page : 0.0;
}

enum check_mode parse_check_mode(const char *program, const char *text)
{
    if (strcmp(text, "full") == 0)
        return CHECK_FULL;
    if (strcmp(text, "sample") == 0)
        return CHECK_SAMPLE;
    if (strcmp(text, "none") == 0)
        return CHECK_NONE;
    usage_error(program, "bad --check '%s': expected full, sample or none", text);
}

uint64_t parse_seed(const char *program, const char *text)
{
    long v;
    if (parse_long(text, 0, LONG_MAX, &v))
        usage_error(program, "bad --seed '%s': expected a whole number >= 0", text);
    return (uint64_t)v;
}

enum input_dist parse_dist(const char *program, const char *text)
{
    for (int d = 0; d < DIST_COUNT; d++)
        if (strcmp(text, dist_name((enum input_dist)d)) == 0)
            return (enum input_dist)d;
    usage_error(program, "bad --dist '%s': expected uniform, wide, subnormal, tiny, rowscale, mixed or huge", text);
}

static void print_usage(const char *program, const char *lesson)
{
    printf("Usage: %s [options]\n"
           "%s: %s.\n\nMultiplies two n x n float matrices on the GPU, checks the result\n"
           "against a double-precision CPU reference, and reports the end-to-end time\n"
           "(allocate, copy in, multiply, copy out, free) and the kernel time.\n"
           "\n"
           "Options:\n"
           "  -n N                matrix size, a whole number >= 1 (default 1000, the article's)\n"
           "  --reps R            timed kernel launches after one warm-up; the median is\n"
           "                      reported (default 10)\n"
           "  --seed S            seed of the input generator (default 0)\n"
           "  --check MODE        full: every row against the reference; sample: %d rows\n"
           "                      (first, last, random); none: only NaN/Inf/unwritten scan\n"
           "                      (default: full up to n = %d, sample above)\n"
           "  --csv               print one CSV line instead of the report\n"
           "  --csv-header        print the CSV header line first (implies --csv)\n"
           "  --breakdown         split the end-to-end time into its phases\n"
           "  --dist D            the inputs: uniform (the article's: [0, 1), the default) or wide\n"
           "                      (+-m * 2^e, m in [1, 2), e in -8..8: signed, sums cancel); the\n"
           "                      ends of FP32's range: subnormal, tiny, rowscale, mixed, huge\n"
           "                      (common/matrix.h says what each holds)\n"
           "  --load DIR          multiply DIR/a.npy by DIR/b.npy (float32, n x n, C order, as\n"
           "                      --save and NumPy's np.save write them) instead; n is theirs\n"
           "  --save DIR          write a.npy, b.npy and c.npy (float32, n x n) into DIR\n"
           "  --math NAME         the arithmetic, for a program that has several (--math '?' lists)\n"
           "  --judge CLASS       judge the result by the bound of precision class fp32 or tf32\n"
           "                      instead of the program's own (what if TF32 were called FP32?)\n"
           "  --config NAME       run this configuration (tile shape, pipeline depth) of a step\n"
           "                      that has several, instead of the best one that fits the GPU\n"
           "  --gpu-check         say in one line whether this GPU can run the program (and in\n"
           "                      which configuration at -n), then exit 0, or 4 if it cannot\n"
           "  --describe          print what the program is (lesson, precision class, the GPUs and\n"
           "                      architectures it needs and was built for, its configurations at\n"
           "                      -n) as key=value lines, one block per --math, without a GPU\n"
           "  --help              show this help\n"
           "\n"
           "Environment: MATMUL_SMEM_LIMIT=BYTES (or 99K) caps the shared memory per block the\n"
           "program may use, to run what a GPU with that limit would; figures are then labelled\n"
           "\"capped to N KB\".\n"
           "\n"
           "Errors: relative |c - ref| / |ref| and componentwise |c - ref| / (|A| |B|), against a\n"
           "double-precision reference; the verdict is the componentwise error against the bound\n"
           "of the program's precision class (fp32, or tf32 for TF32 tensor cores).\n"
           "\n"
           "Exit status: 0 within the bound; 1 not within it (or NaN, Inf, unwritten elements\n"
           "where an FP32 GEMM has none); 2 bad usage or too large for this machine; 3 no GPU (no driver, or no\n"
           "device visible); 4 this GPU lacks a feature the step needs; 5 the driver is older\n"
           "than this build; 6 no code for this GPU in the binary (rebuild); 7 any other CUDA error.\n",
           program, program, lesson, SAMPLE_ROWS, FULL_CHECK_MAX_N);
}

void parse_args(const char *program, const char *lesson, int argc, char **argv,
                struct options *opt)
{
    enum { OPT_REPS = 1000, OPT_SEED, OPT_CHECK, OPT_CSV, OPT_CSV_HEADER, OPT_BREAKDOWN,
           OPT_SAVE, OPT_CONFIG, OPT_GPU_CHECK, OPT_DESCRIBE, OPT_DIST, OPT_LOAD, OPT_MATH, OPT_JUDGE, OPT_HELP };
    static const struct option longopts[] = {
        {"reps", required_argument, NULL, OPT_REPS},
        {"seed", required_argument, NULL, OPT_SEED},
        {"check", required_argument, NULL, OPT_CHECK},
        {"csv", no_argument, NULL, OPT_CSV},
        {"csv-header", no_argument, NULL, OPT_CSV_HEADER},
        {"breakdown", no_argument, NULL, OPT_BREAKDOWN},
        {"save", required_argument, NULL, OPT_SAVE},
        {"config", required_argument, NULL, OPT_CONFIG},
        {"gpu-check", no_argument, NULL, OPT_GPU_CHECK},
        {"describe", no_argument, NULL, OPT_DESCRIBE},
        {"dist", required_argument, NULL, OPT_DIST},
        {"load", required_argument, NULL, OPT_LOAD},
        {"math", required_argument, NULL, OPT_MATH},
        {"judge", required_argument, NULL, OPT_JUDGE},
        {"help", no_argument, NULL, OPT_HELP},
        {NULL, 0, NULL, 0},
    };
    int dist_given = 0;
    long v;

    memset(opt, 0, sizeof *opt);
    opt->n = 1000;
    opt->reps = 10;
    opt->judge = -1;
    opterr = 0; /* our own one-line messages instead of getopt's */
    optind = 1;

    for (;;) {
        int c = getopt_long(argc, argv, ":n:h", longopts, NULL);
        if (c == -1)
            break;
        switch (c) {
        case 'n':
            opt->n = parse_size(program, optarg);
            opt->n_given = 1;
            break;
        case OPT_REPS:
            if (parse_long(optarg, 1, 1000000, &v))
                usage_error(program, "bad --reps '%s': expected a whole number from 1 to 1000000",
                            optarg);
            opt->reps = (int)v;
            break;
        case OPT_SEED:
            opt->seed = parse_seed(program, optarg);
            break;
        case OPT_CHECK:
            opt->check = parse_check_mode(program, optarg);
            opt->check_given = 1;
            break;
        case OPT_CSV:
            opt->csv = 1;
            break;
        case OPT_CSV_HEADER:
            opt->csv = opt->csv_header = 1;
            break;
        case OPT_BREAKDOWN:
            opt->breakdown = 1;
            break;
        case OPT_SAVE:
            if (!*optarg)
                usage_error(program, "bad --save '': expected a directory");
            opt->save_dir = optarg;
            break;
        case OPT_CONFIG:
            if (!*optarg)
                usage_error(program, "bad --config '': expected a configuration's name");
            opt->config = optarg;
            break;
        case OPT_GPU_CHECK:
            opt->gpu_check = 1;
            break;
        case OPT_DESCRIBE:
            opt->describe = 1;
            break;
        case OPT_DIST:
            opt->dist = parse_dist(program, optarg);
            dist_given = 1;
            break;
        case OPT_LOAD:
            if (!*optarg)
                usage_error(program, "bad --load '': expected a directory holding a.npy and b.npy");
            opt->load_dir = optarg;
            break;
        case OPT_MATH:
            if (!*optarg)
                usage_error(program, "bad --math '': expected an arithmetic's name");
            opt->math = optarg;
            break;
        case OPT_JUDGE:
            if (strcmp(optarg, "fp32") == 0)
                opt->judge = PRECISION_FP32;
            else if (strcmp(optarg, "tf32") == 0)
                opt->judge = PRECISION_TF32;
            else
                usage_error(program, "bad --judge '%s': expected fp32 or tf32", optarg);
            break;
        case 'h':
        case OPT_HELP:
            print_usage(program, lesson);
            exit(EXIT_PASS);
        default:
            option_error(program, c, argv, OPT_REPS);
        }
    }
    if (optind < argc)
        usage_error(program, "unexpected argument '%s'", argv[optind]);
    if (opt->load_dir && dist_given)
        usage_error(program, "--dist and --load: loaded inputs have no distribution to choose");
    if (!opt->check_given)
        opt->check = opt->n <= FULL_CHECK_MAX_N ? CHECK_FULL : CHECK_SAMPLE;
}
