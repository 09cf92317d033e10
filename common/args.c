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

enum number_problem check_long(const char *text, long min, long max, long *out)
{
    if (!text || !*text || isspace((unsigned char)text[0]))
        return NUMBER_NOT_EXPECTED;
    if (min >= 0 && (text[0] == '-' || text[0] == '+'))
        return NUMBER_NOT_EXPECTED;
    char *end = NULL;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (end == text || *end != '\0')
        return NUMBER_NOT_EXPECTED;
    /* Digits alone, past max or past what a long holds (strtol then gives LONG_MAX). */
    if (text[0] != '-' && ((errno == ERANGE && v == LONG_MAX) || (!errno && v > max)))
        return NUMBER_TOO_LARGE;
    if (errno || v < min || v > max)
        return NUMBER_NOT_EXPECTED;
    *out = v;
    return NUMBER_OK;
}

int parse_long(const char *text, long min, long max, long *out)
{
    return check_long(text, min, max, out) == NUMBER_OK ? 0 : -1;
}

void number_error(const char *program, const char *what, const char *text, long min, long max)
{
    long v;
    if (check_long(text, min, max, &v) == NUMBER_TOO_LARGE)
        usage_error(program, "bad %s '%s': too large, the largest accepted is %ld", what, text, max);
    if (max >= INT_MAX)
        usage_error(program, "bad %s '%s': expected a whole number >= %ld", what, text, min);
    usage_error(program, "bad %s '%s': expected a whole number from %ld to %ld", what, text, min, max);
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
        number_error(program, "size -n", text, 1, INT_MAX);
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
        number_error(program, "--seed", text, 0, LONG_MAX);
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
           "                      (of FP64's for an FP64 arithmetic; common/matrix.h says what\n"
           "                      each holds)\n"
           "  --load DIR          multiply DIR/a.npy by DIR/b.npy (float32, or float64 for an FP64\n"
           "                      arithmetic; n x n, C order, as --save and NumPy's np.save write\n"
           "                      them) instead; n is theirs\n"
           "  --save DIR          write a.npy, b.npy and c.npy (float32 or float64, n x n) into DIR\n"
           "  --math NAME         the arithmetic, for a program that has several (--math '?' lists)\n"
           "  --judge CLASS       judge the result by the bound of precision class fp32, tf32 or fp64\n"
           "                      instead of the program's own (what if TF32 were called FP32?)\n"
           "  --config NAME       run this configuration (tile shape, pipeline depth) of a step\n"
           "                      that has several, instead of the best one that fits the GPU\n"
           "  --gpu-check         say in one line whether this GPU can run the program (and in\n"
           "                      which configuration at -n), then exit 0, or 4 if it cannot\n"
           "  --describe          print what the program is (lesson, precision class, the GPUs and\n"
           "                      architectures it needs and was built for, its configurations at\n"
           "                      -n) as key=value lines, one block per --math, without a GPU\n"
           "  --help              show this help\n"
           "  --batch FILE        (alone) make the runs FILE lists, one a line, the arguments separated by\n"
           "                      tabs, in this one process, each followed by a marker line with its exit\n"
           "                      code: the tests' way to start CUDA once for many runs\n"
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

#define MAX_OPTIONS 32
#define FIRST_LONG_CODE 1000 /* getopt_long's codes for long options: past every character */

/* "--reps" or, for a one-letter option, "-n": as the user wrote it. */
static const char *spelled(const struct option_spec *s, char *buf, size_t size)
{
    snprintf(buf, size, "%s%s", s->name[1] ? "--" : "-", s->name);
    return buf;
}

/* all, or a comma-separated list of names: the flags of those given set, the others cleared. */
static void take_list(const char *program, const struct option_spec *s, const char *value)
{
    char buf[256], flag[64], expected[256] = "";
    int *on = s->into;
    if (strlen(value) >= sizeof buf)
        usage_error(program, "bad %s: too long", spelled(s, flag, sizeof flag));
    strcpy(buf, value);
    memset(on, 0, sizeof(int) * s->count);
    int bad = 1; /* an empty list names nothing */
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        int found = strcmp(tok, "all") == 0;
        for (int i = 0; i < s->count && found; i++)
            on[i] = 1;
        for (int i = 0; i < s->count && !found; i++)
            if (strcmp(tok, s->names[i]) == 0)
                on[i] = found = 1;
        if (!found) {
            bad = 1;
            break;
        }
        bad = 0;
    }
    if (bad) {
        for (int i = 0; i < s->count; i++)
            snprintf(expected + strlen(expected), sizeof expected - strlen(expected), "%s%s", i ? ", " : "",
                     s->names[i]);
        usage_error(program, "bad %s '%s': expected all or a comma-separated list of %s", spelled(s, flag, sizeof flag),
                    value, expected);
    }
}

static void take(const char *program, const struct option_spec *s, const char *value)
{
    char flag[64];
    long v;
    switch (s->kind) {
    case OPTION_FLAG:
        *(int *)s->into = 1;
        if (s->also)
            *s->also = 1;
        break;
    case OPTION_COUNT:
        if (parse_long(value, s->min, s->max, &v))
            number_error(program, spelled(s, flag, sizeof flag), value, s->min, s->max);
        *(int *)s->into = (int)v;
        break;
    case OPTION_SIZE:
        *(int *)s->into = parse_size(program, value);
        break;
    case OPTION_SEED:
        *(uint64_t *)s->into = parse_seed(program, value);
        break;
    case OPTION_CHECK:
        *(enum check_mode *)s->into = parse_check_mode(program, value);
        break;
    case OPTION_DIST:
        *(enum input_dist *)s->into = parse_dist(program, value);
        break;
    case OPTION_TEXT:
        if (!*value)
            usage_error(program, "bad %s '': expected %s", spelled(s, flag, sizeof flag), s->expected);
        *(const char **)s->into = value;
        break;
    case OPTION_LIST:
        take_list(program, s, value);
        break;
    case OPTION_CUSTOM:
        s->custom(program, value, s->into);
        break;
    }
    if (s->given)
        *s->given = 1;
}

