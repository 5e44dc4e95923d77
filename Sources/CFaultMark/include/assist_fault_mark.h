/*
 * The mark a fault leaves (issue 38): a crash of the host's own code, or of a plugin running in it, writes
 * one small file from the fatal signal's handler, so the next start can tell a real fault from a session
 * that only never ended cleanly (kill -9, a power cut), which is recovered and never blamed on a plugin.
 */
#ifndef ASSIST_FAULT_MARK_H
#define ASSIST_FAULT_MARK_H

#include <stdbool.h>

/* From now on SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT and SIGTRAP in this process (not in a child it
   forks) write the signal's number to `path` (0600), then go on to the handler installed before (the crash
   line on a terminal, Swift's backtracer, or the default action). False when the path is too long. */
bool assist_fault_mark_install(const char *path);

#endif
