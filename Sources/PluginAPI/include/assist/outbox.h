/*
 * assist/outbox.h - the assist.outbox/1 service. Include assist_plugin.h, not this.
 */
#ifndef ASSIST_OUTBOX_H
#define ASSIST_OUTBOX_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Only some pointers carry ASSIST_NULLABLE; the rest are documented in comments. */
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wnullability-completeness"
#endif

/* ----- assist.outbox/1 --------------------------------------------------------------------------------- */

#define ASSIST_OUTBOX_SERVICE "assist.outbox/1"

/** A header, or a form field. */
typedef struct assist_http_field {
    uint32_t struct_size; /* also the stride of an array of fields */
    const char *name;
    const char *value;
} assist_http_field;

/** A multipart part: a text field (`text`), or a file streamed from disk when it is sent (`path`: a name in
    the plugin's media folder, or a full path inside its media or cache folder). */
typedef struct assist_outbox_part {
    uint32_t struct_size; /* also the stride of an array of parts */
    const char *name;
    const char *ASSIST_NULLABLE text;
    const char *ASSIST_NULLABLE path;
    const char *ASSIST_NULLABLE filename;
    const char *ASSIST_NULLABLE content_type;
} assist_outbox_part;

typedef int32_t assist_outbox_body;
#define ASSIST_OUTBOX_BODY_NONE 0
#define ASSIST_OUTBOX_BODY_JSON 1      /* `json`, `json_size` bytes */
#define ASSIST_OUTBOX_BODY_FORM 2      /* `fields`, url-encoded */
#define ASSIST_OUTBOX_BODY_MULTIPART 3 /* `parts`, multipart/form-data with a fresh boundary */

/** An HTTP request for the host to send, however long it takes. */
typedef struct assist_outbox_request {
    uint32_t struct_size;
    const char *method;
    const char *url; /* http or https */
    const assist_http_field *ASSIST_NULLABLE headers;
    size_t header_count;
    assist_outbox_body body;
    const void *ASSIST_NULLABLE json;
    size_t json_size;
    const assist_http_field *ASSIST_NULLABLE fields;
    size_t field_count;
    const assist_outbox_part *ASSIST_NULLABLE parts;
    size_t part_count;
    /** Attempts before giving up (transport errors, 5xx, 429); 0 for the default, 8. */
    uint32_t max_attempts;
    /** The plugin's own reference, handed back with the outcome (may be NULL). */
    const char *ASSIST_NULLABLE tag;
} assist_outbox_request;

/** How a job ended: the server's final answer (`status` 100-599, any status but 5xx and 429 is final), or
    `status` 0 and `error` when the outbox gave up. Borrowed until the callback returns; walk `headers` with
    ASSIST_ELEMENT. */
typedef struct assist_outbox_outcome {
    uint32_t struct_size;
    int64_t job;
    int32_t status;
    bool truncated; /* the body was longer than the 1 MB kept */
    const char *ASSIST_NULLABLE tag;
    const assist_http_field *headers;
    size_t header_count;
    const uint8_t *ASSIST_NULLABLE body;
    size_t body_size;
    const char *ASSIST_NULLABLE error;
} assist_outbox_outcome;

/** Receives an outcome on [main]. Return true when it is handled, and the host forgets it; false keeps it
    until `acknowledge` (outcomes not handled are offered again at the next start). */
typedef bool (*assist_outbox_outcome_cb)(void *ASSIST_NULLABLE user, const assist_outbox_outcome *outcome);

typedef struct assist_outbox_service {
    uint32_t struct_size;
    /** Stores the request and returns its job id; it is sent in the background, this plugin's jobs in the
        order they were enqueued, with back-off between attempts, and kept across restarts. Each attempt carries
        the same `Idempotency-Key` header. ASSIST_E_INVALID with `*err` for a request that can never work (bad
        URL, method or header, a file outside the plugin's folders). [any] */
    assist_status (*enqueue)(const assist_host *h, const assist_outbox_request *request, int64_t *ASSIST_NULLABLE job,
                             char *ASSIST_NULLABLE *err);
    /** Sets the outcome callback (NULL to stop receiving); outcomes waiting from earlier, also from before a
        restart, are delivered after this call returns. While a callback is set, the plugin tells its user about
        refused and given-up uploads itself; the host says them only for plugins that are not listening. `user` must live until the callback is replaced or
        set to NULL, or until the plugin stops. [main] */
    assist_status (*on_outcome)(const assist_host *h, assist_outbox_outcome_cb ASSIST_NULLABLE cb,
                                void *ASSIST_NULLABLE user);
    /** Forgets an outcome that the callback kept. ASSIST_E_NOT_FOUND when there is none. [any] */
    assist_status (*acknowledge)(const assist_host *h, int64_t job);
    /** Removes a job not yet being sent. ASSIST_E_NOT_FOUND when it is gone or being sent. [any] */
    assist_status (*cancel)(const assist_host *h, int64_t job);
    /** How many of this plugin's jobs wait, are being sent, or have an outcome the plugin has not handled
        yet. [any] */
    assist_status (*pending)(const assist_host *h, int64_t *count);
    /** True when the network that reaches `host_name` is up, as the outbox judges it before sending: loopback
        always, anything else needs a default route off loopback. For plugins that skip work while offline.
        Added after 1.0 in a reserved slot: NULL in hosts that lack it. [any] */
    bool (*is_online)(const assist_host *h, const char *host_name);
    /** Sends `request` once, now, without storing it anywhere: for bodies that must never reach disk (a
        participant's name and email). No retries, no Idempotency-Key; the outcome comes through `on_outcome`
        like any other, with a negative job id, and is not kept across restarts (lost if the plugin is not
        listening). ASSIST_E_INVALID for a malformed request. Added after 1.0 in a reserved slot: NULL in hosts
        that lack it, and then such a request cannot be sent safely. [main] */
    assist_status (*send_now)(const assist_host *h, const assist_outbox_request *request, int64_t *ASSIST_NULLABLE job,
                              char **ASSIST_NULLABLE err);
    void *reserved[6];
} assist_outbox_service;

#if defined(__clang__)
#pragma clang diagnostic pop
#endif

#ifdef __cplusplus
}
#endif

#endif /* ASSIST_OUTBOX_H */
