/* assist_detector.h - YOLO (Darknet format) object detection through OpenCV's DNN module, with a C API.
 *
 * A static library that each detecting plugin links (find-object now, photo-sensor later), rather than a
 * host service: the host stays free of OpenCV, whose 100+ MB are paid only by a process that loads a
 * detecting plugin, and no ABI is frozen before its second user exists. A handle is used by one thread at a
 * time; two handles may run in parallel.
 */
#ifndef ASSIST_DETECTOR_H
#define ASSIST_DETECTOR_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct assist_det assist_det;

/** One detection, normalised to the picture (0...1, origin top left). */
typedef struct assist_det_box {
    float x, y, w, h;
    float score;
    int32_t class_id;
} assist_det_box;

/** Loads `cfg` and `weights` for square `input_size` inputs and `threads` threads, and warms the network up
    with one grey frame. NULL with a malloc'ed reason in `*err` (free it) on failure. */
assist_det *assist_det_open(const char *cfg, const char *weights, int input_size, int threads, char **err);

/** Detects in a BGR24 picture (`stride` bytes per row): boxes scoring at least `confidence`, after
    non-maximum suppression at IoU `nms` per class. When `only_class` >= 0 only that class is kept. Writes at
    most `max` boxes, best first, and returns how many were found (which may exceed `max`), or -1 on failure.
    `*ms` gets the inference time. */
int assist_det_run(assist_det *det, const uint8_t *bgr, int width, int height, size_t stride, float confidence,
                   float nms, int only_class, assist_det_box *out, int max, double *ms);

void assist_det_close(assist_det *det);

#ifdef __cplusplus
}
#endif

#endif
