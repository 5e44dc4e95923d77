/*
 * The plugin bench/plugin-helper.sh runs in process and in a helper process (issue 17's figures).
 *   calls   times 2000 round trips each of settings.get_int, storage.exec of one row and speech.speak,
 *           and says their medians in microseconds and this process's resident memory; then the storage
 *           call's p95, and the milliseconds 200 input.register_command calls take in all (issue 68)
 *   frames  subscribes to 1080p BGR frames and says the p50 and p95 of capture-to-on_frame latency over
 *           90 frames
 *   frames-kept  the same, each frame retained in on_frame and the one before released (a mailbox)
 *   noop    finishes at once (the start-up cost)
 */
#define _GNU_SOURCE
#include "assist_plugin.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CALLS 2000
#define FRAMES 90

typedef struct state {
    const assist_host *host;
    const assist_dialog_service *dialog;
    const assist_session_service *session;
    const assist_settings_service *settings;
    const assist_storage_service *storage;
    const assist_speech_service *speech;
    const assist_camera_service *camera;
    const assist_input_service *input;
    uint64_t latency[FRAMES];
    int frames;
    bool keep;                /* frames-kept: each frame retained and the one before released */
    const assist_frame *kept;
} state;

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static int compare(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static double percentile(uint64_t *values, int count, double p) {
    qsort(values, (size_t)count, sizeof *values, compare);
    return (double)values[(int)(p * (count - 1))] / 1000.0;
}

static long resident_kb(void) {
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "VmRSS:", 6) == 0) kb = strtol(line + 6, NULL, 10);
    if (f) fclose(f);
    return kb;
}

static void say(state *s, const char *text) { s->dialog->say(s->host, text, ASSIST_PRIORITY_IMPORTANT); }

static void calls(state *s) {
    static uint64_t took[3][CALLS];
    assist_db *db = NULL;
    s->storage->open(s->host, "bench", &db, NULL);
    s->storage->exec(s->host, db, "CREATE TABLE IF NOT EXISTS t(x INTEGER)", NULL, 0, NULL, NULL, NULL, NULL);
    s->storage->exec(s->host, db, "INSERT INTO t VALUES(1)", NULL, 0, NULL, NULL, NULL, NULL);
    assist_speech_options options = {sizeof options, ASSIST_PRIORITY_NOTIFICATION, NULL, NULL, 0, ASSIST_SPEECH_NO_PRINT, {0}};
    for (int i = 0; i < CALLS; i++) {
        int64_t value = 0;
        uint64_t t0 = now_ns();
        s->settings->get_int(s->host, "speech.rate", &value);
        uint64_t t1 = now_ns();
        s->storage->exec(s->host, db, "SELECT x FROM t LIMIT 1", NULL, 0, NULL, NULL, NULL, NULL);
        uint64_t t2 = now_ns();
        s->speech->speak(s->host, "x", &options, NULL, NULL, NULL, NULL);
        uint64_t t3 = now_ns();
        took[0][i] = t1 - t0;
        took[1][i] = t2 - t1;
        took[2][i] = t3 - t2;
    }
    s->speech->cancel_mine(s->host);
    double commands_ms = -1;
    if (s->input != NULL) {
        char id[32], phrase[48];
        uint64_t t0 = now_ns();
        for (int i = 0; i < 200; i++) {
            snprintf(id, sizeof id, "c%d", i);
            snprintf(phrase, sizeof phrase, "bench command %d", i);
            s->input->register_command(s->host, id, id, NULL, phrase, ASSIST_SCOPE_FOCUSED);
        }
        commands_ms = (double)(now_ns() - t0) / 1e6;
    }
    char line[256];
    double storage_p50 = percentile(took[1], CALLS, 0.5), storage_p95 = percentile(took[1], CALLS, 0.95);
    snprintf(line, sizeof line, "calls us: settings %.1f, storage %.1f, speak %.1f; resident %ld kB",
             percentile(took[0], CALLS, 0.5), storage_p50, percentile(took[2], CALLS, 0.5), resident_kb());
    say(s, line);
    snprintf(line, sizeof line, "storage us: p50 %.1f, p95 %.1f; 200 commands %.2f ms", storage_p50, storage_p95,
             commands_ms);
    say(s, line);
    s->session->finish(s->host, ASSIST_OK);
}

