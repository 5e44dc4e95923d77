/*
 * assist/core.h - ABI 1.0: versions, status codes, the versioned-struct rule, the host, plugin and entry
 * tables, commands and frames. Included by every other header; include assist_plugin.h, not this.
 */
#ifndef ASSIST_CORE_H
#define ASSIST_CORE_H

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

#endif /* ASSIST_CORE_H */
