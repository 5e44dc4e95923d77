/*
 * A C99 plugin for the probe host of Tests/BridgeProbe, run in a helper process: in start it sends every
 * versioned struct a plugin can send (speech options, a camera request, an outbox request with headers and
 * parts, storage parameters), each field set, and the field abi-compat's simulated ABI 1.1 adds when its
 * header has it. What the host sends back (a dialog result, camera stats, an outbox outcome, storage rows, a
 * frame) it checks field by field and answers with speech.print: "<what> whole" or "<what> broken". A
 * struct the host sends may be larger than this plugin's header knows (a newer host), never smaller.
 */
#include "../../BridgeProbe/include/whole_structs.h"
#include "fixture.h"

#include <stdio.h>
#include <string.h>

#ifdef ASSIST_ABI_SIMULATED_FIELD
#define SET_ADDED(s, n) ((s).ASSIST_ABI_SIMULATED_FIELD = WS_ADDED + (n))
#define ADDED_IS(s, n) ((s)->ASSIST_ABI_SIMULATED_FIELD == WS_ADDED + (n))
#define MINOR "1.1"
#else
#define SET_ADDED(s, n) ((void)0)
#define ADDED_IS(s, n) 1
#define MINOR "1.0"
#endif

typedef struct state {
    const assist_host *host;
    const assist_speech_service *speech;
    const assist_dialog_service *dialog;
    const assist_camera_service *camera;
    const assist_outbox_service *outbox;
    const assist_storage_service *storage;
} state;

static state *the; /* for the callbacks, which get no state of their own here */

static void say(const char *what, bool whole) {
    char line[120];
    snprintf(line, sizeof line, "%s %s", what, whole ? "whole" : "broken");
    the->speech->print(the->host, line);
}

static void on_dialog(void *user, const assist_dialog_result *r) {
    (void)user;
    say("dialog result", r->struct_size >= sizeof *r && r->status == ASSIST_OK && r->index == -1 && r->yes &&
                             r->text != NULL && strcmp(r->text, "yes") == 0 && r->request == WS_REQUEST &&
                             ADDED_IS(r, 11));
}

static bool on_outcome(void *user, const assist_outbox_outcome *o) {
    (void)user;
    const assist_http_field *h = o->headers;
    say("outbox outcome", o->struct_size >= sizeof *o && o->job == WS_JOB && o->status == WS_STATUS &&
                              o->truncated && strcmp(o->tag, "tag") == 0 && o->header_count == 1 &&
                              h[0].struct_size >= sizeof *h && strcmp(h[0].name, "Location") == 0 &&
                              strcmp(h[0].value, "/x") == 0 && ADDED_IS(&h[0], 12) && o->body_size == 2 &&
                              memcmp(o->body, "ok", 2) == 0 && o->error == NULL && ADDED_IS(o, 13));
    return true;
}

static bool on_row(void *user, int32_t count, const char *const *names, const assist_value *values) {
    (void)user;
    const assist_value *a = ASSIST_ELEMENT(assist_value, values, 0), *b = ASSIST_ELEMENT(assist_value, values, 1);
    say("storage row", count == 2 && strcmp(names[1], "b") == 0 && values[0].struct_size >= sizeof *values &&
                           a->type == ASSIST_VALUE_INT && a->integer == WS_INTEGER && ADDED_IS(a, 14) &&
                           b->type == ASSIST_VALUE_TEXT && b->size == 2 && strcmp(b->data, "hi") == 0 &&
                           ADDED_IS(b, 15));
    return true;
}

static void on_frame(assist_plugin *p, const assist_frame *f) {
    (void)p;
    say("frame", f->struct_size >= sizeof *f && f->fourcc == ASSIST_FOURCC_GRAY8 && f->width == 4 &&
                     f->height == 2 && f->plane_count == 1 && f->stride[0] == 4 && f->plane[0][5] == 5 &&
                     f->fd >= 0 && f->timestamp_ns == WS_TIMESTAMP && f->seq == WS_SEQ && ADDED_IS(f, 16));
}

