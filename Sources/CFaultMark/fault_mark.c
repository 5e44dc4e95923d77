#define _GNU_SOURCE
#include "assist_fault_mark.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

/* Two buffers for the path: an install writes the one the handler is not reading, then publishes it with an
   atomic store, so a fault during a later install (a kiosk's next sitting) never reads a half-written path.
   Installs are serialised by `installing`; the handler takes no lock (it only loads). */
static char mark_paths[2][4096];
static int published = -1; /* which of mark_paths is in force; -1 before the first install */
static pid_t marking_pid;
static struct sigaction previous[65];
static pthread_mutex_t installing = PTHREAD_MUTEX_INITIALIZER;
static const int faults[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP};

/* Only async-signal-safe calls: getpid, open, write, close, sigaction, signal, raise. */
static void on_fault(int number, siginfo_t *info, void *context) {
    int which = __atomic_load_n(&published, __ATOMIC_ACQUIRE);
    if (which >= 0 && getpid() == __atomic_load_n(&marking_pid, __ATOMIC_RELAXED)) {
        int fd = open(mark_paths[which], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (fd >= 0) {
            char text[3] = {(char)('0' + number / 10 % 10), (char)('0' + number % 10), '\n'};
            if (write(fd, text, sizeof text) < 0) { /* nothing more can be done here */
            }
            close(fd);
        }
    }
    /* The handler installed before takes it over as if this one had never been there: put back, and the
       signal raised again, which arrives once this handler returns, with the context of the fault (so Swift's
       backtracer, which must run as the kernel called it, still sees the crash where it happened). */
    if (number > 0 && number < 65) sigaction(number, &previous[number], NULL);
    else signal(number, SIG_DFL);
    raise(number);
}

bool assist_fault_mark_install(const char *path) {
    if (path == NULL || strlen(path) >= sizeof mark_paths[0]) return false;
    pthread_mutex_lock(&installing);
    int next = __atomic_load_n(&published, __ATOMIC_RELAXED) == 0 ? 1 : 0;
    memcpy(mark_paths[next], path, strlen(path) + 1);
    __atomic_store_n(&marking_pid, getpid(), __ATOMIC_RELAXED);
    __atomic_store_n(&published, next, __ATOMIC_RELEASE);
    for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++) {
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_sigaction = on_fault;
        sigemptyset(&action.sa_mask);
        action.sa_flags = SA_SIGINFO | SA_ONSTACK;
        struct sigaction before;
        if (sigaction(faults[i], &action, &before) == 0 && before.sa_sigaction != on_fault)
            previous[faults[i]] = before;
    }
    pthread_mutex_unlock(&installing);
    return true;
}
