#define _GNU_SOURCE
#include "wire.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* ---- messages ---------------------------------------------------------------------------------------- */

static void wr32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t rd32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

bmsg *bmsg_new(uint32_t type, uint32_t op) {
    bmsg *m = calloc(1, sizeof *m);
    if (m == NULL) abort();
    m->cap = 256;
    m->data = malloc(m->cap);
    if (m->data == NULL) abort();
    m->size = BRIDGE_HEADER;
    m->pos = BRIDGE_HEADER;
    m->fd = -1;
    wr32(m->data, 0);
    wr32(m->data + 4, 0);
    wr32(m->data + 8, type);
    wr32(m->data + 12, op);
    return m;
}

void bmsg_free(bmsg *m) {
    if (m == NULL) return;
    if (m->fd >= 0) close(m->fd);
    free(m->data);
    free(m);
}

uint32_t bmsg_lane(const bmsg *m) { return rd32(m->data + 4); }
uint32_t bmsg_type(const bmsg *m) { return rd32(m->data + 8); }
uint32_t bmsg_op(const bmsg *m) { return rd32(m->data + 12); }

static void put_raw(bmsg *m, const void *p, size_t n) {
    if (m->size + n > m->cap) {
        size_t cap = m->cap;
        while (m->size + n > cap) cap *= 2;
        uint8_t *grown = realloc(m->data, cap);
        if (grown == NULL) abort();
        m->data = grown;
        m->cap = cap;
    }
    if (n > 0) memcpy(m->data + m->size, p, n);
    m->size += n;
}

void put_raw_byte(bmsg *m, uint8_t b) { put_raw(m, &b, 1); }

void put_u32(bmsg *m, uint32_t v) {
    uint8_t b[4];
    wr32(b, v);
    put_raw(m, b, 4);
}

void put_u64(bmsg *m, uint64_t v) {
    put_u32(m, (uint32_t)v);
    put_u32(m, (uint32_t)(v >> 32));
}

void put_i64(bmsg *m, int64_t v) { put_u64(m, (uint64_t)v); }

void put_f64(bmsg *m, double v) {
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    put_u64(m, bits);
}

void put_bool(bmsg *m, bool v) { put_u32(m, v ? 1 : 0); }

void put_bytes(bmsg *m, const void *p, size_t n) {
    if (p == NULL) {
        put_u32(m, UINT32_MAX);
        return;
    }
    if (n >= UINT32_MAX - 1) n = UINT32_MAX - 2; /* never: messages are far smaller */
    put_u32(m, (uint32_t)n);
    put_raw(m, p, n);
    uint8_t nul = 0;
    put_raw(m, &nul, 1);
}

void put_str(bmsg *m, const char *s) { put_bytes(m, s, s == NULL ? 0 : strlen(s)); }

static const uint8_t *take(bmsg *m, size_t n) {
    if (m->bad || m->size - m->pos < n) {
        m->bad = true;
        return NULL;
    }
    const uint8_t *p = m->data + m->pos;
    m->pos += n;
    return p;
}

uint32_t get_u32(bmsg *m) {
    const uint8_t *p = take(m, 4);
    return p == NULL ? 0 : rd32(p);
}

uint64_t get_u64(bmsg *m) {
    uint64_t low = get_u32(m);
    return low | (uint64_t)get_u32(m) << 32;
}

int64_t get_i64(bmsg *m) { return (int64_t)get_u64(m); }

