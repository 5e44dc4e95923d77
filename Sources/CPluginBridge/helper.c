/* The helper process: opens one plugin library and gives it the C ABI, each service call carried to the host
   (assist_bridge.h, wire.h). Runs as `assist _plugin-helper 3`. */
#define _GNU_SOURCE
#include "assist_bridge.h"
#include "marshal.h"
#include "ops.h"
#include "wire.h"

#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

static bchan chan;
static const assist_entry *entry_table;
static assist_entry entry;
static assist_plugin *instance;
static assist_plugin table;
static char *host_version;
static pthread_mutex_t helper_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t helper_done = PTHREAD_COND_INITIALIZER;
static bool done;

#define BRIDGE_HELPER
#include "generated/services.h"

static bmsg *rpc(bmsg *m) { return bchan_call(&chan, m, -1); }

static bmsg *request(uint32_t op) { return bmsg_new(BRIDGE_REQUEST, op); }

/* The status in a reply, or ASSIST_E_IO when the host is gone. */
static assist_status status_of(bmsg *reply) {
    return reply == NULL ? ASSIST_E_IO : (assist_status)get_u32(reply);
}

static assist_status simple(bmsg *m) {
    bmsg *reply = rpc(m);
    assist_status s = status_of(reply);
    bmsg_free(reply);
    return s;
}

/* A call whose reply is a status and an id (an utterance, a dialog, a timer, a subscription); `*id` may be
   NULL. */
static assist_status call_with_id(bmsg *m, uint64_t *id) {
    bmsg *reply = rpc(m);
    assist_status s = status_of(reply);
    uint64_t value = reply ? get_u64(reply) : 0;
    if (id != NULL) *id = value;
    bmsg_free(reply);
    return s;
}

/* An error string from the host, as the plugin expects it: strdup'd, freed by the plugin. */
static void take_err(bmsg *reply, char **err) {
    const char *text = reply != NULL ? get_str(reply) : NULL;
    if (err != NULL) *err = text != NULL ? strdup(text) : NULL;
}

#define U64(p) ((uint64_t)(uintptr_t)(p))
#define PTR(v) ((void *)(uintptr_t)(v))

/* ---- assist.log/1, speech, dialog ---------------------------------------------------------------------- */

static assist_status h_speech_speak(const assist_host *h, const char *text, const assist_speech_options *options,
                             assist_speech_done_cb on_done, assist_speech_word_cb on_word, void *user,
                             uint64_t *out_id) {
    (void)h;
    assist_speech_options o;
    bool has = assist_struct_copy(&o, sizeof o, options, ASSIST_SIZE_THROUGH(assist_speech_options, flags));
    bmsg *m = request(OP_SPEECH_SPEAK);
    put_str(m, text);
    put_bool(m, has);
    if (has) {
        put_whole(m, assist_speech_options, o);
        put_str(m, o.language);
        put_str(m, o.voice);
    }
    put_u64(m, U64(on_done));
    put_u64(m, U64(on_word));
    put_u64(m, U64(user));
    return call_with_id(m, out_id);
}


static bmsg *dialog_request(uint32_t op, assist_dialog_cb cb, void *user, const char *prompt) {
    bmsg *m = request(op);
    put_u64(m, U64(cb));
    put_u64(m, U64(user));
    put_str(m, prompt);
    return m;
}

static assist_status h_dialog_ask_choice(const assist_host *h, const char *prompt, const char *const *choices,
                                  int32_t count, int32_t default_index, assist_dialog_cb cb, void *user,
                                  uint64_t *req) {
    (void)h;
    if (cb == NULL || (choices == NULL && count > 0) || count < 0) return ASSIST_E_INVALID;
    bmsg *m = dialog_request(OP_DIALOG_ASK_CHOICE, cb, user, prompt);
    put_u32(m, (uint32_t)count);
    put_u32(m, (uint32_t)default_index);
    for (int32_t i = 0; i < count; i++) put_str(m, choices[i]);
    return call_with_id(m, req);
}

