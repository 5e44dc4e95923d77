/*
 * assist_plugin.h - the stable C ABI between the `assist` host and its plugins.
 *
 * ABI 1.0. Plain C99. Every name starts with `assist_` / `ASSIST_`.
 *
 * Rules that hold for every declaration below:
 *  - Every struct begins with `uint32_t struct_size` and is append-only: new fields are only ever added at
 *    the end, just before the reserved tail. Read a field only when ASSIST_HAS_FIELD says it is there.
 *  - One rule reads a struct someone else wrote, on both sides (assist_struct_copy): copy
 *    min(struct_size, the size you know) bytes into a zeroed local; refuse it only when struct_size is below
 *    the struct's size in the ABI version that introduced it (its ASSIST_SIZE_THROUGH its last field). A
 *    larger struct from a newer writer is read as far as you know it; a smaller one reads as zeros beyond it.
 *  - So a field's zero value always means "as before this field existed": a new field is read from an older
 *    writer's zeroed reserved tail or from the zero fill.
 *  - Reserved tails are zeroed by the writer and ignored by the reader.
 *  - Arrays of structs are walked with ASSIST_ELEMENT: the elements' struct_size is the array's stride.
 *  - Strings are UTF-8 and NUL-terminated. Every pointer is borrowed, for the duration of the call, unless
 *    its comment says otherwise.
 *  - Every function carries a thread tag:
 *      [main]   the host's main loop;       [frame]  the camera thread;
 *      [worker] a host pool thread;         [any]    any thread, the function is thread-safe.
 *    For one plugin instance no two [main] calls overlap and no two [frame] calls overlap; a [main] and a
 *    [frame] call may overlap, so guard the state they share.
 *  - A failing call may set `*err` to one short speakable sentence allocated with `host->alloc`. The host
 *    frees it; the plugin never frees a string it got from the host.
 *
 * Lifecycle: init -> create -> start <-> pause/resume -> stop -> destroy -> deinit.
 * The full guide is docs/plugin-abi.md.
 */
#ifndef ASSIST_PLUGIN_H
#define ASSIST_PLUGIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Only some pointers carry ASSIST_NULLABLE; the rest are documented in comments. */
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wnullability-completeness"
#endif

/* ---------------------------------------------------------------------------------------------------------
 * Versions and portability
 * ------------------------------------------------------------------------------------------------------- */

#define ASSIST_ABI_MAJOR 1
#define ASSIST_ABI_MINOR 0
#define ASSIST_ENTRY_SYMBOL "assist_plugin_entry"

#if defined(__clang__)
#define ASSIST_NONNULL _Nonnull
#define ASSIST_NULLABLE _Nullable
#else
#define ASSIST_NONNULL
#define ASSIST_NULLABLE
#endif

#if defined(__GNUC__) || defined(__clang__)
#define ASSIST_EXPORT __attribute__((visibility("default")))
#else
#define ASSIST_EXPORT
#endif

/** True when the struct at `p`, of type `T`, is large enough to hold field `f`. */
#define ASSIST_HAS_FIELD(T, p, f) \
    ((p) != NULL && offsetof(T, f) + sizeof(((const T *)0)->f) <= (size_t)(p)->struct_size)

/** The size of `T` through field `f`: the smallest `struct_size` a reader accepts for a struct whose last
    field, in the ABI version that introduced it, is `f`. */
#define ASSIST_SIZE_THROUGH(T, f) (offsetof(T, f) + sizeof(((const T *)0)->f))

/** Element `i` of an array of `T` whose elements all carry the same `struct_size`, which is the stride. Check
    the first element's struct_size against ASSIST_SIZE_THROUGH before walking. */
#define ASSIST_ELEMENT(T, array, i) \
    ((const T *)(const void *)((const char *)(array) + (size_t)(i) * (size_t)(array)[0].struct_size))

/** Reads a struct someone else wrote, the one way both sides do it: copies min(`src`'s struct_size,
    `dst_size`) bytes into `dst`, zeroes the rest of `dst`, and sets `dst`'s struct_size to the bytes copied
    (so ASSIST_HAS_FIELD on `dst` is true only for fields the writer sent). Returns false, leaving `dst` zeroed,
    when `src` is NULL or its struct_size is below `min_size`. [any] */
static inline bool assist_struct_copy(void *dst, size_t dst_size, const void *ASSIST_NULLABLE src, size_t min_size) {
    uint32_t declared = 0;
    memset(dst, 0, dst_size);
    if (src == NULL || dst_size < sizeof declared) return false;
    memcpy(&declared, src, sizeof declared);
    if ((size_t)declared < min_size || (size_t)declared < sizeof declared) return false;
    uint32_t copied = (size_t)declared < dst_size ? declared : (uint32_t)dst_size;
    memcpy(dst, src, copied);
    memcpy(dst, &copied, sizeof copied);
    return true;
}

/** A version triple; `reserved` is zero. */
typedef struct assist_version {
    uint16_t major;
    uint16_t minor;
    uint16_t patch;
    uint16_t reserved;
} assist_version;

/* ---------------------------------------------------------------------------------------------------------
 * Status codes: 0 is success, every error is negative. New codes are only ever added.
 * ------------------------------------------------------------------------------------------------------- */

typedef int32_t assist_status;

