/*
 * assist/log.h - the assist.log/1 service. Include assist_plugin.h, not this.
 */
#ifndef ASSIST_LOG_H
#define ASSIST_LOG_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Only some pointers carry ASSIST_NULLABLE; the rest are documented in comments. */
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wnullability-completeness"
#endif

/* ----- assist.log/1 ----------------------------------------------------------------------------------- */

#define ASSIST_LOG_SERVICE "assist.log/1"

typedef int32_t assist_log_level;
#define ASSIST_LOG_DEBUG 0
#define ASSIST_LOG_INFO 1
#define ASSIST_LOG_WARNING 2
#define ASSIST_LOG_ERROR 3
#define ASSIST_LOG_FATAL 4
/* The two contract levels. PLUGIN_MISBEHAVING is what the host writes when a plugin breaks the contract (a
   [main] call from another thread, a bad struct); a plugin may use it for its own broken invariant.
   HOST_MISBEHAVING is what a plugin writes when the host breaks it (a NULL it promised, a call out of order).
   The numbers are the other way round from CLAP's clap_log_severity; they are fixed for ABI 1. */
#define ASSIST_LOG_PLUGIN_MISBEHAVING 5
#define ASSIST_LOG_HOST_MISBEHAVING 6

typedef struct assist_log_service {
    uint32_t struct_size;
    /** Writes one log line tagged with the plugin id. Never spoken. [any] */
    void (*log)(const assist_host *h, assist_log_level level, const char *msg);
    void *reserved[4];
} assist_log_service;

#if defined(__clang__)
#pragma clang diagnostic pop
#endif

#ifdef __cplusplus
}
#endif

#endif /* ASSIST_LOG_H */