static assist_status h_dialog_confirm(const assist_host *h, const char *prompt, bool default_yes, uint32_t timeout_ms,
                               assist_dialog_cb cb, void *user, uint64_t *req) {
    (void)h;
    if (cb == NULL) return ASSIST_E_INVALID;
    bmsg *m = dialog_request(OP_DIALOG_CONFIRM, cb, user, prompt);
    put_bool(m, default_yes);
    put_u32(m, timeout_ms);
    return call_with_id(m, req);
}

static assist_status h_dialog_ask_text(const assist_host *h, const char *prompt, assist_text_kind kind, assist_dialog_cb cb,
                                void *user, uint64_t *req) {
    (void)h;
    if (cb == NULL) return ASSIST_E_INVALID;
    bmsg *m = dialog_request(OP_DIALOG_ASK_TEXT, cb, user, prompt);
    put_u32(m, (uint32_t)kind);
    return call_with_id(m, req);
}

/* ---- settings ----------------------------------------------------------------------------------------- */

static assist_status h_settings_get_string(const assist_host *h, const char *key, char *buf, size_t cap, size_t *needed) {
    (void)h;
    bmsg *m = request(OP_SETTINGS_GET_STRING);
    put_str(m, key);
    put_u64(m, buf == NULL ? 0 : cap);
    bmsg *reply = rpc(m);
    assist_status s = status_of(reply);
    uint64_t need = reply ? get_u64(reply) : 0;
    const char *text = reply ? get_str(reply) : NULL;
    if (needed != NULL) *needed = need;
    if (s == ASSIST_OK && buf != NULL && text != NULL && strlen(text) < cap) memcpy(buf, text, strlen(text) + 1);
    bmsg_free(reply);
    return s;
}



/* ---- storage ------------------------------------------------------------------------------------------ */

static assist_status h_storage_exec(const assist_host *h, assist_db *db, const char *sql, const assist_value *params,
                            int32_t count, assist_row_cb row, void *user, int64_t *changes, char **err) {
    (void)h;
    if (count > 0 && (params == NULL || params[0].struct_size < ASSIST_SIZE_THROUGH(assist_value, size)))
        return ASSIST_E_INVALID;
    bmsg *m = request(OP_STORAGE_EXEC);
    put_u64(m, U64(db));
    put_str(m, sql);
    put_values(m, params, count);
    put_u64(m, U64(row));
    put_u64(m, U64(user));
    bmsg *reply = rpc(m);
    assist_status s = status_of(reply);
    int64_t changed = reply ? get_i64(reply) : 0;
    take_err(reply, err);
    if (changes != NULL) *changes = changed;
    bmsg_free(reply);
    return s;
}

static assist_status media_path(uint32_t op, const char *name, char *path, size_t cap, char **err) {
    if (path == NULL || cap == 0) return ASSIST_E_INVALID;
    bmsg *m = request(op);
    put_str(m, name);
    put_u64(m, cap);
    bmsg *reply = rpc(m);
    assist_status s = status_of(reply);
    const char *text = reply ? get_str(reply) : NULL;
    take_err(reply, err);
    if (s == ASSIST_OK && text != NULL && strlen(text) < cap) memcpy(path, text, strlen(text) + 1);
    bmsg_free(reply);
    return s;
}
static assist_status h_storage_media_create(const assist_host *h, const char *name, char *path, size_t cap, char **err) {
    (void)h;
    return media_path(OP_STORAGE_MEDIA_CREATE, name, path, cap, err);
}
static assist_status h_storage_media_to_cache(const assist_host *h, const char *name, char *path, size_t cap, char **err) {
    (void)h;
    return media_path(OP_STORAGE_MEDIA_TO_CACHE, name, path, cap, err);
}

/* ---- session, clock, worker, events, input ------------------------------------------------------------ */

