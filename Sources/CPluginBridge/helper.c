/* The helper process: opens one plugin library and gives it the C ABI, each service call carried to the host
   (assist_bridge.h, wire.h). Runs as `assist _plugin-helper 3`. Its proxies are generated/services.h and
   helper_proxies.c; its frames helper_frames.c. */
#define _GNU_SOURCE
#include "handoff.h"
#include "helper_bridge.h"
#include "sandbox.h"

#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

bchan helper_chan;
static const assist_entry *entry_table;
static assist_entry entry;
static assist_plugin *instance;
static assist_plugin table;
/* The frame lane's thread reads `instance` and calls on_frame while the main lane's may destroy it: on_frame
   runs holding this lock, and destroy takes the instance away under it, so a frame in flight is finished before
   the plugin is destroyed and no frame reaches it after. The host serves a [frame] call on its frame thread
   without waiting on its main thread (a [main] call from there is refused), so destroy waiting here cannot
   wait on itself. The main lane's other reads of `instance` are on destroy's own thread. */
static pthread_mutex_t instance_lock = PTHREAD_MUTEX_INITIALIZER;
static char *host_version;
static pthread_mutex_t helper_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t helper_done = PTHREAD_COND_INITIALIZER;
static bool done;
/* The sandbox as set up before anything else (sandbox.h): its layers, what is missing, and whether the plugin
   may be opened at all (not when the host requires a sandbox this kernel cannot give in full). */
static uint32_t sandbox_layers;
static char sandbox_note[400];
static bool sandbox_refuses;

#define BRIDGE_HELPER
#include "generated/services.h"

/* ---- the tables: generated/services.h, filled as the host fills its own ---------------------------------- */

static const struct {
    const char *id;
    const void *table;
    size_t size;
} proxies[] = BRIDGE_PROXY_TABLES;
#define PROXY_COUNT (sizeof proxies / sizeof proxies[0])

static void *filled[PROXY_COUNT];
static bool asked[PROXY_COUNT];
static pthread_mutex_t services_lock = PTHREAD_MUTEX_INITIALIZER;

/* The proxy table for `id`, with the slots the host leaves NULL left NULL; NULL when the host gives none. */
static const void *h_get_service(const assist_host *h, const char *id) {
    (void)h;
    if (id == NULL) return NULL;
    size_t which = PROXY_COUNT;
    for (size_t i = 0; i < PROXY_COUNT; i++)
        if (strcmp(proxies[i].id, id) == 0) which = i;
    if (which == PROXY_COUNT) return NULL;
    pthread_mutex_lock(&services_lock);
    bool known = asked[which];
    void *table = filled[which];
    pthread_mutex_unlock(&services_lock);
    if (known) return table;
    bmsg *m = request(OP_GET_SERVICE);
    put_str(m, id);
    bmsg *reply = rpc(m);
    uint64_t present = reply ? get_u64(reply) : 0;
    bmsg_free(reply);
    void *copy = NULL;
    if (present & (1ull << 63)) {
        copy = malloc(proxies[which].size);
        if (copy == NULL) return NULL;
        memcpy(copy, proxies[which].table, proxies[which].size);
        size_t slots = (proxies[which].size - sizeof(void *)) / sizeof(void *);
        for (size_t i = 0; i < slots && i < 63; i++) {
            if (!(present & (1ull << i))) memset((char *)copy + sizeof(void *) * (i + 1), 0, sizeof(void *));
        }
    }
    pthread_mutex_lock(&services_lock);
    if (!asked[which]) {
        asked[which] = true;
        filled[which] = copy;
    } else {
        free(copy);
    }
    table = filled[which];
    pthread_mutex_unlock(&services_lock);
    return table;
}

static void *h_alloc(const assist_host *h, size_t n) {
    (void)h;
    return malloc(n == 0 ? 1 : n);
}

static assist_host proxy_host = {sizeof(assist_host), {ASSIST_ABI_MAJOR, ASSIST_ABI_MINOR, 0, 0}, "", NULL,
                                 h_get_service, h_alloc, {0}};

/* ---- the host's calls ---------------------------------------------------------------------------------- */

static void put_plugin_error(bmsg *rep, char *err) {
    put_str(rep, err);
    free(err); /* allocated with h_alloc */
}

