/*
 * A third-party plugin that misbehaves on purpose, for the helper-process tests (issue 17). Built with one of:
 *   -DCRASH_IN_INIT -DCRASH_IN_CREATE -DCRASH_IN_START -DCRASH_IN_COMMAND -DCRASH_IN_STOP
 *   -DCRASH_IN_DESTROY     NULL dereferenced there
 *   -DCRASH_IN_FRAME       subscribes to the camera and dereferences NULL in on_frame, at the 15th frame (half
 *                          a second after start returned: the host has its answer by then, so the crash is
 *                          on_frame's alone, not "start or on_frame")
 *   -DCRASH_ON_ITS_OWN     a timer crashes it 100 ms after start, outside any call of the host's
 *   -DHANG_IN_START        start never returns
 *   -DEXIT_IN_START        start calls exit(3)
 *   -DABORT_IN_START       start calls abort()
 *   -DGARBAGE_IN_START     start writes an HTTP request on the helper's socket (descriptor 3)
 *   -DHUGE_IN_START        start writes a message header claiming a gigabyte
 *   -DCLOSE_IN_START       start closes the helper's socket and sleeps
 *   -DFORK_IN_START        start forks a child that writes its pid to PID_FILE and sleeps, then crashes
 *   -DWRONG_THREAD         start calls the [main] dialog.say from a thread of its own, then goes on
 *   -DHALF_WRITTEN         start writes a row, begins a transaction, writes another, and crashes
 *   -DREPORT_ROWS          start says the rows of its table and finishes
 *   -DLINGER_AFTER_STOP    destroy leaves a thread that keeps calling dialog.say every 20 ms
 *   -DLEAK_FRAMES          retains every camera frame and releases none; after 30 frames says how many it
 *                          holds and how many were refused, and finishes
 * Without a misbehaviour it says "Misbehave started." and waits; "crash" as a command does nothing then.
 */
#define _GNU_SOURCE
#include "assist_plugin.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef PLUGIN_ID
#define PLUGIN_ID "org.example.misbehave"
#endif

typedef struct state {
    const assist_host *host;
    const assist_dialog_service *dialog;
    const assist_session_service *session;
    const assist_clock_service *clock;
    const assist_storage_service *storage;
    const assist_camera_service *camera;
    int frames, held, refused;
} state;

static void crash(void) {
    volatile int *nothing = NULL;
    *nothing = 1;
}

static void say(state *s, const char *text) { s->dialog->say(s->host, text, ASSIST_PRIORITY_IMPORTANT); }

static void on_timer(void *user, uint64_t timer) {
    (void)user;
    (void)timer;
    crash();
}

static void *wrong_thread(void *user) {
    state *s = user;
    s->dialog->say(s->host, "Said from the wrong thread.", ASSIST_PRIORITY_MESSAGE);
    return NULL;
}

static bool print_row(void *user, int32_t count, const char *const *names, const assist_value *values) {
    state *s = user;
    (void)names;
    char line[200];
    snprintf(line, sizeof line, "Row: %s.", count > 0 && values[0].type == ASSIST_VALUE_TEXT ? (const char *)values[0].data : "?");
    say(s, line);
    return true;
}

static void table_rows(state *s, bool half) {
    assist_db *db = NULL;
    s->storage->open(s->host, "notes", &db, NULL);
    s->storage->exec(s->host, db, "CREATE TABLE IF NOT EXISTS notes(text TEXT)", NULL, 0, NULL, NULL, NULL, NULL);
    if (half) {
        s->storage->exec(s->host, db, "INSERT INTO notes VALUES('kept')", NULL, 0, NULL, NULL, NULL, NULL);
        s->storage->begin(s->host, db);
        s->storage->exec(s->host, db, "INSERT INTO notes VALUES('half')", NULL, 0, NULL, NULL, NULL, NULL);
        crash();
    }
    s->storage->exec(s->host, db, "SELECT text FROM notes ORDER BY rowid", NULL, 0, print_row, s, NULL, NULL);
}

static void *linger(void *user) {
    const assist_host *h = user;
    const assist_dialog_service *dialog = h->get_service(h, ASSIST_DIALOG_SERVICE);
    for (;;) {
        dialog->say(h, "Still running after stop.", ASSIST_PRIORITY_MESSAGE);
        usleep(20000);
    }
    return NULL;
}

static void on_frame(assist_plugin *p, const assist_frame *f) {
    state *s = p->plugin_data;
#ifdef CRASH_IN_FRAME
    if (++s->frames >= 15) crash();
    return;
#endif
    if (s->frames >= 30) return;
    if (s->camera->retain(s->host, f) != NULL) s->held++;
    else s->refused++;
    s->frames++;
}

/* On the main thread (finish is [main]): once 30 frames came, says what it holds and finishes. */
static void count_frames(void *user, uint64_t timer) {
    state *s = user;
    (void)timer;
    if (s->frames < 30 || s->held < 0) return;
    char line[100];
    snprintf(line, sizeof line, "Holding %d frames, %d refused.", s->held, s->refused);
    s->held = -1;
    say(s, line);
    s->session->finish(s->host, ASSIST_OK);
}

