/* toml++'s assertion failures, while assist_toml_survives reads, jump back to it (assist_toml_guard.h). */
#define _GNU_SOURCE
#include "assist_toml_guard.h"

#include <CTOML/CTOML.h>
#include <dlfcn.h>
#include <setjmp.h>
#include <stdlib.h>

/* The read going on in this thread, if any. */
static _Thread_local jmp_buf *reading;

/* glibc's assert() calls this. Inside a guarded read it returns to the read; anywhere else it is glibc's own. */
__attribute__((noreturn)) void __assert_fail(const char *assertion, const char *file, unsigned int line,
                                             const char *function) {
    if (reading != NULL) longjmp(*reading, 1);
    void (*glibc)(const char *, const char *, unsigned int, const char *) =
        (void (*)(const char *, const char *, unsigned int, const char *))dlsym(RTLD_NEXT, "__assert_fail");
    if (glibc != NULL) glibc(assertion, file, line, function);
    abort();
}

int assist_toml_survives(const char *text) {
    jmp_buf here;
    if (setjmp(here) != 0) {
        reading = NULL;
        return 1;
    }
    reading = &here;
    CTOMLParseError error;
    (void)tableCreateFromString(text, &error); /* the table, or the error's text, is left to leak as TOMLKit's */
    reading = NULL;
    return 0;
}
