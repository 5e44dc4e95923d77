/* The host's side of a plugin in a helper process (assist_bridge.h): spawns the helper, watches it, pings it
   and says how it ended. Its other parts are host_plugin.c, host_serve.c and host_callbacks.c. */
#define _GNU_SOURCE
#include "host_bridge.h"
#include "assist_shared_frames.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* ---- the helper process --------------------------------------------------------------------------------- */

static void describe(assist_bridge *b, char *out, size_t cap, bool *expected) {
    pthread_mutex_lock(&b->lock);
    /* The calls running when it ended, each named once: "on_frame or a timer callback". */
    char running[160] = "";
    for (int i = 0; i < 16; i++) {
        const char *name = b->in_flight[i];
        if (name == NULL || strstr(running, name) != NULL) continue;
        size_t used = strlen(running);
        snprintf(running + used, sizeof running - used, "%s%s", used ? " or " : "", name);
    }
    bool busy = running[0] != 0;
    const char *call = busy ? running : b->last_call ? b->last_call : "loading";
    bool pinging = b->pinging;
    int status = b->wait_status;
    bool closing = b->closing;
    bool ended_by_host = b->ended_by_host;
    pthread_mutex_unlock(&b->lock);
    pthread_mutex_lock(&b->chan.lock);
    char why[sizeof b->chan.why];
    memcpy(why, b->chan.why, sizeof why);
    pthread_mutex_unlock(&b->chan.lock);
    /* Silent while no call of the host's was open: the ping found it. */
    if (!busy && pinging && strncmp(why, "it did not answer", 17) == 0) {
        call = "a ping";
        busy = true;
    }
    *expected = closing;
    if (closing) {
        snprintf(out, cap, "ended");
    } else if (why[0] != 0 && strcmp(why, "its connection closed") != 0 && strcmp(why, "its process ended") != 0) {
        snprintf(out, cap, "%s %s %s", why + 3 /* "it " */, busy ? "in" : "after", call);
    } else if (ended_by_host && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) {
        /* The SIGKILL was the host's own: no crash. */
        snprintf(out, cap, "closed its connection %s %s and was ended", busy ? "in" : "after", call);
    } else if (WIFSIGNALED(status)) {
        const char *name = sigabbrev_np(WTERMSIG(status));
        if (busy) snprintf(out, cap, "crashed in %s (SIG%s)", call, name ? name : "?");
        else snprintf(out, cap, "crashed on its own after %s (SIG%s)", call, name ? name : "?");
    } else if (WIFEXITED(status)) {
        snprintf(out, cap, "exited with status %d %s %s", WEXITSTATUS(status), busy ? "in" : "after", call);
    } else {
        snprintf(out, cap, "ended %s %s", busy ? "in" : "after", call);
    }
}

/* Ends the helper's process group. Never for a pid that is not a helper's: kill(-0) or kill(-1) would end the
   host's own group or every process it may signal. */
static void kill_group(pid_t pid) {
    if (pid > 1) kill(-pid, SIGKILL);
}

static void *watcher(void *arg) {
    assist_bridge *b = arg;
    int status = 0;
    while (waitpid(b->pid, &status, 0) < 0 && errno == EINTR) {}
    /* Anything the plugin forked goes with it: the helper leads its own process group. */
    kill_group(b->pid);
    pthread_mutex_lock(&b->lock);
    b->wait_status = status;
    b->reaped = true;
    pthread_cond_broadcast(&b->reaped_cond);
    pthread_mutex_unlock(&b->lock);
    bchan_kill(&b->chan, "its process ended");
    char text[300];
    bool expected = false;
    describe(b, text, sizeof text, &expected);
    pthread_mutex_lock(&b->lock);
    memcpy(b->description, text, sizeof text);
    b->reported = true;
    pthread_cond_broadcast(&b->reaped_cond);
    pthread_mutex_unlock(&b->lock);
    if (b->on_death != NULL) b->on_death(b->user, text, expected);
    return NULL;
}

/* A ping's reply carries the kinds of calls the helper's sandbox refused so far: new ones are told. */
static void take_refused(assist_bridge *b, bmsg *reply) {
    uint32_t kinds = get_u32(reply);
    if (reply->bad) return;
    pthread_mutex_lock(&b->lock);
    uint32_t fresh = kinds & ~b->refused;
    b->refused |= kinds;
    pthread_mutex_unlock(&b->lock);
    if (fresh != 0 && b->on_refused != NULL) b->on_refused(b->user, kinds, fresh);
}

bool assist_bridge_check_refused(assist_bridge *b) {
    bmsg *reply = bchan_call(&b->chan, bmsg_new(BRIDGE_REQUEST, OP_PING), -1);
    if (reply == NULL) return false;
    take_refused(b, reply);
    bmsg_free(reply);
    return true;
}

