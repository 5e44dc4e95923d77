/*
 * assist/session.h - the assist.session/1 service. Include assist_plugin.h, not this.
 */
#ifndef ASSIST_SESSION_H
#define ASSIST_SESSION_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Only some pointers carry ASSIST_NULLABLE; the rest are documented in comments. */
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wnullability-completeness"
#endif

/* ----- assist.session/1: the feature's place in the host ----------------------------------------------- */

#define ASSIST_SESSION_SERVICE "assist.session/1"

typedef struct assist_session_service {
    uint32_t struct_size;
    /** A foreground feature says it is done (a still image has been read). The host stops it after the
        current call returns; `assist run` exits with 0 for ASSIST_OK, 1 otherwise. [main] */
    void (*finish)(const assist_host *h, assist_status status);
    /** The user's language code ("en", "ru", "zh"). Valid until destroy. [any] */
    const char *(*language)(const assist_host *h);
    /** The plugin's writable data directory (created, mode 0700). Valid until destroy. [any] */
    const char *(*data_dir)(const assist_host *h);
    /** A directory the host may purge. Valid until destroy. [any] */
    const char *(*cache_dir)(const assist_host *h);
    /** The plugin's read-only data: the share/ folder beside its manifest, else share/assist/<short id>/. Valid until destroy. [any] */
    const char *(*share_dir)(const assist_host *h);
    void *reserved[8];
} assist_session_service;

#if defined(__clang__)
#pragma clang diagnostic pop
#endif

#ifdef __cplusplus
}
#endif

#endif /* ASSIST_SESSION_H */
