/* assist_media_api.h - the table of picture and video functions the host's camera service takes from
 * libAssistMedia.so (FFmpeg behind it). The host opens that library with dlopen only when a camera is first
 * used, so commands that never touch the camera do not load FFmpeg's ninety-odd libraries.
 */
#ifndef ASSIST_MEDIA_API_H
#define ASSIST_MEDIA_API_H

#include <stddef.h>
#include <stdint.h>

/** Pixel formats, as V4L2/ABI fourcc codes. */
#define ASSIST_PIX_BGR24 0x33524742u /* 'BGR3' */
#define ASSIST_PIX_RGB24 0x33424752u /* 'RGB3' */
#define ASSIST_PIX_GRAY8 0x59455247u /* 'GREY' */
#define ASSIST_PIX_YUYV 0x56595559u  /* 'YUYV' */

typedef struct assist_media assist_media;
typedef struct assist_scaler assist_scaler;

/* 2: media_next and scaler_run take the target buffer's capacity and never write past it (1 let swscale
 * write up to a SIMD block past a tightly packed buffer). */
#define ASSIST_MEDIA_API_VERSION 2

typedef struct assist_media_api {
    /** ASSIST_MEDIA_API_VERSION of the library. */
    int version;
    /** Opens an image (PNG, JPEG, ...) or a video (MP4, AVI, MKV, ...) and its first video stream. Returns
        0, or a negative code with a short reason. */
    int (*media_open)(const char *path, assist_media **out, char *reason, size_t reason_size);
    /** The picture size and the stream's frame rate (0 when unknown, as for a still image). */
    void (*media_info)(const assist_media *media, int *width, int *height, double *fps);
    /** Decodes the next picture into `bgr` (BGR24, `stride` >= width * 3 bytes per row, `capacity` >=
        stride * (height - 1) + width * 3 bytes; nothing past the last pixel is written). Returns 1 with the
        picture's time in seconds, 0 at the end, or a negative code with a reason (a short buffer among them). */
    int (*media_next)(assist_media *media, uint8_t *bgr, int stride, size_t capacity, double *seconds, char *reason,
                      size_t reason_size);
    void (*media_close)(assist_media *media);
    /** A converter from one size and format to another (area averaging when shrinking). NULL when a format
        is not one of ASSIST_PIX_*. */
    assist_scaler *(*scaler_create)(int source_width, int source_height, uint32_t source_format, int target_width,
                                    int target_height, uint32_t target_format);
    /** Converts one picture; the source must be readable for `source_stride` * height bytes. The target
        follows media_next's rule; nothing past its last pixel is written. 0, or negative for a short target. */
    int (*scaler_run)(assist_scaler *scaler, const uint8_t *source, int source_stride, uint8_t *target,
                      int target_stride, size_t target_capacity);
    void (*scaler_free)(assist_scaler *scaler);
} assist_media_api;

/** The one symbol libAssistMedia.so exports for the host: its table. */
typedef const assist_media_api *(*assist_media_api_get_fn)(void);
#define ASSIST_MEDIA_API_SYMBOL "assist_media_api_get"

#endif
