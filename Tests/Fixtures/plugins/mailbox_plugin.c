/*
 * A C99 plugin that keeps the newest camera frame, as a worker's mailbox does: each on_frame retains the
 * frame it is given and releases the one it kept before. After a second it checks that the frame it keeps
 * still holds its pixels, releases it, and reports with dialog.say how many frames it kept and how many the
 * host refused, then finishes. Through a helper process that is one message a frame (docs/plugin-isolation.md).
 */
#include "fixture.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

typedef struct state {
    const assist_host *host;
    const assist_dialog_service *dialog;
    const assist_session_service *session;
    const assist_camera_service *camera;
    const assist_clock_service *clock;
    pthread_mutex_t lock;
    int frames, kept, refused, changed;
    const assist_frame *newest;
    uint8_t first_pixels[16];
} state;

static void on_frame(assist_plugin *p, const assist_frame *f) {
    state *s = p->plugin_data;
    pthread_mutex_lock(&s->lock);
    s->frames++;
    const assist_frame *copy = s->camera->retain(s->host, f);
    if (copy == NULL) {
        s->refused++;
    } else {
        if (s->newest != NULL) s->camera->release(s->host, s->newest);
        s->newest = copy;
        s->kept++;
        memcpy(s->first_pixels, copy->plane[0], sizeof s->first_pixels);
    }
    pthread_mutex_unlock(&s->lock);
}

static void report(void *user, uint64_t timer) {
    state *s = user;
    char line[200];
    (void)timer;
    s->camera->unsubscribe(s->host);
    pthread_mutex_lock(&s->lock);
    if (s->newest != NULL) {
        /* The frame kept is the one whose pixels were read when it came: the host did not reuse its memory. */
        s->changed = memcmp(s->first_pixels, s->newest->plane[0], sizeof s->first_pixels) != 0;
        s->camera->release(s->host, s->newest);
        s->newest = NULL;
    }
    snprintf(line, sizeof line, "Frames %d, kept %d, refused %d, changed %d.", s->frames, s->kept, s->refused,
             s->changed);
    pthread_mutex_unlock(&s->lock);
    s->dialog->say(s->host, line, ASSIST_PRIORITY_MESSAGE);
    s->session->finish(s->host, ASSIST_OK);
}

static assist_status start(assist_plugin *p, int32_t argc, const char *const *argv, char **err) {
    state *s = p->plugin_data;
    (void)argc;
    (void)argv;
    assist_camera_request request;
    memset(&request, 0, sizeof request);
    request.struct_size = sizeof request;
    request.fourcc = ASSIST_FOURCC_GRAY8;
    assist_status status = s->camera->subscribe(s->host, &request, err);
    if (status != ASSIST_OK) return status;
    return s->clock->timer_add(s->host, 1000, false, report, s, NULL);
}

static void setup(state *s, const assist_host *host) {
    pthread_mutex_init(&s->lock, NULL);
    s->host = host;
    s->dialog = host->get_service(host, ASSIST_DIALOG_SERVICE);
    s->session = host->get_service(host, ASSIST_SESSION_SERVICE);
    s->camera = host->get_service(host, ASSIST_CAMERA_SERVICE);
    s->clock = host->get_service(host, ASSIST_CLOCK_SERVICE);
}

ASSIST_FIXTURE_ENTRY("org.test.mailbox", state, on_frame)
