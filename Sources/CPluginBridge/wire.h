/*
 * The helper protocol (issue 17): messages and lanes over one stream socket between the host and a plugin's
 * helper process. Private to CPluginBridge; docs/plugin-isolation.md describes it.
 *
 * A message is a 16-byte header (size of the whole message, lane, type, operation; little-endian u32 each)
 * and arguments packed one after another. A lane is one thread of control that may cross many times, with
 * a socket pair of its own: the host's main thread calls `start` on lane 2; while start runs in the helper,
 * the plugin's `speak` comes back on lane 2 and the host's main thread, waiting there, serves it. So [main]
 * calls stay on the host's main thread, [frame] calls on its frame thread, and nesting works to any depth.
 * Lanes the host opens are even, lanes the helper opens (a plugin's own threads) are odd. The thread waiting
 * on a lane reads it itself, watching it briefly before it sleeps, so a call is two thread wake-ups at most
 * and, in a burst, none. The first socket, the control socket, only opens lanes; its end is the end.
 */
#ifndef ASSIST_BRIDGE_WIRE_H
#define ASSIST_BRIDGE_WIRE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BRIDGE_PROTOCOL 2
#define BRIDGE_HEADER 16u
/* A message larger than this ends the helper: a frame travels in shared memory, never in a message. */
#define BRIDGE_MAX_MESSAGE (64u << 20)
/* Lanes one side may open; a helper that opens more (runaway threads) is ended. */
#define BRIDGE_MAX_LANES 256

/* A request and its reply travel on a lane's socket; a lane is opened by BRIDGE_LANE on the control socket,
   which carries the other end of the lane's socket pair and nothing else. */
/* A note is a request that is never answered (a frame released off the frame path). */
enum { BRIDGE_REQUEST = 1, BRIDGE_REPLY = 2, BRIDGE_LANE = 3, BRIDGE_NOTE = 4 };

typedef struct bmsg {
    uint8_t *data; /* header and arguments */
    size_t size, cap;
    size_t pos;     /* read cursor */
    bool bad;       /* a read went past the end or found the wrong shape */
    int fd;         /* a descriptor that came with the message, or -1 */
} bmsg;

bmsg *bmsg_new(uint32_t type, uint32_t op);
void bmsg_free(bmsg *m);
uint32_t bmsg_lane(const bmsg *m);
uint32_t bmsg_type(const bmsg *m);
uint32_t bmsg_op(const bmsg *m);

void put_raw_byte(bmsg *m, uint8_t b);
void put_u32(bmsg *m, uint32_t v);
void put_u64(bmsg *m, uint64_t v);
void put_i64(bmsg *m, int64_t v);
void put_f64(bmsg *m, double v);
void put_bool(bmsg *m, bool v);
/* Bytes or a string; NULL travels as NULL. A string arrives NUL-terminated. */
void put_bytes(bmsg *m, const void *p, size_t n);
void put_str(bmsg *m, const char *s);

uint32_t get_u32(bmsg *m);
uint64_t get_u64(bmsg *m);
int64_t get_i64(bmsg *m);
double get_f64(bmsg *m);
bool get_bool(bmsg *m);
/* Points into the message (valid until it is freed); NULL when NULL was sent. */
const void *get_bytes(bmsg *m, size_t *n);
const char *get_str(bmsg *m);

typedef struct bchan bchan;

/* One lane: a socket pair of its own, so the thread that owns it reads its answers itself. */
typedef struct blane {
    uint32_t id;
    int fd;      /* this side's end; -1 once closed */
    int users;   /* calls using it now, and its serving thread; the last one after the end closes it */
    pthread_t owner;
    bool owned;
    bchan *chan;
    struct blane *next;
} blane;

/* Serves one request; fills `reply`. Runs on the lane's thread. */
typedef void (*bchan_handler)(bchan *c, bmsg *request, bmsg *reply);

struct bchan {
    int fd;                   /* the control socket */
    pthread_mutex_t lock;     /* lanes, dead */
    pthread_mutex_t send_lock; /* the control socket's sending */
    blane *lanes;
    int lane_count;
    uint32_t next_lane; /* the next lane this side opens: 2, 4, ... or 1, 3, ... */
    bool dead;
    char why[200];    /* why it died, for the crash record */
    int timeout_ms;   /* how long a call waits with no message at all; 0 for ever */
    bchan_handler handle;
    void (*on_dead)(bchan *c);
    void *user;
    pthread_t reader;
    uint64_t received; /* messages read from the other side, on every lane (atomic) */
};

/* `*t` becomes CLOCK_MONOTONIC now plus `ms` (the clock lanes and the bridge's waits use). */
void deadline_after(struct timespec *t, int ms);

/* Starts the reader thread. `first_lane` is 2 on the host and 1 in the helper. */
int bchan_start(bchan *c, int fd, uint32_t first_lane, bchan_handler handle, void (*on_dead)(bchan *), void *user);
/* Sends `request` on this thread's lane and waits for its reply, serving nested requests meanwhile. Takes
   `request`. NULL when the other side is gone or did not answer in time (then the channel is dead). */
bmsg *bchan_call(bchan *c, bmsg *request, int fd);
/* Sends `note` (a BRIDGE_REQUEST made with bmsg_new, sent as a note) on this thread's lane without waiting for
   anything. Takes `note`. */
void bchan_note(bchan *c, bmsg *note);
/* Marks the channel dead with `why` (first reason wins) and wakes every waiting lane. */
void bchan_kill(bchan *c, const char *why);
bool bchan_is_dead(bchan *c);

#endif
