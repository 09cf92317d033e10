/* The multi-GPU chapter's cuts (multigpu/partition.h), checked exhaustively on the CPU: the
 * parts of n cover it once, in order, their sizes differ by one at most, part_of finds the
 * part that holds each index; SUMMA's panels tile [0, n) and each lies inside one part of A's
 * columns and one of B's rows (one owner for each), for every grid up to 8 x 8, every
 * n up to 300 and panel widths from 1 to wider than n. TAP output (tests/20-multigpu.t). */
#include "../multigpu/partition.h"
#include "tap.h"

static int parts_ok(long n, int parts)
{
    long next = 0;
    for (int p = 0; p < parts; p++) {
        const long s = part_start(n, parts, p), z = part_size(n, parts, p);
        if (s != next || z < n / parts || z > n / parts + 1)
            return 0;
        next = s + z;
    }
    if (next != n)
        return 0;
    for (long k = 0; k < n; k++) {
        const int p = part_of(n, parts, k);
        if (p < 0 || p >= parts || part_start(n, parts, p) > k || k >= part_start(n, parts, p + 1))
            return 0;
    }
    return 1;
}

static int panels_ok(long n, int prow, int pcol, long width, long *count)
{
    long k0 = 0;
    *count = 0;
    while (k0 < n) {
        const long k1 = panel_end(n, prow, pcol, width, k0);
        if (k1 <= k0 || k1 > n || k1 - k0 > width)
            return 0;
        /* one owner: the panel's first and last index in the same part, both ways */
        if (part_of(n, pcol, k0) != part_of(n, pcol, k1 - 1) || part_of(n, prow, k0) != part_of(n, prow, k1 - 1))
            return 0;
        ++*count;
        k0 = k1;
    }
    /* no more panels than the width alone and the parts' edges make */
    return *count <= (n + width - 1) / width + prow + pcol;
}

int main(void)
{
    long bad_parts = 0, cases = 0;
    for (long n = 1; n <= 300; n++)
        for (int parts = 1; parts <= 16; parts++, cases++)
            bad_parts += !parts_ok(n, parts);
    ok(bad_parts == 0, "parts of n = 1 .. 300 in 1 .. 16: cover n once, sizes within one, part_of right (%ld cases, %ld wrong)",
       cases, bad_parts);
    const long big[] = {4097, 16384, 20736, 32768, 65536};
    int big_ok = 1;
    for (int i = 0; i < 5; i++)
        for (int parts = 1; parts <= 16; parts++)
            big_ok &= parts_ok(big[i], parts);
    ok(big_ok, "the same at the sizes measured (4097 ... 65536)");

    long bad_panels = 0, panel_cases = 0, count;
    for (long n = 1; n <= 300; n++)
        for (int prow = 1; prow <= 8; prow++)
            for (int pcol = 1; pcol <= 8; pcol++) {
                const long widths[] = {1, 2, 3, 7, 64, 77, n, n + 5};
                for (int w = 0; w < 8; w++, panel_cases++)
                    bad_panels += !panels_ok(n, prow, pcol, widths[w], &count);
            }
    ok(bad_panels == 0, "SUMMA's panels tile n = 1 .. 300 on every grid up to 8 x 8, one owner each (%ld cases, %ld wrong)",
       panel_cases, bad_panels);
    int fine = panels_ok(32768, 1, 2, 8192, &count);
    ok(fine && count == 4, "n = 32768 on 1 x 2, panel 8192: 4 panels (%ld)", count);
    fine = panels_ok(20736, 1, 2, 8192, &count);
    ok(fine && count == 4 && panel_end(20736, 1, 2, 8192, 8192) == 10368,
       "n = 20736 on 1 x 2, panel 8192: blocks of 10368 cut into 8192 + 2176, 4 panels (%ld)", count);
    fine = panels_ok(1, 2, 4, 8192, &count);
    ok(fine && count == 1 && part_of(1, 4, 0) == 3, "n = 1 on 2 x 4: one panel, owned by the only non-empty part (%d)",
       part_of(1, 4, 0));
    return done_testing();
}