#define ASSIST_OK 0
#define ASSIST_E_INVALID (-1)     /* a bad argument: NULL where forbidden, malformed text, wrong size */
#define ASSIST_E_UNSUPPORTED (-2) /* the host or device cannot do this */
#define ASSIST_E_NOMEM (-3)       /* out of memory, or a caller buffer too small (see *needed) */
#define ASSIST_E_BUSY (-4)        /* in use: a device, a key binding, a pending dialog */
#define ASSIST_E_IO (-5)          /* a file, device or network failure */
#define ASSIST_E_TIMEOUT (-6)     /* no answer in time */
#define ASSIST_E_PERMISSION (-7)  /* not allowed for this plugin */
#define ASSIST_E_LOCKED (-8)      /* a setting locked by the administrator */
#define ASSIST_E_NOT_FOUND (-9)   /* no such key, id or file */
#define ASSIST_E_INTERNAL (-10)   /* a bug in the host; it is logged */
#define ASSIST_E_CANCELLED (-11)  /* the user cancelled, or the feature was stopped */

/* ---------------------------------------------------------------------------------------------------------
 * Host, plugin and entry tables
 * ------------------------------------------------------------------------------------------------------- */

struct assist_frame;

/** What the host gives each plugin instance. Owned by the host, valid until `deinit` returns. */
typedef struct assist_host {
    uint32_t struct_size;
    assist_version abi;       /* the ABI the host implements */
    const char *host_version; /* "1.0.0" */
    void *host_data;          /* opaque to the plugin */
    /** Looks up a service table by versioned id ("assist.dialog/1"). Returns a const table that stays
        valid until `destroy`, or NULL when the host has no such service. [any] */
    const void *ASSIST_NULLABLE (*get_service)(const struct assist_host *h, const char *id);
    /** Allocates `n` bytes the host will free: use it only for `*err` strings. NULL when out of memory. [any] */
    void *ASSIST_NULLABLE (*alloc)(const struct assist_host *h, size_t n);
    void *reserved[8];
} assist_host;

/** One running instance of a plugin. Allocated by the plugin in `create`, freed by it in `destroy`. */
typedef struct assist_plugin {
    uint32_t struct_size;
    void *plugin_data; /* the plugin's own state */
    /** Starts the feature. `argv` holds `argc` arguments from the command line (`assist run ID ARGS...`),
        borrowed for the call. A background plugin is started with argc 0. Must return promptly: load models
        on `assist.worker/1`. On failure set `*err`. [main] */
    assist_status (*start)(struct assist_plugin *p, int32_t argc, const char *const *argv, char **err);
    /** Pauses: stop guidance and speech, keep state. [main] */
    void (*pause)(struct assist_plugin *p);
    /** Resumes after pause. [main] */
    void (*resume)(struct assist_plugin *p);
    /** Stops the feature. The host calls destroy next and never calls on_command or on_frame on this instance
        again; a later launch creates a new instance. [main] */
    void (*stop)(struct assist_plugin *p);
    /** A command routed to the focused feature: one of the ASSIST_CMD_* names or an id the plugin
        registered with `assist.input/1`. `arg` is NULL or a borrowed string. [main] */
    void (*on_command)(struct assist_plugin *p, const char *cmd, const char *ASSIST_NULLABLE arg);
    /** A camera frame the plugin subscribed to; borrowed until return. May be NULL if unused. [frame] */
    void (*on_frame)(struct assist_plugin *p, const struct assist_frame *f);
    /** Plugin-side extensions by versioned id, or NULL. May be NULL if unused. [main] */
    const void *ASSIST_NULLABLE (*get_extension)(struct assist_plugin *p, const char *id);
    /** Frees the instance. [main] */
    void (*destroy)(struct assist_plugin *p);
    void *reserved[8];
} assist_plugin;

/** The static table returned by the entry symbol. Owned by the plugin, never freed. */
typedef struct assist_entry {
    uint32_t struct_size;
    assist_version abi;     /* ASSIST_ABI_MAJOR/MINOR the plugin was built against */
    const char *id;         /* equal to the manifest's id */
    const char *version;    /* equal to the manifest's version */
    /** Refcounted library set-up: each successful init gets one deinit. Under 50 ms; no speech, camera or
        blocking I/O; only `assist.log/1`. Return false to refuse loading. [main] */
    bool (*init)(const assist_host *h);
    /** Undoes one init. [main] */
    void (*deinit)(void);
    /** Creates an instance bound to `h`. On failure return NULL and set `*err`. [main] */
    assist_plugin *ASSIST_NULLABLE (*create)(const assist_host *h, char **err);
    void *reserved[8];
} assist_entry;

/** The only symbol a plugin exports. Returns a pointer to a static table. [main] */
typedef const assist_entry *(*assist_entry_fn)(void);
ASSIST_EXPORT const assist_entry *assist_plugin_entry(void);

/* ---------------------------------------------------------------------------------------------------------
 * Commands routed to the focused feature (on_command). The host owns "stop" (it stops the feature),
 * "help" (it speaks the feature's commands, then forwards "help") and "repeat" (it repeats the last thing
 * said). Plugins register more with assist.input/1.
 * ------------------------------------------------------------------------------------------------------- */

#define ASSIST_CMD_NEXT "next"
#define ASSIST_CMD_PREVIOUS "previous"
#define ASSIST_CMD_PAUSE "pause"
#define ASSIST_CMD_RESUME "resume"
#define ASSIST_CMD_FASTER "faster"
#define ASSIST_CMD_SLOWER "slower"
#define ASSIST_CMD_REPEAT "repeat"
#define ASSIST_CMD_STOP "stop"
#define ASSIST_CMD_HELP "help"

/* ---------------------------------------------------------------------------------------------------------
 * Frames (used by assist.camera/1, defined here so on_frame has its type)
 * ------------------------------------------------------------------------------------------------------- */

