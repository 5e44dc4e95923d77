/* The host's side of a helper, its service calls: each served with the real table, as the plugin would call it
   in process. What the rules carry is generated (generated/services.h); the rest is written here. */
#define _GNU_SOURCE
#include "host_bridge.h"

#include <stdlib.h>
#include <string.h>

#define BRIDGE_HOST
#include "generated/services.h"

/* ---- the helper's service calls, served with the real tables ------------------------------------------ */

#define NEED(var, type, which)                                   \
    const type *var = bridge_service(b, which);                  \
    if (var == NULL) {                                           \
        put_u32(rep, (uint32_t)ASSIST_E_UNSUPPORTED);            \
        return;                                                  \
    }

static void put_err(bmsg *rep, char *err) {
    put_str(rep, err);
    free(err);
}

/* A frame the helper names by area; the host's own pointer never leaves it. A retain is asked for only when
   none came with the frame; a release is a note or comes with the frame's reply. */
void serve_camera_frame(assist_bridge *b, const assist_host *h, uint32_t op, bmsg *req, bmsg *rep) {
    (void)h;
    const assist_camera_service *camera = bridge_service(b, SVC_CAMERA);
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

/* ---- the other service operations served by hand (generated/services.h calls them) ---------------------- */

void serve_speech_speak(assist_bridge *b, const assist_host *h, uint32_t op, bmsg *req, bmsg *rep) {
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

void serve_dialog_question(assist_bridge *b, const assist_host *h, uint32_t op, bmsg *req, bmsg *rep) {
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

void serve_settings_get_string(assist_bridge *b, const assist_host *h, uint32_t op, bmsg *req, bmsg *rep) {
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

void serve_storage_exec(assist_bridge *b, const assist_host *h, uint32_t op, bmsg *req, bmsg *rep) {
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

void serve_storage_media_path(assist_bridge *b, const assist_host *h, uint32_t op, bmsg *req, bmsg *rep) {
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

void serve_session_string(assist_bridge *b, const assist_host *h, uint32_t op, bmsg *req, bmsg *rep) {
    NEED(session, assist_session_service, SVC_SESSION);
    const char *text = op == OP_SESSION_LANGUAGE   ? session->language(h)
                       : op == OP_SESSION_DATA_DIR ? session->data_dir(h)
                       : op == OP_SESSION_CACHE_DIR ? session->cache_dir(h)
                                                    : session->share_dir(h);
    put_str(rep, text);
}

void serve_clock_timer_add(assist_bridge *b, const assist_host *h, uint32_t op, bmsg *req, bmsg *rep) {
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

void serve_worker_task(assist_bridge *b, const assist_host *h, uint32_t op, bmsg *req, bmsg *rep) {
    NEED(worker, assist_worker_service, SVC_WORKER);
    uint64_t fn = get_u64(req), user = get_u64(req);
    box *x = box_new(b, (void *)(uintptr_t)fn, NULL, (void *)(uintptr_t)user, false);
    assist_status s = !fn                           ? ASSIST_E_INVALID
                      : op == OP_WORKER_SCHEDULE ? worker->schedule(h, task_trampoline, x)
                                                 : worker->post_main(h, task_trampoline, x);
    if (s != ASSIST_OK) free(x);
    put_u32(rep, (uint32_t)s);
}

void serve_events_subscribe(assist_bridge *b, const assist_host *h, uint32_t op, bmsg *req, bmsg *rep) {
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

void serve_input_set_choices(assist_bridge *b, const assist_host *h, uint32_t op, bmsg *req, bmsg *rep) {
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

void serve_outbox_request(assist_bridge *b, const assist_host *h, uint32_t op, bmsg *req, bmsg *rep) {
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

void serve_outbox_on_outcome(assist_bridge *b, const assist_host *h, uint32_t op, bmsg *req, bmsg *rep) {
    NEED(outbox, assist_outbox_service, SVC_OUTBOX);
    uint64_t fn = get_u64(req), user = get_u64(req);
    box *x = fn ? box_new(b, (void *)(uintptr_t)fn, NULL, (void *)(uintptr_t)user, true) : NULL;
    put_u32(rep, (uint32_t)outbox->on_outcome(h, x ? outcome_trampoline : NULL, x));
}

void serve_audio_in_open(assist_bridge *b, const assist_host *h, uint32_t op, bmsg *req, bmsg *rep) {
    NEED(audio, assist_audio_in_service, SVC_AUDIO_IN);
    uint32_t rate = get_u32(req), channels = get_u32(req);
    assist_audio_stream *stream = NULL;
    char *err = NULL;
    put_u32(rep, (uint32_t)audio->open(h, rate, channels, &stream, &err));
    put_u64(rep, (uint64_t)(uintptr_t)stream);
    put_err(rep, err);
}

void serve_audio_in_read(assist_bridge *b, const assist_host *h, uint32_t op, bmsg *req, bmsg *rep) {
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

void serve_audio_in_close(assist_bridge *b, const assist_host *h, uint32_t op, bmsg *req, bmsg *rep) {
    NEED(audio, assist_audio_in_service, SVC_AUDIO_IN);
    audio->close(h, (assist_audio_stream *)(uintptr_t)get_u64(req));
}

void serve_camera_subscribe(assist_bridge *b, const assist_host *h, uint32_t op, bmsg *req, bmsg *rep) {
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

void serve_camera_unsubscribe(assist_bridge *b, const assist_host *h, uint32_t op, bmsg *req, bmsg *rep) {
    NEED(camera, assist_camera_service, SVC_CAMERA);
    put_u32(rep, (uint32_t)camera->unsubscribe(h));
}

void serve_camera_control(assist_bridge *b, const assist_host *h, uint32_t op, bmsg *req, bmsg *rep) {
    NEED(camera, assist_camera_service, SVC_CAMERA);
    const char *name = get_str(req);
    int64_t value = get_i64(req), minimum = 0, maximum = 0;
    put_u32(rep, (uint32_t)(name ? camera->control(h, name, &value, &minimum, &maximum) : ASSIST_E_INVALID));
    put_i64(rep, value);
    put_i64(rep, minimum);
    put_i64(rep, maximum);
}

void serve_camera_stats(assist_bridge *b, const assist_host *h, uint32_t op, bmsg *req, bmsg *rep) {
    NEED(camera, assist_camera_service, SVC_CAMERA);
    assist_camera_stats s = {0};
    s.struct_size = sizeof s;
    assist_status status = camera->stats(h, &s);
    put_u32(rep, (uint32_t)status);
    if (status == ASSIST_OK) put_whole(rep, assist_camera_stats, s);
}

void host_handle(bchan *c, bmsg *req, bmsg *rep) {
    assist_bridge *b = c->user;
    const assist_host *h = b->real;
    uint32_t op = bmsg_op(req);
    if (bridge_serve_generated(b, h, op, req, rep)) return;
    switch (op) {
    case OP_GET_SERVICE: {
        const char *id = get_str(req);
        int which = bridge_service_which(id);
        const void *table = which < 0 ? NULL : bridge_service(b, which);
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
