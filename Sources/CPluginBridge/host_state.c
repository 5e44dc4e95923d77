/* The host's side of a helper, what its other parts share: the bridges by host, the calls into the plugin
   (tracked for the crash description), the real service tables, and the frames the helper holds. host.c,
   host_plugin.c, host_serve.c and host_callbacks.c stand on it; it calls none of them. */
#define _GNU_SOURCE
#include "host_bridge.h"

#include <stdlib.h>
#include <string.h>

/* Every bridge is kept for the life of the process: the real services may call a trampoline late. */
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
typedef struct registered {
    const assist_host *host;
    assist_bridge *bridge;
    struct registered *next;
} registered;
static registered *registry;

void bridge_register(assist_bridge *b) {
    registered *r = calloc(1, sizeof *r);
    if (r == NULL) abort();
    r->host = b->real;
    r->bridge = b;
    pthread_mutex_lock(&registry_lock);
    r->next = registry;
    registry = r;
    pthread_mutex_unlock(&registry_lock);
}

assist_bridge *bridge_for(const assist_host *h) {
    pthread_mutex_lock(&registry_lock);
    assist_bridge *found = NULL;
    for (registered *r = registry; r != NULL; r = r->next) {
        if (r->host == h) found = r->bridge; /* the newest, registered first */
        if (found != NULL) break;
    }
    pthread_mutex_unlock(&registry_lock);
    return found;
}

/* Sends a call into the plugin and tracks it for the crash description. */
bmsg *call_plugin(assist_bridge *b, bmsg *request, const char *name, int fd) {
    int slot = -1;
    if (!bchan_is_dead(&b->chan)) { /* a call after the end is not one that was running */
        pthread_mutex_lock(&b->lock);
        b->last_call = name;
        for (int i = 0; i < 16 && slot < 0; i++)
            if (b->in_flight[i] == NULL) slot = i;
        if (slot >= 0) b->in_flight[slot] = name;
        pthread_mutex_unlock(&b->lock);
    }
    bmsg *reply = bchan_call(&b->chan, request, fd);
    if (reply != NULL && slot >= 0) {
        pthread_mutex_lock(&b->lock);
        b->in_flight[slot] = NULL;
        pthread_mutex_unlock(&b->lock);
    }
    return reply;
}

static const char *const service_ids[SVC_COUNT] = BRIDGE_SERVICE_IDS;

int bridge_service_which(const char *id) {
    for (int i = 0; id != NULL && i < SVC_COUNT; i++)
        if (strcmp(id, service_ids[i]) == 0) return i;
    return -1;
}

const void *bridge_service(assist_bridge *b, int which) {
    pthread_mutex_lock(&b->lock);
    if (!b->looked_up[which]) {
        pthread_mutex_unlock(&b->lock);
        const void *table = b->real->get_service(b->real, service_ids[which]);
        pthread_mutex_lock(&b->lock);
        b->services[which] = table;
        b->looked_up[which] = true;
    }
    const void *table = b->services[which];
    pthread_mutex_unlock(&b->lock);
    return table;
}

/* Keeps the host's retain `kept` of a frame in `which` for the helper; false (and released) when the helper
   holds 16 already. */
bool keep_retained(assist_bridge *b, const assist_camera_service *camera, const assist_frame *kept, uint32_t which) {
    pthread_mutex_lock(&b->lock);
    int slot = -1;
    for (int i = 0; i < 16; i++)
        if (b->retained[i].token == 0) slot = i;
    if (slot >= 0) {
        b->retained[slot].token = (uint64_t)(uintptr_t)kept;
        b->retained[slot].area = (int)which;
        if (which < AREAS) b->areas[which].holds++; /* the arena's frames are kept by the host's retain */
    }
    pthread_mutex_unlock(&b->lock);
    if (slot < 0) camera->release(b->real, kept);
    return slot >= 0;
}

/* Releases the helper's retain `token`. One it does not hold goes to the real release too, which logs the
   misbehaviour and touches nothing. */
void release_retained(assist_bridge *b, const assist_camera_service *camera, uint64_t token) {
    pthread_mutex_lock(&b->lock);
    int found = -1;
    for (int i = 0; i < 16; i++)
        if (token != 0 && b->retained[i].token == token) found = i;
    if (found >= 0) {
        if (b->retained[found].area < AREAS) b->areas[b->retained[found].area].holds--;
        b->retained[found].token = 0;
    }
    pthread_mutex_unlock(&b->lock);
    camera->release(b->real, (const assist_frame *)(uintptr_t)(found >= 0 ? token : 1));
}