/* A session string, asked once and kept for the life of the helper (the ABI says it lives as long). */
static const char *session_string(uint32_t op) {
    uint32_t which = op - OP_SESSION_LANGUAGE;
    static char *cached[4];
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&lock);
    char *known = cached[which];
    pthread_mutex_unlock(&lock);
    if (known != NULL) return known;
    bmsg *reply = rpc(request(op));
    const char *text = reply ? get_str(reply) : NULL;
    char *copy = strdup(text ? text : "");
    bmsg_free(reply);
    pthread_mutex_lock(&lock);
    if (cached[which] == NULL) cached[which] = copy; /* kept for the life of the helper */
    else free(copy);
    known = cached[which];
    pthread_mutex_unlock(&lock);
    return known;
}
static const char *h_session_language(const assist_host *h) { (void)h; return session_string(OP_SESSION_LANGUAGE); }
static const char *h_session_data_dir(const assist_host *h) { (void)h; return session_string(OP_SESSION_DATA_DIR); }
static const char *h_session_cache_dir(const assist_host *h) { (void)h; return session_string(OP_SESSION_CACHE_DIR); }
static const char *h_session_share_dir(const assist_host *h) { (void)h; return session_string(OP_SESSION_SHARE_DIR); }

static assist_status h_clock_timer_add(const assist_host *h, uint32_t ms, bool repeat, assist_timer_cb cb, void *user,
                                 uint64_t *timer) {
    (void)h;
    bmsg *m = request(OP_CLOCK_TIMER_ADD);
    put_u32(m, ms);
    put_bool(m, repeat);
    put_u64(m, U64(cb));
    put_u64(m, U64(user));
    return call_with_id(m, timer);
}

static assist_status task_call(uint32_t op, assist_task_fn fn, void *user) {
    bmsg *m = request(op);
    put_u64(m, U64(fn));
    put_u64(m, U64(user));
    return simple(m);
}
static assist_status h_worker_schedule(const assist_host *h, assist_task_fn fn, void *user) {
    (void)h;
    return task_call(OP_WORKER_SCHEDULE, fn, user);
}
static assist_status h_worker_post_main(const assist_host *h, assist_task_fn fn, void *user) {
    (void)h;
    return task_call(OP_WORKER_POST_MAIN, fn, user);
}

static assist_status h_events_subscribe(const assist_host *h, const char *prefix, assist_event_cb cb, void *user,
                                 uint64_t *subscription) {
    (void)h;
    bmsg *m = request(OP_EVENTS_SUBSCRIBE);
    put_str(m, prefix);
    put_u64(m, U64(cb));
    put_u64(m, U64(user));
    return call_with_id(m, subscription);
}

static assist_status h_input_set_choices(const assist_host *h, const char *phrase, const char *prompt,
                                   const char *const *choices, size_t count) {
    (void)h;
    if (phrase == NULL || (count > 0 && choices == NULL) || count > 10000) return ASSIST_E_INVALID;
    for (size_t i = 0; i < count; i++)
        if (choices[i] == NULL) return ASSIST_E_INVALID;
    bmsg *m = request(OP_INPUT_SET_CHOICES);
    put_str(m, phrase);
    put_str(m, prompt);
    put_u32(m, (uint32_t)count);
    for (size_t i = 0; i < count; i++) put_str(m, choices[i]);
    return simple(m);
}

/* ---- cues, playback, outbox, microphone ---------------------------------------------------------------- */

static assist_status outbox_send(uint32_t op, const assist_outbox_request *r, int64_t *job, char **err) {
    bmsg *m = request(op);
    put_outbox_request(m, r);
    bmsg *reply = rpc(m);
    assist_status s = status_of(reply);
    int64_t id = reply ? get_i64(reply) : 0;
    take_err(reply, err);
    if (job != NULL) *job = id;
    bmsg_free(reply);
    return s;
}
static assist_status h_outbox_enqueue(const assist_host *h, const assist_outbox_request *r, int64_t *job, char **err) {
    (void)h;
    return outbox_send(OP_OUTBOX_ENQUEUE, r, job, err);
}
static assist_status h_outbox_send_now(const assist_host *h, const assist_outbox_request *r, int64_t *job, char **err) {
    (void)h;
    return outbox_send(OP_OUTBOX_SEND_NOW, r, job, err);
}
static assist_status h_outbox_on_outcome(const assist_host *h, assist_outbox_outcome_cb cb, void *user) {
    (void)h;
    bmsg *m = request(OP_OUTBOX_ON_OUTCOME);
    put_u64(m, U64(cb));
    put_u64(m, U64(user));
    return simple(m);
}

