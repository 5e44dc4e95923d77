#include "assist_alsa.h"

static void assist_alsa_discard(const char *file, int line, const char *function, int err, const char *fmt, ...) {
    (void)file;
    (void)line;
    (void)function;
    (void)err;
    (void)fmt;
}

void assist_alsa_quiet_errors(void) { snd_lib_error_set_handler(assist_alsa_discard); }
