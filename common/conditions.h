/* The conditions a GPU row was measured under, recorded beside the device's name and UUID: the
 * SM clock during the timed launches, the power limit, the driver, and the CUDA runtime's and
 * cuBLAS's versions. The same program on the same GPU runs a few percent slower when the
 * power limit holds its clock down; a figure that does not reproduce is first asked for these.
 *
 * The clock, the power limit and the driver's version come from NVML, the driver's management
 * library, loaded at run time (dlopen), never linked: the build and CI have no driver. Where the
 * library is missing, or cannot find the GPU, those columns are empty; nothing fails. Plain C,
 * no CUDA call (the caller passes what the CUDA runtime says), so the unit tests run anywhere. */
#ifndef CONDITIONS_H
#define CONDITIONS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library's name as the driver installs it (the .so without a number is a development link,
 * absent on most machines). */
#define NVML_LIBRARY "libnvidia-ml.so.1"

/* The columns conditions_csv writes, after a row's own (old readers find their columns where
 * they were). A single-GPU row writes device_uuid before them; the multi-GPU chapter's rows
 * name their GPUs in their own column, uuids. */
#define CONDITIONS_CSV_HEADER "sm_clock_mhz,power_limit_w,driver_version,cuda_runtime_version,cublas_version"

/* NVML, opened for one run (nvml_open, nvml_close): the library and the functions read from it.
 * Zeroed (library NULL) where it is not loaded: every reading is then empty. */
struct nvml {
    void *library;
    int (*shutdown)(void);
    int (*device_by_uuid)(const char *uuid, void **device);
    int (*clock_info)(void *device, int type, unsigned *mhz);
    int (*enforced_power_limit)(void *device, unsigned *milliwatts);
    int (*driver_version)(char *version, unsigned length);
};

/* Load library (NVML_LIBRARY; a test names a stand-in) and initialise it: 0, or -1 with nvml
 * zeroed where it is missing or fails. Nothing is printed: the columns say it, by being empty. */
int nvml_open(struct nvml *nvml, const char *library);
void nvml_close(struct nvml *nvml);
/* The GPU with this UUID ("GPU-8b516f69-..."), or NULL (no NVML, no such GPU). */
void *nvml_device(const struct nvml *nvml, const char *uuid);

/* One GPU's SM clock, read once per timed launch by the timing loop (gpu.h's time_kernel,
 * through step_run's sm_clock; the transpose's and the multi-GPU chapter's loops alike).
 *
 * When: after the launch and the event that ends its timing are queued, before the host waits
 * for that event. The GPU is then running the launch, or has only just finished a short one, so
 * the reading is the clock under load; and the host would only be waiting, so the reading adds
 * nothing to the interval the events time (for a launch shorter than the reading, the GPU waits a
 * little longer between launches, outside that interval). A reading before a launch or after its
 * event would catch the GPU idle. NVML's own sample buffer (nvmlDeviceGetSamples) is filled at a
 * period of the driver's choosing, longer than most timed launches here: short runs would get no
 * sample at all. */
struct sm_clock {
    const struct nvml *nvml; /* NULL: nothing is read */
    void *device;            /* nvml_device's; NULL: nothing is read */
    double sum_mhz;
    int readings;
};
void sm_clock_read(struct sm_clock *clock);
/* The mean of every reading of count clocks (the GPUs of one multi-GPU run), in MHz; 0 when
 * none was read. */
double sm_clock_mean_mhz(const struct sm_clock *clocks, int count);

/* What a row records beside the device's name, each "" or 0 where unknown. */
struct run_conditions {
    double sm_clock_mhz;        /* sm_clock_mean_mhz: 0, not read */
    char power_limit_w[256];    /* "700", or one value per GPU where a multi-GPU run's differ */
    char driver_version[96];    /* NVML's: "580.65.06" */
    char cuda_runtime_version[16]; /* "13.0" */
    char cublas_version[32];    /* "13.1.0"; "" where the program does not link cuBLAS */
};

/* Fill c: the mean of the clocks' readings, the power limit of each of the devices (nvml_device's,
 * count of them), the driver's version from NVML, the runtime's (cudaRuntimeGetVersion's
 * 13000 = 13.0; 0: unknown) and cuBLAS's where the program links it. */
void conditions_read(struct run_conditions *c, const struct nvml *nvml, void *const *devices,
                     const struct sm_clock *clocks, int count, int runtime_version);
/* The CONDITIONS_CSV_HEADER fields of c, comma-separated, into out. */
void conditions_csv(const struct run_conditions *c, char *out, size_t size);
/* cuBLAS's version ("13.1.0") where the program links it, else "". */
void cublas_version(char *out, size_t size);

#ifdef __cplusplus
}
#endif
#endif
