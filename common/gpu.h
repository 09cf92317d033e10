/* The thin CUDA part of the harness: error checking, the device query, and the
 * two clocks (end-to-end phases on the host, kernel time with CUDA events).
 * Host code in C; included by the steps' .cu files too. */
#ifndef GPU_H
#define GPU_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

#include "exit_codes.h"

/* Every CUDA call is checked: on error print one line naming the cause and the fix, and
 * exit with the code of its class (exit_codes.h): no device 3, driver too old 5, no code
 * for this GPU in the binary 6, anything else 7. Unlike the transpose text's
 * CUDA_CHECK_ERROR it is never compiled away, and it stops instead of carrying on with a
 * broken device state. */
#define CUDA_CHECK(call) cuda_check((call), #call, __FILE__, __LINE__)
/* After a <<<launch>>>: configuration errors show up here, not at the launch. */
#define CUDA_CHECK_LAUNCH() cuda_check(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)
void cuda_check(cudaError_t err, const char *what, const char *file, int line);
/* The exit code of an error's class, for checks of other libraries' calls too. */
int cuda_exit_code(cudaError_t err);

/* Shared memory every CUDA GPU gives a block without opting in; the least a cap may be. */
#define SMEM_DEFAULT_BYTES (48 * 1024)
/* The environment variable that caps the shared memory per block the programs may use,
 * to see on a large GPU what a smaller one would run: bytes, or KB with a K ("99K"). */
#define SMEM_LIMIT_ENV "MATMUL_SMEM_LIMIT"

struct gpu_device {
    int id;
    char name[300];              /* with " capped to N KB" when MATMUL_SMEM_LIMIT applies */
    int sm_count;
    int cc_major, cc_minor;
    int clock_khz;               /* SM clock the driver reports (boost) */
    int driver_version;          /* CUDA version the driver supports, 13000 = 13.0 */
    size_t total_mem, free_mem;
    size_t smem_per_block_optin; /* shared memory a block may have after opting in (capped) */
    size_t smem_device_optin;    /* the device's own opt-in limit, before any cap */
    size_t smem_per_sm;
    int l2_bytes;
    char uuid[48];               /* as nvidia-smi writes it: "GPU-8b516f69-..." (gpu_uuid) */
    int runtime_version;         /* CUDA runtime this program runs with, 13000 = 13.0 */
};

/* Find and open the device, and apply MATMUL_SMEM_LIMIT. Without a driver or a visible
 * device: one line, exit EXIT_NO_GPU; a driver older than this build: EXIT_OLD_DRIVER;
 * a bad MATMUL_SMEM_LIMIT: EXIT_USAGE. */
void gpu_open(const char *program, struct gpu_device *dev);
/* The UUID of CUDA device `device` as nvidia-smi and NVML write it ("GPU-8b516f69-2059-..."): which
 * card of several alike a row was measured on. */
void gpu_uuid(int device, char *out, size_t size);
/* The program's name for the error lines of CUDA and the libraries: the file it was started as,
 * without its folder (a step's binary is named after its step). */
const char *gpu_program_name(void);

/* A technique this GPU lacks: with compute capability below min_cc (e.g. 80 for 8.0),
 * print "program needs compute capability 8.0 (needs); this GPU is 7.5" and exit
 * EXIT_NO_FEATURE. min_cc 0: any CUDA GPU will do. */
void gpu_require(const char *program, const struct gpu_device *dev, int min_cc, const char *needs);

/* Code for one architecture's own instructions (sm_90a: wgmma, TMA) runs on that compute
 * capability alone, not on newer GPUs: on any other, one line naming it and EXIT_NO_FEATURE.
 * exact_cc 0: no such code. */
void gpu_require_exact(const char *program, const struct gpu_device *dev, int exact_cc, const char *needs);

struct step_config;
struct step_math;
struct sm_clock;

/* Device matrices as the kernels see them: leading dimensions in elements. */
struct dev_mats {
    const float *a;
    size_t lda;
    const float *b;
    size_t ldb;
    float *c;
    size_t ldc;
    int n;
    /* n rounded up to the step's tile by common/padded.c, the one place it is rounded (0 where
     * a step allocates its own). */
    int padded;
    /* The matrices of an FP64 run (common/matrix.h's element_type), with lda, ldb, ldc above in
     * doubles; a, b and c are then NULL, as these are in an FP32 run. */
    const double *a64;
    const double *b64;
    double *c64;
};

/* One run of a step as its launch sees it (common/step.h's step_ops): the matrices, what the
 * harness chose for this run, and what the harness holds for the step from setup to teardown.
 * Nothing a step needs lives anywhere else. */
struct step_run {
    struct dev_mats mats;
    const struct step_config *config; /* the configuration chosen (NULL for a step with one) */
    const struct step_math *math;     /* the arithmetic --math chose (NULL for a program with one) */
    void *workspace;                  /* device bytes beside A, B and C (NULL: none), poisoned */
    size_t workspace_bytes;
    void *state;                      /* host bytes for the step's own struct (NULL: none), zeroed */
    /* Where time_kernel reads the SM clock once per timed launch (common/conditions.h), as the
     * harness asks (gpu_run's sm_clock); NULL: not read. The launch itself never touches it. */
    struct sm_clock *sm_clock;
};

/* What one pass of a step's host function measured. */
struct gpu_run {
    /* End-to-end, host wall clock, ms: the article's "Time used" split in phases. */
    double alloc_ms, h2d_ms, kernel_ms, d2h_ms, free_ms;
    double kernel_median_ms;  /* CUDA events, median of reps after a warm-up; 0 if reps = 0 */
    size_t pitch_bytes;       /* bytes per device row when the allocation is pitched, else 0 */
    int padded_n;             /* n rounded up by a padded allocation, else 0 */
    /* In, not measured: the configuration and the arithmetic the harness chose (NULL for a
     * program with one). */
    const struct step_config *config;
    const struct step_math *math;
    /* In: where the timed launches' SM clock is read into (NULL: not read); a step's host function
     * hands it to time_kernel through its step_run (common/padded.c does). */
    struct sm_clock *sm_clock;
    /* Out: the step's line on what its launch found in the inputs (step_ops.report), or "". */
    char step_report[320];
};

double gpu_run_total_ms(const struct gpu_run *run);

/* Phase clock for the end-to-end time: each lap synchronises the device, checks
 * for errors and returns the ms since the previous lap (or since start). */
struct phase_clock {
    double last_ms;
};
void phase_start(struct phase_clock *clk);
double phase_lap(struct phase_clock *clk);

/* A step's launch: its kernels for one run, nothing else (common/step.h). */
typedef void (*launch_fn)(const struct step_run *run);

/* Launch once to warm up, then reps times, each between two CUDA events; the
 * median in ms. The launches recompute the same C, so the result is unchanged. With
 * run->sm_clock, the SM clock is read once per timed launch while it runs (conditions.h says
 * when, and why that leaves the timing alone). */
double time_kernel(launch_fn launch, const struct step_run *run, int reps);

#ifdef __cplusplus
}
#endif
#endif
