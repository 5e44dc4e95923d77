/* The ABI's structs on the wire, both ways (wire.h). Decoded structs point into the message they came from;
   arrays are malloc'd and freed with the matching free_* function. */
#ifndef ASSIST_BRIDGE_MARSHAL_H
#define ASSIST_BRIDGE_MARSHAL_H

#include "assist_plugin.h"
#include "generated/structs.h"
#include "wire.h"

#include <string.h>

/* A versioned struct crosses whole: its struct_size and that many bytes, so every field its writer set
   arrives, one added in a later minor version too, and the reader sees the writer's struct_size (what
   ASSIST_HAS_FIELD asks), as it would in process. Its pointer fields (generated/structs.h) are cleared on the
   way; the caller sends what they point to after it and sets them again on the other side. `s` is a T no
   larger than sizeof(T): a copy made with assist_struct_copy. */
#define BRIDGE_CLEAR(s, f) memset(&(s).f, 0, sizeof(s).f);
#define put_whole(m, T, s)                       \
    do {                                         \
        T bare_ = (s);                           \
        BRIDGE_POINTERS_##T(BRIDGE_CLEAR, bare_) \
        put_struct((m), &bare_);                 \
    } while (0)
void put_struct(bmsg *m, const void *s);
/* Reads a struct sent whole into `dst` by the one copy rule (zeroed to dst_size; struct_size what the writer
   sent, at most dst_size). False, and the message marked bad, when it is malformed or below `min_size`. */
bool get_struct(bmsg *m, void *dst, size_t dst_size, size_t min_size);

/* The bytes a plane of a frame spans: every row's stride but the last, which is only as long as its pixels
   (a cropped view's last row may end before its stride does). 0 for a format the ABI does not name. */
uint64_t plane_span(uint32_t fourcc, uint32_t width, uint32_t height, uint32_t stride);

void put_values(bmsg *m, const assist_value *values, int32_t count);
/* NULL (and *count -1) when the message is malformed; an empty array is a valid non-NULL pointer. */
assist_value *get_values(bmsg *m, int32_t *count);

void put_fields(bmsg *m, const assist_http_field *fields, size_t count);
assist_http_field *get_fields(bmsg *m, size_t *count);

void put_outbox_request(bmsg *m, const assist_outbox_request *r);
/* Fills `r`; its arrays are malloc'd: free_outbox_request. False for a malformed message. */
bool get_outbox_request(bmsg *m, assist_outbox_request *r);
void free_outbox_request(assist_outbox_request *r);

/* A message whose header is the first 16 bytes of `data` (zero-padded) and whose arguments are the rest: what
   the fuzz targets read. */
bmsg *bmsg_from_bytes(const uint8_t *data, size_t size);

void put_outcome(bmsg *m, const assist_outbox_outcome *o);
bool get_outcome(bmsg *m, assist_outbox_outcome *o);

#endif