uint32_t assist_bridge_sandbox(assist_bridge *b, char *note, size_t cap) {
    if (cap > 0) snprintf(note, cap, "%s", b->sandbox_note);
    return b->sandbox_layers;
}

/* Every 2 s the helper is asked to answer on a lane of its own, served by a thread of its own: a helper that
   cannot answer within the time limit (stopped, deadlocked in its allocator) is ended even when no call of
   the host's is waiting on it. */
static void *pinger(void *arg) {
    assist_bridge *b = arg;
    for (;;) {
        struct timespec pause = {2, 0};
        while (nanosleep(&pause, &pause) != 0) {}
        if (bchan_is_dead(&b->chan)) break;
        /* Marked before it is sent: the watcher may describe the end before this thread wakes. */
        pthread_mutex_lock(&b->lock);
        b->pinging = true;
        pthread_mutex_unlock(&b->lock);
        bmsg *reply = bchan_call(&b->chan, bmsg_new(BRIDGE_REQUEST, OP_PING), -1);
        if (reply == NULL) break;
        pthread_mutex_lock(&b->lock);
        b->pinging = false;
        pthread_mutex_unlock(&b->lock);
        take_refused(b, reply);
        bmsg_free(reply);
    }
    return NULL;
}

/* Waits up to `ms` for `*flag` (one of the bridge's, set under its lock with `reaped_cond` broadcast); its
   value then. */
static bool wait_for(assist_bridge *b, const bool *flag, int ms) {
    struct timespec until;
    deadline_after(&until, ms);
    pthread_mutex_lock(&b->lock);
    while (!*flag && pthread_cond_timedwait(&b->reaped_cond, &b->lock, &until) != ETIMEDOUT) {}
    bool value = *flag;
    pthread_mutex_unlock(&b->lock);
    return value;
}

/* The socket closed or broke: a helper still running then (it closed the socket, or broke the protocol, or
   hung) is ended; the watcher reports. */
static void channel_dead(bchan *c) {
    assist_bridge *b = c->user;
    pthread_mutex_lock(&c->lock);
    bool clean = strcmp(c->why, "its connection closed") == 0 || strcmp(c->why, "its process ended") == 0;
    pthread_mutex_unlock(&c->lock);
    if (wait_for(b, &b->reaped, clean ? 1000 : 0)) return;
    /* Marked before the kill, so the watcher, woken by it, says the host ended it rather than a crash. */
    pthread_mutex_lock(&b->lock);
    b->ended_by_host = clean;
    pthread_mutex_unlock(&b->lock);
    kill_group(b->pid);
}

void assist_bridge_kill(assist_bridge *b, const char *why) {
    bchan_kill(&b->chan, why);
    kill_group(b->pid);
}

void assist_bridge_close(assist_bridge *b, int32_t wait_ms) {
    /* Only a helper still answering ends as expected; one already gone keeps how it went. */
    bool alive = !bchan_is_dead(&b->chan);
    pthread_mutex_lock(&b->lock);
    if (alive) b->closing = true;
    pthread_mutex_unlock(&b->lock);
    shutdown(b->chan.fd, SHUT_WR); /* the helper reads the end and leaves */
    if (!wait_for(b, &b->reaped, wait_ms)) kill_group(b->pid);
}

bool assist_bridge_wait_end(assist_bridge *b, int32_t wait_ms, char *out, size_t cap) {
    bool reported = wait_for(b, &b->reported, wait_ms);
    pthread_mutex_lock(&b->lock);
    if (reported && cap > 0) snprintf(out, cap, "%s", b->description);
    pthread_mutex_unlock(&b->lock);
    return reported;
}

const assist_entry *assist_bridge_entry(assist_bridge *b) { return &b->entry; }
int32_t assist_bridge_pid(const assist_bridge *b) { return b->pid; }
bool assist_bridge_alive(assist_bridge *b) { return !bchan_is_dead(&b->chan); }

uint64_t assist_bridge_messages(assist_bridge *b) { return __atomic_load_n(&b->chan.received, __ATOMIC_RELAXED); }

static char *message(const char *text) {
    char *copy = strdup(text);
    if (copy == NULL) abort();
    return copy;
}

