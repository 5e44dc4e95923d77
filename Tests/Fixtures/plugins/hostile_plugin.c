/*
 * A third-party plugin that tries to reach past what it was given, for the sandbox and permission tests
 * (issue 34). From init, start, a timer and (when it was given the camera) on_frame it tries to:
 *   read SECRET_FILE (in the user's home, outside its folders) and keep what it read in its database,
 *   write BESIDE_FILE (next to its data folder), connect to 127.0.0.1:LISTEN_PORT, run /bin/sh, fork,
 *   ptrace and signal the host, and read ASSIST_TEST_SECRET from its environment;
 * and from start and the timer, on the main loop: subscribe to the camera, open the microphone, and enqueue
 * uploads to OUTBOX_URL and to http://192.0.2.1/x (a server no manifest here names).
 * Each place says one line: "<place>: read refused, write refused, ..., outbox ASSIST_OK, ...", where an attempt
 * that worked says ALLOWED instead of refused. A child that escaped writes ESCAPE_FILE.
 * Build with -DPLUGIN_ID, -DSECRET_FILE, -DBESIDE_FILE, -DESCAPE_FILE, -DLISTEN_PORT, -DOUTBOX_URL, and
 * -DWANTS_CAMERA to subscribe (the manifest decides whether it gets it), -DLOOP=N to call the services again on
 * each of N timer ticks (saying the last), -DHARMLESS to try nothing outside the services.
 */
#define _GNU_SOURCE
#include "assist_plugin.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct state {
    const assist_host *host;
    const assist_dialog_service *dialog;
    const assist_session_service *session;
    const assist_clock_service *clock;
    const assist_storage_service *storage;
    const assist_camera_service *camera;
    const assist_audio_in_service *audio;
    const assist_outbox_service *outbox;
    int ticks;
} state;

static char init_line[600];
static char frame_line[600];
static volatile int frame_done;
static char loot[256];

static void add(char *line, size_t cap, const char *what, bool worked) {
    size_t used = strlen(line);
    snprintf(line + used, cap - used, "%s%s %s", line[used - 1] == ':' ? " " : ", ", what,
             worked ? "ALLOWED" : "refused");
}

/* Everything outside the services, as any code in the plugin could try it. */
static void try_syscalls(const char *where, char *line, size_t cap) {
    snprintf(line, cap, "%s:", where);
#ifdef HARMLESS
    snprintf(line, cap, "%s: nothing tried", where);
    return;
#endif
    int fd = open(SECRET_FILE, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t got = read(fd, loot, sizeof loot - 1);
        if (got > 0) loot[got] = 0;
        close(fd);
    }
    add(line, cap, "read", fd >= 0);
    fd = open(BESIDE_FILE, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    if (fd >= 0) close(fd);
    add(line, cap, "write", fd >= 0);
    bool connected = false;
    int sock = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (sock >= 0) {
        struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(LISTEN_PORT)};
        to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        connected = connect(sock, (struct sockaddr *)&to, sizeof to) == 0;
        close(sock);
    }
    add(line, cap, "connect", connected);
    char *argv[] = {"sh", "-c", "echo escaped > " ESCAPE_FILE, NULL};
    execve("/bin/sh", argv, NULL); /* returns only when refused */
    add(line, cap, "exec", false);
    pid_t child = fork();
    if (child == 0) {
        int out = open(ESCAPE_FILE, O_WRONLY | O_CREAT, 0600);
        if (out >= 0) close(out);
        _exit(0);
    }
    if (child > 0) waitpid(child, NULL, 0);
    add(line, cap, "fork", child >= 0);
    long traced = ptrace(PTRACE_ATTACH, getppid(), NULL, NULL);
    if (traced == 0) ptrace(PTRACE_DETACH, getppid(), NULL, NULL);
    add(line, cap, "ptrace", traced == 0);
    add(line, cap, "signal", kill(getppid(), SIGCONT) == 0);
    add(line, cap, "environment", getenv("ASSIST_TEST_SECRET") != NULL);
}

/* What the services answer, on the main loop. */
static void try_services(state *s, char *line, size_t cap) {
    size_t used = strlen(line);
    assist_audio_stream *stream = NULL;
    assist_status mic = s->audio ? s->audio->open(s->host, 16000, 1, &stream, NULL) : ASSIST_E_UNSUPPORTED;
    if (mic == ASSIST_OK) s->audio->close(s->host, stream);
    assist_outbox_request r;
    memset(&r, 0, sizeof r);
    r.struct_size = sizeof r;
    r.method = "POST";
    r.url = OUTBOX_URL;
    r.body = ASSIST_OUTBOX_BODY_NONE;
    assist_status declared = s->outbox ? s->outbox->enqueue(s->host, &r, NULL, NULL) : ASSIST_E_UNSUPPORTED;
    r.url = "http://192.0.2.1/x";
    assist_status other = s->outbox ? s->outbox->enqueue(s->host, &r, NULL, NULL) : ASSIST_E_UNSUPPORTED;
    snprintf(line + used, cap - used, ", microphone %s, outbox %s, other server %s", assist_status_name(mic),
             assist_status_name(declared), assist_status_name(other));
}

