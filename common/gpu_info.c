/* gpu_info: one CSV line about the first CUDA device, for scripts and tests:
 * name,compute capability,SMs,SM clock kHz,total bytes,free bytes,shared bytes per
 * block (opt-in),L2 bytes. With no device: one line on stderr, exit 3. */
#include "gpu.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        printf("Usage: gpu_info\nPrints name,cc,sms,clock_khz,total_bytes,free_bytes,smem_optin_bytes,l2_bytes\n"
               "of the first CUDA device; exits 3 when there is none.\n");
        return EXIT_PASS;
    }
    if (argc > 1) {
        fprintf(stderr, "gpu_info: unexpected argument '%s' (try --help)\n", argv[1]);
        return EXIT_USAGE;
    }
    struct gpu_device dev;
    gpu_open("gpu_info", &dev);
    printf("%s,%d.%d,%d,%d,%zu,%zu,%zu,%d\n", dev.name, dev.cc_major, dev.cc_minor, dev.sm_count,
           dev.clock_khz, dev.total_mem, dev.free_mem, dev.smem_per_block_optin, dev.l2_bytes);
    return EXIT_PASS;
}