assist_bridge *assist_bridge_spawn(const char *executable, const char *library, const assist_host *host,
                                   const char *const *helper_args, const char *const *environment,
                                   int32_t timeout_ms, assist_bridge_death_cb on_death,
                                   assist_bridge_refused_cb on_refused, void *user, char **err) {
    /* From now on large frames are captured where helpers can map them. */
    assist_shared_frames_enable(ARENA_BYTES);
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        *err = message("no socket for the helper process");
        return NULL;
    }
    /* The child's end becomes descriptor 3 (dup2 clears close-on-exec); everything else stays closed. */
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    int child_fd = sv[1];
    if (child_fd == 3) {
        child_fd = fcntl(sv[1], F_DUPFD_CLOEXEC, 10);
    }
    posix_spawn_file_actions_adddup2(&actions, child_fd, 3);
    /* The helper leads a process group of its own (a terminal's Ctrl+C is the host's to handle), so it must
       never read the terminal: that would stop it (SIGTTIN). Its output and log lines go where the host's do. */
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    posix_spawnattr_setpgroup(&attr, 0);
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &all);
    /* The helper's environment: the one given (or the host's), with Swift's backtracer off (a crash there is
       reported here). */
    char *const *from = environment != NULL ? (char *const *)environment : environ;
    size_t count = 0;
    while (from[count] != NULL) count++;
    char **env = calloc(count + 2, sizeof *env);
    size_t n = 0;
    for (size_t i = 0; i < count; i++)
        if (strncmp(from[i], "SWIFT_BACKTRACE=", 16) != 0) env[n++] = from[i];
    env[n++] = "SWIFT_BACKTRACE=enable=no";
    size_t extra = 0;
    while (helper_args != NULL && helper_args[extra] != NULL) extra++;
    char **argv = calloc(extra + 4, sizeof *argv);
    if (env == NULL || argv == NULL) abort();
    argv[0] = (char *)executable;
    argv[1] = "_plugin-helper";
    argv[2] = "3";
    for (size_t i = 0; i < extra; i++) argv[3 + i] = (char *)helper_args[i];
    pid_t pid = 0;
    int rc = posix_spawn(&pid, executable, &actions, &attr, argv, env);
    free(env);
    free(argv);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    if (child_fd != sv[1]) close(child_fd);
    close(sv[1]);
    if (rc != 0) {
        close(sv[0]);
        char text[300];
        snprintf(text, sizeof text, "the helper process could not start: %s", strerror(rc));
        *err = message(text);
        return NULL;
    }
    assist_bridge *b = calloc(1, sizeof *b);
    if (b == NULL) abort();
    b->pid = pid;
    b->real = host;
    b->on_death = on_death;
    b->on_refused = on_refused;
    b->user = user;
    b->current_area = -1;
    pthread_mutex_init(&b->lock, NULL);
    pthread_condattr_t cattr;
    pthread_condattr_init(&cattr);
    pthread_condattr_setclock(&cattr, CLOCK_MONOTONIC);
    pthread_cond_init(&b->reaped_cond, &cattr);
    pthread_condattr_destroy(&cattr);
    b->chan.timeout_ms = timeout_ms > 0 ? timeout_ms : 5000;
    bridge_register(b);
    if (bchan_start(&b->chan, sv[0], 2, host_handle, channel_dead, b) != 0) {
        kill_group(pid);
        waitpid(pid, NULL, 0);
        *err = message("no thread for the helper process");
        return NULL;
    }
    pthread_t thread;
    pthread_create(&thread, NULL, watcher, b);
    pthread_detach(thread);
    pthread_t ping;
    if (pthread_create(&ping, NULL, pinger, b) == 0) pthread_detach(ping);

    bmsg *m = bmsg_new(BRIDGE_REQUEST, OP_OPEN);
    put_u32(m, BRIDGE_PROTOCOL);
    put_str(m, library);
    put_str(m, host->host_version);
    bmsg *reply = call_plugin(b, m, "loading", -1);
    if (reply == NULL) {
        char text[300];
        bool expected;
        wait_for(b, &b->reaped, 2000); /* so the description has the status */
        describe(b, text, sizeof text, &expected);
        char full[400];
        snprintf(full, sizeof full, "the helper process %s", text);
        *err = message(full);
        return NULL;
    }
    bool ok = get_bool(reply);
    const char *error = get_str(reply);
    b->sandbox_layers = get_u32(reply);
    const char *note = get_str(reply);
    snprintf(b->sandbox_note, sizeof b->sandbox_note, "%s", note ? note : "");
    if (!ok) {
        *err = message(error ? error : "the helper could not open the library");
        bmsg_free(reply);
        assist_bridge_close(b, 1000);
        return NULL;
    }
    b->entry.struct_size = sizeof b->entry;
    b->entry.abi.major = (uint16_t)get_u32(reply);
    b->entry.abi.minor = (uint16_t)get_u32(reply);
    const char *id = get_str(reply), *version = get_str(reply);
    bool has_init = get_bool(reply), has_deinit = get_bool(reply), has_create = get_bool(reply);
    b->id = strdup(id ? id : "");
    b->version = strdup(version ? version : "");
    bmsg_free(reply);
    b->entry.id = b->id;
    b->entry.version = b->version;
    bridge_fill_entry(b, has_init, has_deinit, has_create);
    return b;
}
