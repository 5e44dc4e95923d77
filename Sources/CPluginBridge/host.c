/* The host's side of a plugin in a helper process: spawns the helper, stands in for the plugin's entry and
   instance, and serves the helper's service calls with the real tables (assist_bridge.h). */
#define _GNU_SOURCE
#include "assist_bridge.h"
#include "assist_shared_frames.h"
#include "marshal.h"
#include "ops.h"
#include "wire.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static const char *const service_ids[SVC_COUNT] = BRIDGE_SERVICE_IDS;

#define AREAS 8
/* The area number of the shared frame arena (assist_shared_frames.h): frames there are sent as offsets. */
#define ARENA_AREA 100u
/* How large the arena is made when the first helper starts: a dozen 1080p BGR frames and their conversions. */
#define ARENA_BYTES (96u << 20)

typedef struct {
    int fd;
    uint8_t *map;
    size_t size;
    int holds; /* the delivery in progress and each frame the plugin retained from it */
    bool sent; /* the helper has the descriptor */
} area;

typedef struct {
    uint64_t token; /* the host's retained frame */
    int area;
} retained_frame;

struct assist_bridge {
    bchan chan;
    pid_t pid;
    const assist_host *real;
    assist_entry entry;
    char *id, *version;
    assist_bridge_death_cb on_death;
    void *user;
    pthread_mutex_t lock; /* everything below */
    pthread_cond_t reaped_cond;
    bool reaped;
    int wait_status;
    bool closing;
    const char *last_call;
    /* The calls into the plugin sent and not answered. One that fails because the helper went stays here, so
       how it ended names the calls that were running then, whenever the watcher asks. */
    const char *in_flight[16];
    bool pinging; /* a ping is waiting for its answer */
    bool reported;
    char description[300];
    uint32_t plugin_has; /* which instance functions the plugin has: bit per OP_START.. */
    const void *services[SVC_COUNT];
    bool looked_up[SVC_COUNT];
    area areas[AREAS];
    const assist_frame *current_frame;
    int current_area;
    bool arena_sent; /* the helper has the arena's descriptor */
    retained_frame retained[16];
    bool retains; /* the plugin has retained a frame: each frame now comes with a retain offered */
};

/* Every bridge is kept for the life of the process: the real services may call a trampoline late. */
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
typedef struct registered {
    const assist_host *host;
    assist_bridge *bridge;
    struct registered *next;
} registered;
static registered *registry;

static assist_bridge *bridge_for(const assist_host *h) {
    pthread_mutex_lock(&registry_lock);
    assist_bridge *found = NULL;
    for (registered *r = registry; r != NULL; r = r->next) {
        if (r->host == h) found = r->bridge; /* the newest, registered first */
        if (found != NULL) break;
    }
    pthread_mutex_unlock(&registry_lock);
    return found;
}

static const void *service(assist_bridge *b, int which) {
    pthread_mutex_lock(&b->lock);
    if (!b->looked_up[which]) {
        pthread_mutex_unlock(&b->lock);
        const void *table = b->real->get_service(b->real, service_ids[which]);
        pthread_mutex_lock(&b->lock);
        b->services[which] = table;
        b->looked_up[which] = true;
    }
    const void *table = b->services[which];
    pthread_mutex_unlock(&b->lock);
    return table;
}

#define bridge_service service
#define BRIDGE_HOST
#include "generated/services.h"

static char *host_string(assist_bridge *b, const char *text) {
    if (text == NULL) return NULL;
    size_t n = strlen(text) + 1;
    char *copy = b->real->alloc(b->real, n);
    if (copy != NULL) memcpy(copy, text, n);
    return copy;
}

/* Sends a call into the plugin and tracks it for the crash description. */
static bmsg *call_plugin(assist_bridge *b, bmsg *request, const char *name, int fd) {
    int slot = -1;
    if (!bchan_is_dead(&b->chan)) { /* a call after the end is not one that was running */
        pthread_mutex_lock(&b->lock);
        b->last_call = name;
        for (int i = 0; i < 16 && slot < 0; i++)
            if (b->in_flight[i] == NULL) slot = i;
        if (slot >= 0) b->in_flight[slot] = name;
        pthread_mutex_unlock(&b->lock);
    }
    bmsg *reply = bchan_call(&b->chan, request, fd);
    if (reply != NULL && slot >= 0) {
        pthread_mutex_lock(&b->lock);
        b->in_flight[slot] = NULL;
        pthread_mutex_unlock(&b->lock);
    }
    return reply;
}

/* ---- callbacks the plugin handed to services: the host calls these trampolines, they call the helper -- */

typedef struct box {
    assist_bridge *bridge;
    uint64_t fn, fn2, user;
    bool repeat;
    struct box *next;
} box;

static pthread_mutex_t boxes_lock = PTHREAD_MUTEX_INITIALIZER;
static box *kept_boxes; /* repeating callbacks stay reachable until the process ends */

static box *box_new(assist_bridge *b, const void *fn, const void *fn2, const void *user, bool keep) {
    box *x = calloc(1, sizeof *x);
    if (x == NULL) abort();
    x->bridge = b;
    x->fn = (uint64_t)(uintptr_t)fn;
    x->fn2 = (uint64_t)(uintptr_t)fn2;
    x->user = (uint64_t)(uintptr_t)user;
    x->repeat = keep;
    if (keep) {
        pthread_mutex_lock(&boxes_lock);
        x->next = kept_boxes;
        kept_boxes = x;
        pthread_mutex_unlock(&boxes_lock);
    }
    return x;
}

static bmsg *callback_message(box *x, uint32_t op) {
    bmsg *m = bmsg_new(BRIDGE_REQUEST, op);
    put_u64(m, x->fn);
    put_u64(m, x->user);
    return m;
}

static void timer_trampoline(void *user, uint64_t timer) {
    box *x = user;
    bmsg *m = callback_message(x, OP_CB_TIMER);
    put_u64(m, timer);
    bmsg_free(call_plugin(x->bridge, m, "a timer callback", -1));
    if (!x->repeat) free(x);
}

static void speech_done_trampoline(void *user, uint64_t utterance, assist_speech_outcome outcome) {
    box *x = user;
    if (x->fn != 0) {
        bmsg *m = callback_message(x, OP_CB_SPEECH_DONE);
        put_u64(m, utterance);
        put_u32(m, (uint32_t)outcome);
        bmsg_free(call_plugin(x->bridge, m, "a speech callback", -1));
    }
    free(x);
}

