/* assist_echo.h - the acoustic echo canceller voice listens through while Assist speaks (docs/voice.md,
   "Barge-in"): speexdsp's multidelay canceller and its preprocessor's residual echo suppression, and speexdsp's
   resampler for the played sound. libspeexdsp is opened on first use, like pocketsphinx: only a command that
   listens loads it. Each handle is used by one thread. */
#ifndef ASSIST_ECHO_H
#define ASSIST_ECHO_H

#include <stddef.h>
#include <stdint.h>

typedef struct assist_echo assist_echo;
typedef struct assist_resampler assist_resampler;

/** A canceller for `rate` Hz mono in frames of `frame` samples with an echo tail of `filter` samples; NULL
    with a reason in `error` when libspeexdsp cannot be opened. Denoising and gain control are off: they
    change the person's voice, which the recogniser then hears worse. */
assist_echo *assist_echo_open(int rate, int frame, int filter, char *error, size_t error_size);

/** Removes the echo of `reference` (what the speakers played, aligned with the microphone) from `mic`
    into `out`; `count` is a multiple of the frame. `out` may be `mic`. */
void assist_echo_run(assist_echo *echo, const int16_t *mic, const int16_t *reference, int16_t *out, int count);

/** The canceller's filter as it stands, speexdsp's impulse response in its own units: returns how many taps it
    has, and copies them to `out` when `capacity` holds them all (otherwise nothing is copied). */
int assist_echo_path(assist_echo *echo, int32_t *out, int capacity);
/** Teaches a new canceller the filter another one learnt (`assist_echo_path`, the same frame and tail): two
    seconds of sparse noise are played through that filter to it, so that it starts where the other left off.
    Returns 0, or -1 when the number of taps is not this canceller's. */
int assist_echo_learn_path(assist_echo *echo, const int32_t *path, int taps);
/** Forgets the room (the next sound starts learning it again). */
void assist_echo_reset(assist_echo *echo);

void assist_echo_close(assist_echo *echo);

/** A resampler from `from` Hz to `to` Hz mono at speexdsp's desktop quality; NULL when the library is missing. */
assist_resampler *assist_resampler_open(int from, int to);

/** Converts `count` samples into `out` (room for `capacity`); returns how many were written. */
int assist_resampler_run(assist_resampler *resampler, const int16_t *in, int count, int16_t *out, int capacity);

/** Starts a new stretch of sound (after a gap). */
void assist_resampler_reset(assist_resampler *resampler);

void assist_resampler_close(assist_resampler *resampler);

#endif
