/* The host's half of a plugin in a helper process, shared by its files (private to CPluginBridge):
   host_state.c keeps what the others share (the bridges by host, the calls into the plugin, the real service
   tables, the frames the helper holds) and calls none of them; host_callbacks.c carries the callbacks a plugin
   handed to services back to it; host_plugin.c stands in for the plugin's entry and instance and sends it
   frames; host_serve.c serves the helper's service calls with the real tables; host.c spawns, watches and
   pings the helper. */
#ifndef ASSIST_BRIDGE_HOST_PRIVATE_H
#define ASSIST_BRIDGE_HOST_PRIVATE_H

/* What each side writes by hand is declared in generated/services.h (by way of ops.h) for every file of it. */
#define BRIDGE_HOST_SIDE

#include "assist_bridge.h"
#include "marshal.h"
#include "ops.h"
#include "wire.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define AREAS 8
/* The area number of the shared frame arena (assist_shared_frames.h): frames there are sent as offsets. */
#define ARENA_AREA 100u
/* How large the arena is made when the first helper starts: a dozen 1080p BGR frames and their conversions. */
#define ARENA_BYTES (96u << 20)

typedef struct {
    int fd;
    uint8_t *map;
    size_t size;
    int holds; /* the delivery in progress and each frame the plugin retained from it */
    bool sent; /* the helper has the descriptor */
} area;

typedef struct {
    uint64_t token; /* the host's retained frame */
    int area;
} retained_frame;

struct assist_bridge {
    bchan chan;
    pid_t pid;
    const assist_host *real;
    assist_entry entry;
    char *id, *version;
    assist_bridge_death_cb on_death;
    assist_bridge_refused_cb on_refused;
    void *user;
    uint32_t sandbox_layers;
    char sandbox_note[400];
    uint32_t refused; /* the kinds told to on_refused; under lock */
    pthread_mutex_t lock; /* everything below */
    pthread_cond_t reaped_cond;
    bool reaped;
    int wait_status;
    bool closing;
    /* The helper closed its connection and, still running a second later, was ended by the host (SIGKILL). */
    bool ended_by_host;
    const char *last_call;
    /* The calls into the plugin sent and not answered. One that fails because the helper went stays here, so
       how it ended names the calls that were running then, whenever the watcher asks. */
    const char *in_flight[16];
    bool pinging; /* a ping is waiting for its answer */
    bool reported;
    char description[300];
    uint32_t plugin_has; /* which instance functions the plugin has: bit per OP_START.. */
    const void *services[SVC_COUNT];
    bool looked_up[SVC_COUNT];
    area areas[AREAS];
    const assist_frame *current_frame;
    int current_area;
    bool arena_sent; /* the helper has the arena's descriptor */
    retained_frame retained[16];
    bool retains; /* the plugin has retained a frame: each frame now comes with a retain offered */
};

/* host_state.c: keeps `b` for the life of the process, found by its real host. */
BRIDGE_PRIVATE void bridge_register(assist_bridge *b);
/* host_state.c: the bridge serving `h` (the newest spawned for it), or NULL. */
BRIDGE_PRIVATE assist_bridge *bridge_for(const assist_host *h);
/* host_state.c: sends a call into the plugin and tracks it for the crash description; NULL when the helper is
   gone. */
BRIDGE_PRIVATE bmsg *call_plugin(assist_bridge *b, bmsg *request, const char *name, int fd);
/* host_state.c: the SVC_* number of service `id`, or -1. */
BRIDGE_PRIVATE int bridge_service_which(const char *id);
/* host_state.c: the real table of service `which` (SVC_*), looked up once; NULL when the host has none. */
BRIDGE_PRIVATE const void *bridge_service(assist_bridge *b, int which);
/* host_serve.c: serves one message of the helper's (a service call or OP_GET_SERVICE). */
BRIDGE_PRIVATE void host_handle(bchan *c, bmsg *req, bmsg *rep);

/* host_callbacks.c: a callback of the plugin's (`fn`, `fn2` and `user` are the helper's pointers) boxed for a
   real service; `keep` for one called many times, which stays for the life of the process. */
typedef struct box {
    assist_bridge *bridge;
    uint64_t fn, fn2, user;
    bool repeat;
    struct box *next;
} box;
BRIDGE_PRIVATE box *box_new(assist_bridge *b, const void *fn, const void *fn2, const void *user, bool keep);
BRIDGE_PRIVATE void timer_trampoline(void *user, uint64_t timer);
BRIDGE_PRIVATE void speech_done_trampoline(void *user, uint64_t utterance, assist_speech_outcome outcome);
BRIDGE_PRIVATE void speech_word_trampoline(void *user, uint64_t utterance, uint32_t c, uint32_t offset,
                                           uint32_t length);
BRIDGE_PRIVATE void dialog_trampoline(void *user, const assist_dialog_result *r);
BRIDGE_PRIVATE void event_trampoline(void *user, const char *name, const char *json);
BRIDGE_PRIVATE bool outcome_trampoline(void *user, const assist_outbox_outcome *o);
BRIDGE_PRIVATE bool row_trampoline(void *user, int32_t count, const char *const *names, const assist_value *values);
BRIDGE_PRIVATE void task_trampoline(void *user);

/* host_plugin.c: the entry's functions the helper's library has, as the host calls them. */
BRIDGE_PRIVATE void bridge_fill_entry(assist_bridge *b, bool has_init, bool has_deinit, bool has_create);
/* host_state.c: keeps the host's retain `kept` of a frame in area `which` for the helper; false (and released)
   when the helper holds 16 already. */
BRIDGE_PRIVATE bool keep_retained(assist_bridge *b, const assist_camera_service *camera, const assist_frame *kept,
                                  uint32_t which);
/* host_state.c: releases the helper's retain `token`. */
BRIDGE_PRIVATE void release_retained(assist_bridge *b, const assist_camera_service *camera, uint64_t token);

#endif /* ASSIST_BRIDGE_HOST_PRIVATE_H */