void parse_options(const char *program, int argc, char **argv, const struct option_spec *specs,
                   void (*help)(const void *), const void *help_arg)
{
    struct option longopts[MAX_OPTIONS + 2];
    char shorts[2 * MAX_OPTIONS + 4] = ":h";
    int count = 0, nlong = 0;
    for (; specs[count].name; count++) {
        if (count == MAX_OPTIONS) {
            fprintf(stderr, "%s: more than %d options: raise MAX_OPTIONS in common/args.c\n", program, MAX_OPTIONS);
            exit(EXIT_USAGE);
        }
        const int value = specs[count].kind != OPTION_FLAG;
        if (specs[count].name[1] == '\0') { /* -n */
            size_t len = strlen(shorts);
            shorts[len] = specs[count].name[0];
            shorts[len + 1] = value ? ':' : '\0';
            shorts[len + 2] = '\0';
        } else {
            longopts[nlong++] = (struct option){specs[count].name, value ? required_argument : no_argument, NULL,
                                                FIRST_LONG_CODE + count};
        }
    }
    const int help_code = FIRST_LONG_CODE + MAX_OPTIONS;
    longopts[nlong++] = (struct option){"help", no_argument, NULL, help_code};
    longopts[nlong] = (struct option){NULL, 0, NULL, 0};
    opterr = 0; /* our own one-line messages instead of getopt's */
    optind = 1;
    for (;;) {
        const int c = getopt_long(argc, argv, shorts, longopts, NULL);
        if (c == -1)
            break;
        if (c == 'h' || c == help_code) {
            help(help_arg);
            exit(EXIT_PASS);
        }
        const struct option_spec *s = NULL;
        if (c >= FIRST_LONG_CODE && c < FIRST_LONG_CODE + count)
            s = &specs[c - FIRST_LONG_CODE];
        for (int i = 0; !s && c != ':' && c != '?' && i < count; i++)
            if (specs[i].name[1] == '\0' && specs[i].name[0] == c)
                s = &specs[i];
        if (!s)
            option_error(program, c, argv, FIRST_LONG_CODE);
        take(program, s, optarg);
    }
    if (optind < argc)
        usage_error(program, "unexpected argument '%s'", argv[optind]);
}

static void judge_class(const char *program, const char *value, void *into)
{
    if (strcmp(value, "fp32") == 0)
        *(int *)into = PRECISION_FP32;
    else if (strcmp(value, "tf32") == 0)
        *(int *)into = PRECISION_TF32;
    else if (strcmp(value, "fp64") == 0)
        *(int *)into = PRECISION_FP64;
    else
        usage_error(program, "bad --judge '%s': expected fp32, tf32 or fp64", value);
}

static void step_help(const void *arg)
{
    const char *const *program_lesson = arg;
    print_usage(program_lesson[0], program_lesson[1]);
}

void parse_args(const char *program, const char *lesson, int argc, char **argv,
                struct options *opt)
{
    int dist_given = 0;
    memset(opt, 0, sizeof *opt);
    opt->n = 1000;
    opt->reps = 10;
    opt->judge = -1;
    const struct option_spec specs[] = {
        {.name = "n", .kind = OPTION_SIZE, .into = &opt->n, .given = &opt->n_given},
        {.name = "reps", .kind = OPTION_COUNT, .into = &opt->reps, .min = 1, .max = 1000000},
        {.name = "seed", .kind = OPTION_SEED, .into = &opt->seed},
        {.name = "check", .kind = OPTION_CHECK, .into = &opt->check, .given = &opt->check_given},
        {.name = "csv", .kind = OPTION_FLAG, .into = &opt->csv},
        {.name = "csv-header", .kind = OPTION_FLAG, .into = &opt->csv_header, .also = &opt->csv},
        {.name = "breakdown", .kind = OPTION_FLAG, .into = &opt->breakdown},
        {.name = "save", .kind = OPTION_TEXT, .into = &opt->save_dir, .expected = "a directory"},
        {.name = "config", .kind = OPTION_TEXT, .into = &opt->config, .expected = "a configuration's name"},
        {.name = "gpu-check", .kind = OPTION_FLAG, .into = &opt->gpu_check},
        {.name = "describe", .kind = OPTION_FLAG, .into = &opt->describe},
        {.name = "dist", .kind = OPTION_DIST, .into = &opt->dist, .given = &dist_given},
        {.name = "load", .kind = OPTION_TEXT, .into = &opt->load_dir,
         .expected = "a directory holding a.npy and b.npy"},
        {.name = "math", .kind = OPTION_TEXT, .into = &opt->math, .expected = "an arithmetic's name"},
        {.name = "judge", .kind = OPTION_CUSTOM, .into = &opt->judge, .custom = judge_class},
        {.name = NULL},
    };
    const char *const program_lesson[2] = {program, lesson};
    parse_options(program, argc, argv, specs, step_help, program_lesson);
    if (opt->load_dir && dist_given)
        usage_error(program, "--dist and --load: loaded inputs have no distribution to choose");
    if (!opt->check_given)
        opt->check = opt->n <= FULL_CHECK_MAX_N ? CHECK_FULL : CHECK_SAMPLE;
}
