/* Step 06's lesson, the padded allocation: device matrices allocated with n rounded up to
 * a multiple of the tile and zero-filled, so every tile is whole and the kernel needs no
 * bounds checks; then the copies, one launch, the copy back, and the kernel's median time.
 * Step 06 introduces it; the steps after it, whose lessons are in their kernels, and cuBLAS
 * (with a tile of 1: pitched rows, nothing padded) call it unchanged. Around it, the step's
 * run (common/step.h's step_ops): its workspace, state and setup before the copies, its
 * teardown before the matrices are freed, none of it inside a phase of the clock. */
#include "step.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The workspace, poisoned as C is (a step that reads what it never wrote is caught); the
 * state, zeroed; the step's setup; and the device idle again before the clock goes on. */
static void begin_run(const struct step_ops *ops, struct step_run *run)
{
    run->workspace_bytes = ops->workspace_bytes ? ops->workspace_bytes(run->mats.padded, run->config) : 0;
    if (run->workspace_bytes) {
        CUDA_CHECK(cudaMalloc(&run->workspace, run->workspace_bytes));
        CUDA_CHECK(cudaMemset(run->workspace, POISON_BYTE, run->workspace_bytes));
    }
    if (ops->state_bytes) {
        const size_t bytes = (ops->state_bytes + STEP_STATE_ALIGN - 1) / STEP_STATE_ALIGN * STEP_STATE_ALIGN;
        run->state = aligned_alloc(STEP_STATE_ALIGN, bytes);
        if (!run->state) {
            fprintf(stderr, "out of host memory\n");
            exit(EXIT_USAGE);
        }
        memset(run->state, 0, bytes);
    }
    if (ops->setup)
        ops->setup(run);
    CUDA_CHECK(cudaDeviceSynchronize());
}

static void end_run(const struct step_ops *ops, struct step_run *run)
{
    if (ops->teardown)
        ops->teardown(run);
    free(run->state);
    if (run->workspace)
        CUDA_CHECK(cudaFree(run->workspace));
}

/* Both element types: bytes is an element's size; the run's matrices go into mats' float or
 * double pointers by it. */
static void padded_run(const void *a, int lda, const void *b, int ldb, void *c, int ldc, int n, int tile,
                       size_t bytes, const struct step_ops *ops, int kernel_reps, struct gpu_run *measured)
{
    void *ac, *bc, *cc;
    size_t pitch_a, pitch_b, pitch_c;
    const size_t row_bytes = bytes * n;
    const int newn = ((n + tile - 1) / tile) * tile;
    struct phase_clock clock;

    phase_start(&clock);
    CUDA_CHECK(cudaMallocPitch(&ac, &pitch_a, bytes * newn, newn));
    CUDA_CHECK(cudaMallocPitch(&bc, &pitch_b, bytes * newn, newn));
    CUDA_CHECK(cudaMallocPitch(&cc, &pitch_c, bytes * newn, newn));
    CUDA_CHECK(cudaMemset(ac, 0, pitch_a * newn)); /* the padding must be zeros: it is summed */
    CUDA_CHECK(cudaMemset(bc, 0, pitch_b * newn));
    CUDA_CHECK(cudaMemset(cc, POISON_BYTE, pitch_c * newn)); /* harness: catch unwritten elements */
    measured->alloc_ms = phase_lap(&clock);
    measured->pitch_bytes = pitch_a;
    measured->padded_n = tile > 1 ? newn : 0; /* a tile of 1 (cuBLAS) pads nothing */

    struct step_run run = {.mats = {.lda = pitch_a / bytes, .ldb = pitch_b / bytes, .ldc = pitch_c / bytes,
                                    .n = n, .padded = newn},
                           .config = measured->config, .math = measured->math, .sm_clock = measured->sm_clock};
    if (bytes == sizeof(double))
        run.mats.a64 = (const double *)ac, run.mats.b64 = (const double *)bc, run.mats.c64 = (double *)cc;
    else
        run.mats.a = (const float *)ac, run.mats.b = (const float *)bc, run.mats.c = (float *)cc;
    begin_run(ops, &run); /* outside the phases: the clock starts again after it */

    phase_start(&clock);
    CUDA_CHECK(cudaMemcpy2D(ac, pitch_a, a, bytes * lda, row_bytes, n, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy2D(bc, pitch_b, b, bytes * ldb, row_bytes, n, cudaMemcpyHostToDevice));
    measured->h2d_ms = phase_lap(&clock);

    ops->launch(&run);
    CUDA_CHECK_LAUNCH();
    measured->kernel_ms = phase_lap(&clock);

    CUDA_CHECK(cudaMemcpy2D(c, bytes * ldc, cc, pitch_c, row_bytes, n, cudaMemcpyDeviceToHost));
    measured->d2h_ms = phase_lap(&clock);

    measured->kernel_median_ms = time_kernel(ops->launch, &run, kernel_reps); /* outside the end-to-end time */
    if (ops->report)
        ops->report(&run, measured->step_report, sizeof measured->step_report);
    end_run(ops, &run);

    phase_start(&clock);
    CUDA_CHECK(cudaFree(ac));
    CUDA_CHECK(cudaFree(bc));
    CUDA_CHECK(cudaFree(cc));
    measured->free_ms = phase_lap(&clock);
}

void matmult_padded(const float *a, int lda, const float *b, int ldb, float *c, int ldc, int n, int tile,
                    const struct step_ops *ops, int kernel_reps, struct gpu_run *measured)
{
    padded_run(a, lda, b, ldb, c, ldc, n, tile, sizeof(float), ops, kernel_reps, measured);
}

void matmult_padded64(const double *a, int lda, const double *b, int ldb, double *c, int ldc, int n, int tile,
                      const struct step_ops *ops, int kernel_reps, struct gpu_run *measured)
{
    padded_run(a, lda, b, ldb, c, ldc, n, tile, sizeof(double), ops, kernel_reps, measured);
}
