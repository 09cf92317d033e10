/* A stand-in for NVML (libnvidia-ml.so.1), the driver's management library, so that the harness's
 * reading of a row's conditions (common/conditions.c) is tested on any machine, GPU or not.
 * tests/01-harness.t builds it and names it to obj/harness_test (HARNESS_FAKE_NVML). Two cards,
 * found by their UUIDs, each with its own SM clock and power limit; FAKE_NVML_INIT_FAILS set in
 * the environment makes nvmlInit_v2 fail, as on a machine whose driver does not answer. */
#include <stdlib.h>
#include <string.h>

#define NVML_SUCCESS 0
#define NVML_ERROR_INVALID_ARGUMENT 2
#define NVML_ERROR_NOT_FOUND 6
#define NVML_ERROR_UNKNOWN 999
#define NVML_CLOCK_SM 1

struct fake_card {
    const char *uuid;
    unsigned sm_mhz, power_limit_mw;
};
static const struct fake_card cards[2] = {
    {"GPU-00000000-1111-2222-3333-444444444444", 1755, 700000},
    {"GPU-55555555-6666-7777-8888-999999999999", 1410, 650000},
};

int nvmlInit_v2(void)
{
    return getenv("FAKE_NVML_INIT_FAILS") ? NVML_ERROR_UNKNOWN : NVML_SUCCESS;
}

int nvmlShutdown(void)
{
    return NVML_SUCCESS;
}

int nvmlDeviceGetHandleByUUID(const char *uuid, const void **device)
{
    for (int i = 0; i < 2; i++)
        if (strcmp(uuid, cards[i].uuid) == 0) {
            *device = &cards[i];
            return NVML_SUCCESS;
        }
    return NVML_ERROR_NOT_FOUND;
}

int nvmlDeviceGetClockInfo(const struct fake_card *device, int type, unsigned *mhz)
{
    if (type != NVML_CLOCK_SM)
        return NVML_ERROR_INVALID_ARGUMENT;
    *mhz = device->sm_mhz;
    return NVML_SUCCESS;
}

int nvmlDeviceGetEnforcedPowerLimit(const struct fake_card *device, unsigned *milliwatts)
{
    *milliwatts = device->power_limit_mw;
    return NVML_SUCCESS;
}

int nvmlSystemGetDriverVersion(char *version, unsigned length)
{
    const char *mine = "999.12.34";
    if (length <= strlen(mine))
        return NVML_ERROR_INVALID_ARGUMENT;
    strcpy(version, mine);
    return NVML_SUCCESS;
}