static void serve_callback(uint32_t op, bmsg *req, bmsg *rep) {
    uint64_t fn = get_u64(req), user = get_u64(req);
    if (fn == 0) {
        req->bad = true;
        return;
    }
    switch (op) {
    case OP_CB_TIMER: {
        uint64_t timer = get_u64(req);
        if (!req->bad) ((assist_timer_cb)PTR(fn))(PTR(user), timer);
        break;
    }
    case OP_CB_SPEECH_DONE: {
        uint64_t utterance = get_u64(req);
        assist_speech_outcome outcome = (assist_speech_outcome)get_u32(req);
        if (!req->bad) ((assist_speech_done_cb)PTR(fn))(PTR(user), utterance, outcome);
        break;
    }
    case OP_CB_SPEECH_WORD: {
        uint64_t utterance = get_u64(req);
        uint32_t c = get_u32(req), offset = get_u32(req), length = get_u32(req);
        if (!req->bad) ((assist_speech_word_cb)PTR(fn))(PTR(user), utterance, c, offset, length);
        break;
    }
    case OP_CB_DIALOG: {
        assist_dialog_result r;
        if (get_struct(req, &r, sizeof r, ASSIST_SIZE_THROUGH(assist_dialog_result, request))) r.text = get_str(req);
        if (!req->bad) ((assist_dialog_cb)PTR(fn))(PTR(user), &r);
        break;
    }
    case OP_CB_EVENT: {
        const char *name = get_str(req), *json = get_str(req);
        if (!req->bad && name != NULL) ((assist_event_cb)PTR(fn))(PTR(user), name, json ? json : "{}");
        break;
    }
    case OP_CB_OUTCOME: {
        assist_outbox_outcome o;
        bool kept = false;
        if (get_outcome(req, &o)) {
            kept = ((assist_outbox_outcome_cb)PTR(fn))(PTR(user), &o);
            if (o.header_count > 0) free((void *)o.headers);
        }
        put_bool(rep, kept);
        break;
    }
    case OP_CB_ROW: {
        uint32_t count = get_u32(req);
        const char **names = count <= 10000 ? calloc(count + 1, sizeof *names) : NULL;
        for (uint32_t i = 0; names != NULL && i < count; i++) names[i] = get_str(req);
        int32_t values_count = 0;
        assist_value *values = names != NULL ? get_values(req, &values_count) : NULL;
        bool more = false;
        if (names == NULL || values == NULL || (uint32_t)values_count != count) req->bad = true;
        else more = ((assist_row_cb)PTR(fn))(PTR(user), (int32_t)count, names, values);
        /* the row's text values arrive NUL-terminated, as the ABI promises */
        free(names);
        free(values);
        put_bool(rep, more);
        break;
    }
    case OP_CB_TASK:
        HANDOFF_TAKE(PTR(user));
        ((assist_task_fn)PTR(fn))(PTR(user));
        break;
    default:
        req->bad = true;
    }
}

