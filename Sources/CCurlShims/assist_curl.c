#include "assist_curl.h"

#include <curl/curl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct assist_curl {
    CURL *easy;
};

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static CURLcode init_result = CURLE_FAILED_INIT;

static void global_init(void) { init_result = curl_global_init(CURL_GLOBAL_DEFAULT); }

int assist_curl_global_init(void) {
    pthread_once(&init_once, global_init);
    return init_result == CURLE_OK ? 0 : -1;
}

assist_curl *assist_curl_new(void) {
    if (assist_curl_global_init() != 0) return NULL;
    assist_curl *handle = calloc(1, sizeof *handle);
    if (handle == NULL) return NULL;
    handle->easy = curl_easy_init();
    if (handle->easy == NULL) {
        free(handle);
        return NULL;
    }
    return handle;
}

void assist_curl_free(assist_curl *handle) {
    if (handle == NULL) return;
    curl_easy_cleanup(handle->easy);
    free(handle);
}

typedef struct io_target {
    assist_curl_io_fn fn;
    void *user;
} io_target;

static size_t read_callback(char *buffer, size_t size, size_t count, void *user) {
    const io_target *target = user;
    size_t given = target->fn(buffer, size * count, target->user);
    return given == ASSIST_CURL_ABORT ? CURL_READFUNC_ABORT : given;
}

static size_t write_callback(char *buffer, size_t size, size_t count, void *user) {
    const io_target *target = user;
    return target->fn == NULL ? size * count : target->fn(buffer, size * count, target->user);
}

static assist_curl_failure classify(CURLcode code) {
    switch (code) {
    case CURLE_OK: return ASSIST_CURL_OK;
    case CURLE_URL_MALFORMAT: return ASSIST_CURL_BAD_URL;
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_COULDNT_CONNECT:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION: return ASSIST_CURL_NO_CONNECTION;
    case CURLE_OPERATION_TIMEDOUT: return ASSIST_CURL_STALLED;
    case CURLE_ABORTED_BY_CALLBACK: return ASSIST_CURL_BODY_ABORTED;
    case CURLE_GOT_NOTHING:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_PARTIAL_FILE:
    case CURLE_UNSUPPORTED_PROTOCOL: /* the scheme was checked before: this is an answer that is not HTTP/1.x */
    case CURLE_WEIRD_SERVER_REPLY: return ASSIST_CURL_BROKEN;
    default: return ASSIST_CURL_OTHER;
    }
}

assist_curl_failure assist_curl_perform(assist_curl *handle, const assist_curl_request *request, long *status,
                                        char *error, size_t error_cap) {
    *status = 0;
    if (error_cap > 0) error[0] = '\0';
    CURL *easy = handle->easy;
    curl_easy_reset(easy); /* options go; the connection cache stays */

    char reason[CURL_ERROR_SIZE] = {0};
    struct curl_slist *lines = NULL;
    for (size_t i = 0; i < request->header_count; i++) {
        struct curl_slist *grown = curl_slist_append(lines, request->headers[i]);
        if (grown == NULL) {
            curl_slist_free_all(lines);
            snprintf(error, error_cap, "out of memory");
            return ASSIST_CURL_OTHER;
        }
        lines = grown;
    }
    /* A body is sent at once, not after a 100-continue round trip. */
    if (request->body_length >= 0) lines = curl_slist_append(lines, "Expect:");

    io_target reader = {request->read_body, request->read_user};
    io_target headers = {request->on_header, request->header_user};
    io_target body = {request->on_body, request->body_user};

    curl_easy_setopt(easy, CURLOPT_URL, request->url);
    curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, reason);
    curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(easy, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, request->connect_timeout_ms);
    if (request->stall_seconds > 0) {
        curl_easy_setopt(easy, CURLOPT_LOW_SPEED_LIMIT, 1L);
        curl_easy_setopt(easy, CURLOPT_LOW_SPEED_TIME, request->stall_seconds);
    }
    if (request->body_length >= 0) {
        curl_easy_setopt(easy, CURLOPT_UPLOAD, 1L);
        curl_easy_setopt(easy, CURLOPT_INFILESIZE_LARGE, (curl_off_t)request->body_length);
        curl_easy_setopt(easy, CURLOPT_READFUNCTION, read_callback);
        curl_easy_setopt(easy, CURLOPT_READDATA, &reader);
    } else if (strcmp(request->method, "HEAD") == 0) {
        curl_easy_setopt(easy, CURLOPT_NOBODY, 1L);
    }
    curl_easy_setopt(easy, CURLOPT_CUSTOMREQUEST, request->method);
    curl_easy_setopt(easy, CURLOPT_HTTPHEADER, lines);
    curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, write_callback);
    curl_easy_setopt(easy, CURLOPT_HEADERDATA, &headers);
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, write_callback);
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, &body);

    CURLcode code = curl_easy_perform(easy);
    long answered = 0;
    curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &answered);
    *status = answered;
    curl_slist_free_all(lines);
    if (code != CURLE_OK) {
        snprintf(error, error_cap, "%s", reason[0] != '\0' ? reason : curl_easy_strerror(code));
    }
    return classify(code);
}
