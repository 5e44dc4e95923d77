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

static bool simple_bool(bmsg *m) {
    bmsg *reply = rpc(m);
    bool v = reply != NULL && get_u32(reply) == 1;
    bmsg_free(reply);
    return v;
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

static void h_log(const assist_host *h, assist_log_level level, const char *msg) {
    (void)h;
    bmsg *m = request(OP_LOG);
    put_u32(m, (uint32_t)level);
    put_str(m, msg);
    bmsg_free(rpc(m));
}

static assist_status h_speak(const assist_host *h, const char *text, const assist_speech_options *options,
                             assist_speech_done_cb on_done, assist_speech_word_cb on_word, void *user,
                             uint64_t *out_id) {
    (void)h;
    assist_speech_options o;
    bool has = assist_struct_copy(&o, sizeof o, options, ASSIST_SIZE_THROUGH(assist_speech_options, flags));
    bmsg *m = request(OP_SPEECH_SPEAK);
    put_str(m, text);
    put_bool(m, has);
    put_u32(m, (uint32_t)o.priority);
    put_str(m, o.language);
    put_str(m, o.voice);
    put_u32(m, (uint32_t)o.words_per_minute);
    put_u32(m, o.flags);
    put_u64(m, U64(on_done));
    put_u64(m, U64(on_word));
    put_u64(m, U64(user));
    return call_with_id(m, out_id);
}

static assist_status h_speech_stop(const assist_host *h, uint64_t utterance) {
    (void)h;
    bmsg *m = request(OP_SPEECH_STOP);
    put_u64(m, utterance);
    return simple(m);
}
static assist_status h_cancel_mine(const assist_host *h) { (void)h; return simple(request(OP_SPEECH_CANCEL_MINE)); }
static assist_status h_speech_pause(const assist_host *h) { (void)h; return simple(request(OP_SPEECH_PAUSE)); }
static assist_status h_speech_resume(const assist_host *h) { (void)h; return simple(request(OP_SPEECH_RESUME)); }
static bool h_is_speaking(const assist_host *h) { (void)h; return simple_bool(request(OP_SPEECH_IS_SPEAKING)); }
static assist_status h_print(const assist_host *h, const char *text) {
    (void)h;
    bmsg *m = request(OP_SPEECH_PRINT);
    put_str(m, text);
    return simple(m);
}

static assist_status h_say(const assist_host *h, const char *text, assist_priority priority) {
    (void)h;
    bmsg *m = request(OP_DIALOG_SAY);
    put_str(m, text);
    put_u32(m, (uint32_t)priority);
    return simple(m);
}


static bmsg *dialog_request(uint32_t op, assist_dialog_cb cb, void *user, const char *prompt) {
    bmsg *m = request(op);
    put_u64(m, U64(cb));
    put_u64(m, U64(user));
    put_str(m, prompt);
    return m;
}

static assist_status h_ask_choice(const assist_host *h, const char *prompt, const char *const *choices,
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

static assist_status h_confirm(const assist_host *h, const char *prompt, bool default_yes, uint32_t timeout_ms,
                               assist_dialog_cb cb, void *user, uint64_t *req) {
    (void)h;
    if (cb == NULL) return ASSIST_E_INVALID;
    bmsg *m = dialog_request(OP_DIALOG_CONFIRM, cb, user, prompt);
    put_bool(m, default_yes);
    put_u32(m, timeout_ms);
    return call_with_id(m, req);
}

static assist_status h_ask_text(const assist_host *h, const char *prompt, assist_text_kind kind, assist_dialog_cb cb,
                                void *user, uint64_t *req) {
    (void)h;
    if (cb == NULL) return ASSIST_E_INVALID;
    bmsg *m = dialog_request(OP_DIALOG_ASK_TEXT, cb, user, prompt);
    put_u32(m, (uint32_t)kind);
    return call_with_id(m, req);
}

static assist_status h_dialog_cancel(const assist_host *h, uint64_t req) {
    (void)h;
    bmsg *m = request(OP_DIALOG_CANCEL);
    put_u64(m, req);
    return simple(m);
}

/* ---- settings ----------------------------------------------------------------------------------------- */

static assist_status h_get_string(const assist_host *h, const char *key, char *buf, size_t cap, size_t *needed) {
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

#define GETTER(name, op, type, get)                                          \
    static assist_status name(const assist_host *h, const char *key, type *out) { \
        (void)h;                                                             \
        bmsg *m = request(op);                                               \
        put_str(m, key);                                                     \
        bmsg *reply = rpc(m);                                                \
        assist_status s = status_of(reply);                                  \
        if (reply != NULL && out != NULL) {                                  \
            type v = get(reply);                                             \
            if (s == ASSIST_OK) *out = v;                                    \
        }                                                                    \
        bmsg_free(reply);                                                    \
        return s;                                                            \
    }
GETTER(h_get_int, OP_SETTINGS_GET_INT, int64_t, get_i64)
GETTER(h_get_double, OP_SETTINGS_GET_DOUBLE, double, get_f64)
GETTER(h_get_bool, OP_SETTINGS_GET_BOOL, bool, get_bool)

static assist_status h_set_string(const assist_host *h, const char *key, const char *value) {
    (void)h;
    bmsg *m = request(OP_SETTINGS_SET_STRING);
    put_str(m, key);
    put_str(m, value);
    return simple(m);
}
#define SETTER(name, op, type, put)                                            \
    static assist_status name(const assist_host *h, const char *key, type value) { \
        (void)h;                                                               \
        bmsg *m = request(op);                                                 \
        put_str(m, key);                                                       \
        put(m, value);                                                         \
        return simple(m);                                                      \
    }
SETTER(h_set_int, OP_SETTINGS_SET_INT, int64_t, put_i64)
SETTER(h_set_double, OP_SETTINGS_SET_DOUBLE, double, put_f64)
SETTER(h_set_bool, OP_SETTINGS_SET_BOOL, bool, put_bool)

/* ---- storage ------------------------------------------------------------------------------------------ */

static assist_status h_open(const assist_host *h, const char *name, assist_db **out, char **err) {
    (void)h;
    bmsg *m = request(OP_STORAGE_OPEN);
    put_str(m, name);
    bmsg *reply = rpc(m);
    assist_status s = status_of(reply);
    uint64_t db = reply ? get_u64(reply) : 0;
    take_err(reply, err);
    if (out != NULL) *out = s == ASSIST_OK ? PTR(db) : NULL;
    bmsg_free(reply);
    return s;
}

static assist_status h_exec(const assist_host *h, assist_db *db, const char *sql, const assist_value *params,
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

static assist_status db_call(uint32_t op, assist_db *db) {
    bmsg *m = request(op);
    put_u64(m, U64(db));
    return simple(m);
}
static assist_status h_begin(const assist_host *h, assist_db *db) { (void)h; return db_call(OP_STORAGE_BEGIN, db); }
static assist_status h_commit(const assist_host *h, assist_db *db) { (void)h; return db_call(OP_STORAGE_COMMIT, db); }
static assist_status h_rollback(const assist_host *h, assist_db *db) {
    (void)h;
    return db_call(OP_STORAGE_ROLLBACK, db);
}

static assist_status h_migrate(const assist_host *h, assist_db *db, int32_t version, const char *sql, char **err) {
    (void)h;
    bmsg *m = request(OP_STORAGE_MIGRATE);
    put_u64(m, U64(db));
    put_u32(m, (uint32_t)version);
    put_str(m, sql);
    bmsg *reply = rpc(m);
    assist_status s = status_of(reply);
    take_err(reply, err);
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
static assist_status h_media_create(const assist_host *h, const char *name, char *path, size_t cap, char **err) {
    (void)h;
    return media_path(OP_STORAGE_MEDIA_CREATE, name, path, cap, err);
}
static assist_status h_media_to_cache(const assist_host *h, const char *name, char *path, size_t cap, char **err) {
    (void)h;
    return media_path(OP_STORAGE_MEDIA_TO_CACHE, name, path, cap, err);
}
static assist_status h_media_reserve(const assist_host *h, int64_t bytes, char **err) {
    (void)h;
    bmsg *m = request(OP_STORAGE_MEDIA_RESERVE);
    put_i64(m, bytes);
    bmsg *reply = rpc(m);
    assist_status s = status_of(reply);
    take_err(reply, err);
    bmsg_free(reply);
    return s;
}
static assist_status h_media_delete(const assist_host *h, const char *name, bool in_cache) {
    (void)h;
    bmsg *m = request(OP_STORAGE_MEDIA_DELETE);
    put_str(m, name);
    put_bool(m, in_cache);
    return simple(m);
}
static assist_status h_media_usage(const assist_host *h, int64_t *used, int64_t *quota) {
    (void)h;
    bmsg *reply = rpc(request(OP_STORAGE_MEDIA_USAGE));
    assist_status s = status_of(reply);
    int64_t u = reply ? get_i64(reply) : 0, q = reply ? get_i64(reply) : 0;
    if (used != NULL) *used = u;
    if (quota != NULL) *quota = q;
    bmsg_free(reply);
    return s;
}

/* ---- session, clock, worker, events, input ------------------------------------------------------------ */

static void h_finish(const assist_host *h, assist_status status) {
    (void)h;
    bmsg *m = request(OP_SESSION_FINISH);
    put_u32(m, (uint32_t)status);
    bmsg_free(rpc(m));
}

static const char *session_string(uint32_t which) {
    static char *cached[4];
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&lock);
    char *known = cached[which];
    pthread_mutex_unlock(&lock);
    if (known != NULL) return known;
    bmsg *m = request(OP_SESSION_STRING);
    put_u32(m, which);
    bmsg *reply = rpc(m);
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
static const char *h_language(const assist_host *h) { (void)h; return session_string(0); }
static const char *h_data_dir(const assist_host *h) { (void)h; return session_string(1); }
static const char *h_cache_dir(const assist_host *h) { (void)h; return session_string(2); }
static const char *h_share_dir(const assist_host *h) { (void)h; return session_string(3); }

static uint64_t h_now_ns(const assist_host *h) {
    (void)h;
    bmsg *reply = rpc(request(OP_CLOCK_NOW));
    uint64_t v = reply ? get_u64(reply) : 0;
    bmsg_free(reply);
    return v;
}
static int64_t h_wall_ms(const assist_host *h) {
    (void)h;
    bmsg *reply = rpc(request(OP_CLOCK_WALL));
    int64_t v = reply ? get_i64(reply) : 0;
    bmsg_free(reply);
    return v;
}
static assist_status h_timer_add(const assist_host *h, uint32_t ms, bool repeat, assist_timer_cb cb, void *user,
                                 uint64_t *timer) {
    (void)h;
    bmsg *m = request(OP_CLOCK_TIMER_ADD);
    put_u32(m, ms);
    put_bool(m, repeat);
    put_u64(m, U64(cb));
    put_u64(m, U64(user));
    return call_with_id(m, timer);
}
static assist_status h_timer_cancel(const assist_host *h, uint64_t timer) {
    (void)h;
    bmsg *m = request(OP_CLOCK_TIMER_CANCEL);
    put_u64(m, timer);
    return simple(m);
}

static assist_status task_call(uint32_t op, assist_task_fn fn, void *user) {
    bmsg *m = request(op);
    put_u64(m, U64(fn));
    put_u64(m, U64(user));
    return simple(m);
}
static assist_status h_schedule(const assist_host *h, assist_task_fn fn, void *user) {
    (void)h;
    return task_call(OP_WORKER_SCHEDULE, fn, user);
}
static assist_status h_post_main(const assist_host *h, assist_task_fn fn, void *user) {
    (void)h;
    return task_call(OP_WORKER_POST_MAIN, fn, user);
}

static assist_status h_publish(const assist_host *h, const char *name, const char *json) {
    (void)h;
    bmsg *m = request(OP_EVENTS_PUBLISH);
    put_str(m, name);
    put_str(m, json);
    return simple(m);
}
static assist_status h_subscribe(const assist_host *h, const char *prefix, assist_event_cb cb, void *user,
                                 uint64_t *subscription) {
    (void)h;
    bmsg *m = request(OP_EVENTS_SUBSCRIBE);
    put_str(m, prefix);
    put_u64(m, U64(cb));
    put_u64(m, U64(user));
    return call_with_id(m, subscription);
}
static assist_status h_unsubscribe(const assist_host *h, uint64_t subscription) {
    (void)h;
    bmsg *m = request(OP_EVENTS_UNSUBSCRIBE);
    put_u64(m, subscription);
    return simple(m);
}

static assist_status h_register(const assist_host *h, const char *id, const char *label, const char *key,
                                const char *phrase, assist_scope scope) {
    (void)h;
    bmsg *m = request(OP_INPUT_REGISTER);
    put_str(m, id);
    put_str(m, label);
    put_str(m, key);
    put_str(m, phrase);
    put_u32(m, (uint32_t)scope);
    return simple(m);
}
static assist_status h_unregister(const assist_host *h, const char *id) {
    (void)h;
    bmsg *m = request(OP_INPUT_UNREGISTER);
    put_str(m, id);
    return simple(m);
}
static bool h_dictation(const assist_host *h, const char *lang) {
    (void)h;
    bmsg *m = request(OP_INPUT_DICTATION);
    put_str(m, lang);
    return simple_bool(m);
}
static assist_status h_set_choices(const assist_host *h, const char *phrase, const char *prompt,
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
static assist_status h_set_confirmation(const assist_host *h, const char *id, const char *question) {
    (void)h;
    bmsg *m = request(OP_INPUT_SET_CONFIRMATION);
    put_str(m, id);
    put_str(m, question);
    return simple(m);
}

/* ---- cues, playback, outbox, microphone ---------------------------------------------------------------- */

static assist_status h_cue_play(const assist_host *h, const char *name, double gain, double pan) {
    (void)h;
    bmsg *m = request(OP_CUES_PLAY);
    put_str(m, name);
    put_f64(m, gain);
    put_f64(m, pan);
    return simple(m);
}
static assist_status h_guidance(const assist_host *h, assist_cue_pattern pattern, double intensity, double pan,
                                double pitch) {
    (void)h;
    bmsg *m = request(OP_CUES_GUIDANCE);
    put_u32(m, (uint32_t)pattern);
    put_f64(m, intensity);
    put_f64(m, pan);
    put_f64(m, pitch);
    return simple(m);
}
static assist_status h_cues_stop(const assist_host *h) { (void)h; return simple(request(OP_CUES_STOP)); }
static bool h_cues_enabled(const assist_host *h) { (void)h; return simple_bool(request(OP_CUES_ENABLED)); }

static assist_status h_play_file(const assist_host *h, const char *path, double gain, char **err) {
    (void)h;
    bmsg *m = request(OP_PLAYBACK_PLAY_FILE);
    put_str(m, path);
    put_f64(m, gain);
    bmsg *reply = rpc(m);
    assist_status s = status_of(reply);
    take_err(reply, err);
    bmsg_free(reply);
    return s;
}
static assist_status h_playback_stop(const assist_host *h) { (void)h; return simple(request(OP_PLAYBACK_STOP)); }
static bool h_is_playing(const assist_host *h) { (void)h; return simple_bool(request(OP_PLAYBACK_IS_PLAYING)); }

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
static assist_status h_enqueue(const assist_host *h, const assist_outbox_request *r, int64_t *job, char **err) {
    (void)h;
    return outbox_send(OP_OUTBOX_ENQUEUE, r, job, err);
}
static assist_status h_send_now(const assist_host *h, const assist_outbox_request *r, int64_t *job, char **err) {
    (void)h;
    return outbox_send(OP_OUTBOX_SEND_NOW, r, job, err);
}
static assist_status h_on_outcome(const assist_host *h, assist_outbox_outcome_cb cb, void *user) {
    (void)h;
    bmsg *m = request(OP_OUTBOX_ON_OUTCOME);
    put_u64(m, U64(cb));
    put_u64(m, U64(user));
    return simple(m);
}
static assist_status h_acknowledge(const assist_host *h, int64_t job) {
    (void)h;
    bmsg *m = request(OP_OUTBOX_ACKNOWLEDGE);
    put_i64(m, job);
    return simple(m);
}
static assist_status h_outbox_cancel(const assist_host *h, int64_t job) {
    (void)h;
    bmsg *m = request(OP_OUTBOX_CANCEL);
    put_i64(m, job);
    return simple(m);
}
static assist_status h_pending(const assist_host *h, int64_t *count) {
    (void)h;
    bmsg *reply = rpc(request(OP_OUTBOX_PENDING));
    assist_status s = status_of(reply);
    int64_t n = reply ? get_i64(reply) : 0;
    if (count != NULL) *count = n;
    bmsg_free(reply);
    return s;
}
static bool h_is_online(const assist_host *h, const char *name) {
    (void)h;
    bmsg *m = request(OP_OUTBOX_IS_ONLINE);
    put_str(m, name);
    return simple_bool(m);
}

/* The stream's channel count, kept here so a read knows the buffer's shape. */
static uint32_t stream_channels = 1;

static assist_status h_audio_open(const assist_host *h, uint32_t rate, uint32_t channels, assist_audio_stream **out,
                                  char **err) {
    (void)h;
    bmsg *m = request(OP_AUDIO_OPEN);
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
static assist_status h_audio_read(const assist_host *h, assist_audio_stream *stream, int16_t *buf, uint32_t frames,
                                  uint32_t *got) {
    (void)h;
    if (buf == NULL || got == NULL) return ASSIST_E_INVALID;
    bmsg *m = request(OP_AUDIO_READ);
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
static void h_audio_close(const assist_host *h, assist_audio_stream *stream) {
    (void)h;
    bmsg *m = request(OP_AUDIO_CLOSE);
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
    uint64_t token;
    struct held *next;
} held;

static pthread_mutex_t frames_lock = PTHREAD_MUTEX_INITIALIZER;
static held *held_frames;
static const assist_frame *delivering; /* the frame on_frame has now */
static uint32_t delivering_area;

static assist_status h_subscribe_camera(const assist_host *h, const assist_camera_request *request_in, char **err) {
    (void)h;
    assist_camera_request r;
    if (!assist_struct_copy(&r, sizeof r, request_in, ASSIST_SIZE_THROUGH(assist_camera_request, flags)))
        return ASSIST_E_INVALID;
    bmsg *m = request(OP_CAMERA_SUBSCRIBE);
    put_u32(m, r.fourcc);
    put_u32(m, r.max_width);
    put_u32(m, r.max_height);
    put_f64(m, r.max_fps);
    put_f64(m, r.zoom);
    put_u32(m, r.flags);
    bmsg *reply = rpc(m);
    assist_status s = status_of(reply);
    take_err(reply, err);
    bmsg_free(reply);
    return s;
}
static assist_status h_unsubscribe_camera(const assist_host *h) {
    (void)h;
    return simple(request(OP_CAMERA_UNSUBSCRIBE));
}

static const assist_frame *h_retain(const assist_host *h, const assist_frame *frame) {
    (void)h;
    pthread_mutex_lock(&frames_lock);
    bool current = frame != NULL && frame == delivering;
    uint32_t which = delivering_area;
    pthread_mutex_unlock(&frames_lock);
    if (!current) return NULL;
    bmsg *m = request(OP_CAMERA_RETAIN);
    put_u32(m, which);
    bmsg *reply = rpc(m);
    uint64_t token = reply ? get_u64(reply) : 0;
    bmsg_free(reply);
    if (token == 0) return NULL;
    held *copy = calloc(1, sizeof *copy);
    if (copy == NULL) return NULL;
    copy->frame = *frame;
    copy->token = token;
    pthread_mutex_lock(&frames_lock);
    copy->next = held_frames;
    held_frames = copy;
    pthread_mutex_unlock(&frames_lock);
    return &copy->frame;
}

static void h_release(const assist_host *h, const assist_frame *retained) {
    (void)h;
    pthread_mutex_lock(&frames_lock);
    held **link = &held_frames;
    while (*link != NULL && &(*link)->frame != retained) link = &(*link)->next;
    held *found = *link;
    if (found != NULL) *link = found->next;
    pthread_mutex_unlock(&frames_lock);
    bmsg *m = request(OP_CAMERA_RELEASE);
    put_u64(m, found ? found->token : 0); /* 0: the host logs a release of a frame it never gave */
    bmsg_free(rpc(m));
    free(found);
}

static assist_status h_control(const assist_host *h, const char *name, int64_t *value, int64_t *minimum,
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

static assist_status h_stats(const assist_host *h, assist_camera_stats *out) {
    (void)h;
    if (out == NULL || out->struct_size < ASSIST_SIZE_THROUGH(assist_camera_stats, converted)) return ASSIST_E_INVALID;
    bmsg *reply = rpc(request(OP_CAMERA_STATS));
    assist_status s = status_of(reply);
    assist_camera_stats got = {0};
    got.struct_size = (uint32_t)ASSIST_SIZE_THROUGH(assist_camera_stats, converted);
    if (reply != NULL) {
        got.delivered = get_u64(reply);
        got.dropped = get_u64(reply);
        got.skipped = get_u64(reply);
        got.converted = get_u64(reply);
    }
    bmsg_free(reply);
    if (s == ASSIST_OK) {
        size_t n = out->struct_size < sizeof got ? out->struct_size : sizeof got;
        memcpy(out, &got, n);
        out->struct_size = (uint32_t)n;
    }
    return s;
}

static bool h_is_main(const assist_host *h) { (void)h; return simple_bool(request(OP_THREAD_IS_MAIN)); }
static bool h_is_frame(const assist_host *h) { (void)h; return simple_bool(request(OP_THREAD_IS_FRAME)); }

/* ---- the tables, filled as the host fills its own ------------------------------------------------------ */

static const assist_log_service log_table = {sizeof log_table, h_log, {0}};
static const assist_speech_service speech_table = {sizeof speech_table, h_speak, h_speech_stop, h_cancel_mine,
    h_speech_pause, h_speech_resume, h_is_speaking, h_print, {0}};
static const assist_dialog_service dialog_table = {sizeof dialog_table, h_say, h_ask_choice, h_confirm, h_ask_text,
    h_dialog_cancel, {0}};
static const assist_settings_service settings_table = {sizeof settings_table, h_get_string, h_get_int,
    h_get_double, h_get_bool, h_set_string, h_set_int, h_set_double, h_set_bool, {0}};
static const assist_storage_service storage_table = {sizeof storage_table, h_open, h_exec, h_begin, h_commit,
    h_rollback, h_migrate, h_media_create, h_media_reserve, h_media_to_cache, h_media_delete, h_media_usage, {0}};
static const assist_session_service session_table = {sizeof session_table, h_finish, h_language, h_data_dir,
    h_cache_dir, h_share_dir, {0}};
static const assist_clock_service clock_table = {sizeof clock_table, h_now_ns, h_wall_ms, h_timer_add,
    h_timer_cancel, {0}};
static const assist_worker_service worker_table = {sizeof worker_table, h_schedule, h_post_main, {0}};
static const assist_events_service events_table = {sizeof events_table, h_publish, h_subscribe, h_unsubscribe,
    {0}};
static const assist_input_service input_table = {sizeof input_table, h_register, h_unregister, h_dictation,
    h_set_choices, h_set_confirmation, {0}};
static const assist_cues_service cues_table = {sizeof cues_table, h_cue_play, h_guidance, h_cues_stop,
    h_cues_enabled, {0}};
static const assist_playback_service playback_table = {sizeof playback_table, h_play_file, h_playback_stop,
    h_is_playing, {0}};
static const assist_outbox_service outbox_table = {sizeof outbox_table, h_enqueue, h_on_outcome, h_acknowledge,
    h_outbox_cancel, h_pending, h_is_online, h_send_now, {0}};
static const assist_audio_in_service audio_table = {sizeof audio_table, h_audio_open, h_audio_read, h_audio_close,
    {0}};
static const assist_camera_service camera_table = {sizeof camera_table, h_subscribe_camera, h_unsubscribe_camera,
    h_retain, h_release, h_control, h_stats, {0}};
static const assist_thread_check_service thread_table = {sizeof thread_table, h_is_main, h_is_frame, {0}};

static const struct {
    const char *id;
    const void *table;
    size_t size;
} proxies[] = {
    {ASSIST_LOG_SERVICE, &log_table, sizeof log_table},
    {ASSIST_SPEECH_SERVICE, &speech_table, sizeof speech_table},
    {ASSIST_DIALOG_SERVICE, &dialog_table, sizeof dialog_table},
    {ASSIST_SETTINGS_SERVICE, &settings_table, sizeof settings_table},
    {ASSIST_STORAGE_SERVICE, &storage_table, sizeof storage_table},
    {ASSIST_SESSION_SERVICE, &session_table, sizeof session_table},
    {ASSIST_CLOCK_SERVICE, &clock_table, sizeof clock_table},
    {ASSIST_WORKER_SERVICE, &worker_table, sizeof worker_table},
    {ASSIST_EVENTS_SERVICE, &events_table, sizeof events_table},
    {ASSIST_INPUT_SERVICE, &input_table, sizeof input_table},
    {ASSIST_CUES_SERVICE, &cues_table, sizeof cues_table},
    {ASSIST_PLAYBACK_SERVICE, &playback_table, sizeof playback_table},
    {ASSIST_OUTBOX_SERVICE, &outbox_table, sizeof outbox_table},
    {ASSIST_AUDIO_IN_SERVICE, &audio_table, sizeof audio_table},
    {ASSIST_CAMERA_SERVICE, &camera_table, sizeof camera_table},
    {ASSIST_THREAD_CHECK_SERVICE, &thread_table, sizeof thread_table},
};
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

static void serve_frame(bmsg *req) {
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
    memset(&f, 0, sizeof f);
    f.struct_size = sizeof f;
    f.fourcc = get_u32(req);
    f.width = get_u32(req);
    f.height = get_u32(req);
    f.plane_count = get_u32(req);
    if (f.plane_count > 3) {
        req->bad = true;
        return;
    }
    for (uint32_t i = 0; i < f.plane_count; i++) {
        f.stride[i] = get_u32(req);
        uint64_t offset = get_u64(req);
        uint64_t span = plane_span(f.fourcc, f.width, f.height, f.stride[i]);
        if (span == 0 || offset > area->size || span > area->size - offset) {
            req->bad = true;
            return;
        }
        f.plane[i] = area->map + offset;
    }
    f.fd = area->fd;
    f.timestamp_ns = get_u64(req);
    f.seq = get_u64(req);
    if (req->bad || instance == NULL || table.on_frame == NULL) return;
    pthread_mutex_lock(&frames_lock);
    delivering = &f;
    delivering_area = which;
    pthread_mutex_unlock(&frames_lock);
    table.on_frame(instance, &f);
    pthread_mutex_lock(&frames_lock);
    delivering = NULL;
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
        memset(&r, 0, sizeof r);
        r.struct_size = sizeof r;
        r.status = (assist_status)get_u32(req);
        r.index = (int32_t)get_u32(req);
        r.yes = get_bool(req);
        r.text = get_str(req);
        r.request = get_u64(req);
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
        serve_frame(req);
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
