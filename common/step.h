/* The contract between a step and the harness. A step's .cu file defines
 * step_info and matmult_gpu (the article's matmultCUDA); common/step_main.c does
 * everything else: options, inputs, timing passes, the check and the report. From step 06
 * on, matmult_gpu hands its step_ops to common/padded.c, which holds everything a run needs
 * (MATMULT_GPU_PADDED below: one line). */
#ifndef STEP_H
#define STEP_H

#include "gpu.h"
#include "matrix.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One way a kernel can run (a tile shape, a pipeline depth), for a step that has several:
 * the harness runs the first one of the step's list that fits the GPU's shared memory. */
struct step_config {
    int id;            /* the step's own number for it: its launch switches on it */
    const char *name;  /* "128x256x32/4": printed, in the CSV, and what --config takes */
    size_t smem_bytes; /* dynamic shared memory one block needs */
};

/* One arithmetic of a program that offers several (--math NAME): cuBLAS in FP32 or with
 * TF32 tensor cores, CUTLASS's TF32 and 3xTF32 kernels. Its rows are named row_name. */
struct step_math {
    const char *name;     /* what --math takes: "tf32" */
    const char *row_name; /* the program's name in the report and the CSV: "cublas_tf32" */
    enum precision_class precision;
    const char *lesson;
    /* Like step_info's: the compute capability this arithmetic needs, and what for (0, NULL:
     * the program's own). cuBLAS on a GPU without TF32 would silently compute in FP32. */
    int min_cc;
    const char *needs;
    /* Like step_info's, for a program whose configurations differ by arithmetic (CUTLASS's
     * kernels); NULL: step_info's. */
    int (*configs)(int n, const struct step_config **list);
    /* What its matrices hold (ELEMENT_FP32, 0, unless it multiplies FP64: cuBLAS DGEMM). */
    enum element_type element;
    /* Like step_info's: the families on which this arithmetic leaves its class's bound ("family:
     * why; ..."), NULL for none (a library's arithmetic, measured as it is). */
    const char *outside_bound;
};

struct step_info {
    const char *program; /* "step05" */
    const char *lesson;  /* a few words: what this step changes */
    /* Where it sits: "article" (the 2008 tutorial's steps), "cuda-cores", "tensor-cores",
     * or "reference" (cuBLAS, CUTLASS). Tables and charts group the programs by it. */
    const char *chapter;
    int compensated;     /* 1 if the kernel uses Kahan summation */
    /* Dynamic shared memory one block needs at size n, or NULL when none. */
    size_t (*dynamic_smem_bytes)(int n);
    /* The compute capability the technique needs (80 = 8.0) and what for ("cp.async");
     * 0 and NULL: any CUDA GPU. Below it the program says so and exits 4. */
    int min_cc;
    const char *needs;
    /* Several configurations: the ones to try at size n, best first, and how many; NULL
     * when the step has one. */
    int (*configs)(int n, const struct step_config **list);
    const char *config_legend; /* what a configuration's name says: "BM x BN x BK / stages" */
    enum precision_class precision; /* PRECISION_FP32 (0) unless the step rounds to TF32 */
    enum element_type element;      /* what A, B and C hold: ELEMENT_FP32 (0) unless FP64 */
    /* Several arithmetics, chosen with --math: a list ended by {NULL}, the default first;
     * NULL for a program with one. Each brings its own row name and precision class. */
    const struct step_math *maths;
    /* How the inputs reach TF32 tensor cores, for a step that uses them: NULL, both rounded to
     * nearest (cvt); else what it does instead ("A truncated by wgmma, B rounded to nearest"),
     * which --describe says and the tests check. */
    const char *tf32_inputs;
    /* About how many n x n float matrices its workspace holds (step_ops.workspace_bytes: step 13's
     * Bt, step 14's big and small copies): counted when n is checked against the device's
     * memory, before anything is allocated. */
    int scratch_matrices;
    /* A step with a versions/ folder, and each version there: what it changes from the
     * version before it (the chain is the versions' file names in order, then the step).
     * The versions table and make reproduce read it from --describe. */
    const char *change;
    /* A version kept to show a failure: what fails, where, and why (NULL for every other
     * program). The tests expect its FAIL where it says, and nowhere else. */
    const char *fails_on_purpose;
    /* The input families (common/matrix.h's names) on which a step's errors leave its class's
     * bound, each with why and from where: "mixed: ...; huge: ...", NULL for a step within it on
     * all. The tests and make reproduce record and report its FAILs there, and require one. */
    const char *outside_bound;
    /* What the step does where its fast path's accuracy does not hold, for --describe; the run
     * report counts how often it did (step_ops.report). NULL: no such path. */
    const char *special_path;
    /* The step whose source this one starts from, when it is not the step before it on the
     * ladder ("step13": step 16 takes step 13's pipeline, not step 15's fused split). `make
     * diff` asks the program for it (--describe); NULL: the step before. */
    const char *builds_on;
};
extern const struct step_info step_info;

/* The GPU architectures the program's kernels were built for ("sm_80 sm_90 compute_90"):
 * the Makefile passes them to nvcc as STEP_ARCHS (a step that needs one architecture's own
 * instructions declares it in its folder's Makefile: STEP_ARCH := sm_90a); --describe prints them. */
