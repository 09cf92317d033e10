/* Exit codes shared by every program, so one test runner can judge them all. */
#ifndef EXIT_CODES_H
#define EXIT_CODES_H

enum exit_code {
    EXIT_PASS = 0,       /* within tolerance */
    EXIT_INACCURATE = 1, /* not within tolerance, or NaN, Inf, unwritten elements */
    EXIT_USAGE = 2,      /* bad usage: one line on stderr */
    EXIT_NO_GPU = 3,     /* no usable CUDA device, or a CUDA error */
};
/* The CPU chapter's equivalent of EXIT_NO_GPU: a variant this CPU or build cannot run. */
#define EXIT_UNAVAILABLE EXIT_NO_GPU

#endif