static void speech_word_trampoline(void *user, uint64_t utterance, uint32_t c, uint32_t offset, uint32_t length) {
    box *x = user;
    if (x->fn2 == 0) return;
    bmsg *m = bmsg_new(BRIDGE_REQUEST, OP_CB_SPEECH_WORD);
    put_u64(m, x->fn2);
    put_u64(m, x->user);
    put_u64(m, utterance);
    put_u32(m, c);
    put_u32(m, offset);
    put_u32(m, length);
    bmsg_free(call_plugin(x->bridge, m, "a speech callback", -1));
}

static void dialog_trampoline(void *user, const assist_dialog_result *r) {
    box *x = user;
    assist_dialog_result c;
    assist_struct_copy(&c, sizeof c, r, ASSIST_SIZE_THROUGH(assist_dialog_result, request));
    bmsg *m = callback_message(x, OP_CB_DIALOG);
    put_whole(m, assist_dialog_result, c);
    put_str(m, c.text);
    bmsg_free(call_plugin(x->bridge, m, "a dialog callback", -1));
    free(x);
}

static void event_trampoline(void *user, const char *name, const char *json) {
    box *x = user;
    bmsg *m = callback_message(x, OP_CB_EVENT);
    put_str(m, name);
    put_str(m, json);
    bmsg_free(call_plugin(x->bridge, m, "an event callback", -1));
}

static bool outcome_trampoline(void *user, const assist_outbox_outcome *o) {
    box *x = user;
    bmsg *m = callback_message(x, OP_CB_OUTCOME);
    put_outcome(m, o);
    bmsg *reply = call_plugin(x->bridge, m, "an outbox callback", -1);
    bool kept = reply != NULL && get_bool(reply);
    bmsg_free(reply);
    return kept;
}

static bool row_trampoline(void *user, int32_t count, const char *const *names, const assist_value *values) {
    box *x = user;
    bmsg *m = callback_message(x, OP_CB_ROW);
    put_u32(m, (uint32_t)(count < 0 ? 0 : count));
    for (int32_t i = 0; i < count; i++) put_str(m, names[i]);
    put_values(m, values, count);
    bmsg *reply = call_plugin(x->bridge, m, "a storage row callback", -1);
    bool more = reply != NULL && get_bool(reply);
    bmsg_free(reply);
    return more;
}

static void task_trampoline(void *user) {
    box *x = user;
    bmsg_free(call_plugin(x->bridge, callback_message(x, OP_CB_TASK), "a worker task", -1));
    free(x);
}

/* ---- the helper's service calls, served with the real tables ------------------------------------------ */

#define NEED(var, type, which)                                   \
    const type *var = service(b, which);                         \
    if (var == NULL) {                                           \
        put_u32(rep, (uint32_t)ASSIST_E_UNSUPPORTED);            \
        return;                                                  \
    }

static void put_err(bmsg *rep, char *err) {
    put_str(rep, err);
    free(err);
}

/* Keeps the host's retain `kept` of a frame in `which` for the helper; false (and released) when the helper
   holds 16 already. */
static bool keep_retained(assist_bridge *b, const assist_camera_service *camera, const assist_frame *kept,
                          uint32_t which) {
    pthread_mutex_lock(&b->lock);
    int slot = -1;
    for (int i = 0; i < 16; i++)
        if (b->retained[i].token == 0) slot = i;
    if (slot >= 0) {
        b->retained[slot].token = (uint64_t)(uintptr_t)kept;
        b->retained[slot].area = (int)which;
        if (which < AREAS) b->areas[which].holds++; /* the arena's frames are kept by the host's retain */
    }
    pthread_mutex_unlock(&b->lock);
    if (slot < 0) camera->release(b->real, kept);
    return slot >= 0;
}

/* Releases the helper's retain `token`. One it does not hold goes to the real release too, which logs the
   misbehaviour and touches nothing. */
static void release_retained(assist_bridge *b, const assist_camera_service *camera, uint64_t token) {
    pthread_mutex_lock(&b->lock);
    int found = -1;
    for (int i = 0; i < 16; i++)
        if (token != 0 && b->retained[i].token == token) found = i;
    if (found >= 0) {
        if (b->retained[found].area < AREAS) b->areas[b->retained[found].area].holds--;
        b->retained[found].token = 0;
    }
    pthread_mutex_unlock(&b->lock);
    camera->release(b->real, (const assist_frame *)(uintptr_t)(found >= 0 ? token : 1));
}

/* A frame the helper names by area; the host's own pointer never leaves it. A retain is asked for only when
   none came with the frame; a release is a note or comes with the frame's reply. */
static void serve_camera_frame(assist_bridge *b, const assist_host *h, uint32_t op, bmsg *req, bmsg *rep) {
    (void)h;
    const assist_camera_service *camera = service(b, SVC_CAMERA);
    if (camera == NULL) {
        put_u64(rep, 0);
        return;
    }
    if (op == OP_CAMERA_RETAIN) {
        uint32_t which = get_u32(req);
        pthread_mutex_lock(&b->lock);
        const assist_frame *frame = b->current_frame;
        bool matches = frame != NULL && (int)which == b->current_area;
        b->retains = true;
        pthread_mutex_unlock(&b->lock);
        const assist_frame *kept = matches ? camera->retain(b->real, frame) : NULL;
        if (kept != NULL && !keep_retained(b, camera, kept, which)) kept = NULL;
        put_u64(rep, (uint64_t)(uintptr_t)kept);
        return;
    }
    release_retained(b, camera, get_u64(req)); /* OP_CAMERA_RELEASE */
    put_u64(rep, 0);
}

/* Sends the frame message `m` (its fields written) with the retain offered, and settles the reply: the offer
   kept or given back, and the releases that came with it. */