static assist_status start(assist_plugin *p, int32_t argc, const char *const *argv, char **err) {
    state *s = p->plugin_data;
    (void)argc;
    (void)argv;
    the = s;
    s->speech->print(s->host, "abi " MINOR);

    assist_speech_options o;
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    o.priority = ASSIST_PRIORITY_PROGRESS;
    o.language = "xx";
    o.voice = "vv";
    o.words_per_minute = WS_WORDS_PER_MINUTE;
    o.flags = WS_SPEECH_FLAGS;
    SET_ADDED(o, 1);
    s->speech->speak(s->host, "options", &o, NULL, NULL, NULL, NULL);
    o.struct_size = (uint32_t)ASSIST_SIZE_THROUGH(assist_speech_options, flags); /* a writer that stops there */
    s->speech->speak(s->host, "short options", &o, NULL, NULL, NULL, NULL);

    assist_camera_request c;
    memset(&c, 0, sizeof c);
    c.struct_size = sizeof c;
    c.fourcc = ASSIST_FOURCC_GRAY8;
    c.max_width = WS_MAX_WIDTH;
    c.max_height = WS_MAX_HEIGHT;
    c.max_fps = WS_MAX_FPS;
    c.zoom = WS_ZOOM;
    SET_ADDED(c, 2);
    s->camera->subscribe(s->host, &c, err);

    assist_camera_stats st;
    memset(&st, 0, sizeof st);
    st.struct_size = sizeof st;
    assist_status got = s->camera->stats(s->host, &st);
    say("camera stats", got == ASSIST_OK && st.struct_size == sizeof st && st.delivered == WS_DELIVERED &&
                            st.dropped == WS_DROPPED && st.skipped == WS_SKIPPED && st.converted == WS_CONVERTED &&
                            ADDED_IS(&st, 17));

    assist_http_field headers[2];
    memset(headers, 0, sizeof headers);
    for (int i = 0; i < 2; i++) {
        headers[i].struct_size = sizeof headers[i];
        headers[i].name = i == 0 ? "A" : "B";
        headers[i].value = i == 0 ? "1" : "2";
        SET_ADDED(headers[i], 3 + i);
    }
    assist_outbox_part parts[2];
    memset(parts, 0, sizeof parts);
    for (int i = 0; i < 2; i++) {
        parts[i].struct_size = sizeof parts[i];
        parts[i].name = i == 0 ? "text" : "file";
        parts[i].text = i == 0 ? "words" : NULL;
        parts[i].path = i == 0 ? NULL : "clip.mp4";
        parts[i].filename = i == 0 ? NULL : "clip.mp4";
        parts[i].content_type = i == 0 ? NULL : "video/mp4";
        SET_ADDED(parts[i], 5 + i);
    }
    assist_outbox_request r;
    memset(&r, 0, sizeof r);
    r.struct_size = sizeof r;
    r.method = "POST";
    r.url = "http://127.0.0.1:1/up";
    r.headers = headers;
    r.header_count = 2;
    r.body = ASSIST_OUTBOX_BODY_MULTIPART;
    r.parts = parts;
    r.part_count = 2;
    r.max_attempts = WS_ATTEMPTS;
    r.tag = "tag";
    SET_ADDED(r, 7);
    s->outbox->enqueue(s->host, &r, NULL, NULL);
    s->outbox->on_outcome(s->host, on_outcome, NULL);

    assist_value values[2];
    memset(values, 0, sizeof values);
    for (int i = 0; i < 2; i++) values[i].struct_size = sizeof values[i];
    values[0].type = ASSIST_VALUE_REAL;
    values[0].real = WS_REAL;
    values[1].type = ASSIST_VALUE_BLOB;
    values[1].data = "\x01\x02\x03";
    values[1].size = 3;
    SET_ADDED(values[0], 8);
    SET_ADDED(values[1], 9);
    assist_db *db = NULL;
    s->storage->open(s->host, "probe", &db, NULL);
    s->storage->exec(s->host, db, "SELECT ?, ?", values, 2, on_row, NULL, NULL, NULL);

    uint64_t request = 0;
    return s->dialog->confirm(s->host, "Whole?", true, 0, on_dialog, NULL, &request);
}

static void setup(state *s, const assist_host *host) {
    s->host = host;
    s->speech = host->get_service(host, ASSIST_SPEECH_SERVICE);
    s->dialog = host->get_service(host, ASSIST_DIALOG_SERVICE);
    s->camera = host->get_service(host, ASSIST_CAMERA_SERVICE);
    s->outbox = host->get_service(host, ASSIST_OUTBOX_SERVICE);
    s->storage = host->get_service(host, ASSIST_STORAGE_SERVICE);
}

ASSIST_FIXTURE_ENTRY("org.test.whole", state, on_frame)
