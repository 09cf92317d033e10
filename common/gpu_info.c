/* gpu_info: the first CUDA device, for scripts and tests (one CSV line) or for people
 * (--describe, what `make gpu-info` prints). With no GPU: one line on stderr, exit 3;
 * the other failures exit with their own codes (exit_codes.h). */
#include "gpu.h"

#include <stdio.h>
#include <string.h>

static void describe(const struct gpu_device *dev)
{
    printf("Device:            %s\n", dev->name);
    printf("Compute capability %d.%d, %d SMs at up to %.2f GHz, driver for CUDA %d.%d\n", dev->cc_major,
           dev->cc_minor, dev->sm_count, dev->clock_khz / 1e6, dev->driver_version / 1000,
           dev->driver_version % 1000 / 10);
    printf("Memory:            %.1f GB (%.1f GB free), L2 cache %.1f MB\n", dev->total_mem / 1e9,
           dev->free_mem / 1e9, dev->l2_bytes / 1048576.0);
    printf("Shared memory:     %zu bytes per block by default, %zu with opt-in", (size_t)SMEM_DEFAULT_BYTES,
           dev->smem_per_block_optin);
    if (dev->smem_per_block_optin < dev->smem_device_optin)
        printf(" (capped by %s; the device allows %zu)", SMEM_LIMIT_ENV, dev->smem_device_optin);
    printf(", %zu per SM\n", dev->smem_per_sm);
}

int main(int argc, char **argv)
{
    int human = argc > 1 && strcmp(argv[1], "--describe") == 0;
    if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        printf("Usage: gpu_info [--describe]\n"
               "Prints name,cc,sms,clock_khz,total_bytes,free_bytes,smem_optin_bytes,l2_bytes,\n"
               "smem_device_optin_bytes,smem_per_sm_bytes,driver_version of the first CUDA device\n"
               "(smem_optin_bytes is lowered by %s where it is set); --describe prints the\n"
               "same for people. Exit status: 0, or 3 without a GPU, 5 driver too old, 7 other CUDA errors.\n",
               SMEM_LIMIT_ENV);
        return EXIT_PASS;
    }
    if (argc > 2 || (argc == 2 && !human)) {
        fprintf(stderr, "gpu_info: unexpected argument '%s' (try --help)\n", argv[argc - 1]);
        return EXIT_USAGE;
    }
    struct gpu_device dev;
    gpu_open("gpu_info", &dev);
    if (human) {
        describe(&dev);
        return EXIT_PASS;
    }
    printf("%s,%d.%d,%d,%d,%zu,%zu,%zu,%d,%zu,%zu,%d\n", dev.name, dev.cc_major, dev.cc_minor, dev.sm_count,
           dev.clock_khz, dev.total_mem, dev.free_mem, dev.smem_per_block_optin, dev.l2_bytes,
           dev.smem_device_optin, dev.smem_per_sm, dev.driver_version);
    return EXIT_PASS;
}
