#define _GNU_SOURCE
#include "wire.h"

#include <errno.h>
#include <poll.h>
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

/* How long a thread that sent a message, or answered one, watches its lane before it sleeps: an answer or the
   next call of a burst usually comes within a few microseconds, and waking a sleeping thread costs tens. */
#define SPIN_NS 40000ull

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

void bchan_kill(bchan *c, const char *why) {
    pthread_mutex_lock(&c->lock);
    if (!c->dead) {
        c->dead = true;
        snprintf(c->why, sizeof c->why, "%s", why);
        shutdown(c->fd, SHUT_RDWR);
        /* Every waiting thread wakes; a lane nobody is using is closed now, the others by their last user. */
        for (blane *l = c->lanes; l != NULL; l = l->next) {
            if (l->fd < 0) continue;
            shutdown(l->fd, SHUT_RDWR);
            if (l->users == 0) {
                close(l->fd);
                l->fd = -1;
            }
        }
    }
    pthread_mutex_unlock(&c->lock);
}

bool bchan_is_dead(bchan *c) {
    pthread_mutex_lock(&c->lock);
    bool dead = c->dead;
    pthread_mutex_unlock(&c->lock);
    return dead;
}

/* Under the lock. */
static blane *lane_new(bchan *c, uint32_t id, int fd) {
    blane *l = calloc(1, sizeof *l);
    if (l == NULL) abort();
    l->id = id;
    l->fd = fd;
    l->next = c->lanes;
    c->lanes = l;
    c->lane_count++;
    return l;
}

/* One user of `l` less; the last one after the end closes its socket. Under the lock. */
static void lane_done(bchan *c, blane *l) {
    l->users--;
    if (l->users == 0 && c->dead && l->fd >= 0) {
        close(l->fd);
        l->fd = -1;
    }
}

static bool send_all(int sock, bmsg *m, uint32_t lane, int fd) {
    wr32(m->data, (uint32_t)m->size);
    wr32(m->data + 4, lane);
    size_t sent = 0;
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
        ssize_t n = sendmsg(sock, &h, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        sent += (size_t)n;
    }
    return true;
}

/* Reads up to n bytes (`flags` MSG_DONTWAIT to try without waiting); keeps a descriptor that arrives.
   The count read, 0 at the end, -1 on an error (errno). */
static ssize_t read_some(int sock, uint8_t *p, size_t n, int *fd, int flags) {
    for (;;) {
        struct iovec io = {.iov_base = p, .iov_len = n};
        union {
            char buf[CMSG_SPACE(sizeof(int) * 4)];
            struct cmsghdr align;
        } control;
        struct msghdr h = {.msg_iov = &io, .msg_iovlen = 1, .msg_control = control.buf,
                           .msg_controllen = sizeof control.buf};
        ssize_t r = recvmsg(sock, &h, MSG_CMSG_CLOEXEC | flags);
        if (r < 0 && errno == EINTR) continue;
        if (r > 0) {
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
        }
        return r;
    }
}

static bool read_all(int sock, uint8_t *p, size_t n, int *fd) {
    size_t got = 0;
    while (got < n) {
        ssize_t r = read_some(sock, p + got, n - got, fd, 0);
        if (r <= 0) return false;
        got += (size_t)r;
    }
    return true;
}

typedef enum { READ_OK, READ_CLOSED, READ_TIMEOUT, READ_BAD } read_outcome;

/* Reads one message from `sock`, watching it for SPIN_NS first when `spin`, then waiting up to `timeout_ms`
   (0: for ever). READ_BAD sets `*why`. */
