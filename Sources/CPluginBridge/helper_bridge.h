/* The helper process, shared by its files (private to CPluginBridge): helper.c opens the plugin, gives it the
   proxy tables and serves the host's calls; helper_proxies.c carries the service calls the rules do not
   (generated/services.h carries the rest); helper_frames.c maps the frames the host shares and keeps the
   plugin's retains. Every call goes over the one channel to the host. */
#ifndef ASSIST_BRIDGE_HELPER_PRIVATE_H
#define ASSIST_BRIDGE_HELPER_PRIVATE_H

/* What each side writes by hand is declared in generated/services.h (by way of ops.h) for every file of it. */
#define BRIDGE_HELPER_SIDE

#include "assist_bridge.h"
#include "marshal.h"
#include "ops.h"
#include "wire.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* The channel to the host (helper.c). */
extern BRIDGE_PRIVATE bchan helper_chan;

static inline bmsg *rpc(bmsg *m) { return bchan_call(&helper_chan, m, -1); }

static inline bmsg *request(uint32_t op) { return bmsg_new(BRIDGE_REQUEST, op); }

/* The status in a reply, or ASSIST_E_IO when the host is gone. */
static inline assist_status status_of(bmsg *reply) {
    return reply == NULL ? ASSIST_E_IO : (assist_status)get_u32(reply);
}

static inline assist_status simple(bmsg *m) {
    bmsg *reply = rpc(m);
    assist_status s = status_of(reply);
    bmsg_free(reply);
    return s;
}

/* A call whose reply is a status and an id (an utterance, a dialog, a timer, a subscription); `*id` may be
   NULL. */
static inline assist_status call_with_id(bmsg *m, uint64_t *id) {
    bmsg *reply = rpc(m);
    assist_status s = status_of(reply);
    uint64_t value = reply ? get_u64(reply) : 0;
    if (id != NULL) *id = value;
    bmsg_free(reply);
    return s;
}

/* An error string from the host, as the plugin expects it: strdup'd, freed by the plugin. */
static inline void take_err(bmsg *reply, char **err) {
    const char *text = reply != NULL ? get_str(reply) : NULL;
    if (err != NULL) *err = text != NULL ? strdup(text) : NULL;
}

/* A call whose reply is a status, a number (rows changed, a job) and an error string; `*out` and `*err` may be
   NULL. */
static inline assist_status call_with_number(bmsg *m, int64_t *out, char **err) {
    bmsg *reply = rpc(m);
    assist_status s = status_of(reply);
    int64_t value = reply ? get_i64(reply) : 0;
    take_err(reply, err);
    if (out != NULL) *out = value;
    bmsg_free(reply);
    return s;
}

#define U64(p) ((uint64_t)(uintptr_t)(p))
#define PTR(v) ((void *)(uintptr_t)(v))

/* helper_frames.c: serves OP_FRAME: maps the area the frame is in (once), hands the frame to `on_frame` of
   `instance` (when both are there) and replies with the retain taken and the releases made meanwhile. */
BRIDGE_PRIVATE void helper_serve_frame(bmsg *req, bmsg *rep, assist_plugin *instance,
                                       void (*on_frame)(assist_plugin *, const assist_frame *));

#endif /* ASSIST_BRIDGE_HELPER_PRIVATE_H */
