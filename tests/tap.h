/* Just enough of the Test Anything Protocol for C unit tests run by prove. */
#ifndef TAP_H
#define TAP_H
#include <stdio.h>

static int tap_count, tap_failed;

#define ok(cond, ...) tap_ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)
static void tap_ok(int pass, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#include <stdarg.h>
static void tap_ok(int pass, const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    printf("%s %d - ", pass ? "ok" : "not ok", ++tap_count);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    if (!pass) {
        tap_failed++;
        printf("#   failed at %s line %d\n", file, line);
    }
}

static int done_testing(void)
{
    printf("1..%d\n", tap_count);
    return tap_failed ? 1 : 0;
}
#endif
