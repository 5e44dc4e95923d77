#include "marshal.h"

#include <stdlib.h>
#include <string.h>

uint64_t plane_span(uint32_t fourcc, uint32_t width, uint32_t height, uint32_t stride) {
    uint64_t per_pixel = fourcc == ASSIST_FOURCC_GRAY8                                  ? 1
                         : fourcc == ASSIST_FOURCC_YUYV                                 ? 2
                         : fourcc == ASSIST_FOURCC_BGR24 || fourcc == ASSIST_FOURCC_RGB24 ? 3
                                                                                          : 0;
    uint64_t row = per_pixel * width;
    if (height == 0 || row == 0 || row > stride) return 0;
    return (uint64_t)stride * (height - 1) + row;
}

void put_struct(bmsg *m, const void *s) {
    uint32_t size = 0;
    memcpy(&size, s, sizeof size);
    put_bytes(m, s, size);
}

bool get_struct(bmsg *m, void *dst, size_t dst_size, size_t min_size) {
    size_t size = 0;
    const void *bytes = get_bytes(m, &size);
    uint32_t declared = 0;
    /* Shorter than its own struct_size field: assist_struct_copy would read that field past the bytes sent. */
    bool whole = bytes != NULL && size >= sizeof declared;
    if (whole) memcpy(&declared, bytes, sizeof declared);
    if (m->bad || !whole || declared != size || !assist_struct_copy(dst, dst_size, bytes, min_size)) {
        memset(dst, 0, dst_size);
        m->bad = true;
        return false;
    }
    return true;
}

/* Room and alignment for an element of any of the arrays the bridge carries. */
typedef union {
    assist_value value;
    assist_http_field field;
    assist_outbox_part part;
} any_element;

/* Writes an array of versioned structs (walked at the stride of its first element's struct_size, as
   ASSIST_ELEMENT does): its count, then each element, copied by the one copy rule into `size` bytes (at least
   `least` from the plugin), sent by `put`. An array whose first element is too small goes as an empty one. */
static void put_array(bmsg *m, const void *array, size_t count, size_t size, size_t least,
                      void (*put)(bmsg *, const void *)) {
    uint32_t stride = 0;
    if (array != NULL && count > 0) memcpy(&stride, array, sizeof stride);
    if (stride < least || size > sizeof(any_element)) {
        put_u32(m, 0);
        return;
    }
    put_u32(m, (uint32_t)count);
    any_element element;
    for (size_t i = 0; i < count; i++) {
        assist_struct_copy(&element, size, (const char *)array + i * stride, least);
        put(m, &element);
    }
}

/* An array of versioned structs arrives as its count, then each element whole with what its pointers hold.
   The reader lays the elements out at the stride their writer used (its struct_size, at most the size this
   build knows, rounded up to 8), each element's struct_size that stride, as ASSIST_ELEMENT walks them. Stores
   `e`, read and its pointers set, as element `i` of `count` in `*array` (allocated at the first); false when
   the elements disagree on their size. */
static bool array_store(void **array, size_t *stride, uint32_t count, uint32_t i, void *e, size_t size) {
    uint32_t declared = 0;
    memcpy(&declared, e, sizeof declared);
    size_t rounded = ((size_t)declared + 7) & ~(size_t)7;
    if (rounded > size) rounded = size;
    if (i == 0) {
        *stride = rounded;
        *array = calloc(1, (size_t)(count - 1) * rounded + size);
        if (*array == NULL) abort();
    } else if (rounded != *stride) {
        return false;
    }
    uint32_t stored = (uint32_t)rounded;
    memcpy(e, &stored, sizeof stored);
    memcpy((char *)*array + (size_t)i * rounded, e, rounded);
    return true;
}

/* Reads an array of versioned structs of `size` bytes (at least `min_size` from their writer): its count, at
   most `max`, then each element whole, what its pointers hold read into it by `pointees`. NULL for an empty
   array, and for a malformed one, which marks the message bad. */
