/* The conditions a GPU row was measured under (conditions.h): NVML through dlopen, the SM clock's
 * readings, and the versions, as the row's last columns. */
#define _GNU_SOURCE
#include "conditions.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

/* NVML's values this file uses (nvml.h, which a machine without the driver lacks). */
#define NVML_SUCCESS 0
#define NVML_CLOCK_SM 1
#define NVML_DRIVER_VERSION_LENGTH 80

/* cuBLAS's version is asked of the library itself, where the program links it. The harness
 * cannot know whether it does (cuBLAS, GEMMul8 and the multi-GPU chapter do, the steps do not),
 * so the function is a weak reference: the linker binds it where libcublas is linked and leaves it
 * NULL elsewhere, whose column stays empty. Its first parameter is a libraryPropertyType. */
int cublasGetProperty(int type, int *value) __attribute__((weak));
#define LIBRARY_MAJOR_VERSION 0
#define LIBRARY_MINOR_VERSION 1
#define LIBRARY_PATCH_LEVEL 2

int nvml_open(struct nvml *nvml, const char *library)
{
    memset(nvml, 0, sizeof *nvml);
    /* RTLD_NODELETE: nvml_close's dlclose leaves the library mapped, as a driver library that may
     * keep threads of its own must stay (a --batch opens and closes it once per run). */
    void *lib = dlopen(library, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (!lib)
        return -1;
    int (*init)(void) = (int (*)(void))dlsym(lib, "nvmlInit_v2");
    struct nvml found = {
        .library = lib,
        .shutdown = (int (*)(void))dlsym(lib, "nvmlShutdown"),
        .device_by_uuid = (int (*)(const char *, void **))dlsym(lib, "nvmlDeviceGetHandleByUUID"),
        .clock_info = (int (*)(void *, int, unsigned *))dlsym(lib, "nvmlDeviceGetClockInfo"),
        .enforced_power_limit = (int (*)(void *, unsigned *))dlsym(lib, "nvmlDeviceGetEnforcedPowerLimit"),
        .driver_version = (int (*)(char *, unsigned))dlsym(lib, "nvmlSystemGetDriverVersion"),
    };
    if (!init || !found.shutdown || !found.device_by_uuid || !found.clock_info || !found.enforced_power_limit ||
        !found.driver_version || init() != NVML_SUCCESS) {
        dlclose(lib);
        return -1;
    }
    *nvml = found;
    return 0;
}

void nvml_close(struct nvml *nvml)
{
    if (nvml->library) {
        nvml->shutdown();
        dlclose(nvml->library);
    }
    memset(nvml, 0, sizeof *nvml);
}

void *nvml_device(const struct nvml *nvml, const char *uuid)
{
    void *device = NULL;
    if (!nvml->library || !uuid || !*uuid || nvml->device_by_uuid(uuid, &device) != NVML_SUCCESS)
        return NULL;
    return device;
}

void sm_clock_read(struct sm_clock *clock)
{
    unsigned mhz = 0;
    if (!clock->nvml || !clock->nvml->library || !clock->device ||
        clock->nvml->clock_info(clock->device, NVML_CLOCK_SM, &mhz) != NVML_SUCCESS || mhz == 0)
        return;
    clock->sum_mhz += mhz;
    clock->readings++;
}

double sm_clock_mean_mhz(const struct sm_clock *clocks, int count)
{
    double sum = 0.0;
    int readings = 0;
    for (int i = 0; i < count; i++) {
        sum += clocks[i].sum_mhz;
        readings += clocks[i].readings;
    }
    return readings ? sum / readings : 0.0;
}

void cublas_version(char *out, size_t size)
{
    int major = 0, minor = 0, patch = 0;
    if (!cublasGetProperty || cublasGetProperty(LIBRARY_MAJOR_VERSION, &major) != 0 ||
        cublasGetProperty(LIBRARY_MINOR_VERSION, &minor) != 0 || cublasGetProperty(LIBRARY_PATCH_LEVEL, &patch) != 0)
        snprintf(out, size, "%s", "");
    else
        snprintf(out, size, "%d.%d.%d", major, minor, patch);
}

/* Each device's enforced power limit in W, space-separated, or one value where all agree; "" where
 * any is unknown. */
static void power_limits(const struct nvml *nvml, void *const *devices, int count, char *out, size_t size)
{
    out[0] = '\0';
    int all_same = 1;
    unsigned first = 0;
    for (int i = 0; i < count; i++) {
        unsigned milliwatts = 0;
        if (!nvml->library || !devices[i] ||
            nvml->enforced_power_limit(devices[i], &milliwatts) != NVML_SUCCESS || milliwatts == 0) {
            out[0] = '\0';
            return;
        }
        if (i == 0)
            first = milliwatts;
        all_same &= milliwatts == first;
        const size_t used = strlen(out);
        snprintf(out + used, size - used, "%s%g", i ? " " : "", milliwatts / 1000.0);
    }
    if (all_same && count > 0)
        snprintf(out, size, "%g", first / 1000.0);
}

void conditions_read(struct run_conditions *c, const struct nvml *nvml, void *const *devices,
                     const struct sm_clock *clocks, int count, int runtime_version)
{
    memset(c, 0, sizeof *c);
    c->sm_clock_mhz = sm_clock_mean_mhz(clocks, count);
    power_limits(nvml, devices, count, c->power_limit_w, sizeof c->power_limit_w);
    if (nvml->library) {
        char version[NVML_DRIVER_VERSION_LENGTH] = "";
        if (nvml->driver_version(version, sizeof version) == NVML_SUCCESS)
            snprintf(c->driver_version, sizeof c->driver_version, "%s", version);
    }
    if (runtime_version > 0)
        snprintf(c->cuda_runtime_version, sizeof c->cuda_runtime_version, "%d.%d", runtime_version / 1000,
                 runtime_version % 1000 / 10);
    cublas_version(c->cublas_version, sizeof c->cublas_version);
}

void conditions_csv(const struct run_conditions *c, char *out, size_t size)
{
    char clock[32] = "";
    if (c->sm_clock_mhz > 0)
        snprintf(clock, sizeof clock, "%.0f", c->sm_clock_mhz);
    snprintf(out, size, "%s,%s,%s,%s,%s", clock, c->power_limit_w, c->driver_version, c->cuda_runtime_version,
             c->cublas_version);
}
