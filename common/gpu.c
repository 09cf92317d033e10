#include "gpu.h"
#include "timing.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cuda_check(cudaError_t err, const char *what, const char *file, int line)
{
    if (err == cudaSuccess)
        return;
    fprintf(stderr, "CUDA error %s (%d): %s, in %s at %s:%d\n", cudaGetErrorName(err), (int)err,
            cudaGetErrorString(err), what, file, line);
    exit(EXIT_NO_GPU);
}

void gpu_open(const char *program, struct gpu_device *dev)
{
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess || count == 0) {
        fprintf(stderr, "%s: no CUDA device available (%s); this program needs an NVIDIA GPU\n",
                program, err != cudaSuccess ? cudaGetErrorString(err) : "device count is 0");
        exit(EXIT_NO_GPU);
    }
    struct cudaDeviceProp prop;
    memset(dev, 0, sizeof *dev);
    CUDA_CHECK(cudaGetDevice(&dev->id));
    CUDA_CHECK(cudaGetDeviceProperties(&prop, dev->id));
    snprintf(dev->name, sizeof dev->name, "%s", prop.name);
    dev->sm_count = prop.multiProcessorCount;
    dev->cc_major = prop.major;
    dev->cc_minor = prop.minor;
    CUDA_CHECK(cudaDeviceGetAttribute(&dev->clock_khz, cudaDevAttrClockRate, dev->id));
    dev->smem_per_block_optin = prop.sharedMemPerBlockOptin;
    CUDA_CHECK(cudaDeviceGetAttribute(&dev->l2_bytes, cudaDevAttrL2CacheSize, dev->id));
    /* Creates the context, so that its cost stays out of every timing. */
    CUDA_CHECK(cudaFree(0));
    CUDA_CHECK(cudaMemGetInfo(&dev->free_mem, &dev->total_mem));
}

double gpu_run_total_ms(const struct gpu_run *run)
{
    return run->alloc_ms + run->h2d_ms + run->kernel_ms + run->d2h_ms + run->free_ms;
}

void phase_start(struct phase_clock *clk)
{
    clk->last_ms = wall_ms();
}

double phase_lap(struct phase_clock *clk)
{
    CUDA_CHECK(cudaDeviceSynchronize());
    double now = wall_ms();
    double lap = now - clk->last_ms;
    clk->last_ms = now;
    return lap;
}

double time_kernel(launch_fn launch, const struct dev_mats *m, int reps)
{
    if (reps <= 0)
        return 0.0;
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    launch(m); /* warm-up: instruction cache, TLBs, clocks ramping up */
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaDeviceSynchronize());

    double *samples = malloc(sizeof *samples * (size_t)reps);
    if (!samples) {
        fprintf(stderr, "out of host memory\n");
        exit(EXIT_USAGE);
    }
    for (int r = 0; r < reps; r++) {
        float ms = 0.0f;
        CUDA_CHECK(cudaEventRecord(start, 0));
        launch(m);
        CUDA_CHECK_LAUNCH();
        CUDA_CHECK(cudaEventRecord(stop, 0));
        CUDA_CHECK(cudaEventSynchronize(stop));
        CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        samples[r] = ms;
    }
    double median = median_of(samples, reps);
    free(samples);
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    return median;
}