/* The stream's channel count, kept here so a read knows the buffer's shape. */
static uint32_t stream_channels = 1;

static assist_status h_audio_in_open(const assist_host *h, uint32_t rate, uint32_t channels, assist_audio_stream **out,
                                  char **err) {
    (void)h;
    bmsg *m = request(OP_AUDIO_IN_OPEN);
    put_u32(m, rate);
    put_u32(m, channels);
    bmsg *reply = rpc(m);
    assist_status s = status_of(reply);
    uint64_t stream = reply ? get_u64(reply) : 0;
    take_err(reply, err);
    if (s == ASSIST_OK) stream_channels = channels;
    if (out != NULL) *out = s == ASSIST_OK ? PTR(stream) : NULL;
    bmsg_free(reply);
    return s;
}
static assist_status h_audio_in_read(const assist_host *h, assist_audio_stream *stream, int16_t *buf, uint32_t frames,
                                  uint32_t *got) {
    (void)h;
    if (buf == NULL || got == NULL) return ASSIST_E_INVALID;
    bmsg *m = request(OP_AUDIO_IN_READ);
    put_u64(m, U64(stream));
    put_u32(m, frames);
    put_u32(m, stream_channels);
    bmsg *reply = rpc(m);
    assist_status s = status_of(reply);
    uint32_t n = reply ? get_u32(reply) : 0;
    size_t size = 0;
    const void *data = reply ? get_bytes(reply, &size) : NULL;
    *got = 0;
    if (data != NULL && n <= frames && size == (size_t)n * stream_channels * sizeof(int16_t)) {
        memcpy(buf, data, size);
        *got = n;
    }
    bmsg_free(reply);
    return s;
}
static void h_audio_in_close(const assist_host *h, assist_audio_stream *stream) {
    (void)h;
    bmsg *m = request(OP_AUDIO_IN_CLOSE);
    put_u64(m, U64(stream));
    bmsg_free(rpc(m));
}

/* ---- camera: frames in shared memory ------------------------------------------------------------------ */

typedef struct {
    int fd;
    const uint8_t *map;
    size_t size;
} mapped_area;

static mapped_area areas[8];
/* The host's shared frame arena, area number 100, mapped once. */
static mapped_area arena;

typedef struct held {
    assist_frame frame; /* first: the plugin holds &frame */
    uint64_t token;     /* the host's retain */
    struct held *next;
} held;

static pthread_mutex_t frames_lock = PTHREAD_MUTEX_INITIALIZER;
static held *held_frames;
static const assist_frame *delivering; /* the frame on_frame has now */
static uint32_t delivering_area;
/* The host's retain of the frame being delivered, offered with it (FRAME_OFFER_* in ops.h), and whether the
   plugin took it: the first retain in on_frame costs no call. */
static uint32_t offer;
static uint64_t offered;
static bool offer_taken;
/* Frames released while a frame is delivered: their releases go back with its reply. */
static uint64_t batched[32];
static uint32_t batched_count;

static assist_status h_camera_subscribe(const assist_host *h, const assist_camera_request *request_in, char **err) {
    (void)h;
    assist_camera_request r;
    if (!assist_struct_copy(&r, sizeof r, request_in, ASSIST_SIZE_THROUGH(assist_camera_request, flags)))
        return ASSIST_E_INVALID;
    bmsg *m = request(OP_CAMERA_SUBSCRIBE);
    put_whole(m, assist_camera_request, r);
    bmsg *reply = rpc(m);
    assist_status s = status_of(reply);
    take_err(reply, err);
    bmsg_free(reply);
    return s;
}
static assist_status h_camera_unsubscribe(const assist_host *h) {
    (void)h;
    return simple(request(OP_CAMERA_UNSUBSCRIBE));
}