static void deliver_frame(assist_bridge *b, const assist_frame *f, bmsg *m, uint32_t which, int send_fd) {
    const assist_camera_service *camera = service(b, SVC_CAMERA);
    pthread_mutex_lock(&b->lock);
    bool offering = b->retains && camera != NULL;
    pthread_mutex_unlock(&b->lock);
    const assist_frame *kept = offering ? camera->retain(b->real, f) : NULL;
    if (kept != NULL && !keep_retained(b, camera, kept, which)) kept = NULL;
    put_u32(m, !offering ? FRAME_OFFER_ASK : kept != NULL ? FRAME_OFFER_GIVEN : FRAME_OFFER_REFUSED);
    put_u64(m, (uint64_t)(uintptr_t)kept);
    bmsg *reply = call_plugin(b, m, "on_frame", send_fd);
    bool taken = reply != NULL && get_bool(reply);
    if (kept != NULL && !taken) release_retained(b, camera, (uint64_t)(uintptr_t)kept);
    uint32_t released = reply != NULL ? get_u32(reply) : 0;
    for (uint32_t i = 0; i < released && i < 32 && reply != NULL && !reply->bad; i++) {
        uint64_t token = get_u64(reply);
        if (camera != NULL && !reply->bad) release_retained(b, camera, token);
    }
    bmsg_free(reply);
}

/* ---- the service operations served by hand (generated/services.h calls them) ---------------------------- */

static void serve_speech_speak(assist_bridge *b, const assist_host *h, uint32_t op, bmsg *req, bmsg *rep) {
    NEED(speech, assist_speech_service, SVC_SPEECH);
    const char *text = get_str(req);
    bool has_options = get_bool(req);
    assist_speech_options o = {0};
    if (has_options && get_struct(req, &o, sizeof o, ASSIST_SIZE_THROUGH(assist_speech_options, flags))) {
        o.language = get_str(req);
        o.voice = get_str(req);
    }
    uint64_t done = get_u64(req), word = get_u64(req), user = get_u64(req);
    if (req->bad || text == NULL) {
        put_u32(rep, (uint32_t)ASSIST_E_INVALID);
        return;
    }
    box *x = (done != 0 || word != 0) ? box_new(b, (void *)(uintptr_t)done, (void *)(uintptr_t)word,
                                                (void *)(uintptr_t)user, false)
                                      : NULL;
    uint64_t id = 0;
    assist_status s = speech->speak(h, text, has_options ? &o : NULL, x ? speech_done_trampoline : NULL,
                                    x && word ? speech_word_trampoline : NULL, x, &id);
    if (s != ASSIST_OK) free(x);
    put_u32(rep, (uint32_t)s);
    put_u64(rep, id);
}

static void serve_dialog_question(assist_bridge *b, const assist_host *h, uint32_t op, bmsg *req, bmsg *rep) {
    NEED(dialog, assist_dialog_service, SVC_DIALOG);
    uint64_t fn = get_u64(req), user = get_u64(req);
    const char *prompt = get_str(req);
    box *x = box_new(b, (void *)(uintptr_t)fn, NULL, (void *)(uintptr_t)user, false);
    uint64_t request = 0;
    assist_status s = ASSIST_E_INVALID;
    if (op == OP_DIALOG_ASK_CHOICE) {
        uint32_t count = get_u32(req);
        int32_t preset = (int32_t)get_u32(req);
        const char **choices = count <= 1000 ? calloc(count + 1, sizeof *choices) : NULL;
        for (uint32_t i = 0; choices != NULL && i < count; i++) choices[i] = get_str(req);
        if (choices != NULL && !req->bad && prompt != NULL)
            s = dialog->ask_choice(h, prompt, choices, (int32_t)count, preset, dialog_trampoline, x, &request);
        free(choices);
    } else if (op == OP_DIALOG_CONFIRM) {
        bool yes = get_bool(req);
        uint32_t timeout = get_u32(req);
        if (!req->bad && prompt != NULL)
            s = dialog->confirm(h, prompt, yes, timeout, dialog_trampoline, x, &request);
    } else {
        assist_text_kind kind = (assist_text_kind)get_u32(req);
        if (!req->bad && prompt != NULL) s = dialog->ask_text(h, prompt, kind, dialog_trampoline, x, &request);
    }
    if (s != ASSIST_OK) free(x);
    put_u32(rep, (uint32_t)s);
    put_u64(rep, request);
}

static void serve_settings_get_string(assist_bridge *b, const assist_host *h, uint32_t op, bmsg *req, bmsg *rep) {
    NEED(settings, assist_settings_service, SVC_SETTINGS);
    const char *key = get_str(req);
    uint64_t cap = get_u64(req);
    if (key == NULL || cap > (1u << 20)) {
        put_u32(rep, (uint32_t)ASSIST_E_INVALID);
        return;
    }
    char *buf = cap ? malloc(cap) : NULL;
    size_t needed = 0;
    assist_status s = settings->get_string(h, key, buf, cap, &needed);
    put_u32(rep, (uint32_t)s);
    put_u64(rep, needed);
    put_str(rep, s == ASSIST_OK && buf ? buf : NULL);
    free(buf);
}

static void serve_storage_exec(assist_bridge *b, const assist_host *h, uint32_t op, bmsg *req, bmsg *rep) {
    NEED(storage, assist_storage_service, SVC_STORAGE);
    assist_db *db = (assist_db *)(uintptr_t)get_u64(req);
    const char *sql = get_str(req);
    int32_t count = 0;
    assist_value *values = get_values(req, &count);
    uint64_t fn = get_u64(req), user = get_u64(req);
    int64_t changes = 0;
    char *err = NULL;
    assist_status s = ASSIST_E_INVALID;
    if (sql != NULL && values != NULL && !req->bad) {
        box x = {.bridge = b, .fn = fn, .user = user};
        s = storage->exec(h, db, sql, values, count, fn ? row_trampoline : NULL, &x, &changes, &err);
    }
    free(values);
    put_u32(rep, (uint32_t)s);
    put_i64(rep, changes);
    put_err(rep, err);
}

static void serve_storage_media_path(assist_bridge *b, const assist_host *h, uint32_t op, bmsg *req, bmsg *rep) {
    NEED(storage, assist_storage_service, SVC_STORAGE);
    const char *name = get_str(req);
    uint64_t cap = get_u64(req);
    if (name == NULL || cap == 0 || cap > 65536) {
        put_u32(rep, (uint32_t)ASSIST_E_INVALID);
        return;
    }
    char *path = calloc(1, cap);
    char *err = NULL;
    assist_status s = op == OP_STORAGE_MEDIA_CREATE ? storage->media_create(h, name, path, cap, &err)
                                                    : storage->media_to_cache(h, name, path, cap, &err);
    put_u32(rep, (uint32_t)s);
    put_str(rep, s == ASSIST_OK ? path : NULL);
    put_err(rep, err);
    free(path);
}

