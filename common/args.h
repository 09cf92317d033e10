/* Command-line options shared by every step program. */
#ifndef ARGS_H
#define ARGS_H

#include <stdint.h>
#include "matrix.h"

#ifdef __cplusplus
extern "C" {
#endif

struct options {
    int n;
    int reps;
    uint64_t seed;
    enum check_mode check;
    int csv;
    int csv_header;
    int breakdown;
    const char *save_dir;
    const char *config; /* --config NAME, or NULL: the harness chooses */
    int gpu_check;      /* --gpu-check: say whether this GPU can run the program, and exit */
    int describe;       /* --describe: print step_info as key=value lines, and exit */
    int n_given;        /* -n was on the command line */
    int check_given;    /* --check was: otherwise the check depends on n (--load's n too) */
    enum input_dist dist;  /* --dist uniform|wide */
    const char *load_dir;  /* --load DIR: a.npy and b.npy instead of generated inputs */
    const char *math;      /* --math NAME, or NULL: the program's default arithmetic */
    int judge;             /* --judge CLASS: -1, the program's own precision class; else that class */
};

/* Sizes up to this get the full reference check by default; larger ones a sample
 * of rows (the full check is O(n^3) on the CPU). */
#define FULL_CHECK_MAX_N 2048

/* The one option parser. A program (every step through parse_args below, cpu_gemm,
 * transpose) lists its options in a table, ended by {NULL}; parse_options reads argv against
 * it: -h and --help call help and exit 0; an unknown option, a missing or bad value, a stray
 * argument: one line on stderr, exit 2 (EXIT_USAGE). Each option's value goes where its
 * entry says, checked as its kind says. */
enum option_kind {
    OPTION_FLAG,   /* no value: *(int *)into = 1 (and *(int *)also = 1, where also is set) */
    OPTION_COUNT,  /* a whole number in [min, max] into an int */
    OPTION_SIZE,   /* -n: a whole number >= 1 into an int ("bad size -n") */
    OPTION_SEED,   /* a whole number >= 0 into a uint64_t */
    OPTION_CHECK,  /* full, sample or none into an enum check_mode */
    OPTION_DIST,   /* an input distribution's name into an enum input_dist */
    OPTION_TEXT,   /* a non-empty string into a const char * (expected: what it names) */
    OPTION_LIST,   /* all, or names from names[count] separated by commas: int flags into[count] */
    OPTION_CUSTOM, /* custom(program, value, into) checks it and stores it, or exits */
};
struct option_spec {
    const char *name; /* "reps" for --reps; a one-letter name is a short option, -n */
    enum option_kind kind;
    void *into;
    int *given;       /* set to 1 when the option is on the command line; NULL: not wanted */
    long min, max;    /* OPTION_COUNT's range */
    const char *expected; /* OPTION_TEXT: "a directory"; OPTION_COUNT: "" for the range's words */
    const char *const *names; /* OPTION_LIST's names, count of them */
    int count;
    int *also;        /* OPTION_FLAG: a second flag it sets (--csv-header sets --csv) */
    void (*custom)(const char *program, const char *value, void *into);
};
void parse_options(const char *program, int argc, char **argv, const struct option_spec *specs,
                   void (*help)(const void *), const void *help_arg);

/* The step programs' options (struct options), through parse_options. */
void parse_args(const char *program, const char *lesson, int argc, char **argv,
                struct options *opt);

/* Parse a whole decimal number in [min, max]; 0 on success, -1 otherwise. Rejects
 * empty strings, signs where min >= 0, trailing junk ("12x") and overflow. */
int parse_long(const char *text, long min, long max, long *out);

/* What is wrong with a number parse_long refused, so that the message can say so: a
 * whole number above max (digits that overflow a long too) is too large, and its message
 * names max; anything else is not what was expected. */
enum number_problem { NUMBER_OK = 0, NUMBER_NOT_EXPECTED, NUMBER_TOO_LARGE };
enum number_problem check_long(const char *text, long min, long max, long *out);

/* One line and exit 2 for a number parse_long refused: what names it ("size -n",
 * "--reps"); a number above max is "too large, the largest accepted is max", anything else
 * "expected a whole number >= min" (from min to max where max is below INT_MAX). */
void number_error(const char *program, const char *what, const char *text, long min, long max)
    __attribute__((noreturn));

/* The end of every program's getopt_long switch: c is ':' (an option without its value)
 * or anything else (an unknown option); long options' codes start at first_long_code.
 * One line on stderr, exit 2. */
void option_error(const char *program, int c, char **argv, int first_long_code) __attribute__((noreturn));

/* -n N: a whole number from 1 to INT_MAX; exit 2 otherwise (above INT_MAX: too large). */
int parse_size(const char *program, const char *text);

/* The machine's physical memory in bytes (0 if unknown): sizes are checked against it
 * before anything is allocated. */
double host_memory_bytes(void);

/* --check MODE and --seed S, shared by the programs that take them; exit 2 on bad values. */
enum check_mode parse_check_mode(const char *program, const char *text);
uint64_t parse_seed(const char *program, const char *text);
/* --dist uniform|wide; exit 2 on anything else. */
enum input_dist parse_dist(const char *program, const char *text);

/* One line on stderr, "program: message", then exit 2. */
void usage_error(const char *program, const char *fmt, ...)
    __attribute__((noreturn, format(printf, 2, 3)));

#ifdef __cplusplus
}
#endif
#endif
