/* The probe host of bridge_probe.h. Its services only record and answer; nothing is spoken or stored. */
#include "bridge_probe.h"

#include "assist_bridge.h"
#include "assist_plugin.h"
#include "whole_structs.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef ASSIST_ABI_SIMULATED_FIELD
/* The added field where the writer's struct reaches it (ASSIST_HAS_FIELD), else 0: an element of an array from
   a 1.0 plugin ends where the next begins. */
#define ADDED_AT(s) ((size_t)((const char *)&(s)->ASSIST_ABI_SIMULATED_FIELD - (const char *)(s)))
#define ADDED(s) \
    (ADDED_AT(s) + sizeof(s)->ASSIST_ABI_SIMULATED_FIELD <= (s)->struct_size ? (s)->ASSIST_ABI_SIMULATED_FIELD : 0u)
#define SET_ADDED(s, n) ((s).ASSIST_ABI_SIMULATED_FIELD = WS_ADDED + (n))
#else
#define ADDED(s) 0u
#define SET_ADDED(s, n) ((void)0)
#endif

static char *out;
static size_t out_cap;
static int broken;
static bool plugin_newer; /* the plugin's header has the simulated field: it sends it */

/* The struct_size the plugin wrote arrived: this host's size, or, from a plugin built against the 1.0 header
   when this host's is abi-compat's simulated 1.1, a smaller one that ends at or after where the added field
   begins (before the reserved tail, or at the end). */
#ifdef ASSIST_ABI_SIMULATED_FIELD
#define SIZE_OK(s)                                                            \
    (plugin_newer ? (s)->struct_size == sizeof *(s)                           \
                  : (s)->struct_size < sizeof *(s) &&                         \
                        (s)->struct_size >= ADDED_AT(s))
#else
#define SIZE_OK(s) ((s)->struct_size == sizeof *(s))
#endif
static assist_dialog_cb dialog_cb;
static void *dialog_user;
static assist_outbox_outcome_cb outcome_cb;
static void *outcome_user;
static int speeches;

static void line(const char *format, ...) {
    size_t used = strlen(out);
    va_list args;
    va_start(args, format);
    if (used + 1 < out_cap) vsnprintf(out + used, out_cap - used - 1, format, args);
    va_end(args);
    used = strlen(out);
    if (used + 1 < out_cap) strcat(out, "\n");
}

/* One struct the plugin sent: whole when `ok` and its simulated field (when this host's header has one) is
   what the plugin set, or zero from a plugin without it. */
static void received(const char *what, bool ok, uint64_t added, unsigned n) {
    uint64_t want = plugin_newer ? WS_ADDED + n : 0;
#ifndef ASSIST_ABI_SIMULATED_FIELD
    want = 0;
#endif
    bool whole = ok && added == want;
    if (!whole) broken++;
    if (whole) line("%s whole", what);
    else line("%s broken: fields %s, added field %llu (sent %llu)", what, ok ? "as sent" : "changed",
              (unsigned long long)added, (unsigned long long)want);
}

/* ---- the services ----------------------------------------------------------------------------------------- */

static assist_status speak(const assist_host *h, const char *text, const assist_speech_options *o,
                           assist_speech_done_cb done, assist_speech_word_cb word, void *user, uint64_t *id) {
    (void)h, (void)done, (void)word, (void)user, (void)id;
    if (speeches++ == 0) {
        received("speech options",
                 o != NULL && SIZE_OK(o) && o->priority == ASSIST_PRIORITY_PROGRESS &&
                     strcmp(o->language, "xx") == 0 && strcmp(o->voice, "vv") == 0 &&
                     o->words_per_minute == WS_WORDS_PER_MINUTE && o->flags == WS_SPEECH_FLAGS &&
                     strcmp(text, "options") == 0,
                 ADDED(o), 1);
    } else { /* the writer's own struct_size arrives, so the host asks ASSIST_HAS_FIELD as in process */
        bool ok = o != NULL && o->struct_size == ASSIST_SIZE_THROUGH(assist_speech_options, flags) &&
                  o->words_per_minute == WS_WORDS_PER_MINUTE && strcmp(text, "short options") == 0;
        if (!ok) broken++;
        line("short speech options %s", ok ? "whole" : "broken: its struct_size changed");
    }
    return ASSIST_OK;
}

static assist_status print(const assist_host *h, const char *text) {
    (void)h;
    if (strcmp(text, "abi 1.1") == 0) plugin_newer = true;
    if (strstr(text, "broken") != NULL) broken++;
    line("%s", text);
    return ASSIST_OK;
}