static void serve_session_string(assist_bridge *b, const assist_host *h, uint32_t op, bmsg *req, bmsg *rep) {
    NEED(session, assist_session_service, SVC_SESSION);
    const char *text = op == OP_SESSION_LANGUAGE   ? session->language(h)
                       : op == OP_SESSION_DATA_DIR ? session->data_dir(h)
                       : op == OP_SESSION_CACHE_DIR ? session->cache_dir(h)
                                                    : session->share_dir(h);
    put_str(rep, text);
}

static void serve_clock_timer_add(assist_bridge *b, const assist_host *h, uint32_t op, bmsg *req, bmsg *rep) {
    NEED(clock, assist_clock_service, SVC_CLOCK);
    uint32_t ms = get_u32(req);
    bool repeat = get_bool(req);
    uint64_t fn = get_u64(req), user = get_u64(req);
    box *x = box_new(b, (void *)(uintptr_t)fn, NULL, (void *)(uintptr_t)user, repeat);
    uint64_t timer = 0;
    assist_status s = fn ? clock->timer_add(h, ms, repeat, timer_trampoline, x, &timer) : ASSIST_E_INVALID;
    if (s != ASSIST_OK && !repeat) free(x);
    put_u32(rep, (uint32_t)s);
    put_u64(rep, timer);
}

static void serve_worker_task(assist_bridge *b, const assist_host *h, uint32_t op, bmsg *req, bmsg *rep) {
    NEED(worker, assist_worker_service, SVC_WORKER);
    uint64_t fn = get_u64(req), user = get_u64(req);
    box *x = box_new(b, (void *)(uintptr_t)fn, NULL, (void *)(uintptr_t)user, false);
    assist_status s = !fn                           ? ASSIST_E_INVALID
                      : op == OP_WORKER_SCHEDULE ? worker->schedule(h, task_trampoline, x)
                                                 : worker->post_main(h, task_trampoline, x);
    if (s != ASSIST_OK) free(x);
    put_u32(rep, (uint32_t)s);
}

static void serve_events_subscribe(assist_bridge *b, const assist_host *h, uint32_t op, bmsg *req, bmsg *rep) {
    NEED(events, assist_events_service, SVC_EVENTS);
    const char *prefix = get_str(req);
    uint64_t fn = get_u64(req), user = get_u64(req);
    uint64_t subscription = 0;
    assist_status s = ASSIST_E_INVALID;
    if (prefix != NULL && fn != 0) {
        box *x = box_new(b, (void *)(uintptr_t)fn, NULL, (void *)(uintptr_t)user, true);
        s = events->subscribe(h, prefix, event_trampoline, x, &subscription);
    }
    put_u32(rep, (uint32_t)s);
    put_u64(rep, subscription);
}

static void serve_input_set_choices(assist_bridge *b, const assist_host *h, uint32_t op, bmsg *req, bmsg *rep) {
    NEED(input, assist_input_service, SVC_INPUT);
    const char *phrase = get_str(req), *prompt = get_str(req);
    uint32_t count = get_u32(req);
    if (phrase == NULL || count > 10000 || !ASSIST_HAS_FIELD(assist_input_service, input, set_choices) ||
        input->set_choices == NULL) {
        put_u32(rep, (uint32_t)(phrase && count <= 10000 ? ASSIST_E_UNSUPPORTED : ASSIST_E_INVALID));
        return;
    }
    const char **choices = count ? calloc(count, sizeof *choices) : NULL;
    int ok = count == 0 || choices != NULL;
    for (uint32_t i = 0; ok && i < count; i++) ok = (choices[i] = get_str(req)) != NULL;
    put_u32(rep, (uint32_t)(ok ? input->set_choices(h, phrase, prompt, choices, count) : ASSIST_E_INVALID));
    free(choices);
}

static void serve_outbox_request(assist_bridge *b, const assist_host *h, uint32_t op, bmsg *req, bmsg *rep) {
    NEED(outbox, assist_outbox_service, SVC_OUTBOX);
    assist_outbox_request r;
    bool ok = get_outbox_request(req, &r);
    int64_t job = 0;
    char *err = NULL;
    assist_status s = ASSIST_E_INVALID;
    if (ok && op == OP_OUTBOX_ENQUEUE) s = outbox->enqueue(h, &r, &job, &err);
    if (ok && op == OP_OUTBOX_SEND_NOW)
        s = ASSIST_HAS_FIELD(assist_outbox_service, outbox, send_now) && outbox->send_now
                ? outbox->send_now(h, &r, &job, &err)
                : ASSIST_E_UNSUPPORTED;
    if (ok) free_outbox_request(&r);
    put_u32(rep, (uint32_t)s);
    put_i64(rep, job);
    put_err(rep, err);
}

static void serve_outbox_on_outcome(assist_bridge *b, const assist_host *h, uint32_t op, bmsg *req, bmsg *rep) {
    NEED(outbox, assist_outbox_service, SVC_OUTBOX);
    uint64_t fn = get_u64(req), user = get_u64(req);
    box *x = fn ? box_new(b, (void *)(uintptr_t)fn, NULL, (void *)(uintptr_t)user, true) : NULL;
    put_u32(rep, (uint32_t)outbox->on_outcome(h, x ? outcome_trampoline : NULL, x));
}

static void serve_audio_in_open(assist_bridge *b, const assist_host *h, uint32_t op, bmsg *req, bmsg *rep) {
    NEED(audio, assist_audio_in_service, SVC_AUDIO_IN);
    uint32_t rate = get_u32(req), channels = get_u32(req);
    assist_audio_stream *stream = NULL;
    char *err = NULL;
    put_u32(rep, (uint32_t)audio->open(h, rate, channels, &stream, &err));
    put_u64(rep, (uint64_t)(uintptr_t)stream);
    put_err(rep, err);
}

