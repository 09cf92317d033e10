/* Exit codes shared by every program, so one test runner can judge them all.
 * 3 and 4 are the machine's answer, not the program's: tests skip, saying why.
 * 5, 6 and 7 are failures to fix (the driver, the build, the GPU): tests fail. */
#ifndef EXIT_CODES_H
#define EXIT_CODES_H

enum exit_code {
    EXIT_PASS = 0,            /* within tolerance */
    EXIT_INACCURATE = 1,      /* not within tolerance, or NaN, Inf, unwritten elements */
    EXIT_USAGE = 2,           /* bad usage or an input too large for this machine: one line on stderr */
    EXIT_NO_GPU = 3,          /* no NVIDIA driver, or no CUDA device visible */
    EXIT_NO_FEATURE = 4,      /* this GPU (or CPU) lacks what the technique needs */
    EXIT_OLD_DRIVER = 5,      /* the driver is older than the CUDA toolkit the program was built with */
    EXIT_NO_KERNEL_IMAGE = 6, /* the binary holds no code this GPU can run: rebuild for it */
    EXIT_CUDA_ERROR = 7,      /* any other CUDA or cuBLAS failure */
};

#endif
