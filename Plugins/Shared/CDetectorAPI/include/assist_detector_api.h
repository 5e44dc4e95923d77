/* assist_detector_api.h - what a plugin needs to use libAssistDetector.so, the YOLO (Darknet format) object
 * detector through OpenCV's DNN module: its types and the names and types of its functions
 * (the detector's three, the follower's four, and the embedder's and the picture measure's five that teach
 * find-object a person's own things), and libAssistVideoReader.so's three that read a video to teach from.
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

/** The embedder: MobileNetV2 without its classifier (ONNX, through OpenCV DNN), one unit vector of
    ASSIST_EMB_DIMENSION numbers per region of a picture; similar regions give vectors whose dot product is
    near 1. Used by one thread at a time. */
typedef struct assist_emb assist_emb;
#define ASSIST_EMB_DIMENSION 1280

/** `assist_emb_open`: loads `onnx` for square `input_size` inputs and `threads` threads and warms it up. NULL
    with a malloc'ed reason in `*err` (free it) on failure. */
typedef assist_emb *(*assist_emb_open_fn)(const char *onnx, int input_size, int threads, char **err);

/** `assist_emb_run`: embeds `count` normalised regions of a BGR24 picture in one batch, each stretched to the
    input size, into `out` (`count` * ASSIST_EMB_DIMENSION floats, each row of length 1). Returns `count`, or
    -1 on failure. */
typedef int (*assist_emb_run_fn)(assist_emb *emb, const uint8_t *bgr, int width, int height, size_t stride,
                                 const assist_det_box *regions, int count, float *out);

/** `assist_emb_coarse`: the network once over the whole BGR24 picture shrunk to `map_width` pixels wide (its
    map: a cell per 32x32 pixels), then each of `count` normalised regions as the average of the cells whose
    middles it holds, into `out` like `assist_emb_run`. Far cheaper than a crop each, and coarser: for choosing
    which regions to look at closely. Returns `count`, or -1 on failure. */
typedef int (*assist_emb_coarse_fn)(assist_emb *emb, const uint8_t *bgr, int width, int height, size_t stride,
                                    int map_width, const assist_det_box *regions, int count, float *out);

/** `assist_emb_close`. */
typedef void (*assist_emb_close_fn)(assist_emb *emb);

/** What teaching measures in a view: sharpness (the variance of the Laplacian of a grey copy at most 320
    pixels wide), brightness and contrast (mean and deviation of grey, 0...1), and the box around what changed
    since the previous view (w 0 when nothing or everything did; its score is the share that changed). */
typedef struct assist_pic_measures {
    float sharpness, brightness, contrast;
    assist_det_box moving;
} assist_pic_measures;

/** `assist_pic_measure`: measures a BGR24 picture; `previous` (the same size and stride) may be NULL. 0, or
    -1 on failure. */
typedef int (*assist_pic_measure_fn)(const uint8_t *bgr, const uint8_t *previous, int width, int height,
                                     size_t stride, assist_pic_measures *out);

/** A video file read picture by picture (OpenCV's FFmpeg reader), in libAssistVideoReader.so: OpenCV's videoio
    brings some two hundred libraries with it, loaded only when a video is read. */
typedef struct assist_vid assist_vid;

/** `assist_vid_open`: NULL with a malloc'ed reason in `*err` when `path` is not a readable video. `*fps` gets
    its frame rate (0 when unknown). */
typedef assist_vid *(*assist_vid_open_fn)(const char *path, double *fps, char **err);

/** `assist_vid_next`: the next picture (BGR24, valid until the next call), or NULL at the end or on a damaged
    picture; `*seconds` gets its time. */
typedef const uint8_t *(*assist_vid_next_fn)(assist_vid *video, int *width, int *height, size_t *stride,
                                              double *seconds);

/** `assist_vid_close`. */
typedef void (*assist_vid_close_fn)(assist_vid *video);

#define ASSIST_DETECTOR_LIBRARY "libAssistDetector.so"
#define ASSIST_VIDEO_READER_LIBRARY "libAssistVideoReader.so"

/** For callers that want a C helper: the functions of an opened library; 0 when one of the detector's three is
    missing. The follower's four, and the five that teach, are NULL in a library without them. The video
    reader's three are filled by `assist_vid_functions_from` from libAssistVideoReader.so. */
typedef struct assist_det_functions {
    assist_det_open_fn open;
    assist_det_run_fn run;
    assist_det_close_fn close;
    assist_trk_open_fn trk_open;
    assist_trk_start_fn trk_start;
    assist_trk_step_fn trk_step;
    assist_trk_close_fn trk_close;
    assist_emb_open_fn emb_open;
    assist_emb_run_fn emb_run;
    assist_emb_coarse_fn emb_coarse;
    assist_emb_close_fn emb_close;
    assist_pic_measure_fn pic_measure;
    assist_vid_open_fn vid_open;
    assist_vid_next_fn vid_next;
    assist_vid_close_fn vid_close;
} assist_det_functions;

int assist_det_functions_from(void *library, assist_det_functions *out);

/** Fills `vid_open`, `vid_next` and `vid_close` from an opened libAssistVideoReader.so; 0 (and all three NULL)
    when one is missing. */
int assist_vid_functions_from(void *library, assist_det_functions *out);

#ifdef __cplusplus
}
#endif

#endif