/** A borrowed frame: valid only until on_frame returns; never write or free it. */
typedef struct assist_frame {
    uint32_t struct_size;
    uint32_t fourcc; /* ASSIST_FOURCC_* */
    uint32_t width;
    uint32_t height;
    uint32_t plane_count;
    uint32_t stride[3];
    const uint8_t *plane[3]; /* read-only, borrowed */
    int32_t fd;              /* memfd/dmabuf when out of process, else -1 */
    uint64_t timestamp_ns;   /* CLOCK_MONOTONIC at capture */
    uint64_t seq;            /* +1 per captured frame; a gap means drops */
    uint64_t reserved[4];
} assist_frame;

#define ASSIST_FOURCC(a, b, c, d) \
    ((uint32_t)(a) | ((uint32_t)(b) << 8) | ((uint32_t)(c) << 16) | ((uint32_t)(d) << 24))
/* Written as plain numbers so Swift and other FFI generators see them; equal to ASSIST_FOURCC of the letters. */
#define ASSIST_FOURCC_BGR24 0x33524742u /* 'BGR3' */
#define ASSIST_FOURCC_RGB24 0x33424752u /* 'RGB3' */
#define ASSIST_FOURCC_GRAY8 0x59455247u /* 'GREY' */
#define ASSIST_FOURCC_YUYV 0x56595559u  /* 'YUYV' */

/* ---------------------------------------------------------------------------------------------------------
 * Services. Each is reached with host->get_service(host, ID) and starts with struct_size. Every function
 * takes the plugin's `h` first, so the host knows the caller.
 * ------------------------------------------------------------------------------------------------------- */

/* ----- assist.log/1 ----------------------------------------------------------------------------------- */

#define ASSIST_LOG_SERVICE "assist.log/1"

typedef int32_t assist_log_level;
#define ASSIST_LOG_DEBUG 0
#define ASSIST_LOG_INFO 1
#define ASSIST_LOG_WARNING 2
#define ASSIST_LOG_ERROR 3
#define ASSIST_LOG_FATAL 4
/* The two contract levels. PLUGIN_MISBEHAVING is what the host writes when a plugin breaks the contract (a
   [main] call from another thread, a bad struct); a plugin may use it for its own broken invariant.
   HOST_MISBEHAVING is what a plugin writes when the host breaks it (a NULL it promised, a call out of order).
   The numbers are the other way round from CLAP's clap_log_severity; they are fixed for ABI 1. */
#define ASSIST_LOG_PLUGIN_MISBEHAVING 5
#define ASSIST_LOG_HOST_MISBEHAVING 6

typedef struct assist_log_service {
    uint32_t struct_size;
    /** Writes one log line tagged with the plugin id. Never spoken. [any] */
    void (*log)(const assist_host *h, assist_log_level level, const char *msg);
    void *reserved[4];
} assist_log_service;

/* ----- assist.dialog/1: talking with the user, spoken and printed as plain lines ------------------------ */

#define ASSIST_DIALOG_SERVICE "assist.dialog/1"

/** Speech priorities, as in Speech Dispatcher (SSIP). */
typedef int32_t assist_priority;
/* Speech Dispatcher's (SSIP) rules: */
#define ASSIST_PRIORITY_IMPORTANT 0    /* spoken next; postpones message/text, which resume at their word */
#define ASSIST_PRIORITY_MESSAGE 1      /* after important and message; cancels text, notification, progress */
#define ASSIST_PRIORITY_TEXT 2         /* after important, message and text; cancels notification, progress */
#define ASSIST_PRIORITY_NOTIFICATION 3 /* spoken only when nothing speaks or waits, else dropped */
#define ASSIST_PRIORITY_PROGRESS 4     /* like notification, but the latest is kept and spoken when idle */

/** What kind of free text ask_text wants; the host uses it for echo and the spoken prompt. */
typedef int32_t assist_text_kind;
#define ASSIST_TEXT_PLAIN 0
#define ASSIST_TEXT_EMAIL 1
#define ASSIST_TEXT_SECRET 2 /* neither echoed, spoken nor logged */
#define ASSIST_TEXT_NUMBER 3

/** The answer to a dialog. Borrowed for the callback. */
typedef struct assist_dialog_result {
    uint32_t struct_size;
    assist_status status; /* ASSIST_OK, ASSIST_E_CANCELLED or ASSIST_E_TIMEOUT */
    int32_t index;        /* ask_choice: the chosen index, 0-based; else -1 */
    bool yes;             /* confirm: the answer (the default on timeout) */
    const char *ASSIST_NULLABLE text; /* ask_text: the text typed, trimmed; else NULL */
    uint64_t request;     /* the id returned when the dialog was opened */
    uint64_t reserved[4];
} assist_dialog_result;

typedef void (*assist_dialog_cb)(void *ASSIST_NULLABLE user, const assist_dialog_result *r);

typedef struct assist_dialog_service {
    uint32_t struct_size;
    /** Says `text` (spoken and printed) at `priority`. [any] */
    assist_status (*say)(const assist_host *h, const char *text, assist_priority priority);
    /** Asks a question with numbered choices; the user answers with a number, arrows and Enter, or the
        choice's words. `default_index` (or -1 for none) is taken on a bare Enter. The answer reaches `cb`
        once, on [main]. `*request` (may be NULL) receives an id for cancel. [main] */
    assist_status (*ask_choice)(const assist_host *h, const char *prompt, const char *const *choices,
                                int32_t count, int32_t default_index, assist_dialog_cb cb,
                                void *ASSIST_NULLABLE user, uint64_t *ASSIST_NULLABLE request);
    /** Asks a yes/no question. Enter, silence for `timeout_ms` (0 = wait for ever) and "cancel" give
        `default_yes`; make the default the safe answer. [main] */
    assist_status (*confirm)(const assist_host *h, const char *prompt, bool default_yes, uint32_t timeout_ms,
                             assist_dialog_cb cb, void *ASSIST_NULLABLE user, uint64_t *ASSIST_NULLABLE request);
    /** Asks for a line of free text (an e-mail address, a label). [main] */
    assist_status (*ask_text)(const assist_host *h, const char *prompt, assist_text_kind kind,
                              assist_dialog_cb cb, void *ASSIST_NULLABLE user, uint64_t *ASSIST_NULLABLE request);
    /** Withdraws an open dialog; its callback runs with ASSIST_E_CANCELLED. [main] */
    assist_status (*cancel)(const assist_host *h, uint64_t request);
    void *reserved[8];
} assist_dialog_service;

