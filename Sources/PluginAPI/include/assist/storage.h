/*
 * assist/storage.h - the assist.storage/1 service. Include assist_plugin.h, not this.
 */
#ifndef ASSIST_STORAGE_H
#define ASSIST_STORAGE_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Only some pointers carry ASSIST_NULLABLE; the rest are documented in comments. */
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wnullability-completeness"
#endif

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
    callback returns. Return false to stop reading rows. Runs on the thread that called exec: [any]. */
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
        a full disk ASSIST_E_IO; `*err` says what. Prepared statements are cached. `user` is needed only for
        the call (`row` runs before exec returns). Blocking: use a worker. [any] */
    assist_status (*exec)(const assist_host *h, assist_db *db, const char *sql,
                          const assist_value *ASSIST_NULLABLE params, int32_t count, assist_row_cb ASSIST_NULLABLE row,
                          void *ASSIST_NULLABLE user, int64_t *ASSIST_NULLABLE changes, char *ASSIST_NULLABLE *err);
    /** A transaction across calls: begin, then commit or rollback, all on the same thread. That thread holds the
        handle meanwhile: another thread's calls on it wait until the transaction ends, so they never land
        inside it. [any] */
    assist_status (*begin)(const assist_host *h, assist_db *db);
    assist_status (*commit)(const assist_host *h, assist_db *db);   /* [any] */
    assist_status (*rollback)(const assist_host *h, assist_db *db); /* [any] */
    /** Runs `sql` (several statements) and sets the schema version to `version`, in one transaction, only
        when the database is older; a failure leaves it as it was. [any] */
    assist_status (*migrate)(const assist_host *h, assist_db *db, int32_t version, const char *sql,
                             char *ASSIST_NULLABLE *err);
    /** Creates an empty file `name` (a relative path such as "clips/cup-1.mp4") in the plugin's media folder
        and writes its full path into `path` (`cap` bytes). ASSIST_E_PERMISSION for a name that would leave
        the folder ("..", absolute, a link outside); ASSIST_E_IO when the quota is used up. [any] */
    assist_status (*media_create)(const assist_host *h, const char *name, char *path, size_t cap,
                                  char *ASSIST_NULLABLE *err);
    /** ASSIST_E_IO with `*err` when `bytes` more would not fit in the quota (check before a long recording).
        [any] */
    assist_status (*media_reserve)(const assist_host *h, int64_t bytes, char *ASSIST_NULLABLE *err);
    /** Moves a media file to the plugin's cache (it may be deleted to free space); its new path in `path`.
        [any] */
    assist_status (*media_to_cache)(const assist_host *h, const char *name, char *path, size_t cap,
                                    char *ASSIST_NULLABLE *err);
    /** Deletes a file from media, or from the cache with `in_cache`. ASSIST_E_NOT_FOUND when absent. [any] */
    assist_status (*media_delete)(const assist_host *h, const char *name, bool in_cache);
    /** Bytes used by media and cache together, and the quota (setting `storage.quota-mb`). [any] */
    assist_status (*media_usage)(const assist_host *h, int64_t *used, int64_t *quota);
    void *reserved[8];
} assist_storage_service;

#if defined(__clang__)
#pragma clang diagnostic pop
#endif

#ifdef __cplusplus
}
#endif

#endif /* ASSIST_STORAGE_H */
