/*
 * H.264 in fragmented MP4 from BGR24 frames, with FFmpeg's libavcodec (libx264) and libavformat opened on first
 * use: collect-videos' clips. A fragment starts at every keyframe (at least one a second), so a process killed
 * mid-recording leaves a file that plays up to its last fragment. Plain C; the caller owns every buffer.
 * Debian's libavcodec is built with libx264 under the GPL.
 */
#ifndef ASSIST_VIDEO_ENCODER_H
#define ASSIST_VIDEO_ENCODER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct assist_video_writer assist_video_writer;

/** Creates `path` for `width`×`height` frames (even numbers) encoded by libx264 with `preset` ("veryfast"),
    no audio. NULL with a short reason in `error` (may be NULL) when FFmpeg, libx264 or the file is not
    available. */
assist_video_writer *assist_video_open(const char *path, int width, int height, const char *preset, char *error,
                                       size_t error_size);

/** Encodes one BGR24 frame of the opened size (`stride` bytes a row) shown at `timestamp_us` (microseconds,
    increasing; the first frame is time 0). Returns 0, or a negative number when writing failed (a full disk):
    the file keeps what was written before. */
int assist_video_add(assist_video_writer *writer, const uint8_t *bgr, size_t stride, int64_t timestamp_us);

/** Flushes the encoder, finishes the file and frees the writer. Returns 0, or negative when the end could not
    be written (the fragments before it still play). */
int assist_video_close(assist_video_writer *writer);

#ifdef __cplusplus
}
#endif

#endif
