/*
 * A hostile plugin that goes through the host's services rather than around them (issue 68, docs/security.md
 * "What the services refuse"): each attack asks a service to do on its behalf what its sandbox forbids it. It
 * says one line per attack, "<attack>: <status>", and the test checks every one was refused and that nothing
 * reached anyone. Built by Tests/HostCLITests/DeputyTests.swift with:
 *   PLUGIN_ID      its id
 *   OTHER_DB       another feature's database (the survey's answers)
 *   OUTBOX_DB      the outbox's own queue
 *   ESCAPE_FILE    a path outside every folder it may write, which must never appear
 *   SECRET_FILE    the user's key
 *   UPLOAD_URL     the one server its manifest declares
 */
#define _DEFAULT_SOURCE
#include "fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct state {
    const assist_host *host;
    const assist_dialog_service *dialog;
    const assist_session_service *session;
    const assist_storage_service *storage;
    const assist_settings_service *settings;
    const assist_events_service *events;
    const assist_input_service *input;
    const assist_outbox_service *outbox;
} state;

static void report(state *s, const char *attack, assist_status status) {
    char line[256];
    snprintf(line, sizeof line, "%s: %s", attack, assist_status_name(status));
    s->dialog->say(s->host, line, ASSIST_PRIORITY_MESSAGE);
}

static assist_status sql(state *s, assist_db *db, const char *text) {
    return s->storage->exec(s->host, db, text, NULL, 0, NULL, NULL, NULL, NULL);
}

static void storage_attacks(state *s) {
    assist_db *db = NULL;
    char text[2048];
    report(s, "open own", s->storage->open(s->host, "own", &db, NULL));
    if (db == NULL) return;
    report(s, "own table", sql(s, db, "CREATE TABLE IF NOT EXISTS notes (n INTEGER, body TEXT)"));
    report(s, "own row", sql(s, db, "INSERT INTO notes VALUES (1, 'kept')"));
    snprintf(text, sizeof text, "ATTACH DATABASE '%s' AS other", OTHER_DB);
    report(s, "attach other feature", sql(s, db, text));
    snprintf(text, sizeof text, "ATTACH '%s' AS queue", OUTBOX_DB);
    report(s, "attach outbox", sql(s, db, text));
    snprintf(text, sizeof text, "ATTACH '%s' AS made", ESCAPE_FILE);
    report(s, "attach new file", sql(s, db, text));
    snprintf(text, sizeof text, "VACUUM INTO '%s'", ESCAPE_FILE);
    report(s, "vacuum into", sql(s, db, text));
    report(s, "writable schema", sql(s, db, "PRAGMA writable_schema = ON"));
    report(s, "journal off", sql(s, db, "PRAGMA journal_mode = OFF"));
    report(s, "load extension", sql(s, db, "SELECT load_extension('/usr/lib/x86_64-linux-gnu/libsqlite3.so.0')"));
    report(s, "endless query",
           sql(s, db, "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"));
    report(s, "huge blob", sql(s, db, "SELECT length(randomblob(2000000000))"));
    report(s, "vacuum own", sql(s, db, "VACUUM"));
    report(s, "own row after", sql(s, db, "UPDATE notes SET body = 'still kept' WHERE n = 1"));

    /* A link it makes in its own folder, named like a database, to another feature's. */
    const char *data = s->session->data_dir(s->host);
    char link[1024];
    snprintf(link, sizeof link, "%s/stolen.sqlite", data);
    int made = symlink(OTHER_DB, link);
    assist_db *stolen = NULL;
    assist_status opened = s->storage->open(s->host, "stolen", &stolen, NULL);
    report(s, made == 0 ? "open link" : "open link (not made)", opened);
    /* A link as the journal of a database of its own. */
    snprintf(link, sizeof link, "%s/journal.sqlite-wal", data);
    made = symlink(OTHER_DB, link);
    assist_db *journal = NULL;
    report(s, made == 0 ? "open journal link" : "open journal link (not made)",
           s->storage->open(s->host, "journal", &journal, NULL));

    /* Databases without end, each with a page cache in the host. */
    assist_status many = ASSIST_OK;
    int opened_many = 0;
    for (int i = 0; i < 100 && many == ASSIST_OK; i++) {
        char name[32];
        assist_db *extra = NULL;
        snprintf(name, sizeof name, "many%d", i);
        many = s->storage->open(s->host, name, &extra, NULL);
        if (many == ASSIST_OK) opened_many++;
    }
    report(s, "many databases", many);
    snprintf(text, sizeof text, "databases opened: %d", opened_many > 0);
    s->dialog->say(s->host, text, ASSIST_PRIORITY_MESSAGE);
}

static void settings_attacks(state *s) {
    char buffer[512];
    size_t needed = 0;
    report(s, "read secret",
           s->settings->get_string(s->host, "collect-videos.app-credential", buffer, sizeof buffer, &needed));
    report(s, "read server", s->settings->get_string(s->host, "collect-videos.server-url", buffer, sizeof buffer, &needed));
    assist_status rate = s->settings->get_string(s->host, "speech.rate", buffer, sizeof buffer, &needed);
    report(s, "read public", rate == ASSIST_E_NOT_FOUND ? ASSIST_OK : rate);
    report(s, "write sandbox", s->settings->set_string(s->host, "plugins.sandbox", "false"));
    report(s, "write in-process", s->settings->set_string(s->host, "plugins.in-process", PLUGIN_ID));
    report(s, "write other server", s->settings->set_string(s->host, "collect-videos.server-url", "http://127.0.0.1:9/"));
    report(s, "write own", s->settings->set_string(s->host, "colour", "blue"));
}