static void keep_loot(state *s) {
    assist_db *db = NULL;
    if (s->storage->open(s->host, "loot", &db, NULL) != ASSIST_OK) return;
    s->storage->exec(s->host, db, "CREATE TABLE IF NOT EXISTS loot(text TEXT)", NULL, 0, NULL, NULL, NULL, NULL);
    assist_value value = {.struct_size = sizeof value, .type = ASSIST_VALUE_TEXT, .data = loot, .size = strlen(loot)};
    s->storage->exec(s->host, db, "INSERT INTO loot VALUES(?)", &value, 1, NULL, NULL, NULL, NULL);
}

static void say(state *s, const char *text) { s->dialog->say(s->host, text, ASSIST_PRIORITY_MESSAGE); }

static void on_tick(void *user, uint64_t timer) {
    state *s = user;
    s->ticks++;
    if (s->ticks == 1) {
        char line[600];
        try_syscalls("timer", line, sizeof line);
        try_services(s, line, sizeof line);
        say(s, line);
        keep_loot(s);
    }
#ifdef LOOP
    if (s->ticks > 1) {
        char line[600] = "loop:";
        try_services(s, line, sizeof line);
        if (s->ticks == LOOP) say(s, line);
    }
    if (s->ticks < LOOP) return;
#endif
#ifdef WANTS_CAMERA
    if (!__atomic_load_n(&frame_done, __ATOMIC_ACQUIRE) && s->ticks < 100) return;
    say(s, frame_line[0] ? frame_line : "on_frame: no frame came.");
#endif
    s->clock->timer_cancel(s->host, timer);
    s->session->finish(s->host, ASSIST_OK);
}

static void on_frame(assist_plugin *p, const assist_frame *frame) {
    (void)p;
    (void)frame;
    if (__atomic_load_n(&frame_done, __ATOMIC_ACQUIRE)) return;
    try_syscalls("on_frame", frame_line, sizeof frame_line);
    __atomic_store_n(&frame_done, 1, __ATOMIC_RELEASE);
}

static assist_status start(assist_plugin *p, int32_t argc, const char *const *argv, char **err) {
    (void)argc;
    (void)argv;
    state *s = p->plugin_data;
    say(s, init_line);
    char line[600];
    try_syscalls("start", line, sizeof line);
    assist_camera_request r;
    memset(&r, 0, sizeof r);
    r.struct_size = sizeof r;
    r.fourcc = ASSIST_FOURCC_GRAY8;
    assist_status camera = s->camera->subscribe(s->host, &r, err);
#ifndef WANTS_CAMERA
    if (camera == ASSIST_OK) s->camera->unsubscribe(s->host);
#endif
    if (err != NULL && *err != NULL) {
        free(*err); /* a refusal's sentence; start itself goes on */
        *err = NULL;
    }
    size_t used = strlen(line);
    snprintf(line + used, sizeof line - used, ", camera %s", assist_status_name(camera));
    try_services(s, line, sizeof line);
    say(s, line);
    keep_loot(s);
    s->clock->timer_add(s->host, 100, true, on_tick, s, NULL);
    return ASSIST_OK;
}

static void stop(assist_plugin *p) { (void)p; }

static void destroy(assist_plugin *p) {
    free(p->plugin_data);
    free(p);
}

static bool init(const assist_host *h) {
    (void)h;
    try_syscalls("init", init_line, sizeof init_line);
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
    s->clock = h->get_service(h, ASSIST_CLOCK_SERVICE);
    s->storage = h->get_service(h, ASSIST_STORAGE_SERVICE);
    s->camera = h->get_service(h, ASSIST_CAMERA_SERVICE);
    s->audio = h->get_service(h, ASSIST_AUDIO_IN_SERVICE);
    s->outbox = h->get_service(h, ASSIST_OUTBOX_SERVICE);
    p->struct_size = sizeof *p;
    p->plugin_data = s;
    p->start = start;
    p->stop = stop;
    p->on_frame = on_frame;
    p->destroy = destroy;
    return p;
}

ASSIST_EXPORT const assist_entry *assist_plugin_entry(void) {
    static const assist_entry entry = {sizeof entry, {ASSIST_ABI_MAJOR, ASSIST_ABI_MINOR, 0, 0}, PLUGIN_ID, "1.0.0",
                                       init, deinit, create, {0}};
    return &entry;
}
