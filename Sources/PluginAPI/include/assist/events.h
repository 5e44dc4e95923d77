/*
 * assist/events.h - the assist.events/1 service. Include assist_plugin.h, not this.
 */
#ifndef ASSIST_EVENTS_H
#define ASSIST_EVENTS_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Only some pointers carry ASSIST_NULLABLE; the rest are documented in comments. */
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wnullability-completeness"
#endif

/* ----- assist.events/1 --------------------------------------------------------------------------------- */

#define ASSIST_EVENTS_SERVICE "assist.events/1"

/** An event; `name` and `json` are borrowed for the call. [main] */
typedef void (*assist_event_cb)(void *ASSIST_NULLABLE user, const char *name, const char *json);

typedef struct assist_events_service {
    uint32_t struct_size;
    /** Publishes `name` with a JSON payload ("{}" when NULL). Subscribers get it on [main]. [any] */
    assist_status (*publish)(const assist_host *h, const char *name, const char *ASSIST_NULLABLE json);
    /** Subscribes to every event whose name starts with `prefix` ("" for all). `user` must live until
        unsubscribe, or until the plugin stops (the host ends its subscriptions then). [main] */
    assist_status (*subscribe)(const assist_host *h, const char *prefix, assist_event_cb cb,
                               void *ASSIST_NULLABLE user, uint64_t *ASSIST_NULLABLE subscription);
    /** Ends a subscription. [main] */
    assist_status (*unsubscribe)(const assist_host *h, uint64_t subscription);
    void *reserved[8];
} assist_events_service;

#if defined(__clang__)
#pragma clang diagnostic pop
#endif

#ifdef __cplusplus
}
#endif

#endif /* ASSIST_EVENTS_H */