static read_outcome read_message(int sock, bool spin, int timeout_ms, bmsg **out, const char **why) {
    uint8_t header[BRIDGE_HEADER];
    int fd = -1;
    size_t got = 0;
    uint64_t spin_until = spin ? now_ns() + SPIN_NS : 0;
    while (got == 0) {
        ssize_t r = read_some(sock, header, sizeof header, &fd, MSG_DONTWAIT);
        if (r == 0) return READ_CLOSED;
        if (r > 0) {
            got = (size_t)r;
            break;
        }
        if (errno != EAGAIN && errno != EWOULDBLOCK) return READ_CLOSED;
        if (now_ns() < spin_until) continue;
        struct pollfd p = {.fd = sock, .events = POLLIN};
        int ready = poll(&p, 1, timeout_ms > 0 ? timeout_ms : -1);
        if (ready < 0 && errno == EINTR) continue;
        if (ready == 0) return READ_TIMEOUT;
        if (ready < 0) return READ_CLOSED;
    }
    if (!read_all(sock, header + got, sizeof header - got, &fd)) {
        if (fd >= 0) close(fd);
        return READ_CLOSED;
    }
    uint32_t size = rd32(header), lane = rd32(header + 4), type = rd32(header + 8);
    bool shaped = size >= BRIDGE_HEADER && lane != 0 && type >= BRIDGE_REQUEST && type <= BRIDGE_NOTE;
    if (!shaped || size > BRIDGE_MAX_MESSAGE) {
        if (fd >= 0) close(fd);
        *why = shaped ? "it sent a message over 64 MB" : "it sent something that is not the helper protocol";
        return READ_BAD;
    }
    bmsg *m = calloc(1, sizeof *m);
    if (m == NULL) abort();
    m->data = malloc(size);
    if (m->data == NULL) abort();
    m->cap = m->size = size;
    m->pos = BRIDGE_HEADER;
    m->fd = fd;
    memcpy(m->data, header, sizeof header);
    if (!read_all(sock, m->data + BRIDGE_HEADER, size - BRIDGE_HEADER, &m->fd)) {
        bmsg_free(m);
        return READ_CLOSED; /* mid-message: how the process ended says more */
    }
    *out = m;
    return READ_OK;
}

/* Serves one request on lane `l`, answering there; a note is served alike and its answer dropped. */
static void serve(bchan *c, blane *l, bmsg *request) {
    bool note = bmsg_type(request) == BRIDGE_NOTE;
    bmsg *reply = bmsg_new(BRIDGE_REPLY, bmsg_op(request));
    c->handle(c, request, reply);
    bool bad = request->bad;
    bmsg_free(request);
    if (bad) {
        bmsg_free(reply);
        bchan_kill(c, "it sent a malformed request");
        return;
    }
    if (!note && !send_all(l->fd, reply, l->id, -1)) bchan_kill(c, "its connection closed");
    bmsg_free(reply);
}

/* A lane the other side opened: served by its own thread, which keeps it for nested calls. It ends when the
   other side closes the lane or the channel ends. */
static void *lane_thread(void *arg) {
    blane *l = arg;
    bchan *c = l->chan;
    pthread_mutex_lock(&c->lock);
    l->owner = pthread_self();
    l->owned = true;
    int sock = l->fd;
    pthread_mutex_unlock(&c->lock);
    bool answered = false;
    for (;;) {
        bmsg *m = NULL;
        const char *why = NULL;
        read_outcome got = sock < 0 ? READ_CLOSED : read_message(sock, answered, 0, &m, &why);
        if (got == READ_OK) __atomic_fetch_add(&c->received, 1, __ATOMIC_RELAXED);
        if (got == READ_BAD) bchan_kill(c, why);
        if (got != READ_OK) break;
        uint32_t type = bmsg_type(m);
        if ((type != BRIDGE_REQUEST && type != BRIDGE_NOTE) || bmsg_lane(m) != l->id) {
            bmsg_free(m);
            bchan_kill(c, "it sent an answer nobody asked for");
            break;
        }
        serve(c, l, m);
        answered = type == BRIDGE_REQUEST;
    }
    pthread_mutex_lock(&c->lock);
    l->owned = false;
    lane_done(c, l);
    pthread_mutex_unlock(&c->lock);
    return NULL;
}

/* Opens lane `id` with the descriptor the other side sent, and its serving thread. Under the lock. */
static const char *open_their_lane(bchan *c, uint32_t id, int fd) {
    bool theirs = (id & 1) != (c->next_lane & 1);
    for (blane *l = c->lanes; l != NULL; l = l->next)
        if (l->id == id) theirs = false;
    if (!theirs || fd < 0) return "it opened a lane that was not its own";
    if (c->lane_count >= BRIDGE_MAX_LANES) return "it opened too many threads of calls";
    blane *l = lane_new(c, id, fd);
    l->chan = c;
    l->users = 1; /* its thread */
    pthread_t thread;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    int rc = pthread_create(&thread, &attr, lane_thread, l);
    pthread_attr_destroy(&attr);
    if (rc != 0) {
        l->users = 0;
        close(l->fd);
        l->fd = -1;
        return "it could not be given a thread";
    }
    return NULL;
}

