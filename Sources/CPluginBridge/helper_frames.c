/* The helper's side of camera frames: the areas the host shares (mapped once, read-only), the frame being
   delivered, and the plugin's retains, taken from the host's offer or asked for, released with the reply. */
#define _GNU_SOURCE
#include "helper_bridge.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

typedef struct {
    int fd;
    const uint8_t *map;
    size_t size;
} mapped_area;

static mapped_area areas[8];
/* The host's shared frame arena, area number 100, mapped once. */
static mapped_area arena;

typedef struct held {
    assist_frame frame; /* first: the plugin holds &frame */
    uint64_t token;     /* the host's retain */
    struct held *next;
} held;

static pthread_mutex_t frames_lock = PTHREAD_MUTEX_INITIALIZER;
static held *held_frames;
static const assist_frame *delivering; /* the frame on_frame has now */
static uint32_t delivering_area;
/* The host's retain of the frame being delivered, offered with it (FRAME_OFFER_* in ops.h), and whether the
   plugin took it: the first retain in on_frame costs no call. */
static uint32_t offer;
static uint64_t offered;
static bool offer_taken;
/* Frames released while a frame is delivered: their releases go back with its reply. */
static uint64_t batched[32];
static uint32_t batched_count;

assist_status h_camera_subscribe(const assist_host *h, const assist_camera_request *request_in, char **err) {
    (void)h;
    assist_camera_request r;
    if (!assist_struct_copy(&r, sizeof r, request_in, ASSIST_SIZE_THROUGH(assist_camera_request, flags)))
        return ASSIST_E_INVALID;
    bmsg *m = request(OP_CAMERA_SUBSCRIBE);
    put_whole(m, assist_camera_request, r);
    bmsg *reply = rpc(m);
    assist_status s = status_of(reply);
    take_err(reply, err);
    bmsg_free(reply);
    return s;
}
assist_status h_camera_unsubscribe(const assist_host *h) {
    (void)h;
    return simple(request(OP_CAMERA_UNSUBSCRIBE));
}

const assist_frame *h_camera_retain(const assist_host *h, const assist_frame *frame) {
    (void)h;
    pthread_mutex_lock(&frames_lock);
    bool current = frame != NULL && frame == delivering;
    uint32_t which = delivering_area;
    uint64_t token = 0;
    bool ask = current && (offer == FRAME_OFFER_ASK || offer_taken);
    if (current && offer == FRAME_OFFER_GIVEN && !offer_taken) {
        token = offered;
        offer_taken = true;
    }
    pthread_mutex_unlock(&frames_lock);
    if (ask) { /* the host offered nothing, or the plugin retains the same frame twice */
        bmsg *m = request(OP_CAMERA_RETAIN);
        put_u32(m, which);
        bmsg *reply = rpc(m);
        token = reply ? get_u64(reply) : 0;
        bmsg_free(reply);
    }
    if (token == 0) return NULL;
    held *copy = calloc(1, sizeof *copy);
    if (copy == NULL) {
        bmsg *m = request(OP_CAMERA_RELEASE);
        put_u64(m, token);
        bchan_note(&helper_chan, m);
        return NULL;
    }
    copy->frame = *frame;
    copy->token = token;
    pthread_mutex_lock(&frames_lock);
    copy->next = held_frames;
    held_frames = copy;
    pthread_mutex_unlock(&frames_lock);
    return &copy->frame;
}

/* A release never waits: during a delivery it goes back with the reply, otherwise as a note. */
void h_camera_release(const assist_host *h, const assist_frame *retained) {
    (void)h;
    pthread_mutex_lock(&frames_lock);
    held **link = &held_frames;
    while (*link != NULL && &(*link)->frame != retained) link = &(*link)->next;
    held *found = *link;
    if (found != NULL) *link = found->next;
    bool batch = found != NULL && delivering != NULL && batched_count < sizeof batched / sizeof batched[0];
    if (batch) batched[batched_count++] = found->token;
    pthread_mutex_unlock(&frames_lock);
    if (!batch) {
        bmsg *m = request(OP_CAMERA_RELEASE);
        put_u64(m, found ? found->token : 0); /* 0: the host logs a release of a frame it never gave */
        bchan_note(&helper_chan, m);
    }
    free(found);
}