double get_f64(bmsg *m) {
    uint64_t bits = get_u64(m);
    double v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

bool get_bool(bmsg *m) {
    uint32_t v = get_u32(m);
    if (v > 1) m->bad = true;
    return v == 1;
}

const void *get_bytes(bmsg *m, size_t *n) {
    uint32_t length = get_u32(m);
    if (n != NULL) *n = 0;
    if (m->bad || length == UINT32_MAX) return NULL;
    const uint8_t *p = take(m, (size_t)length + 1);
    if (p == NULL || p[length] != 0) {
        m->bad = true;
        return NULL;
    }
    if (n != NULL) *n = length;
    return p;
}

const char *get_str(bmsg *m) {
    size_t n = 0;
    const char *s = get_bytes(m, &n);
    if (s != NULL && strlen(s) != n) m->bad = true; /* a NUL inside a string */
    return m->bad ? NULL : s;
}

/* ---- the channel ------------------------------------------------------------------------------------- */

static __thread bool in_reader;

void bchan_kill(bchan *c, const char *why) {
    pthread_mutex_lock(&c->lock);
    bool first = !c->dead;
    if (first) {
        c->dead = true;
        snprintf(c->why, sizeof c->why, "%s", why);
        shutdown(c->fd, SHUT_RDWR);
    }
    for (blane *l = c->lanes; l != NULL; l = l->next) pthread_cond_broadcast(&l->cond);
    pthread_mutex_unlock(&c->lock);
}

bool bchan_is_dead(bchan *c) {
    pthread_mutex_lock(&c->lock);
    bool dead = c->dead;
    pthread_mutex_unlock(&c->lock);
    return dead;
}

static blane *lane_new(bchan *c, uint32_t id) {
    blane *l = calloc(1, sizeof *l);
    if (l == NULL) abort();
    l->id = id;
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&l->cond, &attr);
    pthread_condattr_destroy(&attr);
    l->next = c->lanes;
    c->lanes = l;
    c->lane_count++;
    return l;
}

/* This thread's lane, opened on first use. Under the lock. */
static blane *own_lane(bchan *c) {
    pthread_t self = pthread_self();
    for (blane *l = c->lanes; l != NULL; l = l->next) {
        if (l->owned && pthread_equal(l->owner, self)) return l;
    }
    blane *l = lane_new(c, c->next_lane);
    c->next_lane += 2;
    l->owner = self;
    l->owned = true;
    return l;
}

static bool send_all(bchan *c, bmsg *m, uint32_t lane, int fd) {
    wr32(m->data, (uint32_t)m->size);
    wr32(m->data + 4, lane);
    pthread_mutex_lock(&c->send_lock);
    size_t sent = 0;
    bool ok = true;
    while (sent < m->size) {
        struct iovec io = {.iov_base = m->data + sent, .iov_len = m->size - sent};
        struct msghdr h = {.msg_iov = &io, .msg_iovlen = 1};
        union {
            char buf[CMSG_SPACE(sizeof(int))];
            struct cmsghdr align;
        } control;
        if (sent == 0 && fd >= 0) {
            memset(&control, 0, sizeof control);
            h.msg_control = control.buf;
            h.msg_controllen = sizeof control.buf;
            struct cmsghdr *cm = CMSG_FIRSTHDR(&h);
            cm->cmsg_level = SOL_SOCKET;
            cm->cmsg_type = SCM_RIGHTS;
            cm->cmsg_len = CMSG_LEN(sizeof(int));
            memcpy(CMSG_DATA(cm), &fd, sizeof fd);
        }
        ssize_t n = sendmsg(c->fd, &h, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            ok = false;
            break;
        }
        sent += (size_t)n;
    }
    pthread_mutex_unlock(&c->send_lock);
    if (!ok) bchan_kill(c, "its connection closed");
    return ok;
}

/* Reads exactly n bytes; keeps a descriptor that arrives. */
static bool read_all(bchan *c, uint8_t *p, size_t n, int *fd) {
    size_t got = 0;
    while (got < n) {
        struct iovec io = {.iov_base = p + got, .iov_len = n - got};
        union {
            char buf[CMSG_SPACE(sizeof(int) * 4)];
            struct cmsghdr align;
        } control;
        struct msghdr h = {.msg_iov = &io, .msg_iovlen = 1, .msg_control = control.buf,
                           .msg_controllen = sizeof control.buf};
        ssize_t r = recvmsg(c->fd, &h, MSG_CMSG_CLOEXEC);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return false;
        for (struct cmsghdr *cm = CMSG_FIRSTHDR(&h); cm != NULL; cm = CMSG_NXTHDR(&h, cm)) {
            if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS) continue;
            size_t count = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
            for (size_t i = 0; i < count; i++) {
                int received;
                memcpy(&received, CMSG_DATA(cm) + i * sizeof(int), sizeof received);
                if (*fd < 0) *fd = received;
                else close(received); /* one descriptor per message */
            }
        }
        got += (size_t)r;
    }
    return true;
}