static void serve_audio_in_read(assist_bridge *b, const assist_host *h, uint32_t op, bmsg *req, bmsg *rep) {
    NEED(audio, assist_audio_in_service, SVC_AUDIO_IN);
    assist_audio_stream *stream = (assist_audio_stream *)(uintptr_t)get_u64(req);
    uint32_t frames = get_u32(req), channels = get_u32(req);
    if (frames > 1u << 20 || channels == 0 || channels > 2) {
        put_u32(rep, (uint32_t)ASSIST_E_INVALID);
        return;
    }
    int16_t *buf = calloc((size_t)frames * channels + 1, sizeof *buf);
    uint32_t got = 0;
    assist_status s = audio->read(h, stream, buf, frames, &got);
    if (got > frames) got = frames;
    put_u32(rep, (uint32_t)s);
    put_u32(rep, got);
    put_bytes(rep, buf, (size_t)got * channels * sizeof *buf);
    free(buf);
}

static void serve_audio_in_close(assist_bridge *b, const assist_host *h, uint32_t op, bmsg *req, bmsg *rep) {
    NEED(audio, assist_audio_in_service, SVC_AUDIO_IN);
    audio->close(h, (assist_audio_stream *)(uintptr_t)get_u64(req));
}

static void serve_camera_subscribe(assist_bridge *b, const assist_host *h, uint32_t op, bmsg *req, bmsg *rep) {
    NEED(camera, assist_camera_service, SVC_CAMERA);
    assist_camera_request r;
    if (!get_struct(req, &r, sizeof r, ASSIST_SIZE_THROUGH(assist_camera_request, flags))) {
        put_u32(rep, (uint32_t)ASSIST_E_INVALID);
        put_err(rep, NULL);
        return;
    }
    char *err = NULL;
    put_u32(rep, (uint32_t)camera->subscribe(h, &r, &err));
    put_err(rep, err);
}

static void serve_camera_unsubscribe(assist_bridge *b, const assist_host *h, uint32_t op, bmsg *req, bmsg *rep) {
    NEED(camera, assist_camera_service, SVC_CAMERA);
    put_u32(rep, (uint32_t)camera->unsubscribe(h));
}

static void serve_camera_control(assist_bridge *b, const assist_host *h, uint32_t op, bmsg *req, bmsg *rep) {
    NEED(camera, assist_camera_service, SVC_CAMERA);
    const char *name = get_str(req);
    int64_t value = get_i64(req), minimum = 0, maximum = 0;
    put_u32(rep, (uint32_t)(name ? camera->control(h, name, &value, &minimum, &maximum) : ASSIST_E_INVALID));
    put_i64(rep, value);
    put_i64(rep, minimum);
    put_i64(rep, maximum);
}

static void serve_camera_stats(assist_bridge *b, const assist_host *h, uint32_t op, bmsg *req, bmsg *rep) {
    NEED(camera, assist_camera_service, SVC_CAMERA);
    assist_camera_stats s = {0};
    s.struct_size = sizeof s;
    assist_status status = camera->stats(h, &s);
    put_u32(rep, (uint32_t)status);
    if (status == ASSIST_OK) put_whole(rep, assist_camera_stats, s);
}

static void host_handle(bchan *c, bmsg *req, bmsg *rep) {
    assist_bridge *b = c->user;
    const assist_host *h = b->real;
    uint32_t op = bmsg_op(req);
    if (bridge_serve_generated(b, h, op, req, rep)) return;
    switch (op) {
    case OP_GET_SERVICE: {
        const char *id = get_str(req);
        int which = -1;
        for (int i = 0; id != NULL && i < SVC_COUNT; i++)
            if (strcmp(id, service_ids[i]) == 0) which = i;
        const void *table = which < 0 ? NULL : service(b, which);
        uint64_t present = 0;
        if (table != NULL) {
            /* Which function slots the host fills: the helper leaves the others NULL, as the host does. */
            uint32_t size = *(const uint32_t *)table;
            const char *base = table;
            size_t slots = (size - sizeof(void *)) / sizeof(void *);
            for (size_t i = 0; i < slots && i < 63; i++) {
                void *slot;
                memcpy(&slot, base + sizeof(void *) * (i + 1), sizeof slot);
                if (slot != NULL) present |= 1ull << i;
            }
            present |= 1ull << 63;
        }
        put_u64(rep, present);
        break;
    }
    default:
        req->bad = true; /* an operation the host does not serve: the helper is not ours */
        break;
    }
}

/* ---- the plugin's instance, as the host sees it -------------------------------------------------------- */

static assist_bridge *of(assist_plugin *p) { return p->plugin_data; }

static char *reply_error(assist_bridge *b, bmsg *reply) {
    const char *text = reply != NULL ? get_str(reply) : NULL;
    return host_string(b, text);
}

static assist_status p_start(assist_plugin *p, int32_t argc, const char *const *argv, char **err) {
    assist_bridge *b = of(p);
    bmsg *m = bmsg_new(BRIDGE_REQUEST, OP_START);
    put_u32(m, (uint32_t)(argc < 0 ? 0 : argc));
    for (int32_t i = 0; i < argc; i++) put_str(m, argv[i]);
    bmsg *reply = call_plugin(b, m, "start", -1);
    if (reply == NULL) return ASSIST_E_INTERNAL;
    assist_status s = (assist_status)get_u32(reply);
    char *text = reply_error(b, reply);
    if (err != NULL) *err = text;
    else if (text != NULL) free(text);
    bmsg_free(reply);
    return s;
}

static void simple_call(assist_plugin *p, uint32_t op, const char *name) {
    bmsg_free(call_plugin(of(p), bmsg_new(BRIDGE_REQUEST, op), name, -1));
}

static void p_pause(assist_plugin *p) { simple_call(p, OP_PAUSE, "pause"); }
static void p_resume(assist_plugin *p) { simple_call(p, OP_RESUME, "resume"); }
static void p_stop(assist_plugin *p) { simple_call(p, OP_STOP, "stop"); }

static void p_command(assist_plugin *p, const char *cmd, const char *arg) {
    bmsg *m = bmsg_new(BRIDGE_REQUEST, OP_COMMAND);
    put_str(m, cmd);
    put_str(m, arg);
    bmsg_free(call_plugin(of(p), m, "on_command", -1));
}

static const void *p_extension(assist_plugin *p, const char *id) {
    (void)p;
    (void)id;
    return NULL; /* a plugin's pointers mean nothing in the host's address space */
}

