/*
 * What a media file says about itself, from well-kept libraries opened on first use (dlopen): FFmpeg's
 * libavformat probes dimensions, rotation and duration of images, videos and sounds; libexif reads a JPEG's
 * EXIF orientation and original date; libheif reads HEIF and AVIF images, which FFmpeg 5.1 cannot. Plain C;
 * the caller owns the result.
 */
#ifndef ASSIST_MEDIA_INFO_H
#define ASSIST_MEDIA_INFO_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct assist_media_info {
    /** Stored size in pixels of the first video or image stream (before any rotation); 0 when unknown. */
    int32_t width;
    int32_t height;
    /** Display rotation of a video in degrees, 0, 90, 180 or 270 (from its display matrix or `rotate` tag). */
    int32_t rotation;
    /** Seconds, from the container; 0 when it gives none. */
    double duration;
    /** 1 when a real video stream was found (not a cover picture), 1 when an audio stream was found. */
    int32_t has_video;
    int32_t has_audio;
    /** EXIF orientation 1–8, 0 when there is none. */
    int32_t exif_orientation;
    /** EXIF DateTimeOriginal ("YYYY:MM:DD HH:MM:SS") and OffsetTimeOriginal ("+HH:MM"), empty when absent. */
    char exif_date[24];
    char exif_offset[12];
} assist_media_info;

enum {
    ASSIST_MEDIA_INFO_OK = 0,
    /** The library this file needs cannot be opened (the Debian package is missing). */
    ASSIST_MEDIA_INFO_UNAVAILABLE = -1,
    /** The file could not be read or understood. */
    ASSIST_MEDIA_INFO_UNREADABLE = -2,
};

/** Probes `path` with libavformat: size, rotation, duration and which streams it has. */
int assist_media_probe(const char *path, assist_media_info *info);

/** Reads a JPEG's size from its frame header with libjpeg, decoding nothing. */
int assist_media_jpeg_size(const char *path, assist_media_info *info);

/** Reads `path`'s EXIF block (JPEG) into `exif_orientation`, `exif_date` and `exif_offset`; fields it does not
    find are left as they are. */
int assist_media_exif(const char *path, assist_media_info *info);

/** Reads a HEIF or AVIF image's primary picture size (as stored, before its `irot` rotation is applied the
    way libheif applies it: the size libheif returns is already the displayed one) and its EXIF block. */
int assist_media_heif(const char *path, assist_media_info *info);

/** Parses an EXIF block (starting at "Exif\0\0" or at the TIFF header) from memory; for the fuzzer and HEIF. */
int assist_media_exif_block(const unsigned char *data, unsigned int size, assist_media_info *info);

/** Decodes the picture at `path` (`heif` 1: through libheif, else FFmpeg: JPEG, PNG, GIF, WebP, TIFF, BMP),
    scales it to fit `max_side` pixels with its aspect kept, and turns it upright for EXIF `orientation` (1–8,
    0 for none). On success `*out` is a malloc'ed BGR24 picture of `*width` × `*height` (free it). */
int assist_media_decode_bgr(const char *path, int heif, int max_side, int orientation, uint8_t **out, int *width,
                            int *height);

/** `pixels` (`components` 1: 8-bit grey; 3: BGR24; rows `stride` bytes apart) as a JPEG of `quality` (1-100),
    with libjpeg-turbo. On success `*out` is malloc'ed (free it), `*size` bytes. */
int assist_media_encode_jpeg(const uint8_t *pixels, int width, int height, int stride, int components, int quality,
                             unsigned char **out, unsigned long *size);

/** The picture at `path` as a JPEG of `quality` (1-100), decoded, scaled and turned upright as
    assist_media_decode_bgr does (libjpeg-turbo encodes it): a photo's thumbnail for the low-vision view. On
    success `*out` is malloc'ed (free it), `*size` bytes, `*width` x `*height`. */
int assist_media_thumbnail(const char *path, int heif, int max_side, int orientation, int quality,
                           unsigned char **out, unsigned long *size, int *width, int *height);

#ifdef __cplusplus
}
#endif

#endif
