/* The host's side of a helper, the plugin as the host sees it: an entry and an instance whose functions call
   into the helper, and frames sent through shared memory the helper maps once. */
#define _GNU_SOURCE
#include "host_bridge.h"
#include "assist_shared_frames.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static char *host_string(assist_bridge *b, const char *text) {
    if (text == NULL) return NULL;
    size_t n = strlen(text) + 1;
    char *copy = b->real->alloc(b->real, n);
    if (copy != NULL) memcpy(copy, text, n);
    return copy;
}

/* Sends the frame message `m` (its fields written) with the retain offered, and settles the reply: the offer
   kept or given back, and the releases that came with it. */
static void deliver_frame(assist_bridge *b, const assist_frame *f, bmsg *m, uint32_t which, int send_fd) {
    const assist_camera_service *camera = bridge_service(b, SVC_CAMERA);
    pthread_mutex_lock(&b->lock);
    bool offering = b->retains && camera != NULL;
    pthread_mutex_unlock(&b->lock);
    const assist_frame *kept = offering ? camera->retain(b->real, f) : NULL;
    if (kept != NULL && !keep_retained(b, camera, kept, which)) kept = NULL;
    put_u32(m, !offering ? FRAME_OFFER_ASK : kept != NULL ? FRAME_OFFER_GIVEN : FRAME_OFFER_REFUSED);
    put_u64(m, (uint64_t)(uintptr_t)kept);
    bmsg *reply = call_plugin(b, m, "on_frame", send_fd);
    bool taken = reply != NULL && get_bool(reply);
    if (kept != NULL && !taken) release_retained(b, camera, (uint64_t)(uintptr_t)kept);
    uint32_t released = reply != NULL ? get_u32(reply) : 0;
    for (uint32_t i = 0; i < released && i < 32 && reply != NULL && !reply->bad; i++) {
        uint64_t token = get_u64(reply);
        if (camera != NULL && !reply->bad) release_retained(b, camera, token);
    }
    bmsg_free(reply);
}

/* ---- the plugin's instance, as the host sees it -------------------------------------------------------- */

static assist_bridge *of(assist_plugin *p) { return p->plugin_data; }

static char *reply_error(assist_bridge *b, bmsg *reply) {
    const char *text = reply != NULL ? get_str(reply) : NULL;
    return host_string(b, text);
}

static assist_status p_start(assist_plugin *p, int32_t argc, const char *const *argv, char **err) {
    assist_bridge *b = of(p);
    bmsg *m = bmsg_new(BRIDGE_REQUEST, OP_START);
    put_u32(m, (uint32_t)(argc < 0 ? 0 : argc));
    for (int32_t i = 0; i < argc; i++) put_str(m, argv[i]);
    bmsg *reply = call_plugin(b, m, "start", -1);
    if (reply == NULL) return ASSIST_E_INTERNAL;
    assist_status s = (assist_status)get_u32(reply);
    char *text = reply_error(b, reply);
    if (err != NULL) *err = text;
    else if (text != NULL) free(text);
    bmsg_free(reply);
    return s;
}

static void simple_call(assist_plugin *p, uint32_t op, const char *name) {
    bmsg_free(call_plugin(of(p), bmsg_new(BRIDGE_REQUEST, op), name, -1));
}

static void p_pause(assist_plugin *p) { simple_call(p, OP_PAUSE, "pause"); }
static void p_resume(assist_plugin *p) { simple_call(p, OP_RESUME, "resume"); }
static void p_stop(assist_plugin *p) { simple_call(p, OP_STOP, "stop"); }

static void p_command(assist_plugin *p, const char *cmd, const char *arg) {
    bmsg *m = bmsg_new(BRIDGE_REQUEST, OP_COMMAND);
    put_str(m, cmd);
    put_str(m, arg);
    bmsg_free(call_plugin(of(p), m, "on_command", -1));
}

static const void *p_extension(assist_plugin *p, const char *id) {
    (void)p;
    (void)id;
    return NULL; /* a plugin's pointers mean nothing in the host's address space */
}

static void p_destroy(assist_plugin *p) {
    simple_call(p, OP_DESTROY, "destroy");
    free(p);
}

/* The frame message: the area, its size, the frame whole and each plane's offset in the area. */
static bmsg *frame_message(uint32_t which, uint64_t area_size, const assist_frame *fr, const uint64_t *offsets) {
    bmsg *m = bmsg_new(BRIDGE_REQUEST, OP_FRAME);
    put_u32(m, which);
    put_u64(m, area_size);
    put_whole(m, assist_frame, *fr);
    for (uint32_t i = 0; i < fr->plane_count; i++) put_u64(m, offsets[i]);
    return m;
}