static assist_status start(assist_plugin *p, int32_t argc, const char *const *argv, char **err) {
    state *s = p->plugin_data;
    (void)argc;
    (void)argv;
    (void)err;
    (void)on_timer; /* each misbehaviour uses some of these */
    (void)wrong_thread;
    (void)table_rows;
    (void)count_frames;
    say(s, "Misbehave started.");
#ifdef CRASH_IN_START
    crash();
#endif
#ifdef CRASH_ON_ITS_OWN
    s->clock->timer_add(s->host, 100, false, on_timer, s, NULL);
#endif
#ifdef HANG_IN_START
    for (;;) pause();
#endif
#ifdef EXIT_IN_START
    exit(3);
#endif
#ifdef ABORT_IN_START
    abort();
#endif
#ifdef GARBAGE_IN_START
    {
        const char text[] = "GET / HTTP/1.1\r\nHost: example.org\r\n\r\n";
        if (write(3, text, sizeof text - 1) < 0) return ASSIST_E_IO;
        sleep(5);
    }
#endif
#ifdef HUGE_IN_START
    {
        unsigned char header[16] = {0, 0, 0, 0x40, 1, 0, 0, 0, 1, 0, 0, 0, 101, 0, 0, 0};
        if (write(3, header, sizeof header) < 0) return ASSIST_E_IO;
        sleep(5);
    }
#endif
#ifdef CLOSE_IN_START
    close(3);
    sleep(5);
#endif
#ifdef FORK_IN_START
    if (fork() == 0) {
        FILE *f = fopen(PID_FILE, "w");
        if (f) {
            fprintf(f, "%d\n", (int)getpid());
            fclose(f);
        }
        sleep(600);
        _exit(0);
    }
    usleep(200000); /* the child has written its pid */
    crash();
#endif
#ifdef WRONG_THREAD
    {
        pthread_t thread;
        if (pthread_create(&thread, NULL, wrong_thread, s) == 0) pthread_join(thread, NULL);
        say(s, "Still here.");
    }
#endif
#ifdef HALF_WRITTEN
    table_rows(s, true);
#endif
#ifdef REPORT_ROWS
    table_rows(s, false);
    s->session->finish(s->host, ASSIST_OK);
#endif
#if defined(LEAK_FRAMES) || defined(CRASH_IN_FRAME)
    {
        assist_camera_request r;
        memset(&r, 0, sizeof r);
        r.struct_size = sizeof r;
        r.fourcc = ASSIST_FOURCC_GRAY8;
#ifdef LEAK_FRAMES
        s->clock->timer_add(s->host, 50, true, count_frames, s, NULL);
#endif
        return s->camera->subscribe(s->host, &r, err);
    }
#endif
    return ASSIST_OK;
}

static void stop(assist_plugin *p) {
    (void)p;
#ifdef CRASH_IN_STOP
    crash();
#endif
}

static void on_command(assist_plugin *p, const char *cmd, const char *arg) {
    (void)arg;
    if (strcmp(cmd, "next") == 0) say(p->plugin_data, "Next.");
#ifdef CRASH_IN_COMMAND
    if (strcmp(cmd, "next") == 0) crash();
#endif
}

static void destroy(assist_plugin *p) {
    state *s = p->plugin_data;
    (void)linger;
#ifdef CRASH_IN_DESTROY
    crash();
#endif
#ifdef LINGER_AFTER_STOP
    {
        pthread_t thread;
        if (pthread_create(&thread, NULL, linger, (void *)s->host) == 0) pthread_detach(thread);
    }
#endif
    free(s);
    free(p);
}

static bool init(const assist_host *h) {
    (void)h;
#ifdef CRASH_IN_INIT
    crash();
#endif
    return true;
}

static void deinit(void) {}

static assist_plugin *create(const assist_host *h, char **err) {
    (void)err;
#ifdef CRASH_IN_CREATE
    crash();
#endif
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
    s->clock = h->get_service(h, ASSIST_CLOCK_SERVICE);
    s->storage = h->get_service(h, ASSIST_STORAGE_SERVICE);
    s->camera = h->get_service(h, ASSIST_CAMERA_SERVICE);
    p->struct_size = sizeof *p;
    p->plugin_data = s;
    p->start = start;
    p->stop = stop;
    p->on_command = on_command;
    p->on_frame = on_frame;
    p->destroy = destroy;
    return p;
}

ASSIST_EXPORT const assist_entry *assist_plugin_entry(void) {
    static const assist_entry entry = {sizeof entry, {ASSIST_ABI_MAJOR, ASSIST_ABI_MINOR, 0, 0}, PLUGIN_ID, "1.0.0",
                                       init, deinit, create, {0}};
    return &entry;
}