/* ----- assist.input/1: commands by key, typed word or (later) voice --------------------------------------- */

#define ASSIST_INPUT_SERVICE "assist.input/1"

typedef int32_t assist_scope;
#define ASSIST_SCOPE_FOCUSED 0 /* only while this feature has the focus */
#define ASSIST_SCOPE_GLOBAL 1  /* from anywhere in the host (launch keywords) */

typedef struct assist_input_service {
    uint32_t struct_size;
    /** Adds a command delivered to on_command as `id`. `label` is spoken by help; `key` is a key name
        ("w", "ctrl+s", "space", "left", "f5") or NULL; `phrase` is the typed or spoken words or NULL.
        A key or phrase already taken, or reserved by the host, gives ASSIST_E_BUSY. [main] */
    assist_status (*register_command)(const assist_host *h, const char *id, const char *label,
                                      const char *ASSIST_NULLABLE key, const char *ASSIST_NULLABLE phrase,
                                      assist_scope scope);
    /** Removes a command added by this plugin. [main] */
    assist_status (*unregister_command)(const assist_host *h, const char *id);
    /** True when the host can take dictation in `lang` ("en"). [any] */
    bool (*dictation_available)(const assist_host *h, const char *lang);
    void *reserved[8];
} assist_input_service;

/* ----- assist.session/1: the feature's place in the host ----------------------------------------------- */

#define ASSIST_SESSION_SERVICE "assist.session/1"

typedef struct assist_session_service {
    uint32_t struct_size;
    /** A foreground feature says it is done (a still image has been read). The host stops it after the
        current call returns; `assist run` exits with 0 for ASSIST_OK, 1 otherwise. [main] */
    void (*finish)(const assist_host *h, assist_status status);
    /** The user's language code ("en", "ru", "zh"). Valid until destroy. [any] */
    const char *(*language)(const assist_host *h);
    /** The plugin's writable data directory (created, mode 0700). Valid until destroy. [any] */
    const char *(*data_dir)(const assist_host *h);
    /** A directory the host may purge. Valid until destroy. [any] */
    const char *(*cache_dir)(const assist_host *h);
    /** The plugin's read-only data: share/assist/<short id>/. Valid until destroy. [any] */
    const char *(*share_dir)(const assist_host *h);
    void *reserved[8];
} assist_session_service;

/* ----- assist.events/1 --------------------------------------------------------------------------------- */

#define ASSIST_EVENTS_SERVICE "assist.events/1"

typedef void (*assist_event_cb)(void *ASSIST_NULLABLE user, const char *name, const char *json);

typedef struct assist_events_service {
    uint32_t struct_size;
    /** Publishes `name` with a JSON payload ("{}" when NULL). Subscribers get it on [main]. [any] */
    assist_status (*publish)(const assist_host *h, const char *name, const char *ASSIST_NULLABLE json);
    /** Subscribes to every event whose name starts with `prefix` ("" for all). [main] */
    assist_status (*subscribe)(const assist_host *h, const char *prefix, assist_event_cb cb,
                               void *ASSIST_NULLABLE user, uint64_t *ASSIST_NULLABLE subscription);
    /** Ends a subscription. [main] */
    assist_status (*unsubscribe)(const assist_host *h, uint64_t subscription);
    void *reserved[8];
} assist_events_service;

/* ----- assist.settings/1 ------------------------------------------------------------------------------- */

#define ASSIST_SETTINGS_SERVICE "assist.settings/1"

/*
 * Keys are kebab-case. A key without a dot is in the plugin's own namespace ("auto-pause" is
 * "find-object.auto-pause"); a dotted key is absolute and may be read anywhere ("speech.rate-normal") but
 * written only in the plugin's namespaces. A key locked by the administrator cannot be set: ASSIST_E_LOCKED.
 */
typedef struct assist_settings_service {
    uint32_t struct_size;
    /** Copies the value into `buf` (NUL-terminated). `*needed` (may be NULL) gets the size including the
        NUL; a `cap` too small gives ASSIST_E_NOMEM. ASSIST_E_NOT_FOUND when unset. [any] */
    assist_status (*get_string)(const assist_host *h, const char *key, char *ASSIST_NULLABLE buf, size_t cap,
                                size_t *ASSIST_NULLABLE needed);
    assist_status (*get_int)(const assist_host *h, const char *key, int64_t *out);   /* [any] */
    assist_status (*get_double)(const assist_host *h, const char *key, double *out); /* [any] */
    assist_status (*get_bool)(const assist_host *h, const char *key, bool *out);     /* [any] */
    assist_status (*set_string)(const assist_host *h, const char *key, const char *value); /* [main] */
    assist_status (*set_int)(const assist_host *h, const char *key, int64_t value);         /* [main] */
    assist_status (*set_double)(const assist_host *h, const char *key, double value);       /* [main] */
    assist_status (*set_bool)(const assist_host *h, const char *key, bool value);           /* [main] */
    void *reserved[8];
} assist_settings_service;

/* ----- assist.clock/1 ---------------------------------------------------------------------------------- */