/* The control socket carries only the opening of lanes; its end is the other side's end. */
static void *reader_thread(void *arg) {
    bchan *c = arg;
    in_reader = true;
    for (;;) {
        bmsg *m = NULL;
        const char *why = "its connection closed";
        read_outcome got = read_message(c->fd, false, 0, &m, &why);
        if (got != READ_OK) {
            bchan_kill(c, why);
            break;
        }
        if (bmsg_type(m) != BRIDGE_LANE) why = "it sent something that is not the helper protocol";
        else {
            pthread_mutex_lock(&c->lock);
            why = c->dead ? "its connection closed" : open_their_lane(c, bmsg_lane(m), m->fd);
            if (why == NULL) m->fd = -1; /* the lane's now */
            pthread_mutex_unlock(&c->lock);
        }
        bmsg_free(m);
        if (why != NULL) {
            bchan_kill(c, why);
            break;
        }
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

/* This thread's lane, opened on first use: a socket pair whose other end goes over the control socket.
   Counted as used; NULL when the channel is dead. */
static blane *use_own_lane(bchan *c) {
    pthread_t self = pthread_self();
    pthread_mutex_lock(&c->lock);
    if (c->dead) {
        pthread_mutex_unlock(&c->lock);
        return NULL;
    }
    for (blane *l = c->lanes; l != NULL; l = l->next) {
        if (l->owned && pthread_equal(l->owner, self) && l->fd >= 0) {
            l->users++;
            pthread_mutex_unlock(&c->lock);
            return l;
        }
    }
    int pair[2];
    if (c->lane_count >= BRIDGE_MAX_LANES || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
        pthread_mutex_unlock(&c->lock);
        bchan_kill(c, "it could not be given a lane");
        return NULL;
    }
    blane *l = lane_new(c, c->next_lane, pair[0]);
    l->chan = c;
    c->next_lane += 2;
    l->owner = self;
    l->owned = true;
    l->users = 1;
    pthread_mutex_unlock(&c->lock);
    bmsg *open = bmsg_new(BRIDGE_LANE, 0);
    pthread_mutex_lock(&c->send_lock);
    bool sent = send_all(c->fd, open, l->id, pair[1]);
    pthread_mutex_unlock(&c->send_lock);
    bmsg_free(open);
    close(pair[1]);
    if (!sent) bchan_kill(c, "its connection closed");
    return l;
}

bmsg *bchan_call(bchan *c, bmsg *request, int fd) {
    if (in_reader) abort(); /* the reader never calls: it would wait for itself */
    blane *l = use_own_lane(c);
    if (l == NULL) {
        bmsg_free(request);
        return NULL;
    }
    uint32_t op = bmsg_op(request);
    bmsg *answer = NULL;
    bool sent = send_all(l->fd, request, l->id, fd);
    bmsg_free(request);
    if (!sent) bchan_kill(c, "its connection closed");
    while (sent) {
        bmsg *m = NULL;
        const char *why = "its connection closed";
        read_outcome got = read_message(l->fd, true, c->timeout_ms, &m, &why);
        if (got == READ_OK) __atomic_fetch_add(&c->received, 1, __ATOMIC_RELAXED);
        if (got == READ_TIMEOUT) {
            char text[80];
            snprintf(text, sizeof text, "it did not answer within %d ms", c->timeout_ms);
            bchan_kill(c, text);
            break;
        }
        if (got != READ_OK) {
            bchan_kill(c, why);
            break;
        }
        if (bmsg_lane(m) != l->id) {
            bmsg_free(m);
            bchan_kill(c, "it answered on a lane that was not asking");
            break;
        }
        if (bmsg_type(m) == BRIDGE_REPLY) {
            if (bmsg_op(m) == op) {
                answer = m;
                break;
            }
            bmsg_free(m);
            bchan_kill(c, "it answered a different call");
            break;
        }
        if (bmsg_type(m) != BRIDGE_REQUEST && bmsg_type(m) != BRIDGE_NOTE) {
            bmsg_free(m);
            bchan_kill(c, "it sent something that is not the helper protocol");
            break;
        }
        serve(c, l, m); /* a nested call: the other side's plugin or host calling back on this lane */
    }
    pthread_mutex_lock(&c->lock);
    lane_done(c, l);
    pthread_mutex_unlock(&c->lock);
    return answer;
}

void bchan_note(bchan *c, bmsg *note) {
    blane *l = use_own_lane(c);
    if (l != NULL) {
        wr32(note->data + 8, BRIDGE_NOTE);
        if (!send_all(l->fd, note, l->id, -1)) bchan_kill(c, "its connection closed");
        pthread_mutex_lock(&c->lock);
        lane_done(c, l);
        pthread_mutex_unlock(&c->lock);
    }
    bmsg_free(note);
}