static void serve(bchan *c, blane *l, bmsg *request) {
    bmsg *reply = bmsg_new(BRIDGE_REPLY, bmsg_op(request));
    c->handle(c, request, reply);
    bool bad = request->bad;
    bmsg_free(request);
    if (bad) {
        bmsg_free(reply);
        bchan_kill(c, "it sent a malformed request");
        return;
    }
    send_all(c, reply, l->id, -1);
    bmsg_free(reply);
}

typedef struct {
    bchan *c;
    blane *l;
} lane_start;

/* A lane the other side opened: served by its own thread, which keeps it for nested calls. */
static void *lane_thread(void *arg) {
    lane_start start = *(lane_start *)arg;
    free(arg);
    bchan *c = start.c;
    blane *l = start.l;
    pthread_mutex_lock(&c->lock);
    l->owner = pthread_self();
    l->owned = true;
    for (;;) {
        while (l->head == NULL && !c->dead) pthread_cond_wait(&l->cond, &c->lock);
        if (c->dead) break;
        bmsg *m = l->head;
        l->head = m->next;
        if (l->head == NULL) l->tail = NULL;
        pthread_mutex_unlock(&c->lock);
        if (bmsg_type(m) == BRIDGE_REQUEST) {
            serve(c, l, m);
        } else {
            bmsg_free(m);
            bchan_kill(c, "it sent an answer nobody asked for");
        }
        pthread_mutex_lock(&c->lock);
    }
    pthread_mutex_unlock(&c->lock);
    return NULL;
}

static void *reader_thread(void *arg) {
    bchan *c = arg;
    in_reader = true;
    for (;;) {
        uint8_t header[BRIDGE_HEADER];
        int fd = -1;
        if (!read_all(c, header, sizeof header, &fd)) {
            if (fd >= 0) close(fd);
            bchan_kill(c, "its connection closed");
            break;
        }
        uint32_t size = rd32(header), lane = rd32(header + 4), type = rd32(header + 8);
        if (size < BRIDGE_HEADER || size > BRIDGE_MAX_MESSAGE || lane == 0 ||
            (type != BRIDGE_REQUEST && type != BRIDGE_REPLY)) {
            if (fd >= 0) close(fd);
            bool shaped = size >= BRIDGE_HEADER && lane != 0 && (type == BRIDGE_REQUEST || type == BRIDGE_REPLY);
            bchan_kill(c, shaped ? "it sent a message over 64 MB" : "it sent something that is not the helper protocol");
            break;
        }
        bmsg *m = calloc(1, sizeof *m);
        if (m == NULL) abort();
        m->data = malloc(size);
        if (m->data == NULL) abort();
        m->cap = m->size = size;
        m->pos = BRIDGE_HEADER;
        m->fd = fd;
        memcpy(m->data, header, sizeof header);
        if (!read_all(c, m->data + BRIDGE_HEADER, size - BRIDGE_HEADER, &m->fd)) {
            bmsg_free(m);
            bchan_kill(c, "its connection closed"); /* mid-message: how the process ended says more */
            break;
        }
        pthread_mutex_lock(&c->lock);
        blane *l = c->lanes;
        while (l != NULL && l->id != lane) l = l->next;
        bool theirs = (lane & 1) != (c->next_lane & 1);
        if (l == NULL && (!theirs || type != BRIDGE_REQUEST || c->lane_count >= BRIDGE_MAX_LANES)) {
            pthread_mutex_unlock(&c->lock);
            bmsg_free(m);
            bchan_kill(c, !theirs || type != BRIDGE_REQUEST ? "it answered on a lane that was not asking"
                                                            : "it opened too many threads of calls");
            break;
        }
        if (l == NULL) {
            l = lane_new(c, lane);
            lane_start *start = malloc(sizeof *start);
            if (start == NULL) abort();
            start->c = c;
            start->l = l;
            pthread_t thread;
            pthread_attr_t attr;
            pthread_attr_init(&attr);
            pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
            if (pthread_create(&thread, &attr, lane_thread, start) != 0) {
                pthread_attr_destroy(&attr);
                free(start);
                pthread_mutex_unlock(&c->lock);
                bmsg_free(m);
                bchan_kill(c, "it could not be given a thread");
                break;
            }
            pthread_attr_destroy(&attr);
        }
        if (l->tail != NULL) l->tail->next = m;
        else l->head = m;
        l->tail = m;
        pthread_cond_broadcast(&l->cond);
        pthread_mutex_unlock(&c->lock);
    }
    if (c->on_dead != NULL) c->on_dead(c);
    return NULL;
}

