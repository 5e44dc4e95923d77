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

void put_values(bmsg *m, const assist_value *values, int32_t count) {
    if (values == NULL || count <= 0 || values[0].struct_size < ASSIST_SIZE_THROUGH(assist_value, size)) {
        put_u32(m, 0);
        return;
    }
    put_u32(m, (uint32_t)count);
    for (int32_t i = 0; i < count; i++) {
        const assist_value *v = ASSIST_ELEMENT(assist_value, values, i);
        put_u32(m, (uint32_t)v->type);
        put_i64(m, v->integer);
        put_f64(m, v->real);
        bool has_bytes = v->type == ASSIST_VALUE_TEXT || v->type == ASSIST_VALUE_BLOB;
        put_bytes(m, has_bytes ? v->data : NULL, has_bytes ? v->size : 0);
    }
}

assist_value *get_values(bmsg *m, int32_t *count) {
    uint32_t n = get_u32(m);
    *count = -1;
    if (m->bad || n > 100000) {
        m->bad = true;
        return NULL;
    }
    assist_value *values = calloc(n == 0 ? 1 : n, sizeof *values);
    if (values == NULL) abort();
    for (uint32_t i = 0; i < n; i++) {
        values[i].struct_size = sizeof(assist_value);
        values[i].type = (assist_value_type)get_u32(m);
        values[i].integer = get_i64(m);
        values[i].real = get_f64(m);
        values[i].data = get_bytes(m, &values[i].size);
    }
    if (m->bad) {
        free(values);
        return NULL;
    }
    *count = (int32_t)n;
    return values;
}

void put_fields(bmsg *m, const assist_http_field *fields, size_t count) {
    if (fields == NULL || count == 0 || fields[0].struct_size < ASSIST_SIZE_THROUGH(assist_http_field, value)) {
        put_u32(m, 0);
        return;
    }
    put_u32(m, (uint32_t)count);
    for (size_t i = 0; i < count; i++) {
        const assist_http_field *f = ASSIST_ELEMENT(assist_http_field, fields, i);
        put_str(m, f->name);
        put_str(m, f->value);
    }
}

assist_http_field *get_fields(bmsg *m, size_t *count) {
    uint32_t n = get_u32(m);
    *count = 0;
    if (m->bad || n > 10000) {
        m->bad = true;
        return NULL;
    }
    if (n == 0) return NULL;
    assist_http_field *fields = calloc(n, sizeof *fields);
    if (fields == NULL) abort();
    for (uint32_t i = 0; i < n; i++) {
        fields[i].struct_size = sizeof(assist_http_field);
        fields[i].name = get_str(m);
        fields[i].value = get_str(m);
    }
    if (m->bad) {
        free(fields);
        return NULL;
    }
    *count = n;
    return fields;
}

void put_outbox_request(bmsg *m, const assist_outbox_request *r) {
    assist_outbox_request c;
    bool ok = assist_struct_copy(&c, sizeof c, r, ASSIST_SIZE_THROUGH(assist_outbox_request, tag));
    put_bool(m, ok);
    if (!ok) return;
    put_str(m, c.method);
    put_str(m, c.url);
    put_fields(m, c.headers, c.header_count);
    put_u32(m, (uint32_t)c.body);
    put_bytes(m, c.json, c.json_size);
    put_fields(m, c.fields, c.field_count);
    bool parts_ok = c.parts != NULL && c.part_count > 0 &&
                    c.parts[0].struct_size >= ASSIST_SIZE_THROUGH(assist_outbox_part, content_type);
    put_u32(m, parts_ok ? (uint32_t)c.part_count : 0);
    for (size_t i = 0; parts_ok && i < c.part_count; i++) {
        const assist_outbox_part *p = ASSIST_ELEMENT(assist_outbox_part, c.parts, i);
        put_str(m, p->name);
        put_str(m, p->text);
        put_str(m, p->path);
        put_str(m, p->filename);
        put_str(m, p->content_type);
    }
    put_u32(m, c.max_attempts);
    put_str(m, c.tag);
}

bool get_outbox_request(bmsg *m, assist_outbox_request *r) {
    memset(r, 0, sizeof *r);
    if (!get_bool(m)) return false;
    r->struct_size = sizeof *r;
    r->method = get_str(m);
    r->url = get_str(m);
    r->headers = get_fields(m, &r->header_count);
    r->body = (assist_outbox_body)get_u32(m);
    r->json = get_bytes(m, &r->json_size);
    r->fields = get_fields(m, &r->field_count);
    uint32_t parts = get_u32(m);
    if (!m->bad && parts > 0 && parts <= 10000) {
        assist_outbox_part *p = calloc(parts, sizeof *p);
        if (p == NULL) abort();
        for (uint32_t i = 0; i < parts; i++) {
            p[i].struct_size = sizeof *p;
            p[i].name = get_str(m);
            p[i].text = get_str(m);
            p[i].path = get_str(m);
            p[i].filename = get_str(m);
            p[i].content_type = get_str(m);
        }
        r->parts = p;
        r->part_count = parts;
    } else if (parts > 10000) {
        m->bad = true;
    }
    r->max_attempts = get_u32(m);
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
    put_i64(m, o->job);
    put_u32(m, (uint32_t)o->status);
    put_bool(m, o->truncated);
    put_str(m, o->tag);
    put_fields(m, o->headers, o->header_count);
    put_bytes(m, o->body, o->body_size);
    put_str(m, o->error);
}

bool get_outcome(bmsg *m, assist_outbox_outcome *o) {
    memset(o, 0, sizeof *o);
    o->struct_size = sizeof *o;
    o->job = get_i64(m);
    o->status = (int32_t)get_u32(m);
    o->truncated = get_bool(m);
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
    default: /* a dialog result */
        (void)get_u32(m);
        (void)get_u32(m);
        (void)get_bool(m);
        (void)get_str(m);
        (void)get_u64(m);
        break;
    }
    bmsg_free(m);
}