static void on_frame(assist_plugin *p, const assist_frame *f) {
    state *s = p->plugin_data;
    if (s->frames >= FRAMES) return;
    if (s->keep) { /* a worker's mailbox: the newest frame kept, the one before released */
        const assist_frame *copy = s->camera->retain(s->host, f);
        if (copy != NULL) {
            if (s->kept != NULL) s->camera->release(s->host, s->kept);
            s->kept = copy;
        }
    }
    s->latency[s->frames++] = now_ns() - f->timestamp_ns;
}

static void check_frames(void *user, uint64_t timer) {
    state *s = user;
    (void)timer;
    if (s->frames < FRAMES) return;
    s->camera->unsubscribe(s->host);
    if (s->kept != NULL) s->camera->release(s->host, s->kept);
    s->kept = NULL;
    char line[200];
    snprintf(line, sizeof line, "frames us: p50 %.0f, p95 %.0f over %d", percentile(s->latency, FRAMES, 0.5),
             percentile(s->latency, FRAMES, 0.95), FRAMES);
    say(s, line);
    s->session->finish(s->host, ASSIST_OK);
}

static assist_status start(assist_plugin *p, int32_t argc, const char *const *argv, char **err) {
    state *s = p->plugin_data;
    const char *mode = argc > 0 ? argv[0] : "noop";
    if (strcmp(mode, "calls") == 0) {
        calls(s);
    } else if (strcmp(mode, "frames") == 0 || strcmp(mode, "frames-kept") == 0) {
        s->keep = strcmp(mode, "frames-kept") == 0;
        assist_camera_request r = {sizeof r, ASSIST_FOURCC_BGR24, 1920, 1080, 0, 1, 0, 0, {0}};
        if (s->camera->subscribe(s->host, &r, err) != ASSIST_OK) return ASSIST_E_IO;
        const assist_clock_service *clock = s->host->get_service(s->host, ASSIST_CLOCK_SERVICE);
        clock->timer_add(s->host, 100, true, check_frames, s, NULL);
    } else {
        s->session->finish(s->host, ASSIST_OK);
    }
    return ASSIST_OK;
}

static void stop(assist_plugin *p) { (void)p; }

static void destroy(assist_plugin *p) {
    free(p->plugin_data);
    free(p);
}

static bool init(const assist_host *h) {
    (void)h;
    return true;
}

static void deinit(void) {}

static assist_plugin *create(const assist_host *h, char **err) {
    (void)err;
    assist_plugin *p = calloc(1, sizeof *p);
    state *s = calloc(1, sizeof *s);
    if (p == NULL || s == NULL) {
        free(p);
        free(s);
        return NULL;
    }
    s->host = h;
    s->dialog = h->get_service(h, ASSIST_DIALOG_SERVICE);
    s->session = h->get_service(h, ASSIST_SESSION_SERVICE);
    s->settings = h->get_service(h, ASSIST_SETTINGS_SERVICE);
    s->storage = h->get_service(h, ASSIST_STORAGE_SERVICE);
    s->speech = h->get_service(h, ASSIST_SPEECH_SERVICE);
    s->camera = h->get_service(h, ASSIST_CAMERA_SERVICE);
    s->input = h->get_service(h, ASSIST_INPUT_SERVICE);
    p->struct_size = sizeof *p;
    p->plugin_data = s;
    p->start = start;
    p->stop = stop;
    p->on_frame = on_frame;
    p->destroy = destroy;
    return p;
}

ASSIST_EXPORT const assist_entry *assist_plugin_entry(void) {
    static const assist_entry entry = {sizeof entry, {ASSIST_ABI_MAJOR, ASSIST_ABI_MINOR, 0, 0}, "org.example.bench",
                                       "1.0.0", init, deinit, create, {0}};
    return &entry;
}
