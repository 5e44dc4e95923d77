/*
 * assist/settings.h - the assist.settings/1 service. Include assist_plugin.h, not this.
 */
#ifndef ASSIST_SETTINGS_H
#define ASSIST_SETTINGS_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Only some pointers carry ASSIST_NULLABLE; the rest are documented in comments. */
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wnullability-completeness"
#endif

/* ----- assist.settings/1 ------------------------------------------------------------------------------- */

#define ASSIST_SETTINGS_SERVICE "assist.settings/1"

/*
 * Keys are kebab-case. A key without a dot is in the plugin's own namespace ("auto-pause" is
 * "find-object.auto-pause"); a dotted key is absolute and may be read anywhere ("speech.rate-normal") but
 * written only in the plugin's namespaces. A key locked by the administrator cannot be set: ASSIST_E_LOCKED.
 */
typedef struct assist_settings_service {
    uint32_t struct_size;
    /** Copies the value into `buf` (NUL-terminated). `*needed` (may be NULL) gets the size including the
        NUL; a `cap` too small gives ASSIST_E_NOMEM. ASSIST_E_NOT_FOUND when unset. [any] */
    assist_status (*get_string)(const assist_host *h, const char *key, char *ASSIST_NULLABLE buf, size_t cap,
                                size_t *ASSIST_NULLABLE needed);
    assist_status (*get_int)(const assist_host *h, const char *key, int64_t *out);   /* [any] */
    assist_status (*get_double)(const assist_host *h, const char *key, double *out); /* [any] */
    assist_status (*get_bool)(const assist_host *h, const char *key, bool *out);     /* [any] */
    assist_status (*set_string)(const assist_host *h, const char *key, const char *value); /* [main] */
    assist_status (*set_int)(const assist_host *h, const char *key, int64_t value);         /* [main] */
    assist_status (*set_double)(const assist_host *h, const char *key, double value);       /* [main] */
    assist_status (*set_bool)(const assist_host *h, const char *key, bool value);           /* [main] */
    void *reserved[8];
} assist_settings_service;

#if defined(__clang__)
#pragma clang diagnostic pop
#endif

#ifdef __cplusplus
}
#endif

#endif /* ASSIST_SETTINGS_H */