#define ASSIST_CLOCK_SERVICE "assist.clock/1"

typedef void (*assist_timer_cb)(void *ASSIST_NULLABLE user, uint64_t timer);

typedef struct assist_clock_service {
    uint32_t struct_size;
    uint64_t (*now_ns)(const assist_host *h);  /* CLOCK_MONOTONIC. [any] */
    int64_t (*wall_ms)(const assist_host *h);  /* Unix time in milliseconds. [any] */
    /** Calls `cb` on [main] after `ms`, and every `ms` after that when `repeat`. [main] */
    assist_status (*timer_add)(const assist_host *h, uint32_t ms, bool repeat, assist_timer_cb cb,
                               void *ASSIST_NULLABLE user, uint64_t *ASSIST_NULLABLE timer);
    /** Cancels a timer; its callback will not run again. [main] */
    assist_status (*timer_cancel)(const assist_host *h, uint64_t timer);
    void *reserved[8];
} assist_clock_service;

/* ----- assist.worker/1 --------------------------------------------------------------------------------- */

#define ASSIST_WORKER_SERVICE "assist.worker/1"

typedef void (*assist_task_fn)(void *ASSIST_NULLABLE user);

typedef struct assist_worker_service {
    uint32_t struct_size;
    /** Runs `fn(user)` on a host pool thread: blocking work such as model loading. [any] */
    assist_status (*schedule)(const assist_host *h, assist_task_fn fn, void *ASSIST_NULLABLE user);
    /** Runs `fn(user)` on the main loop, after the current [main] call. [any] */
    assist_status (*post_main)(const assist_host *h, assist_task_fn fn, void *ASSIST_NULLABLE user);
    void *reserved[8];
} assist_worker_service;

/* ----- assist.thread-check/1 --------------------------------------------------------------------------- */

#define ASSIST_THREAD_CHECK_SERVICE "assist.thread-check/1"

typedef struct assist_thread_check_service {
    uint32_t struct_size;
    bool (*is_main)(const assist_host *h);  /* [any] */
    bool (*is_frame)(const assist_host *h); /* [any] */
    void *reserved[4];
} assist_thread_check_service;

/* ----- assist.camera/1 --------------------------------------------------------------------------------- */

#define ASSIST_CAMERA_SERVICE "assist.camera/1"

/** Flags for assist_camera_request.flags. */
#define ASSIST_CAMERA_SQUARE 1u /* crop the centred square first (then zoom) */

/** What frames a plugin wants: zero it, set struct_size, then what you need. */
typedef struct assist_camera_request {
    uint32_t struct_size;
    uint32_t fourcc;     /* ASSIST_FOURCC_BGR24 (also when 0), RGB24, GRAY8 or YUYV */
    uint32_t max_width;  /* larger frames are scaled down keeping their shape; 0 = no limit */
    uint32_t max_height; /* 0 = no limit */
    double max_fps;      /* at most this many frames a second; 0 = every frame */
    double zoom;         /* digital zoom, a centred crop: 1 (also when 0), 1.25, 1.8, 3, 5 ... up to 8 */
    uint32_t flags;      /* ASSIST_CAMERA_* flags */
    uint32_t reserved0;
    void *reserved[4];
} assist_camera_request;

/** Delivery counters for this plugin's subscription. */
typedef struct assist_camera_stats {
    uint32_t struct_size;
    uint32_t reserved0;
    uint64_t delivered; /* frames given to on_frame */
    uint64_t dropped;   /* frames replaced while on_frame was busy (the newest frame always wins) */
    uint64_t skipped;   /* frames left out to respect max_fps */
    uint64_t converted; /* deliveries that needed conversion or scaling (the rest were zero-copy) */
    uint64_t reserved[4];
} assist_camera_stats;

typedef struct assist_camera_service {
    uint32_t struct_size;
    /** Starts frames for this plugin at on_frame [frame], converted as asked. Calling it again changes the
        request (a zoom change) from the next frame on. The camera opens with the first subscriber and closes
        with the last. ASSIST_E_IO with `*err` when it cannot open (missing, busy, unsupported). [main] */
    assist_status (*subscribe)(const assist_host *h, const assist_camera_request *request,
                               char *ASSIST_NULLABLE *err);
    /** Stops frames; waits for an on_frame in progress, so never call it while on_frame waits for [main].
        When it returns, on_frame is not called again. [main] */
    assist_status (*unsubscribe)(const assist_host *h);
    /** Keeps `frame` beyond on_frame: returns a copy of the header whose planes stay valid until release().
        NULL when 4 frames are already held. Holding one over 2 s is logged as misbehaving. [frame] */
    const assist_frame *ASSIST_NULLABLE (*retain)(const assist_host *h, const assist_frame *frame);
    /** Gives back a frame from retain(). [any] */
    void (*release)(const assist_host *h, const assist_frame *retained);
    /** Reads a device control, "focus", "exposure" or "zoom", with its range. ASSIST_E_UNSUPPORTED when the
        camera is closed or has no such control. [any] */
    assist_status (*control)(const assist_host *h, const char *name, int64_t *value, int64_t *minimum,
                             int64_t *maximum);
    /** This plugin's delivery counters. Set `out->struct_size` to `sizeof *out` first: the host fills as much
        as that holds and sets it to the bytes written; ASSIST_E_INVALID when it is below 1.0's size. [any] */
    assist_status (*stats)(const assist_host *h, assist_camera_stats *out);
    void *reserved[8];
} assist_camera_service;

/* ----- assist.storage/1 -------------------------------------------------------------------------------- */

#define ASSIST_STORAGE_SERVICE "assist.storage/1"

/** An open database of this plugin; owned by the host, valid until the plugin is destroyed. */
typedef struct assist_db assist_db;