static void helper_handle(bchan *c, bmsg *req, bmsg *rep) {
    (void)c;
    uint32_t op = bmsg_op(req);
    switch (op) {
    case OP_OPEN: {
        uint32_t protocol = get_u32(req);
        const char *library = get_str(req);
        const char *version = get_str(req);
        free(host_version);
        host_version = strdup(version ? version : "");
        proxy_host.host_version = host_version;
        char text[600] = "";
        void *handle = NULL;
        if (protocol != BRIDGE_PROTOCOL) {
            snprintf(text, sizeof text, "the helper speaks protocol %d, the host %u", BRIDGE_PROTOCOL, protocol);
        } else if (sandbox_refuses) {
            snprintf(text, sizeof text, "the sandbox cannot be set up in full: %s", sandbox_note);
        } else if (library == NULL || (handle = dlopen(library, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE)) == NULL) {
            const char *why = dlerror();
            snprintf(text, sizeof text, "%s", why ? why : "the library cannot be opened");
        } else {
            assist_entry_fn fn = (assist_entry_fn)dlsym(handle, ASSIST_ENTRY_SYMBOL);
            entry_table = fn ? fn() : NULL;
            if (entry_table == NULL ||
                !assist_struct_copy(&entry, sizeof entry, entry_table, ASSIST_SIZE_THROUGH(assist_entry, create)))
                snprintf(text, sizeof text, "%s", fn ? "its entry table is missing or too small"
                                                     : "it has no assist_plugin_entry");
        }
        bool ok = text[0] == 0;
        put_bool(rep, ok);
        put_str(rep, ok ? NULL : text);
        put_u32(rep, sandbox_layers);
        put_str(rep, sandbox_note);
        if (!ok) break;
        put_u32(rep, entry.abi.major);
        put_u32(rep, entry.abi.minor);
        put_str(rep, entry.id);
        put_str(rep, entry.version);
        put_bool(rep, entry.init != NULL);
        put_bool(rep, entry.deinit != NULL);
        put_bool(rep, entry.create != NULL);
        break;
    }
    case OP_INIT:
        put_bool(rep, entry.init != NULL && entry.init(&proxy_host));
        break;
    case OP_DEINIT:
        if (entry.deinit != NULL) entry.deinit();
        break;
    case OP_CREATE: {
        char *err = NULL;
        assist_plugin *p = entry.create ? entry.create(&proxy_host, &err) : NULL;
        bool ok = p != NULL && assist_struct_copy(&table, sizeof table, p, ASSIST_SIZE_THROUGH(assist_plugin, destroy))
                  && table.start != NULL;
        if (ok) {
            pthread_mutex_lock(&instance_lock);
            instance = p;
            pthread_mutex_unlock(&instance_lock);
        }
        put_bool(rep, ok);
        put_u32(rep, ok && table.on_frame != NULL ? 1u : 0u);
        if (!ok && err == NULL && p != NULL) err = strdup("the plugin table from create is too small or has no start");
        put_plugin_error(rep, err);
        break;
    }
    case OP_START: {
        uint32_t argc = get_u32(req);
        const char **argv = argc <= 4096 ? calloc(argc + 1, sizeof *argv) : NULL;
        for (uint32_t i = 0; argv != NULL && i < argc; i++) argv[i] = get_str(req);
        char *err = NULL;
        assist_status s = ASSIST_E_INVALID;
        if (argv == NULL) req->bad = true;
        else if (!req->bad && instance != NULL) s = table.start(instance, (int32_t)argc, argv, &err);
        free(argv);
        put_u32(rep, (uint32_t)s);
        put_plugin_error(rep, err);
        break;
    }
    case OP_PAUSE:
        if (instance && table.pause) table.pause(instance);
        break;
    case OP_RESUME:
        if (instance && table.resume) table.resume(instance);
        break;
    case OP_STOP:
        if (instance && table.stop) table.stop(instance);
        break;
    case OP_COMMAND: {
        const char *cmd = get_str(req), *arg = get_str(req);
        if (!req->bad && cmd != NULL && instance && table.on_command) table.on_command(instance, cmd, arg);
        break;
    }
    case OP_FRAME:
        pthread_mutex_lock(&instance_lock);
        helper_serve_frame(req, rep, instance, instance != NULL ? table.on_frame : NULL);
        pthread_mutex_unlock(&instance_lock);
        break;
    case OP_DESTROY: {
        pthread_mutex_lock(&instance_lock);
        assist_plugin *gone = instance;
        instance = NULL;
        pthread_mutex_unlock(&instance_lock);
        if (gone && table.destroy) table.destroy(gone);
        break;
    }
    case OP_PING:
        put_u32(rep, sandbox_denied());
        break;
    default:
        if (op >= OP_CB_TIMER && op <= OP_CB_TASK) serve_callback(op, req, rep);
        else req->bad = true;
    }
}

static void helper_dead(bchan *c) {
    (void)c;
    pthread_mutex_lock(&helper_lock);
    done = true;
    pthread_cond_broadcast(&helper_done);
    pthread_mutex_unlock(&helper_lock);
}

int assist_bridge_helper_main(int fd, int argc, char **argv) {
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* the host gone, the helper goes */
    signal(SIGPIPE, SIG_IGN);
    /* The sandbox first, on this one thread: every thread started from here on is inside it. */
    sandbox_policy policy;
    if (!sandbox_parse(argc, argv, &policy, sandbox_note, sizeof sandbox_note)) {
        sandbox_refuses = true;
    } else {
        sandbox_layers = sandbox_apply(&policy, sandbox_note, sizeof sandbox_note);
        sandbox_refuses = policy.required && (sandbox_layers & ASSIST_SANDBOX_FULL) != ASSIST_SANDBOX_FULL;
    }
    helper_chan.timeout_ms = 0;
    if (bchan_start(&helper_chan, fd, 1, helper_handle, helper_dead, NULL) != 0) return 1;
    pthread_mutex_lock(&helper_lock);
    while (!done) pthread_cond_wait(&helper_done, &helper_lock);
    pthread_mutex_unlock(&helper_lock);
    /* The host closed: the plugin's state goes with the process, without running its atexit handlers. */
    _exit(0);
}
