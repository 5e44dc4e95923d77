/*
 * A C99 plugin that drives assist.storage/1 for the host's tests and benchmark. Its first argument:
 *   basic      migrate, insert with bound values, read rows back, roll a transaction back, report a SQL
 *              mistake, create media, move it to the cache, refuse a path that leaves the folder
 *   bench N    insert N rows in one transaction and say how long it took in microseconds
 *   full       insert until the database fills the quota (storage.quota-mb, which counts databases and
 *              media together), count what was kept, then reserve media space beyond the quota twice
 * Results are said with dialog.say so the test reads them from the printed lines.
 */
#include "fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct state {
    const assist_host *host;
    const assist_dialog_service *dialog;
    const assist_session_service *session;
    const assist_storage_service *storage;
    const assist_clock_service *clock;
    char rows[512];
} state;

static void say(state *s, const char *text) { s->dialog->say(s->host, text, ASSIST_PRIORITY_MESSAGE); }

static bool collect(void *user, int32_t count, const char *const *names, const assist_value *values) {
    state *s = user;
    char piece[128];
    for (int32_t i = 0; i < count; i++) {
        const assist_value *v = ASSIST_ELEMENT(assist_value, values, i);
        if (v->type == ASSIST_VALUE_TEXT) {
            snprintf(piece, sizeof piece, "%s=%s ", names[i], (const char *)v->data);
        } else if (v->type == ASSIST_VALUE_INT) {
            snprintf(piece, sizeof piece, "%s=%lld ", names[i], (long long)v->integer);
        } else if (v->type == ASSIST_VALUE_REAL) {
            snprintf(piece, sizeof piece, "%s=%.2f ", names[i], v->real);
        } else {
            snprintf(piece, sizeof piece, "%s=(type %d, %zu bytes) ", names[i], (int)v->type, v->size);
        }
        strncat(s->rows, piece, sizeof s->rows - strlen(s->rows) - 1);
    }
    return true;
}

static void basic(state *s) {
    assist_db *db = NULL;
    char *err = NULL;
    char line[600];
    if (s->storage->open(s->host, "main", &db, &err) != ASSIST_OK) {
        say(s, err ? err : "open failed");
        return;
    }
    s->storage->migrate(s->host, db, 1, "CREATE TABLE things (id INTEGER PRIMARY KEY, label TEXT, weight REAL, photo BLOB);", NULL);
    assist_value params[3];
    memset(params, 0, sizeof params);
    for (int i = 0; i < 3; i++) params[i].struct_size = sizeof params[i];
    params[0].type = ASSIST_VALUE_TEXT;
    params[0].data = "кружка";
    params[0].size = strlen("кружка");
    params[1].type = ASSIST_VALUE_REAL;
    params[1].real = 0.25;
    params[2].type = ASSIST_VALUE_BLOB;
    params[2].data = "\x01\x02\x03";
    params[2].size = 3;
    int64_t changes = 0;
    s->storage->exec(s->host, db, "INSERT INTO things (label, weight, photo) VALUES (?, ?, ?)", params, 3, NULL, NULL, &changes, NULL);
    s->storage->begin(s->host, db);
    s->storage->exec(s->host, db, "INSERT INTO things (label) VALUES ('rolled back')", NULL, 0, NULL, NULL, NULL, NULL);
    s->storage->rollback(s->host, db);
    s->storage->exec(s->host, db, "SELECT id, label, weight, photo FROM things", NULL, 0, collect, s, NULL, NULL);
    snprintf(line, sizeof line, "Inserted %lld; rows: %s", (long long)changes, s->rows);
    say(s, line);

    assist_status bad = s->storage->exec(s->host, db, "SELEC * FROM things", NULL, 0, NULL, NULL, NULL, &err);
    snprintf(line, sizeof line, "Mistake: %s, %s", assist_status_name(bad), err ? err : "(no message)");
    say(s, line);

    char path[1024];
    if (s->storage->media_create(s->host, "clips/cup-1.bin", path, sizeof path, NULL) == ASSIST_OK) {
        FILE *file = fopen(path, "wb");
        if (file != NULL) {
            fwrite("0123456789", 1, 10, file);
            fclose(file);
        }
    }
    char cached[1024];
    assist_status moved = s->storage->media_to_cache(s->host, "clips/cup-1.bin", cached, sizeof cached, NULL);
    int64_t used = 0, quota = 0;
    s->storage->media_usage(s->host, &used, &quota);
    assist_status escape = s->storage->media_create(s->host, "../outside.bin", path, sizeof path, NULL);
    assist_status missing = s->storage->media_delete(s->host, "nothing.bin", false);
    snprintf(line, sizeof line, "Media: moved %s, used %lld, quota set %s, escape %s, missing %s", assist_status_name(moved),
             (long long)used, quota > 0 ? "yes" : "no", assist_status_name(escape), assist_status_name(missing));
    say(s, line);
}