static const assist_frame *h_camera_retain(const assist_host *h, const assist_frame *frame) {
    (void)h;
    pthread_mutex_lock(&frames_lock);
    bool current = frame != NULL && frame == delivering;
    uint32_t which = delivering_area;
    uint64_t token = 0;
    bool ask = current && (offer == FRAME_OFFER_ASK || offer_taken);
    if (current && offer == FRAME_OFFER_GIVEN && !offer_taken) {
        token = offered;
        offer_taken = true;
    }
    pthread_mutex_unlock(&frames_lock);
    if (ask) { /* the host offered nothing, or the plugin retains the same frame twice */
        bmsg *m = request(OP_CAMERA_RETAIN);
        put_u32(m, which);
        bmsg *reply = rpc(m);
        token = reply ? get_u64(reply) : 0;
        bmsg_free(reply);
    }
    if (token == 0) return NULL;
    held *copy = calloc(1, sizeof *copy);
    if (copy == NULL) {
        bmsg *m = request(OP_CAMERA_RELEASE);
        put_u64(m, token);
        bchan_note(&chan, m);
        return NULL;
    }
    copy->frame = *frame;
    copy->token = token;
    pthread_mutex_lock(&frames_lock);
    copy->next = held_frames;
    held_frames = copy;
    pthread_mutex_unlock(&frames_lock);
    return &copy->frame;
}

/* A release never waits: during a delivery it goes back with the reply, otherwise as a note. */
static void h_camera_release(const assist_host *h, const assist_frame *retained) {
    (void)h;
    pthread_mutex_lock(&frames_lock);
    held **link = &held_frames;
    while (*link != NULL && &(*link)->frame != retained) link = &(*link)->next;
    held *found = *link;
    if (found != NULL) *link = found->next;
    bool batch = found != NULL && delivering != NULL && batched_count < sizeof batched / sizeof batched[0];
    if (batch) batched[batched_count++] = found->token;
    pthread_mutex_unlock(&frames_lock);
    if (!batch) {
        bmsg *m = request(OP_CAMERA_RELEASE);
        put_u64(m, found ? found->token : 0); /* 0: the host logs a release of a frame it never gave */
        bchan_note(&chan, m);
    }
    free(found);
}

static assist_status h_camera_control(const assist_host *h, const char *name, int64_t *value, int64_t *minimum,
                               int64_t *maximum) {
    (void)h;
    if (value == NULL || minimum == NULL || maximum == NULL) return ASSIST_E_INVALID;
    bmsg *m = request(OP_CAMERA_CONTROL);
    put_str(m, name);
    put_i64(m, *value);
    bmsg *reply = rpc(m);
    assist_status s = status_of(reply);
    if (reply != NULL) {
        int64_t v = get_i64(reply), lo = get_i64(reply), hi = get_i64(reply);
        if (s == ASSIST_OK) {
            *value = v;
            *minimum = lo;
            *maximum = hi;
        }
    }
    bmsg_free(reply);
    return s;
}

static assist_status h_camera_stats(const assist_host *h, assist_camera_stats *out) {
    (void)h;
    if (out == NULL || out->struct_size < ASSIST_SIZE_THROUGH(assist_camera_stats, converted)) return ASSIST_E_INVALID;
    bmsg *reply = rpc(request(OP_CAMERA_STATS));
    assist_status s = status_of(reply);
    assist_camera_stats got;
    bool read = reply != NULL && s == ASSIST_OK &&
                get_struct(reply, &got, sizeof got, ASSIST_SIZE_THROUGH(assist_camera_stats, converted));
    bmsg_free(reply);
    if (s == ASSIST_OK && !read) s = ASSIST_E_INTERNAL;
    if (s == ASSIST_OK) { /* what the host sent, as far as the plugin's struct reaches */
        size_t n = out->struct_size < got.struct_size ? out->struct_size : got.struct_size;
        memcpy(out, &got, n);
        out->struct_size = (uint32_t)n;
    }
    return s;
}

/* ---- the tables: generated/services.h, filled as the host fills its own ---------------------------------- */

static const struct {
    const char *id;
    const void *table;
    size_t size;
} proxies[] = BRIDGE_PROXY_TABLES;
#define PROXY_COUNT (sizeof proxies / sizeof proxies[0])

static void *filled[PROXY_COUNT];
static bool asked[PROXY_COUNT];
static pthread_mutex_t services_lock = PTHREAD_MUTEX_INITIALIZER;

