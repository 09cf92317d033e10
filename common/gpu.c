#define _GNU_SOURCE /* program_invocation_short_name */
#include "gpu.h"
#include "args.h"
#include "conditions.h"
#include "timing.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>

int cuda_exit_code(cudaError_t err)
{
    switch (err) {
    case cudaSuccess:
        return EXIT_PASS;
    case cudaErrorNoDevice:
        return EXIT_NO_GPU;
    case cudaErrorInsufficientDriver:
    case cudaErrorCallRequiresNewerDriver:
    case cudaErrorUnsupportedPtxVersion: /* PTX newer than the driver's compiler */
    case cudaErrorSystemDriverMismatch:
        return EXIT_OLD_DRIVER;
    case cudaErrorNoKernelImageForDevice:
        return EXIT_NO_KERNEL_IMAGE;
    default:
        return EXIT_CUDA_ERROR;
    }
}

static void print_versions(char *out, size_t size, int driver, int runtime)
{
    snprintf(out, size, "the driver supports CUDA %d.%d, this program was built with CUDA %d.%d",
             driver / 1000, driver % 1000 / 10, runtime / 1000, runtime % 1000 / 10);
}

/* The name the C library took from argv[0]: a step's binary is named after its step. */
const char *gpu_program_name(void)
{
    return program_invocation_short_name;
}

/* What the line says beside the error is asked for when it is written, not kept from gpu_open:
 * the current device's compute capability, the driver's and the runtime's versions. */
void cuda_check(cudaError_t err, const char *what, const char *file, int line)
{
    if (err == cudaSuccess)
        return;
    const int code = cuda_exit_code(err);
    if (code == EXIT_NO_KERNEL_IMAGE) {
        int device = 0, major = 0, minor = 0;
        cudaGetDevice(&device);
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device);
        fprintf(stderr, "%s: this binary holds no code for this GPU (compute capability %d.%d; %s at %s:%d): "
                "rebuild on this machine with `make clean all`, or `make ARCH=sm_%d%d all`\n",
                gpu_program_name(), major, minor, what, file, line, major, minor);
    } else if (code == EXIT_OLD_DRIVER) {
        int driver = 0, runtime = 0;
        cudaDriverGetVersion(&driver);
        cudaRuntimeGetVersion(&runtime);
        char versions[128];
        print_versions(versions, sizeof versions, driver, runtime);
        fprintf(stderr, "%s: the NVIDIA driver is too old for this build (%s, %s; %s at %s:%d): "
                "install a newer driver, or build with a CUDA toolkit no newer than the driver\n",
                gpu_program_name(), cudaGetErrorName(err), versions, what, file, line);
    } else {
        fprintf(stderr, "%s: CUDA error %s (%d): %s, in %s at %s:%d (not a problem of the input: "
                "check the GPU with nvidia-smi, run the program under compute-sanitizer)\n",
                gpu_program_name(), cudaGetErrorName(err), (int)err, cudaGetErrorString(err), what, file, line);
    }
    exit(code);
}

/* MATMUL_SMEM_LIMIT: bytes, or KB with a K ("99K" = 101376); 0 when unset. */
static size_t smem_cap(const char *program)
{
    const char *text = getenv(SMEM_LIMIT_ENV);
    if (!text || !*text)
        return 0;
    char digits[32];
    size_t len = strlen(text), unit = 1;
    if (len < sizeof digits && len > 1 && (text[len - 1] == 'K' || text[len - 1] == 'k')) {
        memcpy(digits, text, len - 1);
        digits[len - 1] = '\0';
        unit = 1024;
    } else {
        snprintf(digits, sizeof digits, "%s", len < sizeof digits ? text : "x");
    }
    long v;
    if (parse_long(digits, 1, LONG_MAX / 1024, &v) || (size_t)v * unit < SMEM_DEFAULT_BYTES)
        usage_error(program, "bad %s '%s': expected bytes (e.g. 101376) or KB (e.g. 99K), at least 48K",
                    SMEM_LIMIT_ENV, text);
    return (size_t)v * unit;
}

static void format_uuid(const cudaUUID_t *id, char *out, size_t size)
{
    const unsigned char *u = (const unsigned char *)id->bytes;
    snprintf(out, size, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1], u[2],
             u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
}

void gpu_uuid(int device, char *out, size_t size)
{
    struct cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    format_uuid(&prop.uuid, out, size);
}

