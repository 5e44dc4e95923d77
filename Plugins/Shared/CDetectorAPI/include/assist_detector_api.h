/* assist_detector_api.h - what a plugin needs to use libAssistDetector.so, the YOLO (Darknet format) object
 * detector through OpenCV's DNN module: its types and the names and types of its functions
 * (the detector's three and the follower's four).
 *
 * The detector is a library of its own, opened with dlopen the first time a plugin makes a detector, so that
 * loading a plugin that can detect (find-object, or photo-sensor with recognition off) does not load OpenCV.
 * It is not a host service: the host stays free of OpenCV and no ABI is frozen for it (docs/detector.md).
 * A handle is used by one thread at a time; two handles may run in parallel.
 */
#ifndef ASSIST_DETECTOR_API_H
#define ASSIST_DETECTOR_API_H

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

/** `assist_det_open`: loads `cfg` and `weights` for square `input_size` inputs and `threads` threads, and warms
    the network up with one grey frame. NULL with a malloc'ed reason in `*err` (free it) on failure. */
typedef assist_det *(*assist_det_open_fn)(const char *cfg, const char *weights, int input_size, int threads,
                                          char **err);

/** `assist_det_run`: detects in a BGR24 picture (`stride` bytes per row): boxes scoring at least `confidence`,
    after non-maximum suppression at IoU `nms` per class. When `only_class` >= 0 only that class is kept.
    Writes at most `max` boxes, best first, and returns how many were found (which may exceed `max`), or -1 on
    failure. `*ms` gets the inference time. */
typedef int (*assist_det_run_fn)(assist_det *det, const uint8_t *bgr, int width, int height, size_t stride,
                                 float confidence, float nms, int only_class, assist_det_box *out, int max,
                                 double *ms);

/** `assist_det_close`. */
typedef void (*assist_det_close_fn)(assist_det *det);

/** A follower of one target between detections: corners inside its box followed from picture to picture by
    pyramidal Lucas-Kanade optical flow (checked forwards and backwards) on a grey copy at most 320 pixels
    wide; the box moves by the median of what the corners that agree did. Used by one thread at a time. */
typedef struct assist_trk assist_trk;

/** `assist_trk_open`: an idle follower, or NULL when out of memory. */
typedef assist_trk *(*assist_trk_open_fn)(void);

/** `assist_trk_start`: follows `box` (normalised, as a detection gives it) from this BGR24 picture on. Returns
    how many corners it follows; 0 when the box holds nothing to follow (flat, or too small). */
typedef int (*assist_trk_start_fn)(assist_trk *trk, const uint8_t *bgr, int width, int height, size_t stride,
                                   const assist_det_box *box);

/** `assist_trk_step`: follows the corners into the next picture (the same size) and writes where the box is
    now to `*box`. Returns how many corners still agree; 0 when the target is lost (then it is idle). */
typedef int (*assist_trk_step_fn)(assist_trk *trk, const uint8_t *bgr, int width, int height, size_t stride,
                                  assist_det_box *box);

/** `assist_trk_close`. */
typedef void (*assist_trk_close_fn)(assist_trk *trk);

#define ASSIST_DETECTOR_LIBRARY "libAssistDetector.so"

/** For callers that want a C helper: the functions of an opened library; 0 when one of the detector's three is
    missing. The follower's four are NULL in a library without them. */
typedef struct assist_det_functions {
    assist_det_open_fn open;
    assist_det_run_fn run;
    assist_det_close_fn close;
    assist_trk_open_fn trk_open;
    assist_trk_start_fn trk_start;
    assist_trk_step_fn trk_step;
    assist_trk_close_fn trk_close;
} assist_det_functions;

int assist_det_functions_from(void *library, assist_det_functions *out);

#ifdef __cplusplus
}
#endif

#endif
