/* How the chapter cuts n rows (or columns, or the sum's k) into parts and panels: plain C,
 * no CUDA, so that tests/multigpu_partition.c can check every cut on the CPU. */
#ifndef PARTITION_H
#define PARTITION_H

/* The first row (or column) of part p when n rows are split into parts nearly equal parts:
 * part p holds [part_start(p), part_start(p + 1)); sizes differ by one at most, and parts
 * are empty where n < parts. */
static inline long part_start(long n, int parts, int p)
{
    return n * p / parts;
}
static inline long part_size(long n, int parts, int p)
{
    return part_start(n, parts, p + 1) - part_start(n, parts, p);
}
/* The part that holds index k, 0 <= k < n: the last part whose start is <= k and which is
 * not empty. */
static inline int part_of(long n, int parts, long k)
{
    int p = parts - 1;
    while (p > 0 && (part_start(n, parts, p) > k || part_size(n, parts, p) == 0))
        p--;
    return p;
}
/* SUMMA's panels: k from 0 to n in steps of at most width, each inside one part of A's
 * columns (split among pcol) and of B's rows (split among prow), so that one grid column owns
 * its columns of A and one grid row its rows of B. The end of the panel that starts at k0. */
static inline long panel_end(long n, int prow, int pcol, long width, long k0)
{
    long k1 = k0 + width;
    const long a_end = part_start(n, pcol, part_of(n, pcol, k0) + 1);
    const long b_end = part_start(n, prow, part_of(n, prow, k0) + 1);
    if (k1 > a_end)
        k1 = a_end;
    if (k1 > b_end)
        k1 = b_end;
    return k1;
}

#endif