static void bench(state *s, long count) {
    assist_db *db = NULL;
    char line[128];
    s->storage->open(s->host, "bench", &db, NULL);
    s->storage->exec(s->host, db, "CREATE TABLE IF NOT EXISTS rows (n INTEGER, label TEXT)", NULL, 0, NULL, NULL, NULL, NULL);
    uint64_t start = s->clock->now_ns(s->host);
    s->storage->begin(s->host, db);
    assist_value params[2];
    memset(params, 0, sizeof params);
    for (int i = 0; i < 2; i++) params[i].struct_size = sizeof params[i];
    params[0].type = ASSIST_VALUE_INT;
    params[1].type = ASSIST_VALUE_TEXT;
    params[1].data = "a row of the benchmark";
    params[1].size = strlen("a row of the benchmark");
    for (long i = 0; i < count; i++) {
        params[0].integer = i;
        s->storage->exec(s->host, db, "INSERT INTO rows (n, label) VALUES (?, ?)", params, 2, NULL, NULL, NULL, NULL);
    }
    s->storage->commit(s->host, db);
    long micros = (long)((s->clock->now_ns(s->host) - start) / 1000u);
    snprintf(line, sizeof line, "Inserted %ld rows in %ld us.", count, micros);
    say(s, line);
}

static void full(state *s) {
    assist_db *db = NULL;
    char *err = NULL;
    char line[700];
    s->storage->open(s->host, "full", &db, NULL);
    s->storage->exec(s->host, db, "CREATE TABLE IF NOT EXISTS notes (n INTEGER, body BLOB)", NULL, 0, NULL, NULL, NULL, NULL);
    /* The page limit is the host's (it holds the database to the quota): setting it is refused. */
    assist_status pragma = s->storage->exec(s->host, db, "PRAGMA max_page_count = 1000000", NULL, 0, NULL, NULL, NULL, NULL);
    static char body[1000];
    memset(body, 'x', sizeof body);
    assist_value params[2];
    memset(params, 0, sizeof params);
    for (int i = 0; i < 2; i++) params[i].struct_size = sizeof params[i];
    params[0].type = ASSIST_VALUE_INT;
    params[1].type = ASSIST_VALUE_BLOB;
    params[1].data = body;
    params[1].size = sizeof body;
    int kept = 0;
    assist_status status = ASSIST_OK;
    for (int i = 0; i < 4000; i++) {
        params[0].integer = i;
        status = s->storage->exec(s->host, db, "INSERT INTO notes (n, body) VALUES (?, ?)", params, 2, NULL, NULL, NULL, &err);
        if (status != ASSIST_OK) break;
        kept++;
    }
    s->rows[0] = '\0';
    s->storage->exec(s->host, db, "SELECT COUNT(*) AS n FROM notes", NULL, 0, collect, s, NULL, NULL);
    snprintf(line, sizeof line, "Full after %d rows: %s, %s; kept %s; pragma %s", kept, assist_status_name(status),
             err ? err : "(no message)", s->rows, assist_status_name(pragma));
    say(s, line);

    char *quota = NULL;
    assist_status over = s->storage->media_reserve(s->host, (int64_t)1 << 60, &quota);
    assist_status again = s->storage->media_reserve(s->host, (int64_t)1 << 60, NULL);
    snprintf(line, sizeof line, "Reserve: %s then %s, %s", assist_status_name(over), assist_status_name(again),
             quota ? quota : "(no message)");
    say(s, line);
}

static assist_status start(assist_plugin *p, int32_t argc, const char *const *argv, char **err) {
    state *s = p->plugin_data;
    (void)err;
    if (argc > 0 && strcmp(argv[0], "bench") == 0) {
        bench(s, argc > 1 ? atol(argv[1]) : 100000);
    } else if (argc > 0 && strcmp(argv[0], "full") == 0) {
        full(s);
    } else {
        basic(s);
    }
    s->session->finish(s->host, ASSIST_OK);
    return ASSIST_OK;
}

static void setup(state *s, const assist_host *host) {
    s->host = host;
    s->dialog = host->get_service(host, ASSIST_DIALOG_SERVICE);
    s->session = host->get_service(host, ASSIST_SESSION_SERVICE);
    s->storage = host->get_service(host, ASSIST_STORAGE_SERVICE);
    s->clock = host->get_service(host, ASSIST_CLOCK_SERVICE);
}

ASSIST_FIXTURE_ENTRY("org.test.storage", state, NULL)
