/* A stand-in for the NVIDIA driver library (libcuda.so.1), to force the failures the
 * programs must tell apart from "no GPU" on any machine, GPU or not. Built twice by
 * make test and put first on LD_LIBRARY_PATH:
 *   -DFAKE_DRIVER_VERSION=10020: a driver for CUDA 10.2, older than any toolkit we build
 *    with (exit 5, driver too old);
 *   -DFAKE_DRIVER_VERSION=99000 -DFAKE_FAILS: a driver that answers every call with
 *    CUDA_ERROR_UNKNOWN (exit 7, any other CUDA error).
 * The CUDA runtime asks the driver for its entry points through cuGetProcAddress. */
#include <string.h>

#define CUDA_SUCCESS 0
#define CUDA_ERROR_NOT_FOUND 500
#define CUDA_ERROR_UNKNOWN 999

int cuDriverGetVersion(int *version)
{
    *version = FAKE_DRIVER_VERSION;
    return CUDA_SUCCESS;
}

int cuInit(unsigned flags)
{
    (void)flags;
    return CUDA_ERROR_UNKNOWN;
}

#ifdef FAKE_FAILS
static int fail(void)
{
    return CUDA_ERROR_UNKNOWN;
}

int cuGetProcAddress_v2(const char *symbol, void **fn, int version, unsigned long long flags, int *status)
{
    (void)version, (void)flags;
    if (!*symbol) {
        *fn = NULL;
        if (status)
            *status = 1; /* symbol not found */
        return CUDA_ERROR_NOT_FOUND;
    }
    if (strcmp(symbol, "cuDriverGetVersion") == 0)
        *fn = (void *)cuDriverGetVersion;
    else if (strcmp(symbol, "cuGetProcAddress") == 0)
        *fn = (void *)cuGetProcAddress_v2;
    else
        *fn = (void *)fail;
    if (status)
        *status = 0;
    return CUDA_SUCCESS;
}
#endif