void gpu_open(const char *program, struct gpu_device *dev)
{
    memset(dev, 0, sizeof *dev);
    const size_t cap = smem_cap(program);
    /* The driver first: without one there is no GPU (the runtime would only say the
     * driver is "insufficient"); one older than this build is a driver to update. */
    int driver = 0, runtime = 0;
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    if (driver == 0) {
        fprintf(stderr, "%s: no NVIDIA GPU here (no CUDA driver installed); this program needs one. "
                "Without a GPU, make builds everything, make cpu runs the CPU chapter and make test "
                "runs the unit tests (GPU tests skip)\n", program);
        exit(EXIT_NO_GPU);
    }
    if (driver / 1000 < runtime / 1000) {
        char versions[128];
        print_versions(versions, sizeof versions, driver, runtime);
        fprintf(stderr, "%s: the NVIDIA driver is too old for this build (%s): install a driver for CUDA "
                "%d or newer, or build with a CUDA toolkit no newer than the driver\n",
                program, versions, runtime / 1000);
        exit(EXIT_OLD_DRIVER);
    }
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err == cudaErrorNoDevice || (err == cudaSuccess && count == 0)) {
        const char *visible = getenv("CUDA_VISIBLE_DEVICES");
        fprintf(stderr, "%s: no CUDA device visible (a driver for CUDA %d.%d is installed%s%s%s); "
                "this program needs an NVIDIA GPU\n", program, driver / 1000, driver % 1000 / 10,
                visible ? ", CUDA_VISIBLE_DEVICES='" : "", visible ? visible : "", visible ? "'" : "");
        exit(EXIT_NO_GPU);
    }
    cuda_check(err, "cudaGetDeviceCount", __FILE__, __LINE__);

    struct cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDevice(&dev->id));
    CUDA_CHECK(cudaGetDeviceProperties(&prop, dev->id));
    dev->sm_count = prop.multiProcessorCount;
    dev->cc_major = prop.major;
    dev->cc_minor = prop.minor;
    dev->driver_version = driver;
    dev->runtime_version = runtime;
    format_uuid(&prop.uuid, dev->uuid, sizeof dev->uuid);
    CUDA_CHECK(cudaDeviceGetAttribute(&dev->clock_khz, cudaDevAttrClockRate, dev->id));
    dev->smem_device_optin = dev->smem_per_block_optin = prop.sharedMemPerBlockOptin;
    dev->smem_per_sm = prop.sharedMemPerMultiprocessor;
    /* A cap only ever lowers the limit; the name says so, so that capped figures are
     * never taken for this GPU's own (nor for another GPU's). */
    if (cap && cap < dev->smem_device_optin) {
        dev->smem_per_block_optin = cap;
        snprintf(dev->name, sizeof dev->name, "%s capped to %g KB", prop.name, cap / 1024.0);
    } else {
        snprintf(dev->name, sizeof dev->name, "%s", prop.name);
    }
    CUDA_CHECK(cudaDeviceGetAttribute(&dev->l2_bytes, cudaDevAttrL2CacheSize, dev->id));
    /* Creates the context, so that its cost stays out of every timing. */
    CUDA_CHECK(cudaFree(0));
    CUDA_CHECK(cudaMemGetInfo(&dev->free_mem, &dev->total_mem));
}

void gpu_require(const char *program, const struct gpu_device *dev, int min_cc, const char *needs)
{
    if (dev->cc_major * 10 + dev->cc_minor >= min_cc)
        return;
    fprintf(stderr, "%s needs compute capability %d.%d (%s); this GPU (%s) is %d.%d\n", program, min_cc / 10,
            min_cc % 10, needs, dev->name, dev->cc_major, dev->cc_minor);
    exit(EXIT_NO_FEATURE);
}

void gpu_require_exact(const char *program, const struct gpu_device *dev, int exact_cc, const char *needs)
{
    if (!exact_cc || dev->cc_major * 10 + dev->cc_minor == exact_cc)
        return;
    fprintf(stderr, "%s needs compute capability %d.%d exactly (%s); this GPU (%s) is %d.%d\n", program, exact_cc / 10,
            exact_cc % 10, needs, dev->name, dev->cc_major, dev->cc_minor);
    exit(EXIT_NO_FEATURE);
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

double time_kernel(launch_fn launch, const struct step_run *run, int reps)
{
    if (reps <= 0)
        return 0.0;
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    launch(run); /* warm-up: instruction cache, TLBs, clocks ramping up */
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
        launch(run);
        CUDA_CHECK_LAUNCH();
        CUDA_CHECK(cudaEventRecord(stop, 0));
        if (run->sm_clock) /* while the launch runs: before the wait, outside the events' interval */
            sm_clock_read(run->sm_clock);
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
