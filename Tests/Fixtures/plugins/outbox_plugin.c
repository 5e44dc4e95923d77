/*
 * A C99 plugin that drives assist.outbox/1 for the host's tests. Its arguments:
 *   send URL      queues a JSON request and a multipart upload of a media file, tries two requests the host
 *                 must refuse, then reports each outcome and finishes after two
 *   queue URL     queues a JSON request and finishes at once, without listening for outcomes
 *   listen        listens, reports the first outcome (also one stored before a restart) and finishes
 * Built with QUEUE_URL defined, no argument (a kiosk's menu starts it so) writes a note in its media folder
 * (something of the person's own) and queues as "queue QUEUE_URL" does.
 * Results are said with dialog.say so the test reads them from the printed lines.
 */
#include "fixture.h"

#include <stdio.h>
#include <string.h>

typedef struct state {
    const assist_host *host;
    const assist_dialog_service *dialog;
    const assist_session_service *session;
    const assist_storage_service *storage;
    const assist_outbox_service *outbox;
    int expected;
    int received;
} state;

static void say(state *s, const char *text) { s->dialog->say(s->host, text, ASSIST_PRIORITY_MESSAGE); }

static bool outcome(void *user, const assist_outbox_outcome *o) {
    state *s = user;
    char line[400];
    const char *id = "";
    for (size_t i = 0; i < o->header_count; i++) {
        const assist_http_field *header = ASSIST_ELEMENT(assist_http_field, o->headers, i);
        if (strcmp(header->name, "orbit-id") == 0) id = header->value;
    }
    snprintf(line, sizeof line, "Outcome %s: status %d, orbit-id %s, body %.*s%s%s", o->tag ? o->tag : "-",
             (int)o->status, id, (int)o->body_size, o->body ? (const char *)o->body : "",
             o->error ? ", error " : "", o->error ? o->error : "");
    say(s, line);
    if (++s->received >= s->expected) s->session->finish(s->host, ASSIST_OK);
    return true;
}

static assist_status queue_json(state *s, const char *base, const char *tag) {
    char url[300];
    snprintf(url, sizeof url, "%s/api/thing/", base);
    const char *json = "{\"label\":\"Mug\"}";
    assist_http_field headers[] = {
        {.struct_size = sizeof(assist_http_field), .name = "Authorization", .value = "Token hidden-from-logs"}};
    assist_outbox_request r = {0};
    r.struct_size = sizeof r;
    r.method = "POST";
    r.url = url;
    r.headers = headers;
    r.header_count = 1;
    r.body = ASSIST_OUTBOX_BODY_JSON;
    r.json = json;
    r.json_size = strlen(json);
    r.tag = tag;
    return s->outbox->enqueue(s->host, &r, NULL, NULL);
}

static void send_all(state *s, const char *base) {
    char path[512], url[300], line[600];
    char *err = NULL;
    s->storage->media_create(s->host, "clip.bin", path, sizeof path, NULL);
    FILE *file = fopen(path, "wb");
    for (int i = 0; i < 100000; i++) fputc(i % 251, file);
    fclose(file);
    queue_json(s, base, "thing");

    snprintf(url, sizeof url, "%s/api/video/", base);
    assist_outbox_part parts[] = {
        {.struct_size = sizeof(assist_outbox_part), .name = "thing", .text = "7"},
        {.struct_size = sizeof(assist_outbox_part), .name = "file", .path = "clip.bin", .filename = "clip.bin",
         .content_type = "video/mp4"}};
    assist_outbox_request r = {0};
    r.struct_size = sizeof r;
    r.method = "POST";
    r.url = url;
    r.body = ASSIST_OUTBOX_BODY_MULTIPART;
    r.parts = parts;
    r.part_count = 2;
    r.tag = "video";
    int64_t job = 0;
    assist_status sent = s->outbox->enqueue(s->host, &r, &job, NULL);

    parts[1].path = "/etc/passwd";
    assist_status outside = s->outbox->enqueue(s->host, &r, NULL, &err);
    snprintf(line, sizeof line, "Queued: %s job %lld; outside %s (%s)", assist_status_name(sent), (long long)job,
             assist_status_name(outside), err ? err : "");
    free(err);
    err = NULL;
    say(s, line);
    r.url = "ftp://example.org/";
    r.body = ASSIST_OUTBOX_BODY_NONE;
    assist_status bad = s->outbox->enqueue(s->host, &r, NULL, &err);
    snprintf(line, sizeof line, "Bad URL: %s (%s)", assist_status_name(bad), err ? err : "");
    free(err);
    say(s, line);
}

static assist_status start(assist_plugin *p, int32_t argc, const char *const *argv, char **err) {
    state *s = p->plugin_data;
    (void)err;
#ifdef QUEUE_URL
    if (argc == 0) {
        char path[512];
        if (s->storage->media_create(s->host, "note.txt", path, sizeof path, NULL) == ASSIST_OK) {
            FILE *file = fopen(path, "w");
            if (file) {
                fputs("a note of this person's own\n", file);
                fclose(file);
            }
        }
        say(s, queue_json(s, QUEUE_URL, "queued") == ASSIST_OK ? "Queued." : "Not queued.");
        s->session->finish(s->host, ASSIST_OK);
        return ASSIST_OK;
    }
#endif
    const char *mode = argc > 0 ? argv[0] : "listen";
    if (strcmp(mode, "queue") == 0 && argc > 1) {
        say(s, queue_json(s, argv[1], "queued") == ASSIST_OK ? "Queued." : "Not queued.");
        s->session->finish(s->host, ASSIST_OK);
        return ASSIST_OK;
    }
    s->expected = strcmp(mode, "send") == 0 ? 2 : 1;
    s->outbox->on_outcome(s->host, outcome, s);
    if (strcmp(mode, "send") == 0 && argc > 1) send_all(s, argv[1]);
    return ASSIST_OK;
}

static void setup(state *s, const assist_host *host) {
    s->host = host;
    s->dialog = host->get_service(host, ASSIST_DIALOG_SERVICE);
    s->session = host->get_service(host, ASSIST_SESSION_SERVICE);
    s->storage = host->get_service(host, ASSIST_STORAGE_SERVICE);
    s->outbox = host->get_service(host, ASSIST_OUTBOX_SERVICE);
}

ASSIST_FIXTURE_ENTRY("org.test.outbox", state, NULL)