assist_status h_camera_control(const assist_host *h, const char *name, int64_t *value, int64_t *minimum,
                               int64_t *maximum) {
    (void)h;
    if (value == NULL || minimum == NULL || maximum == NULL) return ASSIST_E_INVALID;
    bmsg *m = request(OP_CAMERA_CONTROL);
    put_str(m, name);
    put_i64(m, *value);
    bmsg *reply = rpc(m);
    assist_status s = status_of(reply);
    if (reply != NULL) {
        int64_t v = get_i64(reply), lo = get_i64(reply), hi = get_i64(reply);
        if (s == ASSIST_OK) {
            *value = v;
            *minimum = lo;
            *maximum = hi;
        }
    }
    bmsg_free(reply);
    return s;
}

assist_status h_camera_stats(const assist_host *h, assist_camera_stats *out) {
    (void)h;
    if (out == NULL || out->struct_size < ASSIST_SIZE_THROUGH(assist_camera_stats, converted)) return ASSIST_E_INVALID;
    bmsg *reply = rpc(request(OP_CAMERA_STATS));
    assist_status s = status_of(reply);
    assist_camera_stats got;
    bool read = reply != NULL && s == ASSIST_OK &&
                get_struct(reply, &got, sizeof got, ASSIST_SIZE_THROUGH(assist_camera_stats, converted));
    bmsg_free(reply);
    if (s == ASSIST_OK && !read) s = ASSIST_E_INTERNAL;
    if (s == ASSIST_OK) { /* what the host sent, as far as the plugin's struct reaches */
        size_t n = out->struct_size < got.struct_size ? out->struct_size : got.struct_size;
        memcpy(out, &got, n);
        out->struct_size = (uint32_t)n;
    }
    return s;
}

void helper_serve_frame(bmsg *req, bmsg *rep, assist_plugin *instance,
                        void (*on_frame)(assist_plugin *, const assist_frame *)) {
    uint32_t which = get_u32(req);
    uint64_t size = get_u64(req);
    if (which >= 8 && which != 100) {
        req->bad = true;
        return;
    }
    mapped_area *area = which == 100 ? &arena : &areas[which];
    if (req->fd >= 0) {
        if (area->map != NULL) {
            munmap((void *)area->map, area->size);
            close(area->fd);
        }
        void *map = mmap(NULL, size, PROT_READ, MAP_SHARED, req->fd, 0);
        if (map == MAP_FAILED) {
            req->bad = true;
            return;
        }
        *area = (mapped_area){.fd = req->fd, .map = map, .size = size};
        req->fd = -1; /* kept */
    }
    if (area->map == NULL || area->size < size) {
        req->bad = true;
        return;
    }
    assist_frame f;
    if (!get_struct(req, &f, sizeof f, ASSIST_SIZE_THROUGH(assist_frame, seq)) || f.plane_count > 3) {
        req->bad = true;
        return;
    }
    for (uint32_t i = 0; i < f.plane_count; i++) {
        uint64_t offset = get_u64(req);
        uint64_t span = plane_span(f.fourcc, f.width, f.height, f.stride[i]);
        if (span == 0 || offset > area->size || span > area->size - offset) {
            req->bad = true;
            return;
        }
        f.plane[i] = area->map + offset;
    }
    f.fd = area->fd;
    uint32_t offer_now = get_u32(req);
    uint64_t offered_now = get_u64(req);
    if (offer_now > FRAME_OFFER_REFUSED) req->bad = true;
    if (req->bad) return;
    bool taken = false;
    if (instance != NULL && on_frame != NULL) {
        pthread_mutex_lock(&frames_lock);
        delivering = &f;
        delivering_area = which;
        offer = offer_now;
        offered = offered_now;
        offer_taken = false;
        pthread_mutex_unlock(&frames_lock);
        on_frame(instance, &f);
    }
    /* The reply: whether the offered retain was taken, and the releases made meanwhile. */
    pthread_mutex_lock(&frames_lock);
    delivering = NULL;
    taken = offer_taken;
    offer_taken = false;
    put_bool(rep, taken);
    put_u32(rep, batched_count);
    for (uint32_t i = 0; i < batched_count; i++) put_u64(rep, batched[i]);
    batched_count = 0;
    pthread_mutex_unlock(&frames_lock);
}

