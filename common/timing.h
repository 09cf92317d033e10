/* Host clocks and statistics. */
#ifndef TIMING_H
#define TIMING_H

#ifdef __cplusplus
extern "C" {
#endif

/* Monotonic wall clock in ms. The article used clock(), which counts CPU time of
 * this process: it misses time spent waiting for the GPU or the OS. */
double wall_ms(void);

/* Median of n values (sorts them in place). */
double median_of(double *values, int n);

#ifdef __cplusplus
}
#endif
#endif
