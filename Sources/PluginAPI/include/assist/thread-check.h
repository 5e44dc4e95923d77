/*
 * assist/thread-check.h - the assist.thread-check/1 service. Include assist_plugin.h, not this.
 */
#ifndef ASSIST_THREAD_CHECK_H
#define ASSIST_THREAD_CHECK_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Only some pointers carry ASSIST_NULLABLE; the rest are documented in comments. */
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wnullability-completeness"
#endif

/* ----- assist.thread-check/1 --------------------------------------------------------------------------- */

#define ASSIST_THREAD_CHECK_SERVICE "assist.thread-check/1"

typedef struct assist_thread_check_service {
    uint32_t struct_size;
    bool (*is_main)(const assist_host *h);  /* [any] */
    bool (*is_frame)(const assist_host *h); /* [any] */
    void *reserved[4];
} assist_thread_check_service;

#if defined(__clang__)
#pragma clang diagnostic pop
#endif

#ifdef __cplusplus
}
#endif

#endif /* ASSIST_THREAD_CHECK_H */
