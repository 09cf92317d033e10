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

/* Parse argv. --help prints the usage and exits 0; anything wrong prints one line
 * on stderr and exits 2 (EXIT_USAGE). */
void parse_args(const char *program, const char *lesson, int argc, char **argv,
                struct options *opt);

/* Parse a whole decimal number in [min, max]; 0 on success, -1 otherwise. Rejects
 * empty strings, signs where min >= 0, trailing junk ("12x") and overflow. */
int parse_long(const char *text, long min, long max, long *out);

/* The end of every program's getopt_long switch: c is ':' (an option without its value)
 * or anything else (an unknown option); long options' codes start at first_long_code.
 * One line on stderr, exit 2. */
void option_error(const char *program, int c, char **argv, int first_long_code) __attribute__((noreturn));

/* -n N: a whole number from 1 to INT_MAX; exit 2 otherwise. */
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