static void p_destroy(assist_plugin *p) {
    simple_call(p, OP_DESTROY, "destroy");
    free(p);
}

/* The frame message: the area, its size, the frame whole and each plane's offset in the area. */
static bmsg *frame_message(uint32_t which, uint64_t area_size, const assist_frame *fr, const uint64_t *offsets) {
    bmsg *m = bmsg_new(BRIDGE_REQUEST, OP_FRAME);
    put_u32(m, which);
    put_u64(m, area_size);
    put_whole(m, assist_frame, *fr);
    for (uint32_t i = 0; i < fr->plane_count; i++) put_u64(m, offsets[i]);
    return m;
}

/* Copies the frame into shared memory the helper maps once; the frame thread waits for on_frame. */
static void p_frame(assist_plugin *p, const assist_frame *f) {
    assist_bridge *b = of(p);
    assist_frame fr;
    if (!assist_struct_copy(&fr, sizeof fr, f, ASSIST_SIZE_THROUGH(assist_frame, seq)) || fr.plane_count > 3) return;
    size_t sizes[3] = {0}, total = 0;
    for (uint32_t i = 0; i < fr.plane_count; i++) {
        sizes[i] = (size_t)plane_span(fr.fourcc, fr.width, fr.height, fr.stride[i]);
        if (sizes[i] == 0 || fr.plane[i] == NULL) return;
        total += (sizes[i] + 63) & ~(size_t)63;
    }
    if (total == 0) return;
    /* A frame already in the shared arena goes as offsets: no copy. */
    uint64_t offsets[3] = {0}, arena_size = 0;
    int arena_fd = -1;
    bool shared = true;
    for (uint32_t i = 0; i < fr.plane_count && shared; i++)
        shared = assist_shared_frames_locate(fr.plane[i], sizes[i], &offsets[i], &arena_fd, &arena_size);
    if (shared) {
        pthread_mutex_lock(&b->lock);
        int send_fd = b->arena_sent ? -1 : arena_fd;
        b->arena_sent = true;
        b->current_frame = f;
        b->current_area = (int)ARENA_AREA;
        pthread_mutex_unlock(&b->lock);
        bmsg *m = frame_message(ARENA_AREA, arena_size, &fr, offsets);
        deliver_frame(b, f, m, ARENA_AREA, send_fd);
        pthread_mutex_lock(&b->lock);
        b->current_frame = NULL;
        b->current_area = -1;
        pthread_mutex_unlock(&b->lock);
        return;
    }
    pthread_mutex_lock(&b->lock);
    int which = -1;
    for (int i = 0; i < AREAS && which < 0; i++)
        if (b->areas[i].map != NULL && b->areas[i].holds == 0 && b->areas[i].size >= total) which = i;
    for (int i = 0; i < AREAS && which < 0; i++) {
        if (b->areas[i].map != NULL && b->areas[i].holds == 0) {
            /* too small: replaced by a larger one, sent again */
            munmap(b->areas[i].map, b->areas[i].size);
            close(b->areas[i].fd);
            memset(&b->areas[i], 0, sizeof b->areas[i]);
        }
        if (b->areas[i].map == NULL) {
            size_t size = (total + (1u << 20) - 1) & ~(size_t)((1u << 20) - 1);
            int fd = memfd_create("assist-frame", MFD_CLOEXEC);
            if (fd < 0 || ftruncate(fd, (off_t)size) != 0) {
                if (fd >= 0) close(fd);
                break;
            }
            void *map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
            if (map == MAP_FAILED) {
                close(fd);
                break;
            }
            b->areas[i] = (area){.fd = fd, .map = map, .size = size};
            which = i;
        }
    }
    if (which < 0) { /* every area held by retained frames: this frame is dropped */
        pthread_mutex_unlock(&b->lock);
        return;
    }
    area *a = &b->areas[which];
    a->holds = 1;
    int send_fd = a->sent ? -1 : a->fd;
    a->sent = true;
    b->current_frame = f;
    b->current_area = which;
    pthread_mutex_unlock(&b->lock);

    size_t offset = 0;
    for (uint32_t i = 0; i < fr.plane_count; i++) {
        memcpy(a->map + offset, fr.plane[i], sizes[i]);
        offsets[i] = offset;
        offset += (sizes[i] + 63) & ~(size_t)63;
    }
    bmsg *m = frame_message((uint32_t)which, a->size, &fr, offsets);
    deliver_frame(b, f, m, (uint32_t)which, send_fd);
    pthread_mutex_lock(&b->lock);
    b->current_frame = NULL;
    b->current_area = -1;
    a->holds--;
    pthread_mutex_unlock(&b->lock);
}

/* ---- the entry ------------------------------------------------------------------------------------------ */

static bool e_init(const assist_host *h) {
    assist_bridge *b = bridge_for(h);
    if (b == NULL) return false;
    bmsg *reply = call_plugin(b, bmsg_new(BRIDGE_REQUEST, OP_INIT), "init", -1);
    bool ok = reply != NULL && get_bool(reply);
    bmsg_free(reply);
    return ok;
}

static void e_deinit(void) { /* the helper's library is undone when the helper ends */ }

static assist_plugin *e_create(const assist_host *h, char **err) {
    assist_bridge *b = bridge_for(h);
    if (b == NULL) return NULL;
    bmsg *reply = call_plugin(b, bmsg_new(BRIDGE_REQUEST, OP_CREATE), "create", -1);
    if (reply == NULL) return NULL;
    bool ok = get_bool(reply);
    uint32_t has = get_u32(reply);
    char *text = reply_error(b, reply);
    bmsg_free(reply);
    if (!ok) {
        if (err != NULL) *err = text;
        else free(text);
        return NULL;
    }
    free(text);
    assist_plugin *p = calloc(1, sizeof *p);
    if (p == NULL) return NULL;
    p->struct_size = sizeof *p;
    p->plugin_data = b;
    p->start = p_start;
    p->pause = p_pause;
    p->resume = p_resume;
    p->stop = p_stop;
    p->on_command = p_command;
    p->on_frame = (has & 1u) ? p_frame : NULL;
    p->get_extension = p_extension;
    p->destroy = p_destroy;
    return p;
}

/* ---- the helper process --------------------------------------------------------------------------------- */

