/* assist_ffmpeg.h - image and video decoding and pixel conversion through FFmpeg's libraries, for the host's
 * camera service, built as libAssistMedia.so and reached only through the table `assist_media_api_get`
 * returns (assist_media_api.h). FFmpeg's error codes and many helpers are macros Swift cannot import, so the
 * steps live here. Each handle is used by one thread at a time.
 */
#ifndef ASSIST_FFMPEG_H
#define ASSIST_FFMPEG_H

#include "assist_media_api.h"

/** The table of this library's functions; the only symbol the host looks up. */
const assist_media_api *assist_media_api_get(void);

#endif
