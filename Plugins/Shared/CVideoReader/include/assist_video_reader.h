/* assist_video_reader.h - the functions libAssistVideoReader.so exports (types in assist_detector_api.h).
 * Plugins do not link this library: ObjectDetection opens it the first time a video is read. */
#ifndef ASSIST_VIDEO_READER_H
#define ASSIST_VIDEO_READER_H

#include "assist_detector_api.h"

#ifdef __cplusplus
extern "C" {
#endif

assist_vid *assist_vid_open(const char *path, double *fps, char **err);
const uint8_t *assist_vid_next(assist_vid *video, int *width, int *height, size_t *stride, double *seconds);
void assist_vid_close(assist_vid *video);

#ifdef __cplusplus
}
#endif

#endif
