/* Operations of the helper protocol (wire.h). The helper is the host's own executable, so both sides always
   agree on the numbers; the service operations are generated from the ABI's headers (scripts/gen-bridge.py). */
#ifndef ASSIST_BRIDGE_OPS_H
#define ASSIST_BRIDGE_OPS_H

enum {
    /* host -> helper: the plugin's entry and instance, and the callbacks it gave to services */
    OP_OPEN = 1, /* library path, protocol -> ok, error, abi, id, version */
    OP_INIT,
    OP_DEINIT,
    OP_CREATE,
    OP_START,
    OP_PAUSE,
    OP_RESUME,
    OP_STOP,
    OP_COMMAND,
    OP_FRAME,
    OP_DESTROY,
    OP_PING,
    OP_CB_TIMER = 32,
    OP_CB_SPEECH_DONE,
    OP_CB_SPEECH_WORD,
    OP_CB_DIALOG,
    OP_CB_EVENT,
    OP_CB_OUTCOME,
    OP_CB_ROW,
    OP_CB_TASK,

    /* helper -> host: which slots of a service table the host fills; then one operation per service
       function, numbered from OP_FIRST_SERVICE in generated/services.h */
    OP_GET_SERVICE = 100,
    OP_FIRST_SERVICE,
};

/* What comes with a frame (OP_FRAME) for its first retain: the host retained it already for the plugin (its
   token follows), it cannot keep another frame now, or it offers nothing and a retain asks (OP_CAMERA_RETAIN).
   The reply says whether the offer was taken, and carries the frames released meanwhile. */
enum { FRAME_OFFER_ASK = 0, FRAME_OFFER_GIVEN = 1, FRAME_OFFER_REFUSED = 2 };

/* What one file of a side writes by hand for its other files (host_*.c, helper_*.c): not exported. */
#define BRIDGE_PRIVATE __attribute__((visibility("hidden")))

#include "generated/services.h"

#endif