/** The type of an assist_value. */
typedef int32_t assist_value_type;
#define ASSIST_VALUE_NULL 0
#define ASSIST_VALUE_INT 1
#define ASSIST_VALUE_REAL 2
#define ASSIST_VALUE_TEXT 3 /* UTF-8 in `data`, `size` bytes, NUL-terminated when read from a row */
#define ASSIST_VALUE_BLOB 4 /* `size` bytes at `data` */

/** A bound parameter or a column value. */
typedef struct assist_value {
    uint32_t struct_size; /* also the stride of an array of values */
    assist_value_type type;
    int64_t integer;
    double real;
    const void *ASSIST_NULLABLE data;
    size_t size;
} assist_value;

/** One result row: `count` column names and values (walk the values with ASSIST_ELEMENT), borrowed until the
    callback returns. Return false to stop reading rows. Runs on the thread that called exec. */
typedef bool (*assist_row_cb)(void *ASSIST_NULLABLE user, int32_t count, const char *const *names,
                              const assist_value *values);

typedef struct assist_storage_service {
    uint32_t struct_size;
    /** Opens (creating it) the plugin's database `name` ("main": a file in the plugin's data folder; letters,
        digits, '-' and '_' only): SQLite in WAL mode with a 5 s busy timeout. The same name gives the same
        handle. [any] */
    assist_status (*open)(const assist_host *h, const char *name, assist_db *ASSIST_NULLABLE *out,
                          char *ASSIST_NULLABLE *err);
    /** Runs one statement with `count` bound parameters (`?` in order), calling `row` for each result row
        (may be NULL), and sets `*changes` (may be NULL). Malformed SQL or a constraint gives ASSIST_E_INVALID,
        a full disk ASSIST_E_IO; `*err` says what. Prepared statements are cached. Blocking: use a worker. [any] */
    assist_status (*exec)(const assist_host *h, assist_db *db, const char *sql,
                          const assist_value *ASSIST_NULLABLE params, int32_t count, assist_row_cb ASSIST_NULLABLE row,
                          void *ASSIST_NULLABLE user, int64_t *ASSIST_NULLABLE changes, char *ASSIST_NULLABLE *err);
    /** A transaction across calls: begin, then commit or rollback. [any] */
    assist_status (*begin)(const assist_host *h, assist_db *db);
    assist_status (*commit)(const assist_host *h, assist_db *db);
    assist_status (*rollback)(const assist_host *h, assist_db *db);
    /** Runs `sql` (several statements) and sets the schema version to `version`, in one transaction, only
        when the database is older; a failure leaves it as it was. [any] */
    assist_status (*migrate)(const assist_host *h, assist_db *db, int32_t version, const char *sql,
                             char *ASSIST_NULLABLE *err);
    /** Creates an empty file `name` (a relative path such as "clips/cup-1.mp4") in the plugin's media folder
        and writes its full path into `path` (`cap` bytes). ASSIST_E_PERMISSION for a name that would leave
        the folder ("..", absolute, a link outside); ASSIST_E_IO when the quota is used up. [any] */
    assist_status (*media_create)(const assist_host *h, const char *name, char *path, size_t cap,
                                  char *ASSIST_NULLABLE *err);
    /** ASSIST_E_IO with `*err` when `bytes` more would not fit in the quota (check before a long recording). */
    assist_status (*media_reserve)(const assist_host *h, int64_t bytes, char *ASSIST_NULLABLE *err);
    /** Moves a media file to the plugin's cache (it may be deleted to free space); its new path in `path`. */
    assist_status (*media_to_cache)(const assist_host *h, const char *name, char *path, size_t cap,
                                    char *ASSIST_NULLABLE *err);
    /** Deletes a file from media, or from the cache with `in_cache`. ASSIST_E_NOT_FOUND when absent. */
    assist_status (*media_delete)(const assist_host *h, const char *name, bool in_cache);
    /** Bytes used by media and cache together, and the quota (setting `storage.quota-mb`). [any] */
    assist_status (*media_usage)(const assist_host *h, int64_t *used, int64_t *quota);
    void *reserved[8];
} assist_storage_service;

/* ----- assist.speech/1 --------------------------------------------------------------------------------- */

#define ASSIST_SPEECH_SERVICE "assist.speech/1"

/** How an utterance ended. */
typedef int32_t assist_speech_outcome;
#define ASSIST_SPEECH_FINISHED 0  /* spoken to the end */
#define ASSIST_SPEECH_CANCELLED 1 /* stopped, or dropped by the priority rules */

/** Flags for assist_speech_options.flags. */
#define ASSIST_SPEECH_NO_PRINT 1u /* do not also print the text as a line (the plugin prints it itself) */

/** Options for one utterance: zero it, set struct_size, then set what you need. NULL means all defaults. */
typedef struct assist_speech_options {
    uint32_t struct_size;
    assist_priority priority;             /* ASSIST_PRIORITY_*; 0 (important) only when set on purpose */
    const char *ASSIST_NULLABLE language; /* "en", "ru", "zh"; NULL for the session's language */
    const char *ASSIST_NULLABLE voice;    /* an espeak-ng voice ("en-gb"); NULL for the language's. An unknown
                                             voice falls back to the language's and is logged. */
    int32_t words_per_minute;             /* 80..450; 0 for the user's rate (setting speech.rate) */
    uint32_t flags;                       /* ASSIST_SPEECH_* flags */
    void *reserved[4];
} assist_speech_options;

/** Called once per utterance with how it ended. [main] */
typedef void (*assist_speech_done_cb)(void *ASSIST_NULLABLE user, uint64_t utterance, assist_speech_outcome outcome);
/** Called as each word starts to sound: offsets into the text given to speak(), in Unicode characters and in
    UTF-8 bytes, and the word's length in bytes. [main] */