static void event_attacks(state *s) {
    report(s, "publish crash", s->events->publish(s->host, "assist.plugin.crashed", "{\"id\":\"assist.survey\"}"));
    report(s, "publish camera lost", s->events->publish(s->host, "assist.camera.lost", "{}"));
    report(s, "publish own", s->events->publish(s->host, PLUGIN_ID ".ready", "{}"));
}

static void command_attacks(state *s) {
    char id[32], label[32];
    int added = 0;
    assist_status last = ASSIST_OK;
    for (int i = 0; i < 250; i++) {
        snprintf(id, sizeof id, "c%d", i);
        snprintf(label, sizeof label, "Command %d", i);
        last = s->input->register_command(s->host, id, label, NULL, NULL, ASSIST_SCOPE_FOCUSED);
        if (last == ASSIST_OK) added++;
    }
    char line[128];
    snprintf(line, sizeof line, "commands added: %d", added);
    s->dialog->say(s->host, line, ASSIST_PRIORITY_MESSAGE);
    report(s, "command 250", last);
}

static void upload_attacks(state *s) {
    char path[1024];
    assist_status made = s->storage->media_create(s->host, "clip.bin", path, sizeof path, NULL);
    FILE *file = made == ASSIST_OK ? fopen(path, "wb") : NULL;
    if (file != NULL) {
        fputs("a clip of the plugin's own", file);
        fclose(file);
    }
    assist_outbox_part part;
    memset(&part, 0, sizeof part);
    part.struct_size = sizeof part;
    part.name = "file";
    part.path = path;
    part.filename = "clip.bin";
    assist_outbox_request request;
    memset(&request, 0, sizeof request);
    request.struct_size = sizeof request;
    request.method = "POST";
    request.url = UPLOAD_URL;
    request.body = ASSIST_OUTBOX_BODY_MULTIPART;
    request.parts = &part;
    request.part_count = 1;
    request.max_attempts = 1;
    int64_t job = 0;
    report(s, "upload own", s->outbox->enqueue(s->host, &request, &job, NULL));
    /* Then swapped for a link to the user's key: the queued job must not send it. */
    unlink(path);
    int linked = symlink(SECRET_FILE, path);
    report(s, linked == 0 ? "swap for link" : "swap for link (not made)", ASSIST_OK);
    /* And a link queued directly. */
    int64_t second = 0;
    report(s, "upload link", s->outbox->enqueue(s->host, &request, &second, NULL));
    part.path = SECRET_FILE;
    report(s, "upload key", s->outbox->enqueue(s->host, &request, &second, NULL));
}

static assist_status start(assist_plugin *p, int32_t argc, const char *const *argv, char **err) {
    state *s = p->plugin_data;
    (void)argc;
    (void)argv;
    (void)err;
#ifdef ENDLESS_ONLY
    {
        assist_db *db = NULL;
        s->storage->open(s->host, "own", &db, NULL);
        s->dialog->say(s->host, "endless query begins", ASSIST_PRIORITY_MESSAGE);
        report(s, "endless query",
               sql(s, db, "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"));
        s->session->finish(s->host, ASSIST_OK);
        return ASSIST_OK;
    }
#endif
    storage_attacks(s);
    settings_attacks(s);
    event_attacks(s);
    command_attacks(s);
    upload_attacks(s);
#ifdef TRY_SYSTEM
    {
        /* glibc's system() blocks every signal before it spawns: the sandbox must answer it, not kill it. */
        char command[1200];
        snprintf(command, sizeof command, "echo escaped > '%s.ran'", ESCAPE_FILE);
        int status = system(command);
        /* -1, or the shell's "could not be run" (127) when posix_spawn is refused. */
        bool refused = status == -1 || (WIFEXITED(status) && WEXITSTATUS(status) == 127);
        s->dialog->say(s->host, refused ? "system: refused" : "system: ran", ASSIST_PRIORITY_MESSAGE);
    }
#endif
    s->dialog->say(s->host, "deputy done", ASSIST_PRIORITY_MESSAGE);
    s->session->finish(s->host, ASSIST_OK);
    return ASSIST_OK;
}

static void setup(state *s, const assist_host *host) {
    s->host = host;
    s->dialog = host->get_service(host, ASSIST_DIALOG_SERVICE);
    s->session = host->get_service(host, ASSIST_SESSION_SERVICE);
    s->storage = host->get_service(host, ASSIST_STORAGE_SERVICE);
    s->settings = host->get_service(host, ASSIST_SETTINGS_SERVICE);
    s->events = host->get_service(host, ASSIST_EVENTS_SERVICE);
    s->input = host->get_service(host, ASSIST_INPUT_SERVICE);
    s->outbox = host->get_service(host, ASSIST_OUTBOX_SERVICE);
}

ASSIST_FIXTURE_ENTRY(PLUGIN_ID, state, NULL)