static void *get_array(bmsg *m, size_t size, size_t min_size, uint32_t max, void (*pointees)(bmsg *, void *),
                       uint32_t *count) {
    any_element element;
    uint32_t n = get_u32(m);
    *count = 0;
    if (m->bad || n > max || size > sizeof element) {
        m->bad = true;
        return NULL;
    }
    void *array = NULL;
    size_t stride = 0;
    for (uint32_t i = 0; i < n && !m->bad; i++) {
        if (!get_struct(m, &element, size, min_size)) break;
        pointees(m, &element);
        if (!m->bad && !array_store(&array, &stride, n, i, &element, size)) m->bad = true;
    }
    if (m->bad) {
        free(array);
        return NULL;
    }
    *count = n;
    return array;
}

static void value_pointees(bmsg *m, void *e) {
    assist_value *v = e;
    v->data = get_bytes(m, &v->size);
}

static void field_pointees(bmsg *m, void *e) {
    assist_http_field *f = e;
    f->name = get_str(m);
    f->value = get_str(m);
}

static void part_pointees(bmsg *m, void *e) {
    assist_outbox_part *p = e;
    p->name = get_str(m);
    p->text = get_str(m);
    p->path = get_str(m);
    p->filename = get_str(m);
    p->content_type = get_str(m);
}

static void put_value(bmsg *m, const void *e) {
    const assist_value *v = e;
    put_whole(m, assist_value, *v);
    bool has_bytes = v->type == ASSIST_VALUE_TEXT || v->type == ASSIST_VALUE_BLOB;
    put_bytes(m, has_bytes ? v->data : NULL, has_bytes ? v->size : 0);
}

void put_values(bmsg *m, const assist_value *values, int32_t count) {
    put_array(m, values, count < 0 ? 0 : (size_t)count, sizeof(assist_value), ASSIST_SIZE_THROUGH(assist_value, size),
              put_value);
}

assist_value *get_values(bmsg *m, int32_t *count) {
    uint32_t n = 0;
    void *values = get_array(m, sizeof(assist_value), ASSIST_SIZE_THROUGH(assist_value, size), 100000,
                             value_pointees, &n);
    *count = -1;
    if (m->bad) return NULL;
    if (values == NULL) { /* an empty array is a valid pointer */
        values = calloc(1, sizeof(assist_value));
        if (values == NULL) abort();
        ((assist_value *)values)->struct_size = sizeof(assist_value);
    }
    *count = (int32_t)n;
    return values;
}

static void put_field(bmsg *m, const void *e) {
    const assist_http_field *f = e;
    put_whole(m, assist_http_field, *f);
    put_str(m, f->name);
    put_str(m, f->value);
}

void put_fields(bmsg *m, const assist_http_field *fields, size_t count) {
    put_array(m, fields, count, sizeof(assist_http_field), ASSIST_SIZE_THROUGH(assist_http_field, value), put_field);
}

assist_http_field *get_fields(bmsg *m, size_t *count) {
    uint32_t n = 0;
    assist_http_field *fields = get_array(m, sizeof(assist_http_field),
                                          ASSIST_SIZE_THROUGH(assist_http_field, value), 10000, field_pointees, &n);
    *count = n;
    return fields;
}

static void put_part(bmsg *m, const void *e) {
    const assist_outbox_part *p = e;
    put_whole(m, assist_outbox_part, *p);
    put_str(m, p->name);
    put_str(m, p->text);
    put_str(m, p->path);
    put_str(m, p->filename);
    put_str(m, p->content_type);
}

static void put_parts(bmsg *m, const assist_outbox_part *parts, size_t count) {
    put_array(m, parts, count, sizeof(assist_outbox_part), ASSIST_SIZE_THROUGH(assist_outbox_part, content_type),
              put_part);
}

static assist_outbox_part *get_parts(bmsg *m, size_t *count) {
    uint32_t n = 0;
    assist_outbox_part *parts = get_array(m, sizeof(assist_outbox_part),
                                          ASSIST_SIZE_THROUGH(assist_outbox_part, content_type), 10000, part_pointees,
                                          &n);
    *count = n;
    return parts;
}

void put_outbox_request(bmsg *m, const assist_outbox_request *r) {
    assist_outbox_request c;
    bool ok = assist_struct_copy(&c, sizeof c, r, ASSIST_SIZE_THROUGH(assist_outbox_request, tag));
    put_bool(m, ok);
    if (!ok) return;
    put_whole(m, assist_outbox_request, c);
    put_str(m, c.method);
    put_str(m, c.url);
    put_fields(m, c.headers, c.header_count);
    put_bytes(m, c.json, c.json_size);
    put_fields(m, c.fields, c.field_count);
    put_parts(m, c.parts, c.part_count);
    put_str(m, c.tag);
}

