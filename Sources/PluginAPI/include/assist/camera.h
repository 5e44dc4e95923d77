/*
 * assist/camera.h - the assist.camera/1 service. Include assist_plugin.h, not this.
 */
#ifndef ASSIST_CAMERA_H
#define ASSIST_CAMERA_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Only some pointers carry ASSIST_NULLABLE; the rest are documented in comments. */
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wnullability-completeness"
#endif

/* ----- assist.camera/1 --------------------------------------------------------------------------------- */

#define ASSIST_CAMERA_SERVICE "assist.camera/1"

/** Flags for assist_camera_request.flags. */
#define ASSIST_CAMERA_SQUARE 1u /* crop the centred square first (then zoom) */

/** What frames a plugin wants: zero it, set struct_size, then what you need. */
typedef struct assist_camera_request {
    uint32_t struct_size;
    uint32_t fourcc;     /* ASSIST_FOURCC_BGR24 (also when 0), RGB24, GRAY8 or YUYV */
    uint32_t max_width;  /* larger frames are scaled down keeping their shape; 0 = no limit */
    uint32_t max_height; /* 0 = no limit */
    double max_fps;      /* at most this many frames a second; 0 = every frame */
    double zoom;         /* digital zoom, a centred crop: 1 (also when 0), 1.25, 1.8, 3, 5 ... up to 8 */
    uint32_t flags;      /* ASSIST_CAMERA_* flags */
    uint32_t reserved0;
    void *reserved[4];
} assist_camera_request;

/** Delivery counters for this plugin's subscription. */
typedef struct assist_camera_stats {
    uint32_t struct_size;
    uint32_t reserved0;
    uint64_t delivered; /* frames given to on_frame */
    uint64_t dropped;   /* frames replaced while on_frame was busy (the newest frame always wins) */
    uint64_t skipped;   /* frames left out to respect max_fps */
    uint64_t converted; /* deliveries that needed conversion or scaling (the rest were zero-copy) */
    uint64_t reserved[4];
} assist_camera_stats;

typedef struct assist_camera_service {
    uint32_t struct_size;
    /** Starts frames for this plugin at on_frame [frame], converted as asked. Calling it again changes the
        request (a zoom change) from the next frame on. The camera opens with the first subscriber and closes
        with the last. ASSIST_E_IO with `*err` when it cannot open (missing, busy, unsupported). [main] */
    assist_status (*subscribe)(const assist_host *h, const assist_camera_request *request,
                               char *ASSIST_NULLABLE *err);
    /** Stops frames; waits for an on_frame in progress, so never call it while on_frame waits for [main].
        When it returns, on_frame is not called again. [main] */
    assist_status (*unsubscribe)(const assist_host *h);
    /** Keeps `frame` beyond on_frame: returns a copy of the header whose planes stay valid until release().
        NULL when 4 frames are already held. Holding one over 2 s is logged as misbehaving. [frame] */
    const assist_frame *ASSIST_NULLABLE (*retain)(const assist_host *h, const assist_frame *frame);
    /** Gives back a frame from retain(). [any] */
    void (*release)(const assist_host *h, const assist_frame *retained);
    /** Reads a device control, "focus", "exposure" or "zoom", with its range. ASSIST_E_UNSUPPORTED when the
        camera is closed or has no such control. [any] */
    assist_status (*control)(const assist_host *h, const char *name, int64_t *value, int64_t *minimum,
                             int64_t *maximum);
    /** This plugin's delivery counters. Set `out->struct_size` to `sizeof *out` first: the host fills as much
        as that holds and sets it to the bytes written; ASSIST_E_INVALID when it is below 1.0's size. [any] */
    assist_status (*stats)(const assist_host *h, assist_camera_stats *out);
    void *reserved[8];
} assist_camera_service;

#if defined(__clang__)
#pragma clang diagnostic pop
#endif

#ifdef __cplusplus
}
#endif

#endif /* ASSIST_CAMERA_H */