int bchan_start(bchan *c, int fd, uint32_t first_lane, bchan_handler handle, void (*on_dead)(bchan *), void *user) {
    c->fd = fd;
    pthread_mutex_init(&c->lock, NULL);
    pthread_mutex_init(&c->send_lock, NULL);
    c->next_lane = first_lane;
    c->handle = handle;
    c->on_dead = on_dead;
    c->user = user;
    /* Never joined: it ends with the connection, and the helper ends with _exit. */
    int rc = pthread_create(&c->reader, NULL, reader_thread, c);
    if (rc == 0) pthread_detach(c->reader);
    return rc;
}

void deadline_after(struct timespec *t, int ms) {
    clock_gettime(CLOCK_MONOTONIC, t);
    t->tv_sec += ms / 1000;
    t->tv_nsec += (long)(ms % 1000) * 1000000L;
    if (t->tv_nsec >= 1000000000L) {
        t->tv_sec++;
        t->tv_nsec -= 1000000000L;
    }
}

bmsg *bchan_call(bchan *c, bmsg *request, int fd) {
    if (in_reader) abort(); /* the reader never calls: it would wait for itself */
    pthread_mutex_lock(&c->lock);
    if (c->dead) {
        pthread_mutex_unlock(&c->lock);
        bmsg_free(request);
        return NULL;
    }
    blane *l = own_lane(c);
    pthread_mutex_unlock(&c->lock);
    uint32_t op = bmsg_op(request);
    bool sent = send_all(c, request, l->id, fd);
    bmsg_free(request);
    if (!sent) return NULL;
    struct timespec deadline;
    if (c->timeout_ms > 0) deadline_after(&deadline, c->timeout_ms);
    pthread_mutex_lock(&c->lock);
    for (;;) {
        while (l->head == NULL && !c->dead) {
            if (c->timeout_ms <= 0) {
                pthread_cond_wait(&l->cond, &c->lock);
            } else if (pthread_cond_timedwait(&l->cond, &c->lock, &deadline) == ETIMEDOUT && l->head == NULL) {
                pthread_mutex_unlock(&c->lock);
                char why[80];
                snprintf(why, sizeof why, "it did not answer within %d ms", c->timeout_ms);
                bchan_kill(c, why);
                pthread_mutex_lock(&c->lock);
            }
        }
        if (c->dead) {
            pthread_mutex_unlock(&c->lock);
            return NULL;
        }
        bmsg *m = l->head;
        l->head = m->next;
        if (l->head == NULL) l->tail = NULL;
        m->next = NULL;
        pthread_mutex_unlock(&c->lock);
        if (bmsg_type(m) == BRIDGE_REPLY) {
            if (bmsg_op(m) == op) return m;
            bmsg_free(m);
            bchan_kill(c, "it answered a different call");
            return NULL;
        }
        serve(c, l, m);
        if (c->timeout_ms > 0) deadline_after(&deadline, c->timeout_ms);
        pthread_mutex_lock(&c->lock);
    }
}
