/*
 * A C99 plugin that drives assist.camera/1 for the host's tests: it subscribes to GRAY8 frames, keeps
 * frames with retain() until the budget says no, zooms in half-way through, and after a second reports what
 * it saw with dialog.say, then finishes.
 *   -DSLOW_FRAMES=n   the first n on_frame calls each take 40 ms (a plugin that works where it should not)
 */
#ifdef SLOW_FRAMES
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <time.h>
#endif
#include "fixture.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct state {
    const assist_host *host;
    const assist_dialog_service *dialog;
    const assist_session_service *session;
    const assist_camera_service *camera;
    const assist_clock_service *clock;
    pthread_mutex_t lock;
    int frames, wrong_format, first_width, last_width, retained, refused;
    uint64_t last_seq;
    int out_of_order;
    const assist_frame *kept[5];
} state;

static void on_frame(assist_plugin *p, const assist_frame *f) {
    state *s = p->plugin_data;
    pthread_mutex_lock(&s->lock);
    s->frames++;
#ifdef SLOW_FRAMES
    if (s->frames <= SLOW_FRAMES) {
        struct timespec work = {0, 40 * 1000000L};
        while (nanosleep(&work, &work) != 0) {
        }
    }
#endif
    if (f->fourcc != ASSIST_FOURCC_GRAY8 || f->plane[0] == NULL || f->stride[0] < f->width) s->wrong_format++;
    if (s->frames > 1 && f->seq <= s->last_seq) s->out_of_order++;
    s->last_seq = f->seq;
    if (s->first_width == 0) s->first_width = (int)f->width;
    s->last_width = (int)f->width;
    if (s->frames <= 5) {
        const assist_frame *copy = s->camera->retain(s->host, f);
        if (copy != NULL) {
            s->kept[s->retained++] = copy;
        } else {
            s->refused++;
        }
    }
    if (s->frames == 8) {
        for (int i = 0; i < s->retained; i++) {
            /* A retained frame's pixels are still readable after on_frame returned. */
            volatile uint8_t first = s->kept[i]->plane[0][0];
            (void)first;
            s->camera->release(s->host, s->kept[i]);
        }
    }
    pthread_mutex_unlock(&s->lock);
}

static void zoom_in(void *user, uint64_t timer) {
    state *s = user;
    (void)timer;
    assist_camera_request request;
    memset(&request, 0, sizeof request);
    request.struct_size = sizeof request;
    request.fourcc = ASSIST_FOURCC_GRAY8;
    request.zoom = 2.0;
    s->camera->subscribe(s->host, &request, NULL);
}

static void report(void *user, uint64_t timer) {
    state *s = user;
    char line[256];
    assist_camera_stats stats;
    (void)timer;
    memset(&stats, 0, sizeof stats);
    stats.struct_size = sizeof stats;
    /* Counted before asking: frames keep coming until unsubscribe returns. */
    pthread_mutex_lock(&s->lock);
    int seen = s->frames;
    pthread_mutex_unlock(&s->lock);
    assist_status status = s->camera->stats(s->host, &stats);
    s->camera->unsubscribe(s->host);
    pthread_mutex_lock(&s->lock);
    snprintf(line, sizeof line,
             "Frames %s, wrong %d, out of order %d, widths %d then %d, retained %d, refused %d, stats %s %s.",
             s->frames > 10 ? "many" : "few", s->wrong_format, s->out_of_order, s->first_width, s->last_width,
             s->retained, s->refused, assist_status_name(status),
             stats.delivered >= (uint64_t)seen && stats.converted > 0 ? "counted" : "wrong");
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
    s->clock->timer_add(s->host, 500, false, zoom_in, s, NULL);
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

ASSIST_FIXTURE_ENTRY("org.test.camera", state, on_frame)