typedef void (*assist_speech_word_cb)(void *ASSIST_NULLABLE user, uint64_t utterance, uint32_t char_offset,
                                      uint32_t byte_offset, uint32_t byte_length);

typedef struct assist_speech_service {
    uint32_t struct_size;
    /** Queues `text` (UTF-8; invalid bytes are replaced) under the priority rules. On success `on_done` runs
        exactly once, and `*out_id` (may be NULL) names the utterance. Empty or blank text: ASSIST_E_INVALID
        and no callback. Without options the priority is MESSAGE. The text is copied. [any] */
    assist_status (*speak)(const assist_host *h, const char *text, const assist_speech_options *ASSIST_NULLABLE options,
                           assist_speech_done_cb ASSIST_NULLABLE on_done, assist_speech_word_cb ASSIST_NULLABLE on_word,
                           void *ASSIST_NULLABLE user, uint64_t *ASSIST_NULLABLE out_id);
    /** Stops one of this plugin's utterances at once; its on_done reports CANCELLED. ASSIST_E_NOT_FOUND when
        it already ended or is not this plugin's. [any] */
    assist_status (*stop)(const assist_host *h, uint64_t utterance);
    /** Stops every utterance of this plugin. [any] */
    assist_status (*cancel_mine)(const assist_host *h);
    /** Pauses this plugin's speech at once; other speech goes on. ASSIST_E_NOT_FOUND when it had nothing to
        pause (it is paused all the same, so later speech waits for resume). [any] */
    assist_status (*pause)(const assist_host *h);
    /** Resumes this plugin's speech at the start of the word that was being heard. [any] */
    assist_status (*resume)(const assist_host *h);
    /** True while any speech is sounding, this plugin's or not. [any] */
    bool (*is_speaking)(const assist_host *h);
    /** Prints `text` as plain lines without speaking it: a transcript a braille display can follow. [any] */
    assist_status (*print)(const assist_host *h, const char *text);
    void *reserved[8];
} assist_speech_service;

/* ----- assist.cues/1 ----------------------------------------------------------------------------------- */

#define ASSIST_CUES_SERVICE "assist.cues/1"

/** Guidance patterns (haptic patterns rendered as tones). */
typedef int32_t assist_cue_pattern;
#define ASSIST_CUE_DOT 0        /* target to the left */
#define ASSIST_CUE_DASH 1       /* target to the right */
#define ASSIST_CUE_DOT_DASH 2   /* target above */
#define ASSIST_CUE_DASH_DOT 3   /* target below */
#define ASSIST_CUE_CONTINUOUS 4 /* target centred */

typedef struct assist_cues_service {
    uint32_t struct_size;
    /** Plays an earcon once: "tap", "success", "error", "stable", "end", "found", "lost", "listen", "rise"
        or "fall" (a speed change), at
        `gain` 0..1 and `pan` -1 (left) .. 1 (right). ASSIST_E_NOT_FOUND for another name. [any] */
    assist_status (*play)(const assist_host *h, const char *name, double gain, double pan);
    /** Plays `pattern` repeatedly at `intensity` (0.1..1: faster and louder as the target nears), panned,
        at `pitch_hz` or the pattern's own pitch when 0. One pattern plays and one waits: a new request replaces
        the waiting one and starts when the current cycle ends. [any] */
    assist_status (*guidance)(const assist_host *h, assist_cue_pattern pattern, double intensity, double pan,
                              double pitch_hz);
    /** Ends guidance with a short fade. [any] */
    assist_status (*stop)(const assist_host *h);
    /** False when the user turned cues off (setting cues.enabled); calls still succeed and play nothing. [any] */
    bool (*enabled)(const assist_host *h);
    void *reserved[8];
} assist_cues_service;

/* ----- assist.audio-in/1 ------------------------------------------------------------------------------- */

#define ASSIST_AUDIO_IN_SERVICE "assist.audio-in/1"

/** An open recording stream; owned by the host, valid until close(). */
typedef struct assist_audio_stream assist_audio_stream;

typedef struct assist_audio_in_service {
    uint32_t struct_size;
    /** Opens the microphone (or the file given with --mic) as 16-bit interleaved PCM at `rate_hz` (16000 for
        recognition, 16000 or 44100 for recordings) with `channels` 1 or 2. ASSIST_E_BUSY when this plugin
        already has a stream; ASSIST_E_IO with `*err` when there is no microphone. [main] */
    assist_status (*open)(const assist_host *h, uint32_t rate_hz, uint32_t channels,
                          assist_audio_stream *ASSIST_NULLABLE *out, char *ASSIST_NULLABLE *err);
    /** Reads up to `frames` frames into `buf` (frames x channels samples), blocking until they arrive; `*got`
        is 0 at the end of a file. Never call it on [main]. [worker] */
    assist_status (*read)(const assist_host *h, assist_audio_stream *stream, int16_t *buf, uint32_t frames,
                          uint32_t *got);
    /** Closes the stream. Not while a read on it is in progress. [main] */
    void (*close)(const assist_host *h, assist_audio_stream *stream);
    void *reserved[8];
} assist_audio_in_service;

/* ----- assist.outbox/1 --------------------------------------------------------------------------------- */

#define ASSIST_OUTBOX_SERVICE "assist.outbox/1"

/** A header, or a form field. */
typedef struct assist_http_field {
    uint32_t struct_size; /* also the stride of an array of fields */
    const char *name;
    const char *value;
} assist_http_field;

/** A multipart part: a text field (`text`), or a file streamed from disk when it is sent (`path`: a name in
    the plugin's media folder, or a full path inside its media or cache folder). */