static assist_status confirm(const assist_host *h, const char *prompt, bool yes, uint32_t timeout,
                             assist_dialog_cb cb, void *user, uint64_t *request) {
    (void)h, (void)prompt, (void)yes, (void)timeout;
    dialog_cb = cb;
    dialog_user = user;
    if (request != NULL) *request = WS_REQUEST;
    return ASSIST_OK;
}

static assist_status subscribe(const assist_host *h, const assist_camera_request *r, char **err) {
    (void)h, (void)err;
    received("camera request",
             SIZE_OK(r) && r->fourcc == ASSIST_FOURCC_GRAY8 && r->max_width == WS_MAX_WIDTH &&
                 r->max_height == WS_MAX_HEIGHT && r->max_fps == WS_MAX_FPS && r->zoom == WS_ZOOM && r->flags == 0,
             ADDED(r), 2);
    return ASSIST_OK;
}

static assist_status stats(const assist_host *h, assist_camera_stats *s) {
    (void)h;
    assist_camera_stats mine = {0};
    mine.struct_size = sizeof mine;
    mine.delivered = WS_DELIVERED;
    mine.dropped = WS_DROPPED;
    mine.skipped = WS_SKIPPED;
    mine.converted = WS_CONVERTED;
    SET_ADDED(mine, 17);
    memcpy(s, &mine, s->struct_size < sizeof mine ? s->struct_size : sizeof mine);
    return ASSIST_OK;
}

static assist_status enqueue(const assist_host *h, const assist_outbox_request *r, int64_t *job, char **err) {
    (void)h, (void)job, (void)err;
    const assist_http_field *a = ASSIST_ELEMENT(assist_http_field, r->headers, 0);
    const assist_http_field *b = ASSIST_ELEMENT(assist_http_field, r->headers, 1);
    const assist_outbox_part *text = ASSIST_ELEMENT(assist_outbox_part, r->parts, 0);
    const assist_outbox_part *file = ASSIST_ELEMENT(assist_outbox_part, r->parts, 1);
    received("outbox request",
             SIZE_OK(r) && strcmp(r->method, "POST") == 0 && strcmp(r->url, "http://127.0.0.1:1/up") == 0 &&
                 r->header_count == 2 && r->body == ASSIST_OUTBOX_BODY_MULTIPART && r->part_count == 2 &&
                 r->json == NULL && r->fields == NULL && r->max_attempts == WS_ATTEMPTS && strcmp(r->tag, "tag") == 0,
             ADDED(r), 7);
    received("header 1", SIZE_OK(a) && strcmp(a->name, "A") == 0 && strcmp(a->value, "1") == 0,
             ADDED(a), 3);
    received("header 2", SIZE_OK(b) && strcmp(b->name, "B") == 0 && strcmp(b->value, "2") == 0,
             ADDED(b), 4);
    received("text part",
             SIZE_OK(text) && strcmp(text->name, "text") == 0 && strcmp(text->text, "words") == 0 &&
                 text->path == NULL && text->filename == NULL && text->content_type == NULL,
             ADDED(text), 5);
    received("file part",
             SIZE_OK(file) && strcmp(file->name, "file") == 0 && file->text == NULL &&
                 strcmp(file->path, "clip.mp4") == 0 && strcmp(file->filename, "clip.mp4") == 0 &&
                 strcmp(file->content_type, "video/mp4") == 0,
             ADDED(file), 6);
    return ASSIST_OK;
}

static assist_status on_outcome(const assist_host *h, assist_outbox_outcome_cb cb, void *user) {
    (void)h;
    outcome_cb = cb;
    outcome_user = user;
    return ASSIST_OK;
}

static assist_status open_db(const assist_host *h, const char *name, assist_db **db, char **err) {
    (void)h, (void)name, (void)err;
    *db = (assist_db *)(uintptr_t)0x5000;
    return ASSIST_OK;
}

static assist_status exec(const assist_host *h, assist_db *db, const char *sql, const assist_value *params,
                          int32_t count, assist_row_cb row, void *user, int64_t *changes, char **err) {
    (void)h, (void)db, (void)sql, (void)changes, (void)err;
    const assist_value *real = ASSIST_ELEMENT(assist_value, params, 0);
    const assist_value *blob = ASSIST_ELEMENT(assist_value, params, 1);
    received("storage parameter 1",
             count == 2 && SIZE_OK(real) && real->type == ASSIST_VALUE_REAL && real->real == WS_REAL,
             ADDED(real), 8);
    received("storage parameter 2",
             SIZE_OK(blob) && blob->type == ASSIST_VALUE_BLOB && blob->size == 3 &&
                 memcmp(blob->data, "\x01\x02\x03", 3) == 0,
             ADDED(blob), 9);
    assist_value values[2];
    memset(values, 0, sizeof values);
    values[0].struct_size = values[1].struct_size = sizeof values[0];
    values[0].type = ASSIST_VALUE_INT;
    values[0].integer = WS_INTEGER;
    values[1].type = ASSIST_VALUE_TEXT;
    values[1].data = "hi";
    values[1].size = 2;
    SET_ADDED(values[0], 14);
    SET_ADDED(values[1], 15);
    const char *names[] = {"a", "b"};
    if (row != NULL) row(user, 2, names, values);
    return ASSIST_OK;
}