bool get_outbox_request(bmsg *m, assist_outbox_request *r) {
    memset(r, 0, sizeof *r);
    if (!get_bool(m) || !get_struct(m, r, sizeof *r, ASSIST_SIZE_THROUGH(assist_outbox_request, tag))) return false;
    r->method = get_str(m);
    r->url = get_str(m);
    r->headers = get_fields(m, &r->header_count);
    r->json = get_bytes(m, &r->json_size);
    r->fields = get_fields(m, &r->field_count);
    r->parts = get_parts(m, &r->part_count);
    r->tag = get_str(m);
    if (m->bad) {
        free_outbox_request(r);
        return false;
    }
    return true;
}

void free_outbox_request(assist_outbox_request *r) {
    free((void *)r->headers);
    free((void *)r->fields);
    free((void *)r->parts);
    r->headers = NULL;
    r->fields = NULL;
    r->parts = NULL;
}

void put_outcome(bmsg *m, const assist_outbox_outcome *o) {
    assist_outbox_outcome c;
    assist_struct_copy(&c, sizeof c, o, 0);
    put_whole(m, assist_outbox_outcome, c);
    put_str(m, c.tag);
    put_fields(m, c.headers, c.header_count);
    put_bytes(m, c.body, c.body_size);
    put_str(m, c.error);
}

bool get_outcome(bmsg *m, assist_outbox_outcome *o) {
    if (!get_struct(m, o, sizeof *o, ASSIST_SIZE_THROUGH(assist_outbox_outcome, error))) return false;
    o->tag = get_str(m);
    o->headers = get_fields(m, &o->header_count);
    o->body = get_bytes(m, &o->body_size);
    o->error = get_str(m);
    if (m->bad) {
        free((void *)o->headers);
        o->headers = NULL;
        return false;
    }
    if (o->headers == NULL) {
        static const assist_http_field none = {sizeof(assist_http_field), "", ""};
        o->headers = &none; /* never NULL for the plugin; header_count is 0 */
    }
    return true;
}

/* For the fuzz target "helper-protocol": one message of arbitrary bytes (its own header, padded to 16
   bytes), read with the decoder its operation selects, as the host and the helper read what the other
   side sent. Everything decoded is freed; nothing is called. */
bmsg *bmsg_from_bytes(const uint8_t *data, size_t size) {
    bmsg *m = bmsg_new(BRIDGE_REQUEST, 0);
    uint8_t header[BRIDGE_HEADER] = {0};
    memcpy(header, data, size < BRIDGE_HEADER ? size : BRIDGE_HEADER);
    memcpy(m->data, header, BRIDGE_HEADER);
    m->size = BRIDGE_HEADER;
    if (size > BRIDGE_HEADER) {
        for (size_t i = BRIDGE_HEADER; i < size; i++) put_raw_byte(m, data[i]);
    }
    return m;
}

void assist_bridge_fuzz_decode(const uint8_t *data, size_t size) {
    bmsg *m = bmsg_from_bytes(data, size);
    switch (bmsg_op(m) % 6) {
    case 0: {
        int32_t count = 0;
        free(get_values(m, &count));
        break;
    }
    case 1: {
        assist_outbox_request r;
        if (get_outbox_request(m, &r)) free_outbox_request(&r);
        break;
    }
    case 2: {
        assist_outbox_outcome o;
        if (get_outcome(m, &o) && o.header_count > 0) free((void *)o.headers);
        break;
    }
    case 3: {
        size_t count = 0;
        free(get_fields(m, &count));
        break;
    }
    case 4: { /* a storage row: names, then values of the same count */
        uint32_t count = get_u32(m);
        for (uint32_t i = 0; i < count && !m->bad; i++) (void)get_str(m);
        int32_t values = 0;
        free(get_values(m, &values));
        break;
    }
    default: { /* a dialog result, as a callback brings it */
        assist_dialog_result r;
        if (get_struct(m, &r, sizeof r, ASSIST_SIZE_THROUGH(assist_dialog_result, request))) (void)get_str(m);
        break;
    }
    }
    bmsg_free(m);
}
