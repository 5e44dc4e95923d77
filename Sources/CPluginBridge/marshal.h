/* The ABI's structs on the wire, both ways (wire.h). Decoded structs point into the message they came from;
   arrays are malloc'd and freed with the matching free_* function. */
#ifndef ASSIST_BRIDGE_MARSHAL_H
#define ASSIST_BRIDGE_MARSHAL_H

#include "assist_plugin.h"
#include "wire.h"

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
