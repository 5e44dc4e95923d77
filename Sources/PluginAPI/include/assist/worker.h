/*
 * assist/worker.h - the assist.worker/1 service. Include assist_plugin.h, not this.
 */
#ifndef ASSIST_WORKER_H
#define ASSIST_WORKER_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Only some pointers carry ASSIST_NULLABLE; the rest are documented in comments. */
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wnullability-completeness"
#endif

/* ----- assist.worker/1 --------------------------------------------------------------------------------- */

#define ASSIST_WORKER_SERVICE "assist.worker/1"

/** A task: on a pool thread [worker] for schedule, on [main] for post_main. */
typedef void (*assist_task_fn)(void *ASSIST_NULLABLE user);

typedef struct assist_worker_service {
    uint32_t struct_size;
    /** Runs `fn(user)` on a host pool thread: blocking work such as model loading. `user` must live until
        `fn` has run; a task not yet started when the plugin stops still runs. [any] */
    assist_status (*schedule)(const assist_host *h, assist_task_fn fn, void *ASSIST_NULLABLE user);
    /** Runs `fn(user)` on the main loop, after the current [main] call. `user` must live until `fn` has
        run. [any] */
    assist_status (*post_main)(const assist_host *h, assist_task_fn fn, void *ASSIST_NULLABLE user);
    void *reserved[8];
} assist_worker_service;

#if defined(__clang__)
#pragma clang diagnostic pop
#endif

#ifdef __cplusplus
}
#endif

#endif /* ASSIST_WORKER_H */