static const assist_speech_service speech = {.struct_size = sizeof speech, .speak = speak, .print = print};
static const assist_dialog_service dialog = {.struct_size = sizeof dialog, .confirm = confirm};
static const assist_camera_service camera = {.struct_size = sizeof camera, .subscribe = subscribe, .stats = stats};
static const assist_outbox_service outbox = {.struct_size = sizeof outbox, .enqueue = enqueue,
                                             .on_outcome = on_outcome};
static const assist_storage_service storage = {.struct_size = sizeof storage, .open = open_db, .exec = exec};

static const void *get_service(const assist_host *h, const char *id) {
    (void)h;
    return strcmp(id, ASSIST_SPEECH_SERVICE) == 0    ? (const void *)&speech
           : strcmp(id, ASSIST_DIALOG_SERVICE) == 0  ? (const void *)&dialog
           : strcmp(id, ASSIST_CAMERA_SERVICE) == 0  ? (const void *)&camera
           : strcmp(id, ASSIST_OUTBOX_SERVICE) == 0  ? (const void *)&outbox
           : strcmp(id, ASSIST_STORAGE_SERVICE) == 0 ? (const void *)&storage
                                                     : NULL;
}

static void *alloc(const assist_host *h, size_t n) {
    (void)h;
    return malloc(n);
}

/* ---- the run ---------------------------------------------------------------------------------------------- */

/* What the host sends back, after start: the dialog's answer, an outcome, a frame. */
static void answer(assist_plugin *p) {
    assist_dialog_result r = {0};
    r.struct_size = sizeof r;
    r.index = -1;
    r.yes = true;
    r.text = "yes";
    r.request = WS_REQUEST;
    SET_ADDED(r, 11);
    if (dialog_cb != NULL) dialog_cb(dialog_user, &r);

    assist_http_field header = {0};
    header.struct_size = sizeof header;
    header.name = "Location";
    header.value = "/x";
    SET_ADDED(header, 12);
    assist_outbox_outcome o = {0};
    o.struct_size = sizeof o;
    o.job = WS_JOB;
    o.status = WS_STATUS;
    o.truncated = true;
    o.tag = "tag";
    o.headers = &header;
    o.header_count = 1;
    o.body = (const uint8_t *)"ok";
    o.body_size = 2;
    SET_ADDED(o, 13);
    if (outcome_cb != NULL) outcome_cb(outcome_user, &o);

    uint8_t pixels[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    assist_frame f = {0};
    f.struct_size = sizeof f;
    f.fourcc = ASSIST_FOURCC_GRAY8;
    f.width = 4;
    f.height = 2;
    f.plane_count = 1;
    f.stride[0] = 4;
    f.plane[0] = pixels;
    f.fd = -1;
    f.timestamp_ns = WS_TIMESTAMP;
    f.seq = WS_SEQ;
    SET_ADDED(f, 16);
    if (p->on_frame != NULL) p->on_frame(p, &f);
}

int bridge_probe_run(const char *assist, const char *library, char *report, size_t cap) {
    static assist_host host;
    host = (assist_host){.struct_size = sizeof host, .abi = {ASSIST_ABI_MAJOR, ASSIST_ABI_MINOR, 0, 0},
                         .host_version = "1.0.0", .get_service = get_service, .alloc = alloc};
    out = report;
    out_cap = cap;
    report[0] = '\0';
    broken = 0;
    speeches = 0;
    plugin_newer = false;
    char *err = NULL;
    assist_bridge *b = assist_bridge_spawn(assist, library, &host, NULL, NULL, 5000, NULL, NULL, NULL, &err);
    if (b == NULL) {
        line("no helper: %s", err ? err : "?");
        free(err);
        return 1;
    }
    const assist_entry *entry = assist_bridge_entry(b);
    assist_plugin *p = entry->init(&host) ? entry->create(&host, &err) : NULL;
    if (p == NULL) {
        line("the plugin did not start: %s", err ? err : "?");
        free(err);
        broken++;
    } else {
        if (p->start(p, 0, NULL, &err) != ASSIST_OK) broken++;
        free(err);
        answer(p);
        p->stop(p);
        p->destroy(p);
        entry->deinit();
    }
    assist_bridge_close(b, 2000);
    return broken;
}
