/* What a program's build says about the GPUs it runs on: read from the architectures it holds
 * (STEP_ARCHS, which the Makefile passes: what the step's folder Makefile declared, or the
 * build's fat binary), so that a step states its architecture once, in its folder's Makefile. */
#include "step.h"

#include <stdlib.h>
#include <string.h>

int archs_exact_cc(const char *archs)
{
    int machine_cc = 0, several = 0, has_ptx = 0;
    const char *p = archs;
    while (*p) {
        const size_t len = strcspn(p, " ");
        const int ptx = strncmp(p, "compute_", 8) == 0;
        const size_t prefix = ptx ? 8 : strncmp(p, "sm_", 3) == 0 ? 3 : 0;
        if (prefix && len > prefix) {
            char *end;
            const long cc = strtol(p + prefix, &end, 10);
            /* sm_90a, compute_90a: that architecture's own instructions, which no other GPU has */
            if (end == p + len - 1 && *end == 'a' && cc > 0)
                return (int)cc;
            if (end > p + prefix && end <= p + len) {
                if (ptx)
                    has_ptx = 1;
                else if (!machine_cc)
                    machine_cc = (int)cc;
                else if (cc != machine_cc)
                    several = 1;
            }
        }
        p += len;
        p += strspn(p, " ");
    }
    /* Machine code of one architecture and no PTX to compile for another: that GPU alone
     * (GEMMul8's library, built for one compute capability). */
    return !has_ptx && !several ? machine_cc : 0;
}