#ifdef __CUDACC__
#ifndef STEP_ARCHS
#define STEP_ARCHS "not recorded (built without the Makefile)"
#endif
extern "C" const char step_archs[] = STEP_ARCHS;
#else
extern const char step_archs[];
#endif

/* The compute capability a program's code runs on alone, read from its architectures (archs:
 * step_archs): 90 for code of an architecture-specific target (sm_90a: Hopper's wgmma and TMA,
 * which no other GPU has, newer ones included), or for machine code of one architecture with no
 * PTX beside it; 0 where any GPU the build covers may run it. On any other GPU the program says
 * so and exits 4; --describe prints it (exact_cc). */
int archs_exact_cc(const char *archs);

/* The alignment of a step's state (step_ops.state_bytes): a CUtensorMap's, the strictest a
 * step keeps there. */
#define STEP_STATE_ALIGN 64

/* How the harness runs a step (common/padded.c): once per run it allocates the workspace and
 * the state, calls setup, then launches as often as it times, then calls teardown and frees
 * both. Setup and teardown lie outside the end-to-end phases and the kernel time, so a step
 * keeps nothing of its own between runs and caches nothing in statics. NULL: not needed. */
struct step_ops {
    /* Device bytes the step needs beside A, B and C at the padded size, in this configuration
     * (step 13's Bt, step 14's split copies and marks): run->workspace, filled with POISON_BYTE
     * like C, so that reading what the step never wrote shows. */
    size_t (*workspace_bytes)(int padded, const struct step_config *config);
    /* The size of the step's own struct (its tensor maps, its plan): run->state, zeroed host
     * memory aligned to STEP_STATE_ALIGN. */
    size_t state_bytes;
    /* Before the first launch, A, B, C and the workspace in place: build tensor maps and plans
     * into run->state, opt kernels into more than 48 KB of shared memory, create library
     * handles. */
    void (*setup)(struct step_run *run);
    /* The timed part: the step's kernels (or library call), nothing else. */
    void (*launch)(const struct step_run *run);
    /* After the last launch: free what setup made (library handles). */
    void (*teardown)(struct step_run *run);
    /* After the first launch, outside the clock: one line for the run report on what the launch
     * found in the inputs (step 16: how many rows, columns and elements took its special path);
     * NULL: nothing to say. */
    void (*report)(const struct step_run *run, char *line, size_t size);
};

/* Allocate device matrices, copy A and B in, multiply, copy C back, free; fill in
 * the end-to-end phases of run and, when kernel_reps > 0, the kernel's median time.
 * Host matrices are n x n with leading dimensions lda, ldb, ldc (in elements). */
void matmult_gpu(const float *a, int lda, const float *b, int ldb, float *c, int ldc, int n,
                 int kernel_reps, struct gpu_run *run);

/* Step 06's matmult_gpu with any tile (common/padded.c): device matrices padded to a
 * multiple of tile and zero-filled, the step's setup, copies, one launch, copy back; the
 * kernel's median time over kernel_reps launches; the step's teardown, free. The launch gets
 * the padded size (run->mats.padded: n is rounded up here and nowhere else) and the
 * configuration and arithmetic of measured (config, math). The steps after 06 call it. */
void matmult_padded(const float *a, int lda, const float *b, int ldb, float *c, int ldc, int n, int tile,
                    const struct step_ops *ops, int kernel_reps, struct gpu_run *measured);

/* The matmult_gpu of every program that hands its run to matmult_padded (steps 06 on, their
 * versions, cuBLAS and GEMMul8 with a tile of 1), written once: MATMULT_GPU_PADDED(TILE, ops)
 * at the end of a step defines
 *     void matmult_gpu(a, lda, b, ldb, c, ldc, n, kernel_reps, run)
 *     { matmult_padded(a, lda, b, ldb, c, ldc, n, TILE, &ops, kernel_reps, run); }
 * so that what differs between two steps (the tile, the ops) is all their diff shows. */
#define MATMULT_GPU_PADDED(tile, ops)                                                                        \
    void matmult_gpu(const float *a, int lda, const float *b, int ldb, float *c, int ldc, int n, int kernel_reps, \
                     struct gpu_run *run)                                                                     \
    {                                                                                                         \
        matmult_padded(a, lda, b, ldb, c, ldc, n, (tile), &(ops), kernel_reps, run);                          \
    }                                                                                                         \
    void matmult_gpu64(const double *a, int lda, const double *b, int ldb, double *c, int ldc, int n,        \
                       int kernel_reps, struct gpu_run *run)                                                  \
    {                                                                                                         \
        matmult_padded64(a, lda, b, ldb, c, ldc, n, (tile), &(ops), kernel_reps, run);                        \
    }

/* matmult_gpu and matmult_padded for FP64 matrices (an FP64 run: step_info's or its arithmetic's
 * element). MATMULT_GPU_PADDED defines it beside matmult_gpu; steps 01-05, FP32 alone, do not, so
 * the harness declares it weak and calls it only for a program that declares FP64. */
void matmult_gpu64(const double *a, int lda, const double *b, int ldb, double *c, int ldc, int n, int kernel_reps,
                   struct gpu_run *run) __attribute__((weak));
void matmult_padded64(const double *a, int lda, const double *b, int ldb, double *c, int ldc, int n, int tile,
                      const struct step_ops *ops, int kernel_reps, struct gpu_run *measured);


#ifdef __cplusplus
}
#endif
#endif
