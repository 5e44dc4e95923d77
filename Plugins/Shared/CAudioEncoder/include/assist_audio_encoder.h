/*
 * AAC in an MPEG-4 (.m4a) file from 16-bit PCM, with FFmpeg's own `aac` encoder: the survey's optional take
 * format. Plain C; the Swift side owns every buffer.
 */
#ifndef ASSIST_AUDIO_ENCODER_H
#define ASSIST_AUDIO_ENCODER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Writes `frames` frames of interleaved 16-bit PCM (`channels` 1 or 2, at `rate_hz`) to `path` as AAC in
    .m4a at `bitrate` bits per second. Returns 0, or -1 when the encoder or muxer is missing, -2 for bad
    arguments, -3 when writing failed (the partial file is removed). `error` (may be NULL) gets a short reason
    in `error_size` bytes. */
int assist_encode_m4a(const int16_t *samples, size_t frames, int channels, int rate_hz, int bitrate,
                      const char *path, char *error, size_t error_size);

#ifdef __cplusplus
}
#endif

#endif