/* The proxy table for `id`, with the slots the host leaves NULL left NULL; NULL when the host gives none. */
static const void *h_get_service(const assist_host *h, const char *id) {
    (void)h;
    if (id == NULL) return NULL;
    size_t which = PROXY_COUNT;
    for (size_t i = 0; i < PROXY_COUNT; i++)
        if (strcmp(proxies[i].id, id) == 0) which = i;
    if (which == PROXY_COUNT) return NULL;
    pthread_mutex_lock(&services_lock);
    bool known = asked[which];
    void *table = filled[which];
    pthread_mutex_unlock(&services_lock);
    if (known) return table;
    bmsg *m = request(OP_GET_SERVICE);
    put_str(m, id);
    bmsg *reply = rpc(m);
    uint64_t present = reply ? get_u64(reply) : 0;
    bmsg_free(reply);
    void *copy = NULL;
    if (present & (1ull << 63)) {
        copy = malloc(proxies[which].size);
        if (copy == NULL) return NULL;
        memcpy(copy, proxies[which].table, proxies[which].size);
        size_t slots = (proxies[which].size - sizeof(void *)) / sizeof(void *);
        for (size_t i = 0; i < slots && i < 63; i++) {
            if (!(present & (1ull << i))) memset((char *)copy + sizeof(void *) * (i + 1), 0, sizeof(void *));
        }
    }
    pthread_mutex_lock(&services_lock);
    if (!asked[which]) {
        asked[which] = true;
        filled[which] = copy;
    } else {
        free(copy);
    }
    table = filled[which];
    pthread_mutex_unlock(&services_lock);
    return table;
}

static void *h_alloc(const assist_host *h, size_t n) {
    (void)h;
    return malloc(n == 0 ? 1 : n);
}

static assist_host proxy_host = {sizeof(assist_host), {ASSIST_ABI_MAJOR, ASSIST_ABI_MINOR, 0, 0}, "", NULL,
                                 h_get_service, h_alloc, {0}};

/* ---- the host's calls ---------------------------------------------------------------------------------- */

static void put_plugin_error(bmsg *rep, char *err) {
    put_str(rep, err);
    free(err); /* allocated with h_alloc */
}

static void serve_frame(bmsg *req, bmsg *rep) {
    uint32_t which = get_u32(req);
    uint64_t size = get_u64(req);
    if (which >= 8 && which != 100) {
        req->bad = true;
        return;
    }
    mapped_area *area = which == 100 ? &arena : &areas[which];
    if (req->fd >= 0) {
        if (area->map != NULL) {
            munmap((void *)area->map, area->size);
            close(area->fd);
        }
        void *map = mmap(NULL, size, PROT_READ, MAP_SHARED, req->fd, 0);
        if (map == MAP_FAILED) {
            req->bad = true;
            return;
        }
        *area = (mapped_area){.fd = req->fd, .map = map, .size = size};
        req->fd = -1; /* kept */
    }
    if (area->map == NULL || area->size < size) {
        req->bad = true;
        return;
    }
    assist_frame f;
    if (!get_struct(req, &f, sizeof f, ASSIST_SIZE_THROUGH(assist_frame, seq)) || f.plane_count > 3) {
        req->bad = true;
        return;
    }
    for (uint32_t i = 0; i < f.plane_count; i++) {
        uint64_t offset = get_u64(req);
        uint64_t span = plane_span(f.fourcc, f.width, f.height, f.stride[i]);
        if (span == 0 || offset > area->size || span > area->size - offset) {
            req->bad = true;
            return;
        }
        f.plane[i] = area->map + offset;
    }
    f.fd = area->fd;
    uint32_t offer_now = get_u32(req);
    uint64_t offered_now = get_u64(req);
    if (offer_now > FRAME_OFFER_REFUSED) req->bad = true;
    if (req->bad) return;
    bool taken = false;
    if (instance != NULL && table.on_frame != NULL) {
        pthread_mutex_lock(&frames_lock);
        delivering = &f;
        delivering_area = which;
        offer = offer_now;
        offered = offered_now;
        offer_taken = false;
        pthread_mutex_unlock(&frames_lock);
        table.on_frame(instance, &f);
    }
    /* The reply: whether the offered retain was taken, and the releases made meanwhile. */
    pthread_mutex_lock(&frames_lock);
    delivering = NULL;
    taken = offer_taken;
    offer_taken = false;
    put_bool(rep, taken);
    put_u32(rep, batched_count);
    for (uint32_t i = 0; i < batched_count; i++) put_u64(rep, batched[i]);
    batched_count = 0;
    pthread_mutex_unlock(&frames_lock);
}

