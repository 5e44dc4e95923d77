#include "assist_process_memory.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

int assist_limit_malloc_arenas(void) {
#if defined(__GLIBC__)
    const char *tunables = getenv("GLIBC_TUNABLES");
    if (getenv("MALLOC_ARENA_MAX") != NULL || (tunables != NULL && strstr(tunables, "arena_max") != NULL)) return 0;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int limit = cores < 1 ? 2 : cores > 32 ? 64 : 2 * (int)cores;
    return mallopt(M_ARENA_MAX, limit) == 1 ? limit : 0;
#else
    return 0;
#endif
}
