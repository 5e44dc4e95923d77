/* The helper's proxies written by hand: the service calls whose arguments the generated rules do not carry
   (callbacks, structs, arrays, buffers), each sent to the host as one message. */
#define _GNU_SOURCE
#include "handoff.h"
#include "helper_bridge.h"

#include <stdlib.h>
#include <string.h>

/* ---- assist.log/1, speech, dialog ---------------------------------------------------------------------- */

assist_status h_speech_speak(const assist_host *h, const char *text, const assist_speech_options *options,
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

assist_status h_dialog_ask_choice(const assist_host *h, const char *prompt, const char *const *choices,
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

assist_status h_dialog_confirm(const assist_host *h, const char *prompt, bool default_yes, uint32_t timeout_ms,
                               assist_dialog_cb cb, void *user, uint64_t *req) {
    (void)h;
    if (cb == NULL) return ASSIST_E_INVALID;
    bmsg *m = dialog_request(OP_DIALOG_CONFIRM, cb, user, prompt);
    put_bool(m, default_yes);
    put_u32(m, timeout_ms);
    return call_with_id(m, req);
}

assist_status h_dialog_ask_text(const assist_host *h, const char *prompt, assist_text_kind kind, assist_dialog_cb cb,
                                void *user, uint64_t *req) {
    (void)h;
    if (cb == NULL) return ASSIST_E_INVALID;
    bmsg *m = dialog_request(OP_DIALOG_ASK_TEXT, cb, user, prompt);
    put_u32(m, (uint32_t)kind);
    return call_with_id(m, req);
}

/* ---- settings ----------------------------------------------------------------------------------------- */

assist_status h_settings_get_string(const assist_host *h, const char *key, char *buf, size_t cap, size_t *needed) {
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

assist_status h_storage_exec(const assist_host *h, assist_db *db, const char *sql, const assist_value *params,
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
    return call_with_number(m, changes, err);
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
assist_status h_storage_media_create(const assist_host *h, const char *name, char *path, size_t cap, char **err) {
    (void)h;
    return media_path(OP_STORAGE_MEDIA_CREATE, name, path, cap, err);
}
assist_status h_storage_media_to_cache(const assist_host *h, const char *name, char *path, size_t cap, char **err) {
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
const char *h_session_language(const assist_host *h) {
    (void)h;
    return session_string(OP_SESSION_LANGUAGE);
}
const char *h_session_data_dir(const assist_host *h) {
    (void)h;
    return session_string(OP_SESSION_DATA_DIR);
}
const char *h_session_cache_dir(const assist_host *h) {
    (void)h;
    return session_string(OP_SESSION_CACHE_DIR);
}
const char *h_session_share_dir(const assist_host *h) {
    (void)h;
    return session_string(OP_SESSION_SHARE_DIR);
}

assist_status h_clock_timer_add(const assist_host *h, uint32_t ms, bool repeat, assist_timer_cb cb, void *user,
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
    HANDOFF_GIVE(user);
    bmsg *m = request(op);
    put_u64(m, U64(fn));
    put_u64(m, U64(user));
    return simple(m);
}
assist_status h_worker_schedule(const assist_host *h, assist_task_fn fn, void *user) {
    (void)h;
    return task_call(OP_WORKER_SCHEDULE, fn, user);
}
assist_status h_worker_post_main(const assist_host *h, assist_task_fn fn, void *user) {
    (void)h;
    return task_call(OP_WORKER_POST_MAIN, fn, user);
}

assist_status h_events_subscribe(const assist_host *h, const char *prefix, assist_event_cb cb, void *user,
                                 uint64_t *subscription) {
    (void)h;
    bmsg *m = request(OP_EVENTS_SUBSCRIBE);
    put_str(m, prefix);
    put_u64(m, U64(cb));
    put_u64(m, U64(user));
    return call_with_id(m, subscription);
}

assist_status h_input_set_choices(const assist_host *h, const char *phrase, const char *prompt,
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
    return call_with_number(m, job, err);
}
assist_status h_outbox_enqueue(const assist_host *h, const assist_outbox_request *r, int64_t *job, char **err) {
    (void)h;
    return outbox_send(OP_OUTBOX_ENQUEUE, r, job, err);
}
assist_status h_outbox_send_now(const assist_host *h, const assist_outbox_request *r, int64_t *job, char **err) {
    (void)h;
    return outbox_send(OP_OUTBOX_SEND_NOW, r, job, err);
}
assist_status h_outbox_on_outcome(const assist_host *h, assist_outbox_outcome_cb cb, void *user) {
    (void)h;
    bmsg *m = request(OP_OUTBOX_ON_OUTCOME);
    put_u64(m, U64(cb));
    put_u64(m, U64(user));
    return simple(m);
}

/* The stream's channel count, kept here so a read knows the buffer's shape. */
static uint32_t stream_channels = 1;

assist_status h_audio_in_open(const assist_host *h, uint32_t rate, uint32_t channels, assist_audio_stream **out,
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
assist_status h_audio_in_read(const assist_host *h, assist_audio_stream *stream, int16_t *buf, uint32_t frames,
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
void h_audio_in_close(const assist_host *h, assist_audio_stream *stream) {
    (void)h;
    bmsg *m = request(OP_AUDIO_IN_CLOSE);
    put_u64(m, U64(stream));
    bmsg_free(rpc(m));
}
