/*
 * assist/clock.h - the assist.clock/1 service. Include assist_plugin.h, not this.
 */
#ifndef ASSIST_CLOCK_H
#define ASSIST_CLOCK_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Only some pointers carry ASSIST_NULLABLE; the rest are documented in comments. */
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wnullability-completeness"
#endif

/* ----- assist.clock/1 ---------------------------------------------------------------------------------- */

#define ASSIST_CLOCK_SERVICE "assist.clock/1"

/** A timer fired. [main] */
typedef void (*assist_timer_cb)(void *ASSIST_NULLABLE user, uint64_t timer);

typedef struct assist_clock_service {
    uint32_t struct_size;
    uint64_t (*now_ns)(const assist_host *h);  /* CLOCK_MONOTONIC. [any] */
    int64_t (*wall_ms)(const assist_host *h);  /* Unix time in milliseconds. [any] */
    /** Calls `cb` on [main] after `ms`, and every `ms` after that when `repeat`. `user` must live until the
        one-shot timer has fired, or until timer_cancel or stop for a repeating one. [main] */
    assist_status (*timer_add)(const assist_host *h, uint32_t ms, bool repeat, assist_timer_cb cb,
                               void *ASSIST_NULLABLE user, uint64_t *ASSIST_NULLABLE timer);
    /** Cancels a timer; its callback will not run again. [main] */
    assist_status (*timer_cancel)(const assist_host *h, uint64_t timer);
    void *reserved[8];
} assist_clock_service;

#if defined(__clang__)
#pragma clang diagnostic pop
#endif

#ifdef __cplusplus
}
#endif

#endif /* ASSIST_CLOCK_H */