static void describe(assist_bridge *b, char *out, size_t cap, bool *expected) {
    pthread_mutex_lock(&b->lock);
    /* The calls running when it ended, each named once: "on_frame or a timer callback". */
    char running[160] = "";
    for (int i = 0; i < 16; i++) {
        const char *name = b->in_flight[i];
        if (name == NULL || strstr(running, name) != NULL) continue;
        size_t used = strlen(running);
        snprintf(running + used, sizeof running - used, "%s%s", used ? " or " : "", name);
    }
    bool busy = running[0] != 0;
    const char *call = busy ? running : b->last_call ? b->last_call : "loading";
    bool pinging = b->pinging;
    int status = b->wait_status;
    bool closing = b->closing;
    pthread_mutex_unlock(&b->lock);
    pthread_mutex_lock(&b->chan.lock);
    char why[sizeof b->chan.why];
    memcpy(why, b->chan.why, sizeof why);
    pthread_mutex_unlock(&b->chan.lock);
    /* Silent while no call of the host's was open: the ping found it. */
    if (!busy && pinging && strncmp(why, "it did not answer", 17) == 0) {
        call = "a ping";
        busy = true;
    }
    *expected = closing;
    if (closing) {
        snprintf(out, cap, "ended");
    } else if (why[0] != 0 && strcmp(why, "its connection closed") != 0 && strcmp(why, "its process ended") != 0) {
        snprintf(out, cap, "%s %s %s", why + 3 /* "it " */, busy ? "in" : "after", call);
    } else if (WIFSIGNALED(status)) {
        const char *name = sigabbrev_np(WTERMSIG(status));
        if (busy) snprintf(out, cap, "crashed in %s (SIG%s)", call, name ? name : "?");
        else snprintf(out, cap, "crashed on its own after %s (SIG%s)", call, name ? name : "?");
    } else if (WIFEXITED(status)) {
        snprintf(out, cap, "exited with status %d %s %s", WEXITSTATUS(status), busy ? "in" : "after", call);
    } else {
        snprintf(out, cap, "ended %s %s", busy ? "in" : "after", call);
    }
}

static void *watcher(void *arg) {
    assist_bridge *b = arg;
    int status = 0;
    while (waitpid(b->pid, &status, 0) < 0 && errno == EINTR) {}
    /* Anything the plugin forked goes with it: the helper leads its own process group. */
    kill(-b->pid, SIGKILL);
    pthread_mutex_lock(&b->lock);
    b->wait_status = status;
    b->reaped = true;
    pthread_cond_broadcast(&b->reaped_cond);
    pthread_mutex_unlock(&b->lock);
    bchan_kill(&b->chan, "its process ended");
    char text[300];
    bool expected = false;
    describe(b, text, sizeof text, &expected);
    pthread_mutex_lock(&b->lock);
    memcpy(b->description, text, sizeof text);
    b->reported = true;
    pthread_cond_broadcast(&b->reaped_cond);
    pthread_mutex_unlock(&b->lock);
    if (b->on_death != NULL) b->on_death(b->user, text, expected);
    return NULL;
}

/* Every 2 s the helper is asked to answer on a lane of its own, served by a thread of its own: a helper that
   cannot answer within the time limit (stopped, deadlocked in its allocator) is ended even when no call of
   the host's is waiting on it. */
static void *pinger(void *arg) {
    assist_bridge *b = arg;
    for (;;) {
        struct timespec pause = {2, 0};
        while (nanosleep(&pause, &pause) != 0) {}
        if (bchan_is_dead(&b->chan)) break;
        /* Marked before it is sent: the watcher may describe the end before this thread wakes. */
        pthread_mutex_lock(&b->lock);
        b->pinging = true;
        pthread_mutex_unlock(&b->lock);
        bmsg *reply = bchan_call(&b->chan, bmsg_new(BRIDGE_REQUEST, OP_PING), -1);
        if (reply == NULL) break;
        pthread_mutex_lock(&b->lock);
        b->pinging = false;
        pthread_mutex_unlock(&b->lock);
        bmsg_free(reply);
    }
    return NULL;
}

/* Waits up to `ms` for `*flag` (one of the bridge's, set under its lock with `reaped_cond` broadcast); its
   value then. */
static bool wait_for(assist_bridge *b, const bool *flag, int ms) {
    struct timespec until;
    deadline_after(&until, ms);
    pthread_mutex_lock(&b->lock);
    while (!*flag && pthread_cond_timedwait(&b->reaped_cond, &b->lock, &until) != ETIMEDOUT) {}
    bool value = *flag;
    pthread_mutex_unlock(&b->lock);
    return value;
}

/* The socket closed or broke: a helper still running then (it closed the socket, or broke the protocol, or
   hung) is ended; the watcher reports. */
static void channel_dead(bchan *c) {
    assist_bridge *b = c->user;
    pthread_mutex_lock(&c->lock);
    bool clean = strcmp(c->why, "its connection closed") == 0 || strcmp(c->why, "its process ended") == 0;
    pthread_mutex_unlock(&c->lock);
    if (!wait_for(b, &b->reaped, clean ? 1000 : 0)) kill(-b->pid, SIGKILL);
}

void assist_bridge_kill(assist_bridge *b, const char *why) {
    bchan_kill(&b->chan, why);
    kill(-b->pid, SIGKILL);
}

void assist_bridge_close(assist_bridge *b, int32_t wait_ms) {
    /* Only a helper still answering ends as expected; one already gone keeps how it went. */
    bool alive = !bchan_is_dead(&b->chan);
    pthread_mutex_lock(&b->lock);
    if (alive) b->closing = true;
    pthread_mutex_unlock(&b->lock);
    shutdown(b->chan.fd, SHUT_WR); /* the helper reads the end and leaves */
    if (!wait_for(b, &b->reaped, wait_ms)) kill(-b->pid, SIGKILL);
}

bool assist_bridge_wait_end(assist_bridge *b, int32_t wait_ms, char *out, size_t cap) {
    bool reported = wait_for(b, &b->reported, wait_ms);
    pthread_mutex_lock(&b->lock);
    if (reported && cap > 0) snprintf(out, cap, "%s", b->description);
    pthread_mutex_unlock(&b->lock);
    return reported;
}