static void serve_callback(uint32_t op, bmsg *req, bmsg *rep) {
    uint64_t fn = get_u64(req), user = get_u64(req);
    if (fn == 0) {
        req->bad = true;
        return;
    }
    switch (op) {
    case OP_CB_TIMER: {
        uint64_t timer = get_u64(req);
        if (!req->bad) ((assist_timer_cb)PTR(fn))(PTR(user), timer);
        break;
    }
    case OP_CB_SPEECH_DONE: {
        uint64_t utterance = get_u64(req);
        assist_speech_outcome outcome = (assist_speech_outcome)get_u32(req);
        if (!req->bad) ((assist_speech_done_cb)PTR(fn))(PTR(user), utterance, outcome);
        break;
    }
    case OP_CB_SPEECH_WORD: {
        uint64_t utterance = get_u64(req);
        uint32_t c = get_u32(req), offset = get_u32(req), length = get_u32(req);
        if (!req->bad) ((assist_speech_word_cb)PTR(fn))(PTR(user), utterance, c, offset, length);
        break;
    }
    case OP_CB_DIALOG: {
        assist_dialog_result r;
        if (get_struct(req, &r, sizeof r, ASSIST_SIZE_THROUGH(assist_dialog_result, request))) r.text = get_str(req);
        if (!req->bad) ((assist_dialog_cb)PTR(fn))(PTR(user), &r);
        break;
    }
    case OP_CB_EVENT: {
        const char *name = get_str(req), *json = get_str(req);
        if (!req->bad && name != NULL) ((assist_event_cb)PTR(fn))(PTR(user), name, json ? json : "{}");
        break;
    }
    case OP_CB_OUTCOME: {
        assist_outbox_outcome o;
        bool kept = false;
        if (get_outcome(req, &o)) {
            kept = ((assist_outbox_outcome_cb)PTR(fn))(PTR(user), &o);
            if (o.header_count > 0) free((void *)o.headers);
        }
        put_bool(rep, kept);
        break;
    }
    case OP_CB_ROW: {
        uint32_t count = get_u32(req);
        const char **names = count <= 10000 ? calloc(count + 1, sizeof *names) : NULL;
        for (uint32_t i = 0; names != NULL && i < count; i++) names[i] = get_str(req);
        int32_t values_count = 0;
        assist_value *values = names != NULL ? get_values(req, &values_count) : NULL;
        bool more = false;
        if (names == NULL || values == NULL || (uint32_t)values_count != count) req->bad = true;
        else more = ((assist_row_cb)PTR(fn))(PTR(user), (int32_t)count, names, values);
        /* the row's text values arrive NUL-terminated, as the ABI promises */
        free(names);
        free(values);
        put_bool(rep, more);
        break;
    }
    case OP_CB_TASK:
        ((assist_task_fn)PTR(fn))(PTR(user));
        break;
    default:
        req->bad = true;
    }
}

