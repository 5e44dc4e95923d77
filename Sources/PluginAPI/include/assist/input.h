/*
 * assist/input.h - the assist.input/1 service. Include assist_plugin.h, not this.
 */
#ifndef ASSIST_INPUT_H
#define ASSIST_INPUT_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Only some pointers carry ASSIST_NULLABLE; the rest are documented in comments. */
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wnullability-completeness"
#endif

/* ----- assist.input/1: commands by key, typed word or (later) voice --------------------------------------- */

#define ASSIST_INPUT_SERVICE "assist.input/1"

typedef int32_t assist_scope;
#define ASSIST_SCOPE_FOCUSED 0 /* only while this feature has the focus */
#define ASSIST_SCOPE_GLOBAL 1  /* from anywhere in the host (launch keywords) */

typedef struct assist_input_service {
    uint32_t struct_size;
    /** Adds a command delivered to on_command as `id`. `label` is spoken by help; `key` is a key name
        ("w", "ctrl+s", "space", "left", "f5") or NULL; `phrase` is the typed or spoken words or NULL.
        A key or phrase already taken, or reserved by the host, gives ASSIST_E_BUSY. [main] */
    assist_status (*register_command)(const assist_host *h, const char *id, const char *label,
                                      const char *ASSIST_NULLABLE key, const char *ASSIST_NULLABLE phrase,
                                      assist_scope scope);
    /** Removes a command added by this plugin. [main] */
    assist_status (*unregister_command)(const assist_host *h, const char *id);
    /** True when the host can take dictation in `lang` ("en"). [any] */
    bool (*dictation_available)(const assist_host *h, const char *lang);
    void *reserved[8];
} assist_input_service;

#if defined(__clang__)
#pragma clang diagnostic pop
#endif

#ifdef __cplusplus
}
#endif

#endif /* ASSIST_INPUT_H */
