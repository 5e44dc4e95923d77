/* assist_curl.h - one HTTP request through libcurl, for the host's outbox.
 *
 * curl_easy_setopt is variadic, which Swift cannot call, so the request is described by a struct and set
 * up here. The body is pulled through a callback (files stream from disk), the answer's header lines and
 * body are pushed through callbacks, and a transfer that makes no progress for `stall_seconds` is ended.
 * A handle keeps its connections alive between requests; one thread uses a handle at a time.
 */
#ifndef ASSIST_CURL_H
#define ASSIST_CURL_H

#include <stddef.h>
#include <stdint.h>

typedef struct assist_curl assist_curl;

/** Fills `buffer` (up to `size` bytes) with body bytes, or takes `size` bytes of an answer. Returns the
    bytes given or taken; for the body reader 0 ends the body and ASSIST_CURL_ABORT stops the request. */
typedef size_t (*assist_curl_io_fn)(char *buffer, size_t size, void *user);

#define ASSIST_CURL_ABORT ((size_t)0x10000000)

typedef struct assist_curl_request {
    const char *method;
    const char *url;
    const char *const *headers; /* "Name: value" lines */
    size_t header_count;
    int64_t body_length; /* -1: no body */
    assist_curl_io_fn read_body;
    void *read_user;
    assist_curl_io_fn on_header; /* one header line of the answer, with its CRLF */
    void *header_user;
    assist_curl_io_fn on_body;
    void *body_user;
    long connect_timeout_ms;
    long stall_seconds; /* end the transfer when under 1 byte/s for this long */
} assist_curl_request;

/** What went wrong, coarsely, when assist_curl_perform does not return 0. */
typedef enum assist_curl_failure {
    ASSIST_CURL_OK = 0,
    ASSIST_CURL_BAD_URL = 1,      /* malformed: never worth retrying */
    ASSIST_CURL_NO_CONNECTION = 2, /* name lookup, connect or TLS failed */
    ASSIST_CURL_STALLED = 3,      /* the server stopped answering */
    ASSIST_CURL_BROKEN = 4,       /* the connection broke, or the answer was not HTTP */
    ASSIST_CURL_BODY_ABORTED = 5, /* the body reader stopped the request */
    ASSIST_CURL_OTHER = 6
} assist_curl_failure;

/** Initialises libcurl once per process; safe to call again. Returns 0 on success. */
int assist_curl_global_init(void);

/** Why libcurl could not be opened (it is opened on first use), or NULL. */
const char *assist_curl_load_error(void);

assist_curl *assist_curl_new(void);
void assist_curl_free(assist_curl *handle);

/** Sends `request`; sets `*status` to the HTTP status (0 without one) and writes libcurl's reason into
    `error` (`error_cap` bytes) on failure. */
assist_curl_failure assist_curl_perform(assist_curl *handle, const assist_curl_request *request, long *status,
                                        char *error, size_t error_cap);

#endif
