/*
 * assist/audio-in.h - the assist.audio-in/1 service. Include assist_plugin.h, not this.
 */
#ifndef ASSIST_AUDIO_IN_H
#define ASSIST_AUDIO_IN_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Only some pointers carry ASSIST_NULLABLE; the rest are documented in comments. */
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wnullability-completeness"
#endif

/* ----- assist.audio-in/1 ------------------------------------------------------------------------------- */

#define ASSIST_AUDIO_IN_SERVICE "assist.audio-in/1"

/** An open recording stream; owned by the host, valid until close(). */
typedef struct assist_audio_stream assist_audio_stream;

typedef struct assist_audio_in_service {
    uint32_t struct_size;
    /** Opens the microphone (or the file given with --mic) as 16-bit interleaved PCM at `rate_hz` (16000 for
        recognition, 16000 or 44100 for recordings) with `channels` 1 or 2. ASSIST_E_BUSY when this plugin
        already has a stream; ASSIST_E_IO with `*err` when there is no microphone. [main] */
    assist_status (*open)(const assist_host *h, uint32_t rate_hz, uint32_t channels,
                          assist_audio_stream *ASSIST_NULLABLE *out, char *ASSIST_NULLABLE *err);
    /** Reads up to `frames` frames into `buf` (frames x channels samples), blocking until they arrive; `*got`
        is 0 at the end of a file. Never call it on [main]. [worker] */
    assist_status (*read)(const assist_host *h, assist_audio_stream *stream, int16_t *buf, uint32_t frames,
                          uint32_t *got);
    /** Closes the stream. Not while a read on it is in progress. [main] */
    void (*close)(const assist_host *h, assist_audio_stream *stream);
    void *reserved[8];
} assist_audio_in_service;

#if defined(__clang__)
#pragma clang diagnostic pop
#endif

#ifdef __cplusplus
}
#endif

#endif /* ASSIST_AUDIO_IN_H */
