/*
 * How the process's memory is kept (issue 37). glibc gives each thread that meets a busy allocator an arena of
 * its own, up to eight per core; memory freed in one is never reused by another. Assist runs a dozen threads
 * (camera, plugins' workers, speech, the microphone) on machines of two to four cores, where that many arenas
 * only leave holes: on a find-object search they held 7 MB beside the one that held the models. Two per core
 * keep most of that (one per core saved 2 MB more but cost the voice listener 2 % more CPU in lock waits).
 */
#ifndef ASSIST_PROCESS_MEMORY_H
#define ASSIST_PROCESS_MEMORY_H

/* Limits malloc's arenas to twice the online cores, unless MALLOC_ARENA_MAX or a GLIBC_TUNABLES arena_max was
   given, which glibc then follows. Call first thing, before any thread starts. Returns the limit
   set, or 0 when none was (an admin's own setting, or not glibc). */
int assist_limit_malloc_arenas(void);

#endif
