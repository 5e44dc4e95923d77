/* assist_alsa.h - the few ALSA helpers Swift cannot write itself (variadic error handler). */
#ifndef ASSIST_ALSA_H
#define ASSIST_ALSA_H

#include <alsa/asoundlib.h>

/** Replaces ALSA's default error printer (which writes to stderr) with one that discards messages, so
    a missing sound card is reported once by the host, in plain words, instead of as ALSA's lines. */
void assist_alsa_quiet_errors(void);

#endif