/* Copies the frame into shared memory the helper maps once; the frame thread waits for on_frame. */
static void p_frame(assist_plugin *p, const assist_frame *f) {
    assist_bridge *b = of(p);
    assist_frame fr;
    if (!assist_struct_copy(&fr, sizeof fr, f, ASSIST_SIZE_THROUGH(assist_frame, seq)) || fr.plane_count > 3) return;
    size_t sizes[3] = {0}, total = 0;
    for (uint32_t i = 0; i < fr.plane_count; i++) {
        sizes[i] = (size_t)plane_span(fr.fourcc, fr.width, fr.height, fr.stride[i]);
        if (sizes[i] == 0 || fr.plane[i] == NULL) return;
        total += (sizes[i] + 63) & ~(size_t)63;
    }
    if (total == 0) return;
    /* A frame already in the shared arena goes as offsets: no copy. */
    uint64_t offsets[3] = {0}, arena_size = 0;
    int arena_fd = -1;
    bool shared = true;
    for (uint32_t i = 0; i < fr.plane_count && shared; i++)
        shared = assist_shared_frames_locate(fr.plane[i], sizes[i], &offsets[i], &arena_fd, &arena_size);
    if (shared) {
        pthread_mutex_lock(&b->lock);
        int send_fd = b->arena_sent ? -1 : arena_fd;
        b->arena_sent = true;
        b->current_frame = f;
        b->current_area = (int)ARENA_AREA;
        pthread_mutex_unlock(&b->lock);
        bmsg *m = frame_message(ARENA_AREA, arena_size, &fr, offsets);
        deliver_frame(b, f, m, ARENA_AREA, send_fd);
        pthread_mutex_lock(&b->lock);
        b->current_frame = NULL;
        b->current_area = -1;
        pthread_mutex_unlock(&b->lock);
        return;
    }
    pthread_mutex_lock(&b->lock);
    int which = -1;
    for (int i = 0; i < AREAS && which < 0; i++)
        if (b->areas[i].map != NULL && b->areas[i].holds == 0 && b->areas[i].size >= total) which = i;
    for (int i = 0; i < AREAS && which < 0; i++) {
        if (b->areas[i].map != NULL && b->areas[i].holds == 0) {
            /* too small: replaced by a larger one, sent again */
            munmap(b->areas[i].map, b->areas[i].size);
            close(b->areas[i].fd);
            memset(&b->areas[i], 0, sizeof b->areas[i]);
        }
        if (b->areas[i].map == NULL) {
            size_t size = (total + (1u << 20) - 1) & ~(size_t)((1u << 20) - 1);
            int fd = memfd_create("assist-frame", MFD_CLOEXEC);
            if (fd < 0 || ftruncate(fd, (off_t)size) != 0) {
                if (fd >= 0) close(fd);
                break;
            }
            void *map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
            if (map == MAP_FAILED) {
                close(fd);
                break;
            }
            b->areas[i] = (area){.fd = fd, .map = map, .size = size};
            which = i;
        }
    }
    if (which < 0) { /* every area held by retained frames: this frame is dropped */
        pthread_mutex_unlock(&b->lock);
        return;
    }
    area *a = &b->areas[which];
    a->holds = 1;
    int send_fd = a->sent ? -1 : a->fd;
    a->sent = true;
    b->current_frame = f;
    b->current_area = which;
    pthread_mutex_unlock(&b->lock);

    size_t offset = 0;
    for (uint32_t i = 0; i < fr.plane_count; i++) {
        memcpy(a->map + offset, fr.plane[i], sizes[i]);
        offsets[i] = offset;
        offset += (sizes[i] + 63) & ~(size_t)63;
    }
    bmsg *m = frame_message((uint32_t)which, a->size, &fr, offsets);
    deliver_frame(b, f, m, (uint32_t)which, send_fd);
    pthread_mutex_lock(&b->lock);
    b->current_frame = NULL;
    b->current_area = -1;
    a->holds--;
    pthread_mutex_unlock(&b->lock);
}

/* ---- the entry ------------------------------------------------------------------------------------------ */

static bool e_init(const assist_host *h) {
    assist_bridge *b = bridge_for(h);
    if (b == NULL) return false;
    bmsg *reply = call_plugin(b, bmsg_new(BRIDGE_REQUEST, OP_INIT), "init", -1);
    bool ok = reply != NULL && get_bool(reply);
    bmsg_free(reply);
    return ok;
}

static void e_deinit(void) { /* the helper's library is undone when the helper ends */ }

static assist_plugin *e_create(const assist_host *h, char **err) {
    assist_bridge *b = bridge_for(h);
    if (b == NULL) return NULL;
    bmsg *reply = call_plugin(b, bmsg_new(BRIDGE_REQUEST, OP_CREATE), "create", -1);
    if (reply == NULL) return NULL;
    bool ok = get_bool(reply);
    uint32_t has = get_u32(reply);
    char *text = reply_error(b, reply);
    bmsg_free(reply);
    if (!ok) {
        if (err != NULL) *err = text;
        else free(text);
        return NULL;
    }
    free(text);
    assist_plugin *p = calloc(1, sizeof *p);
    if (p == NULL) return NULL;
    p->struct_size = sizeof *p;
    p->plugin_data = b;
    p->start = p_start;
    p->pause = p_pause;
    p->resume = p_resume;
    p->stop = p_stop;
    p->on_command = p_command;
    p->on_frame = (has & 1u) ? p_frame : NULL;
    p->get_extension = p_extension;
    p->destroy = p_destroy;
    return p;
}

void bridge_fill_entry(assist_bridge *b, bool has_init, bool has_deinit, bool has_create) {
    b->entry.init = has_init ? e_init : NULL;
    b->entry.deinit = has_deinit ? e_deinit : NULL;
    b->entry.create = has_create ? e_create : NULL;
}