typedef struct assist_outbox_part {
    uint32_t struct_size; /* also the stride of an array of parts */
    const char *name;
    const char *ASSIST_NULLABLE text;
    const char *ASSIST_NULLABLE path;
    const char *ASSIST_NULLABLE filename;
    const char *ASSIST_NULLABLE content_type;
} assist_outbox_part;

typedef int32_t assist_outbox_body;
#define ASSIST_OUTBOX_BODY_NONE 0
#define ASSIST_OUTBOX_BODY_JSON 1      /* `json`, `json_size` bytes */
#define ASSIST_OUTBOX_BODY_FORM 2      /* `fields`, url-encoded */
#define ASSIST_OUTBOX_BODY_MULTIPART 3 /* `parts`, multipart/form-data with a fresh boundary */

/** An HTTP request for the host to send, however long it takes. */
typedef struct assist_outbox_request {
    uint32_t struct_size;
    const char *method;
    const char *url; /* http or https */
    const assist_http_field *ASSIST_NULLABLE headers;
    size_t header_count;
    assist_outbox_body body;
    const void *ASSIST_NULLABLE json;
    size_t json_size;
    const assist_http_field *ASSIST_NULLABLE fields;
    size_t field_count;
    const assist_outbox_part *ASSIST_NULLABLE parts;
    size_t part_count;
    /** Attempts before giving up (transport errors, 5xx, 429); 0 for the default, 8. */
    uint32_t max_attempts;
    /** The plugin's own reference, handed back with the outcome (may be NULL). */
    const char *ASSIST_NULLABLE tag;
} assist_outbox_request;

/** How a job ended: the server's final answer (`status` 100-599, any status but 5xx and 429 is final), or
    `status` 0 and `error` when the outbox gave up. Borrowed until the callback returns; walk `headers` with
    ASSIST_ELEMENT. */
typedef struct assist_outbox_outcome {
    uint32_t struct_size;
    int64_t job;
    int32_t status;
    bool truncated; /* the body was longer than the 1 MB kept */
    const char *ASSIST_NULLABLE tag;
    const assist_http_field *headers;
    size_t header_count;
    const uint8_t *ASSIST_NULLABLE body;
    size_t body_size;
    const char *ASSIST_NULLABLE error;
} assist_outbox_outcome;

/** Receives an outcome on [main]. Return true when it is handled, and the host forgets it; false keeps it
    until `acknowledge` (outcomes not handled are offered again at the next start). */
typedef bool (*assist_outbox_outcome_cb)(void *ASSIST_NULLABLE user, const assist_outbox_outcome *outcome);

typedef struct assist_outbox_service {
    uint32_t struct_size;
    /** Stores the request and returns its job id; it is sent in the background, this plugin's jobs in the
        order they were enqueued, with back-off between attempts, and kept across restarts. Each attempt carries
        the same `Idempotency-Key` header. ASSIST_E_INVALID with `*err` for a request that can never work (bad
        URL, method or header, a file outside the plugin's folders). [any] */
    assist_status (*enqueue)(const assist_host *h, const assist_outbox_request *request, int64_t *ASSIST_NULLABLE job,
                             char *ASSIST_NULLABLE *err);
    /** Sets the outcome callback (NULL to stop receiving); outcomes waiting from earlier, also from before a
        restart, are delivered after this call returns. [main] */
    assist_status (*on_outcome)(const assist_host *h, assist_outbox_outcome_cb ASSIST_NULLABLE cb,
                                void *ASSIST_NULLABLE user);
    /** Forgets an outcome that the callback kept. ASSIST_E_NOT_FOUND when there is none. [any] */
    assist_status (*acknowledge)(const assist_host *h, int64_t job);
    /** Removes a job not yet being sent. ASSIST_E_NOT_FOUND when it is gone or being sent. [any] */
    assist_status (*cancel)(const assist_host *h, int64_t job);
    /** How many of this plugin's jobs wait or are being sent. [any] */
    assist_status (*pending)(const assist_host *h, int64_t *count);
    void *reserved[8];
} assist_outbox_service;

/* ---------------------------------------------------------------------------------------------------------
 * Helpers (header-only, so a plugin needs nothing but this file)
 * ------------------------------------------------------------------------------------------------------- */

/** The name of a status code ("ASSIST_E_LOCKED"), never NULL. [any] */
static inline const char *assist_status_name(assist_status status) {
    switch (status) {
    case ASSIST_OK: return "ASSIST_OK";
    case ASSIST_E_INVALID: return "ASSIST_E_INVALID";
    case ASSIST_E_UNSUPPORTED: return "ASSIST_E_UNSUPPORTED";
    case ASSIST_E_NOMEM: return "ASSIST_E_NOMEM";
    case ASSIST_E_BUSY: return "ASSIST_E_BUSY";
    case ASSIST_E_IO: return "ASSIST_E_IO";
    case ASSIST_E_TIMEOUT: return "ASSIST_E_TIMEOUT";
    case ASSIST_E_PERMISSION: return "ASSIST_E_PERMISSION";
    case ASSIST_E_LOCKED: return "ASSIST_E_LOCKED";
    case ASSIST_E_NOT_FOUND: return "ASSIST_E_NOT_FOUND";
    case ASSIST_E_INTERNAL: return "ASSIST_E_INTERNAL";
    case ASSIST_E_CANCELLED: return "ASSIST_E_CANCELLED";
    default: return "ASSIST_E_UNKNOWN";
    }
}

#if defined(__clang__)
#pragma clang diagnostic pop
#endif

#ifdef __cplusplus
}
#endif

#endif /* ASSIST_PLUGIN_H */
