#include "variants.h"

#ifdef HAVE_OPENBLAS
#include <cblas.h>

int have_openblas(void)
{
    return 1;
}

void gemm_openblas(const float *a, const float *b, float *c, int n, int threads)
{
    openblas_set_num_threads(threads);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
}

const char *openblas_config_string(void)
{
    return openblas_get_config();
}
#else
#include <stdlib.h>

/* Built without OpenBLAS: every other variant still works. */
int have_openblas(void)
{
    return 0;
}

void gemm_openblas(const float *a, const float *b, float *c, int n, int threads)
{
    (void)a, (void)b, (void)c, (void)n, (void)threads;
    abort(); /* main never calls it when have_openblas() is 0 */
}

const char *openblas_config_string(void)
{
#ifdef OPENBLAS_SWITCHED_OFF
    return "none (built with OPENBLAS=0)";
#else
    return "none (install libopenblas-dev and rebuild)";
#endif
}
#endif
