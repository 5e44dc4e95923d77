/*
 * assist_espeak.h - espeak-ng, opened on first use instead of linked (docs/architecture.md, "Start-up").
 *
 * espeak-ng brings 34 shared libraries (PulseAudio, X11, ...) that a command which never speaks does not
 * need: `assist --version`, `plugins list`, `run --no-speech`. Each function below has the signature of its
 * espeak-ng namesake; the library is opened with dlopen the first time one is called. When it cannot be
 * opened, assist_espeak_Initialize returns EE_INTERNAL_ERROR and the others EE_INTERNAL_ERROR or nothing;
 * assist_espeak_load_error says why.
 */
#ifndef ASSIST_ESPEAK_H
#define ASSIST_ESPEAK_H

#include <espeak-ng/speak_lib.h>

int assist_espeak_Initialize(espeak_AUDIO_OUTPUT output, int buflength, const char *path, int options);
void assist_espeak_SetSynthCallback(t_espeak_callback *callback);
espeak_ERROR assist_espeak_SetVoiceByName(const char *name);
espeak_ERROR assist_espeak_SetParameter(espeak_PARAMETER parameter, int value, int relative);
espeak_ERROR assist_espeak_Synth(const void *text, size_t size, unsigned int position,
                                 espeak_POSITION_TYPE position_type, unsigned int end_position, unsigned int flags,
                                 unsigned int *unique_identifier, void *user_data);
espeak_ERROR assist_espeak_Synchronize(void);

/**
 * 1 when espeak-ng has a voice called `name` (its name, identifier or a language it speaks, ignoring case and
 * a "+variant"), 0 when not, -1 when that cannot be told (no library, or one without espeak_ListVoices).
 * espeak_SetVoiceByName cannot tell: it falls back to a near voice for any name. Call after Initialize.
 */
int assist_espeak_has_voice(const char *name);

/** NULL while espeak-ng is loaded or not yet tried; otherwise dlerror's reason. */
const char *assist_espeak_load_error(void);

#endif
