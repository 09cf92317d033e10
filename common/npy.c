/* NumPy .npy files: save_npy writes the matrices of --save, load_npy and load_npy_pair
 * read those of --load; the _as forms do the same for either element type (float32 '<f4' or
 * float64 '<f8'), the plain forms are float32's. */
#define _POSIX_C_SOURCE 200809L /* strerror, ftell */
#include "args.h"
#include "matrix.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* NumPy's name of an element type, and what to write in NumPy to get it. */
static const char *npy_descr(enum element_type element)
{
    return element == ELEMENT_FP64 ? "'<f8'" : "'<f4'";
}

static const char *npy_astype(enum element_type element)
{
    return element == ELEMENT_FP64 ? "a.astype(np.float64)" : "a.astype(np.float32)";
}

int save_npy(const char *path, const float *m, int rows, int cols)
{
    return save_npy_as(path, m, rows, cols, ELEMENT_FP32);
}

int save_npy_as(const char *path, const void *m, int rows, int cols, enum element_type element)
{
    /* Format 1.0: magic, version, little-endian header length, then a Python dict
     * literal padded with spaces so the data starts on a 64-byte boundary. */
    char dict[128];
    int len = snprintf(dict, sizeof dict,
                       "{'descr': %s, 'fortran_order': False, 'shape': (%d, %d), }",
                       npy_descr(element), rows, cols);
    size_t preamble = 10; /* magic (6) + version (2) + header length (2) */
    size_t header = (size_t)len + 1;
    header += (64 - (preamble + header) % 64) % 64;

    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    unsigned char head[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0,
                              (unsigned char)(header & 0xff), (unsigned char)(header >> 8)};
    int ok = fwrite(head, 1, sizeof head, f) == sizeof head;
    ok = ok && fwrite(dict, 1, (size_t)len, f) == (size_t)len;
    for (size_t i = (size_t)len; ok && i + 1 < header; i++)
        ok = fputc(' ', f) != EOF;
    ok = ok && fputc('\n', f) != EOF;
    /* little-endian: the host byte order on every machine we build for. */
    ok = ok && fwrite(m, element_bytes(element), (size_t)rows * cols, f) == (size_t)rows * cols;
    ok = (fclose(f) == 0) && ok;
    return ok ? 0 : -1;
}

/* The value of key in the header's dict literal, e.g. "'<f4'" for 'descr', or NULL. */
static const char *npy_field(const char *dict, const char *key)
{
    const char *at = strstr(dict, key);
    if (!at)
        return NULL;
    at = strchr(at + strlen(key), ':');
    if (!at)
        return NULL;
    at++;
    while (*at == ' ')
        at++;
    return at;
}

/* One side of a shape at *at: spaces, a whole number (its text and len kept for messages),
 * spaces; checked as a size from 1 to INT_MAX into *side, what is wrong with it into *problem.
 * *at moves past it. 0 where there is no number. */
static int shape_side(const char **at, const char **text, int *len, long *side, enum number_problem *problem)
{
    while (**at == ' ')
        (*at)++;
    const int sign = **at == '-' || **at == '+';
    const int digits = (int)strspn(*at + sign, "0123456789");
    char number[32];
    *text = *at;
    *len = sign + digits;
    if (*len < (int)sizeof number) {
        snprintf(number, sizeof number, "%.*s", *len, *at);
        *problem = check_long(number, 1, INT_MAX, side);
    } else { /* more digits than a long holds */
        *problem = **at == '-' ? NUMBER_NOT_EXPECTED : NUMBER_TOO_LARGE;
    }
    *at += *len;
    while (**at == ' ')
        (*at)++;
    return digits > 0;
}

int load_npy(const char *path, float **m, int *rows, int *cols, char *err, size_t errlen)
{
    void *loaded;
    const int got = load_npy_as(path, &loaded, rows, cols, ELEMENT_FP32, err, errlen);
    *m = (float *)loaded;
    return got;
}

