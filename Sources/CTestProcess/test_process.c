#include "assist_test_process.h"

#include <signal.h>
#include <stddef.h>

static int ignored;

__attribute__((constructor)) static void assist_test_process_start(void) {
    ignored = signal(SIGPIPE, SIG_IGN) != SIG_ERR;
}

int assist_test_process_ignores_sigpipe(void) {
    struct sigaction now;
    return ignored && sigaction(SIGPIPE, NULL, &now) == 0 && now.sa_handler == SIG_IGN;
}
