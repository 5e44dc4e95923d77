#include "assist_curl.h"

/* The type-checking macros of curl.h would wrap the names redefined below. */
#define CURL_DISABLE_TYPECHECK
#include <curl/curl.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* libcurl is opened on first use, not linked: it brings some 30 libraries (HTTP/2, Kerberos, LDAP, SSH, ...)
   that a command which never uploads does not need. Debian's OpenSSL build first, then its GnuTLS build. */
#define CURL_LIBRARY "libcurl.so.4"
#define CURL_LIBRARY_GNUTLS "libcurl-gnutls.so.4"

static struct {
    CURLcode (*global_init)(long);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *);
    void (*easy_reset)(CURL *);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_perform)(CURL *);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
    const char *(*easy_strerror)(CURLcode);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
} curl;

/* curl.h may define these two as macros of themselves. */
#undef curl_easy_setopt
#undef curl_easy_getinfo
#define curl_global_init curl.global_init
#define curl_easy_init curl.easy_init
#define curl_easy_cleanup curl.easy_cleanup
#define curl_easy_reset curl.easy_reset
#define curl_easy_setopt curl.easy_setopt
#define curl_easy_perform curl.easy_perform
#define curl_easy_getinfo curl.easy_getinfo
#define curl_easy_strerror curl.easy_strerror
#define curl_slist_append curl.slist_append
#define curl_slist_free_all curl.slist_free_all

struct assist_curl {
    CURL *easy;
};

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static CURLcode init_result = CURLE_FAILED_INIT;
static char load_error[256];

/* Opens libcurl and finds every function this file calls; false with load_error set when it cannot. */
static int load(void) {
    /* RTLD_NODELETE: libcurl's global state lives as long as the process. */
    void *handle = dlopen(CURL_LIBRARY, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (handle == NULL) handle = dlopen(CURL_LIBRARY_GNUTLS, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (handle == NULL) {
        const char *why = dlerror();
        snprintf(load_error, sizeof load_error, "%s", why ? why : CURL_LIBRARY " cannot be opened");
        return 0;
    }
    static const char *const names[] = {"curl_global_init", "curl_easy_init", "curl_easy_cleanup",
                                        "curl_easy_reset", "curl_easy_setopt", "curl_easy_perform",
                                        "curl_easy_getinfo", "curl_easy_strerror", "curl_slist_append",
                                        "curl_slist_free_all"};
    void **slots[] = {(void **)&curl.global_init, (void **)&curl.easy_init, (void **)&curl.easy_cleanup,
                      (void **)&curl.easy_reset, (void **)&curl.easy_setopt, (void **)&curl.easy_perform,
                      (void **)&curl.easy_getinfo, (void **)&curl.easy_strerror, (void **)&curl.slist_append,
                      (void **)&curl.slist_free_all};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        *slots[i] = dlsym(handle, names[i]);
        if (*slots[i] == NULL) {
            snprintf(load_error, sizeof load_error, "%s has no %s", CURL_LIBRARY, names[i]);
            return 0;
        }
    }
    return 1;
}

static void global_init(void) {
    if (load()) init_result = curl_global_init(CURL_GLOBAL_DEFAULT);
}

int assist_curl_global_init(void) {
    pthread_once(&init_once, global_init);
    return init_result == CURLE_OK ? 0 : -1;
}

const char *assist_curl_load_error(void) { return load_error[0] ? load_error : NULL; }

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