int load_npy_as(const char *path, void **m, int *rows, int *cols, enum element_type element, char *err,
                size_t errlen)
{
    *m = NULL;
    const size_t bytes = element_bytes(element);
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s", strerror(errno));
        return -1;
    }
    unsigned char head[12];
    size_t header_len = 0, preamble = 0;
    if (fread(head, 1, 10, f) != 10 || memcmp(head, "\x93NUMPY", 6) != 0) {
        snprintf(err, errlen, "not a .npy file (no \\x93NUMPY magic)");
        goto fail;
    }
    if (head[6] == 1) {
        header_len = head[8] | (size_t)head[9] << 8;
        preamble = 10;
    } else if (head[6] == 2 || head[6] == 3) {
        if (fread(head + 10, 1, 2, f) != 2) {
            snprintf(err, errlen, "truncated header");
            goto fail;
        }
        header_len = head[8] | (size_t)head[9] << 8 | (size_t)head[10] << 16 | (size_t)head[11] << 24;
        preamble = 12;
    } else {
        snprintf(err, errlen, "unknown .npy format version %d.%d", head[6], head[7]);
        goto fail;
    }
    if (header_len > 65536) {
        snprintf(err, errlen, "header of %zu bytes: not a matrix's", header_len);
        goto fail;
    }
    char dict[65537];
    if (fread(dict, 1, header_len, f) != header_len) {
        snprintf(err, errlen, "truncated header");
        goto fail;
    }
    dict[header_len] = '\0';
    const char *descr = npy_field(dict, "'descr'"), *order = npy_field(dict, "'fortran_order'"),
               *shape = npy_field(dict, "'shape'");
    if (!descr || !order || !shape) {
        snprintf(err, errlen, "header without descr, fortran_order and shape");
        goto fail;
    }
    if (strncmp(descr, npy_descr(element), 5) != 0) {
        int len = (int)strcspn(descr, ",}");
        snprintf(err, errlen, "dtype %.*s, expected %s %s (in NumPy: %s)", len, descr, element_name(element),
                 npy_descr(element), npy_astype(element));
        goto fail;
    }
    if (strncmp(order, "False", 5) != 0) {
        snprintf(err, errlen, "Fortran order, expected C order (in NumPy: np.ascontiguousarray(a))");
        goto fail;
    }
    /* (rows, cols): each side checked as a size, 1 to INT_MAX, with its text kept for the
     * message (a side too large for a long included). */
    const char *at = shape, *text[2];
    int len[2], two_d = *at++ == '(';
    long side[2] = {-1, -1};
    enum number_problem problem[2] = {NUMBER_NOT_EXPECTED, NUMBER_NOT_EXPECTED};
    for (int i = 0; i < 2 && two_d; i++)
        two_d = shape_side(&at, &text[i], &len[i], &side[i], &problem[i]) && *at++ == (i == 0 ? ',' : ')');
    if (!two_d) {
        int shape_len = (int)strcspn(shape, ")");
        snprintf(err, errlen, "shape %.*s), expected a 2-D matrix (rows, cols)", shape_len, shape);
        goto fail;
    }
    if (problem[0] == NUMBER_TOO_LARGE || problem[1] == NUMBER_TOO_LARGE) {
        snprintf(err, errlen, "shape (%.*s, %.*s) is too large: the largest accepted is %d rows by %d columns", len[0],
                 text[0], len[1], text[1], INT_MAX, INT_MAX);
        goto fail;
    }
    if (problem[0] != NUMBER_OK || problem[1] != NUMBER_OK) {
        snprintf(err, errlen, "shape (%.*s, %.*s): a matrix needs at least one row and one column", len[0], text[0],
                 len[1], text[1]);
        goto fail;
    }
    const long r = side[0], c = side[1];
    /* The data must be exactly rows x cols elements: no more, no less. */
    const double want = (double)r * c * bytes;
    if (fseek(f, 0, SEEK_END) != 0) {
        snprintf(err, errlen, "cannot seek: %s", strerror(errno));
        goto fail;
    }
    const long size = ftell(f);
    const double have = (double)size - (double)(preamble + header_len);
    if (have != want) {
        snprintf(err, errlen, "%s: shape (%ld, %ld) needs %.0f bytes of data, the file has %.0f",
                 have < want ? "truncated" : "bytes past the data", r, c, want, have);
        goto fail;
    }
    if (fseek(f, (long)(preamble + header_len), SEEK_SET) != 0 ||
        !(*m = malloc(bytes * (size_t)r * (size_t)c))) {
        snprintf(err, errlen, "cannot allocate %.1f GB", want / 1e9);
        goto fail;
    }
    /* little-endian ('<f4', '<f8'): the host byte order on every machine we build for. */
    if (fread(*m, bytes, (size_t)r * c, f) != (size_t)r * c) {
        snprintf(err, errlen, "read error: %s", strerror(errno));
        goto fail;
    }
    fclose(f);
    *rows = (int)r;
    *cols = (int)c;
    return 0;
fail:
    free(*m);
    *m = NULL;
    fclose(f);
    return -1;
}

int load_npy_pair(const char *dir, float **a, float **b, int *n, char *err, size_t errlen)
{
    void *a_loaded, *b_loaded;
    const int got = load_npy_pair_as(dir, &a_loaded, &b_loaded, n, ELEMENT_FP32, err, errlen);
    *a = (float *)a_loaded;
    *b = (float *)b_loaded;
    return got;
}

/* A path as a message shows it: whole up to 160 characters, else its first and last 70 with
 * " ... " between, so that the reason after it always fits in the message. */
static const char *shown_path(const char *path, char *out, size_t size)
{
    const size_t len = strlen(path);
    if (len <= 160)
        snprintf(out, size, "%s", path);
    else
        snprintf(out, size, "%.70s ... %s", path, path + len - 70);
    return out;
}

int load_npy_pair_as(const char *dir, void **a, void **b, int *n, enum element_type element, char *err,
                     size_t errlen)
{
    const char *names[2] = {"a.npy", "b.npy"};
    void **mats[2] = {a, b};
    int rows[2], cols[2];
    char shown[160];
    *a = *b = NULL;
    for (int i = 0; i < 2; i++) {
        char path[4096], why[512];
        const int len = snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (len >= (int)sizeof path) {
            snprintf(err, errlen, "cannot load '%s/%s': the path is %d characters, longer than a path may be (%zu)",
                     shown_path(dir, shown, sizeof shown), names[i], len, sizeof path - 1);
            goto fail;
        }
        if (load_npy_as(path, mats[i], &rows[i], &cols[i], element, why, sizeof why) != 0) {
            snprintf(err, errlen, "cannot load '%s': %s", shown_path(path, shown, sizeof shown), why);
            goto fail;
        }
        if (rows[i] != cols[i]) {
            snprintf(err, errlen, "cannot load '%s': it is %d x %d, the programs multiply square matrices",
                     shown_path(path, shown, sizeof shown), rows[i], cols[i]);
            goto fail;
        }
    }
    if (rows[0] != rows[1]) {
        snprintf(err, errlen, "cannot load '%s': a.npy is %d x %d but b.npy is %d x %d",
                 shown_path(dir, shown, sizeof shown), rows[0], rows[0], rows[1], rows[1]);
        goto fail;
    }
    *n = rows[0];
    return 0;
fail:
    free(*a);
    free(*b);
    *a = *b = NULL;
    return -1;
}
