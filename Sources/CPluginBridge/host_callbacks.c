/* The host's side of a helper, the callbacks a plugin handed to services: the real service calls a trampoline
   here, which carries the call to the helper. */
#define _GNU_SOURCE
#include "host_bridge.h"

#include <stdlib.h>

static pthread_mutex_t boxes_lock = PTHREAD_MUTEX_INITIALIZER;
static box *kept_boxes; /* repeating callbacks stay reachable until the process ends */

box *box_new(assist_bridge *b, const void *fn, const void *fn2, const void *user, bool keep) {
    box *x = calloc(1, sizeof *x);
    if (x == NULL) abort();
    x->bridge = b;
    x->fn = (uint64_t)(uintptr_t)fn;
    x->fn2 = (uint64_t)(uintptr_t)fn2;
    x->user = (uint64_t)(uintptr_t)user;
    x->repeat = keep;
    if (keep) {
        pthread_mutex_lock(&boxes_lock);
        x->next = kept_boxes;
        kept_boxes = x;
        pthread_mutex_unlock(&boxes_lock);
    }
    return x;
}

static bmsg *callback_message(box *x, uint32_t op) {
    bmsg *m = bmsg_new(BRIDGE_REQUEST, op);
    put_u64(m, x->fn);
    put_u64(m, x->user);
    return m;
}

void timer_trampoline(void *user, uint64_t timer) {
    box *x = user;
    bmsg *m = callback_message(x, OP_CB_TIMER);
    put_u64(m, timer);
    bmsg_free(call_plugin(x->bridge, m, "a timer callback", -1));
    if (!x->repeat) free(x);
}

void speech_done_trampoline(void *user, uint64_t utterance, assist_speech_outcome outcome) {
    box *x = user;
    if (x->fn != 0) {
        bmsg *m = callback_message(x, OP_CB_SPEECH_DONE);
        put_u64(m, utterance);
        put_u32(m, (uint32_t)outcome);
        bmsg_free(call_plugin(x->bridge, m, "a speech callback", -1));
    }
    free(x);
}

void speech_word_trampoline(void *user, uint64_t utterance, uint32_t c, uint32_t offset, uint32_t length) {
    box *x = user;
    if (x->fn2 == 0) return;
    bmsg *m = bmsg_new(BRIDGE_REQUEST, OP_CB_SPEECH_WORD);
    put_u64(m, x->fn2);
    put_u64(m, x->user);
    put_u64(m, utterance);
    put_u32(m, c);
    put_u32(m, offset);
    put_u32(m, length);
    bmsg_free(call_plugin(x->bridge, m, "a speech callback", -1));
}

void dialog_trampoline(void *user, const assist_dialog_result *r) {
    box *x = user;
    assist_dialog_result c;
    assist_struct_copy(&c, sizeof c, r, ASSIST_SIZE_THROUGH(assist_dialog_result, request));
    bmsg *m = callback_message(x, OP_CB_DIALOG);
    put_whole(m, assist_dialog_result, c);
    put_str(m, c.text);
    bmsg_free(call_plugin(x->bridge, m, "a dialog callback", -1));
    free(x);
}

void event_trampoline(void *user, const char *name, const char *json) {
    box *x = user;
    bmsg *m = callback_message(x, OP_CB_EVENT);
    put_str(m, name);
    put_str(m, json);
    bmsg_free(call_plugin(x->bridge, m, "an event callback", -1));
}

bool outcome_trampoline(void *user, const assist_outbox_outcome *o) {
    box *x = user;
    bmsg *m = callback_message(x, OP_CB_OUTCOME);
    put_outcome(m, o);
    bmsg *reply = call_plugin(x->bridge, m, "an outbox callback", -1);
    bool kept = reply != NULL && get_bool(reply);
    bmsg_free(reply);
    return kept;
}

bool row_trampoline(void *user, int32_t count, const char *const *names, const assist_value *values) {
    box *x = user;
    bmsg *m = callback_message(x, OP_CB_ROW);
    put_u32(m, (uint32_t)(count < 0 ? 0 : count));
    for (int32_t i = 0; i < count; i++) put_str(m, names[i]);
    put_values(m, values, count);
    bmsg *reply = call_plugin(x->bridge, m, "a storage row callback", -1);
    bool more = reply != NULL && get_bool(reply);
    bmsg_free(reply);
    return more;
}

void task_trampoline(void *user) {
    box *x = user;
    bmsg_free(call_plugin(x->bridge, callback_message(x, OP_CB_TASK), "a worker task", -1));
    free(x);
}