static void helper_handle(bchan *c, bmsg *req, bmsg *rep) {
    (void)c;
    uint32_t op = bmsg_op(req);
    switch (op) {
    case OP_OPEN: {
        uint32_t protocol = get_u32(req);
        const char *library = get_str(req);
        const char *version = get_str(req);
        free(host_version);
        host_version = strdup(version ? version : "");
        proxy_host.host_version = host_version;
        char text[600] = "";
        void *handle = NULL;
        if (protocol != BRIDGE_PROTOCOL) {
            snprintf(text, sizeof text, "the helper speaks protocol %d, the host %u", BRIDGE_PROTOCOL, protocol);
        } else if (library == NULL || (handle = dlopen(library, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE)) == NULL) {
            const char *why = dlerror();
            snprintf(text, sizeof text, "%s", why ? why : "the library cannot be opened");
        } else {
            assist_entry_fn fn = (assist_entry_fn)dlsym(handle, ASSIST_ENTRY_SYMBOL);
            entry_table = fn ? fn() : NULL;
            if (entry_table == NULL ||
                !assist_struct_copy(&entry, sizeof entry, entry_table, ASSIST_SIZE_THROUGH(assist_entry, create)))
                snprintf(text, sizeof text, "%s", fn ? "its entry table is missing or too small"
                                                     : "it has no assist_plugin_entry");
        }
        bool ok = text[0] == 0;
        put_bool(rep, ok);
        put_str(rep, ok ? NULL : text);
        if (!ok) break;
        put_u32(rep, entry.abi.major);
        put_u32(rep, entry.abi.minor);
        put_str(rep, entry.id);
        put_str(rep, entry.version);
        put_bool(rep, entry.init != NULL);
        put_bool(rep, entry.deinit != NULL);
        put_bool(rep, entry.create != NULL);
        break;
    }
    case OP_INIT:
        put_bool(rep, entry.init != NULL && entry.init(&proxy_host));
        break;
    case OP_DEINIT:
        if (entry.deinit != NULL) entry.deinit();
        break;
    case OP_CREATE: {
        char *err = NULL;
        assist_plugin *p = entry.create ? entry.create(&proxy_host, &err) : NULL;
        bool ok = p != NULL && assist_struct_copy(&table, sizeof table, p, ASSIST_SIZE_THROUGH(assist_plugin, destroy))
                  && table.start != NULL;
        if (ok) instance = p;
        put_bool(rep, ok);
        put_u32(rep, ok && table.on_frame != NULL ? 1u : 0u);
        if (!ok && err == NULL && p != NULL) err = strdup("the plugin table from create is too small or has no start");
        put_plugin_error(rep, err);
        break;
    }
    case OP_START: {
        uint32_t argc = get_u32(req);
        const char **argv = argc <= 4096 ? calloc(argc + 1, sizeof *argv) : NULL;
        for (uint32_t i = 0; argv != NULL && i < argc; i++) argv[i] = get_str(req);
        char *err = NULL;
        assist_status s = ASSIST_E_INVALID;
        if (argv == NULL) req->bad = true;
        else if (!req->bad && instance != NULL) s = table.start(instance, (int32_t)argc, argv, &err);
        free(argv);
        put_u32(rep, (uint32_t)s);
        put_plugin_error(rep, err);
        break;
    }
    case OP_PAUSE:
        if (instance && table.pause) table.pause(instance);
        break;
    case OP_RESUME:
        if (instance && table.resume) table.resume(instance);
        break;
    case OP_STOP:
        if (instance && table.stop) table.stop(instance);
        break;
    case OP_COMMAND: {
        const char *cmd = get_str(req), *arg = get_str(req);
        if (!req->bad && cmd != NULL && instance && table.on_command) table.on_command(instance, cmd, arg);
        break;
    }
    case OP_FRAME:
        serve_frame(req, rep);
        break;
    case OP_DESTROY:
        if (instance && table.destroy) table.destroy(instance);
        instance = NULL;
        break;
    case OP_PING:
        break;
    default:
        if (op >= OP_CB_TIMER && op <= OP_CB_TASK) serve_callback(op, req, rep);
        else req->bad = true;
    }
}

static void helper_dead(bchan *c) {
    (void)c;
    pthread_mutex_lock(&helper_lock);
    done = true;
    pthread_cond_broadcast(&helper_done);
    pthread_mutex_unlock(&helper_lock);
}

int assist_bridge_helper_main(int fd) {
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* the host gone, the helper goes */
    signal(SIGPIPE, SIG_IGN);
    chan.timeout_ms = 0;
    if (bchan_start(&chan, fd, 1, helper_handle, helper_dead, NULL) != 0) return 1;
    pthread_mutex_lock(&helper_lock);
    while (!done) pthread_cond_wait(&helper_done, &helper_lock);
    pthread_mutex_unlock(&helper_lock);
    /* The host closed: the plugin's state goes with the process, without running its atexit handlers. */
    _exit(0);
}