const assist_entry *assist_bridge_entry(assist_bridge *b) { return &b->entry; }
int32_t assist_bridge_pid(const assist_bridge *b) { return b->pid; }
bool assist_bridge_alive(assist_bridge *b) { return !bchan_is_dead(&b->chan); }

uint64_t assist_bridge_messages(assist_bridge *b) { return __atomic_load_n(&b->chan.received, __ATOMIC_RELAXED); }

static char *message(const char *text) {
    char *copy = strdup(text);
    if (copy == NULL) abort();
    return copy;
}

assist_bridge *assist_bridge_spawn(const char *executable, const char *library, const assist_host *host,
                                   int32_t timeout_ms, assist_bridge_death_cb on_death, void *user, char **err) {
    /* From now on large frames are captured where helpers can map them. */
    assist_shared_frames_enable(ARENA_BYTES);
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        *err = message("no socket for the helper process");
        return NULL;
    }
    /* The child's end becomes descriptor 3 (dup2 clears close-on-exec); everything else stays closed. */
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    int child_fd = sv[1];
    if (child_fd == 3) {
        child_fd = fcntl(sv[1], F_DUPFD_CLOEXEC, 10);
    }
    posix_spawn_file_actions_adddup2(&actions, child_fd, 3);
    /* The helper leads a process group of its own (a terminal's Ctrl+C is the host's to handle), so it must
       never read the terminal: that would stop it (SIGTTIN). Its output and log lines go where the host's do. */
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    posix_spawnattr_setpgroup(&attr, 0);
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &all);
    /* The helper's environment: the host's, with Swift's backtracer off (a crash there is reported here). */
    size_t count = 0;
    while (environ[count] != NULL) count++;
    char **env = calloc(count + 2, sizeof *env);
    size_t n = 0;
    for (size_t i = 0; i < count; i++)
        if (strncmp(environ[i], "SWIFT_BACKTRACE=", 16) != 0) env[n++] = environ[i];
    env[n++] = "SWIFT_BACKTRACE=enable=no";
    char *argv[] = {(char *)executable, "_plugin-helper", "3", NULL};
    pid_t pid = 0;
    int rc = posix_spawn(&pid, executable, &actions, &attr, argv, env);
    free(env);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    if (child_fd != sv[1]) close(child_fd);
    close(sv[1]);
    if (rc != 0) {
        close(sv[0]);
        char text[300];
        snprintf(text, sizeof text, "the helper process could not start: %s", strerror(rc));
        *err = message(text);
        return NULL;
    }
    assist_bridge *b = calloc(1, sizeof *b);
    if (b == NULL) abort();
    b->pid = pid;
    b->real = host;
    b->on_death = on_death;
    b->user = user;
    b->current_area = -1;
    pthread_mutex_init(&b->lock, NULL);
    pthread_condattr_t cattr;
    pthread_condattr_init(&cattr);
    pthread_condattr_setclock(&cattr, CLOCK_MONOTONIC);
    pthread_cond_init(&b->reaped_cond, &cattr);
    pthread_condattr_destroy(&cattr);
    b->chan.timeout_ms = timeout_ms > 0 ? timeout_ms : 5000;
    pthread_mutex_lock(&registry_lock);
    registered *r = calloc(1, sizeof *r);
    if (r == NULL) abort();
    r->host = host;
    r->bridge = b;
    r->next = registry;
    registry = r;
    pthread_mutex_unlock(&registry_lock);
    if (bchan_start(&b->chan, sv[0], 2, host_handle, channel_dead, b) != 0) {
        kill(-pid, SIGKILL);
        waitpid(pid, NULL, 0);
        *err = message("no thread for the helper process");
        return NULL;
    }
    pthread_t thread;
    pthread_create(&thread, NULL, watcher, b);
    pthread_detach(thread);
    pthread_t ping;
    if (pthread_create(&ping, NULL, pinger, b) == 0) pthread_detach(ping);

    bmsg *m = bmsg_new(BRIDGE_REQUEST, OP_OPEN);
    put_u32(m, BRIDGE_PROTOCOL);
    put_str(m, library);
    put_str(m, host->host_version);
    bmsg *reply = call_plugin(b, m, "loading", -1);
    if (reply == NULL) {
        char text[300];
        bool expected;
        wait_for(b, &b->reaped, 2000); /* so the description has the status */
        describe(b, text, sizeof text, &expected);
        char full[400];
        snprintf(full, sizeof full, "the helper process %s", text);
        *err = message(full);
        return NULL;
    }
    bool ok = get_bool(reply);
    const char *error = get_str(reply);
    if (!ok) {
        *err = message(error ? error : "the helper could not open the library");
        bmsg_free(reply);
        assist_bridge_close(b, 1000);
        return NULL;
    }
    b->entry.struct_size = sizeof b->entry;
    b->entry.abi.major = (uint16_t)get_u32(reply);
    b->entry.abi.minor = (uint16_t)get_u32(reply);
    const char *id = get_str(reply), *version = get_str(reply);
    bool has_init = get_bool(reply), has_deinit = get_bool(reply), has_create = get_bool(reply);
    b->id = strdup(id ? id : "");
    b->version = strdup(version ? version : "");
    bmsg_free(reply);
    b->entry.id = b->id;
    b->entry.version = b->version;
    b->entry.init = has_init ? e_init : NULL;
    b->entry.deinit = has_deinit ? e_deinit : NULL;
    b->entry.create = has_create ? e_create : NULL;
    return b;
}

static const void *fuzz_no_service(const assist_host *h, const char *id) {
    (void)h;
    (void)id;
    return NULL;
}

void assist_bridge_fuzz_serve(const uint8_t *data, size_t size) {
    static const assist_host nothing = {.struct_size = sizeof(assist_host), .get_service = fuzz_no_service};
    assist_bridge *b = calloc(1, sizeof *b);
    if (b == NULL) return;
    pthread_mutex_init(&b->lock, NULL);
    b->real = &nothing;
    bmsg *req = bmsg_from_bytes(data, size);
    uint32_t op = OP_FIRST_SERVICE + bmsg_op(req) % (OP_SERVICE_END - OP_FIRST_SERVICE);
    bmsg *rep = bmsg_new(BRIDGE_REPLY, op);
    bridge_serve_generated(b, &nothing, op, req, rep);
    bmsg_free(rep);
    bmsg_free(req);
    pthread_mutex_destroy(&b->lock);
    free(b);
}
