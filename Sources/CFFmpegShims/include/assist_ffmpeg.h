/* assist_ffmpeg.h - image and video decoding and pixel conversion through FFmpeg's libraries, for the host's
 * camera service. FFmpeg's error codes and many helpers are macros Swift cannot import, so the steps live
 * here. Each handle is used by one thread at a time.
 */
#ifndef ASSIST_FFMPEG_H
#define ASSIST_FFMPEG_H

#include <stddef.h>
#include <stdint.h>

/** Pixel formats, as V4L2/ABI fourcc codes. */
#define ASSIST_PIX_BGR24 0x33524742u /* 'BGR3' */
#define ASSIST_PIX_RGB24 0x33424752u /* 'RGB3' */
#define ASSIST_PIX_GRAY8 0x59455247u /* 'GREY' */
#define ASSIST_PIX_YUYV 0x56595559u  /* 'YUYV' */

typedef struct assist_media assist_media;

/** Opens an image (PNG, JPEG, ...) or a video (MP4, AVI, MKV, ...) and its first video stream. Returns 0, or
    a negative code with a short reason. */
int assist_media_open(const char *path, assist_media **out, char *reason, size_t reason_size);

/** The picture size and the stream's frame rate (0 when unknown, as for a still image). */
void assist_media_info(const assist_media *media, int *width, int *height, double *fps);

/** Decodes the next picture into `bgr` (BGR24, `stride` bytes per row, width x height). Returns 1 with the
    picture's time in seconds, 0 at the end, or a negative code with a reason. */
int assist_media_next(assist_media *media, uint8_t *bgr, int stride, double *seconds, char *reason,
                      size_t reason_size);

void assist_media_close(assist_media *media);

typedef struct assist_scaler assist_scaler;

/** A converter from one size and format to another (area averaging when shrinking). NULL when a format is
    not one of ASSIST_PIX_*. */
assist_scaler *assist_scaler_create(int source_width, int source_height, uint32_t source_format, int target_width,
                                    int target_height, uint32_t target_format);

/** Converts one picture. */
void assist_scaler_run(assist_scaler *scaler, const uint8_t *source, int source_stride, uint8_t *target,
                       int target_stride);

void assist_scaler_free(assist_scaler *scaler);

#endif
