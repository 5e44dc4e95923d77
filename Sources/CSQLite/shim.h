#include <sqlite3.h>

#include <stdint.h>
#include <string.h>
#include <strings.h>
#include <time.h>

/*
 * A plugin's SQL is a stranger's SQL (docs/security.md, "What the services refuse"): it runs in Assist's own
 * process, which may open any file the user can. These keep it to its own database, as SQLite's guidance for
 * untrusted SQL asks: an authorizer that refuses what reaches other files, the defensive flag, lower limits,
 * and a progress handler that ends a statement past its time or memory budget, or when Assist is stopping.
 */

/* A flag the host keeps (one for the process): set from the signal thread when Assist is told to stop, every
   confined statement then ends at its next progress check, so a stranger's endless query never holds the host
   past a SIGTERM. */
static inline void assist_sqlite_raise(int *flag) { __atomic_store_n(flag, 1, __ATOMIC_RELEASE); }

/* What a confined connection's last statement was refused or stopped for: 0 nothing, 1 a file outside its
   database, 2 its time, 3 its memory, 4 Assist stopping, 5 a pragma, 6 a function. */
typedef struct assist_sqlite_guard {
    int64_t deadline_ns;      /* CLOCK_MONOTONIC; 0: none */
    int64_t statement_ns;     /* the budget each statement gets */
    int64_t memory_start;     /* sqlite3_memory_used() when the statement began */
    int64_t memory_budget;    /* bytes it may add */
    int *stopping;            /* the host's stop flag, or NULL */
    int host_call;            /* 1 while the host runs a statement of its own (BEGIN, max_page_count) */
    int reason;
    char detail[96];
} assist_sqlite_guard;

static inline int64_t assist_sqlite_now_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

/* The pragmas a plugin may use: reading its schema, checking it, its version numbers and foreign keys. Every
   other one (writable_schema, journal_mode, mmap_size, cache_size, max_page_count, temp_store_directory, ...)
   changes how or where SQLite touches files or memory, which stays the host's. */
static inline int assist_sqlite_pragma_allowed(const char *name, const char *argument) {
    static const char *const read_or_set[] = {"user_version", "application_id", "foreign_keys", "recursive_triggers",
                                              "defer_foreign_keys", "case_sensitive_like", "secure_delete", 0};
    static const char *const read_only[] = {"table_info", "table_xinfo", "table_list", "index_list", "index_info",
                                            "index_xinfo", "foreign_key_list", "foreign_key_check", "integrity_check",
                                            "quick_check", "page_count", "page_size", "freelist_count",
                                            "data_version", "schema_version", "collation_list", "function_list",
                                            "encoding", "optimize", "wal_checkpoint", "busy_timeout", 0};
    if (name == 0) return 0;
    for (int i = 0; read_or_set[i]; i++)
        if (strcasecmp(name, read_or_set[i]) == 0) return 1;
    for (int i = 0; read_only[i]; i++)
        if (strcasecmp(name, read_only[i]) == 0) {
            /* wal_checkpoint and optimize take a mode; the others must not be set. */
            return argument == 0 || strcasecmp(name, "wal_checkpoint") == 0 || strcasecmp(name, "optimize") == 0 ||
                   strcasecmp(name, "integrity_check") == 0 || strcasecmp(name, "quick_check") == 0 ||
                   strcasecmp(name, "table_info") == 0 || strcasecmp(name, "table_xinfo") == 0 ||
                   strcasecmp(name, "index_list") == 0 || strcasecmp(name, "index_info") == 0 ||
                   strcasecmp(name, "index_xinfo") == 0 || strcasecmp(name, "foreign_key_list") == 0 ||
                   strcasecmp(name, "foreign_key_check") == 0 || strcasecmp(name, "table_list") == 0;
        }
    return 0;
}

static inline void assist_sqlite_note(assist_sqlite_guard *guard, int reason, const char *detail) {
    if (guard->reason != 0) return;
    guard->reason = reason;
    size_t length = detail ? strlen(detail) : 0;
    if (length >= sizeof guard->detail) length = sizeof guard->detail - 1;
    if (length) memcpy(guard->detail, detail, length);
    guard->detail[length] = 0;
}

static inline int assist_sqlite_authorize(void *user, int action, const char *first, const char *second,
                                          const char *database, const char *trigger) {
    assist_sqlite_guard *guard = user;
    (void)database;
    (void)trigger;
    if (guard->host_call) return SQLITE_OK;
    switch (action) {
    case SQLITE_ATTACH:
        /* VACUUM attaches a temporary database with an empty name: that one stays SQLite's own. */
        if (first == 0 || first[0] == 0) return SQLITE_OK;
        assist_sqlite_note(guard, 1, first);
        return SQLITE_DENY;
    case SQLITE_DETACH:
        assist_sqlite_note(guard, 1, first);
        return SQLITE_DENY;
    case SQLITE_PRAGMA:
        if (assist_sqlite_pragma_allowed(first, second)) return SQLITE_OK;
        assist_sqlite_note(guard, 5, first);
        return SQLITE_DENY;
    case SQLITE_FUNCTION:
        if (second && (strcasecmp(second, "load_extension") == 0 || strcasecmp(second, "fts3_tokenizer") == 0 ||
                       strcasecmp(second, "readfile") == 0 || strcasecmp(second, "writefile") == 0 ||
                       strcasecmp(second, "edit") == 0)) {
            assist_sqlite_note(guard, 6, second);
            return SQLITE_DENY;
        }
        return SQLITE_OK;
    default:
        return SQLITE_OK;
    }
}

static inline int assist_sqlite_progress(void *user) {
    assist_sqlite_guard *guard = user;
    if (guard->stopping != 0 && __atomic_load_n(guard->stopping, __ATOMIC_ACQUIRE)) {
        assist_sqlite_note(guard, 4, 0);
        return 1;
    }
    if (guard->deadline_ns != 0 && assist_sqlite_now_ns() > guard->deadline_ns) {
        assist_sqlite_note(guard, 2, 0);
        return 1;
    }
    if (guard->memory_budget > 0 && sqlite3_memory_used() - guard->memory_start > guard->memory_budget) {
        assist_sqlite_note(guard, 3, 0);
        return 1;
    }
    return 0;
}

/* Confines `db` with `guard` (which must outlive it): the authorizer, the defensive flag, no triggers or views
   run from a schema the plugin may have written by hand, limits on one value's size, one statement's length
   and expression depth, and the progress handler. */
static inline int assist_sqlite_confine(sqlite3 *db, assist_sqlite_guard *guard, int max_length) {
    int status = sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)0);
    if (status != SQLITE_OK) return status;
    sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, (int *)0);
    sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, (int *)0);
    /* One: VACUUM's own temporary database; the authorizer refuses every ATTACH that names a file. */
    sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 1);
    sqlite3_limit(db, SQLITE_LIMIT_LENGTH, max_length);
    sqlite3_limit(db, SQLITE_LIMIT_SQL_LENGTH, 1000000);
    sqlite3_limit(db, SQLITE_LIMIT_EXPR_DEPTH, 200);
    sqlite3_limit(db, SQLITE_LIMIT_COMPOUND_SELECT, 100);
    sqlite3_limit(db, SQLITE_LIMIT_LIKE_PATTERN_LENGTH, 1000);
    sqlite3_limit(db, SQLITE_LIMIT_TRIGGER_DEPTH, 50);
    sqlite3_progress_handler(db, 1000, assist_sqlite_progress, guard);
    return sqlite3_set_authorizer(db, assist_sqlite_authorize, guard);
}

/* Starts a statement's budgets. */
static inline void assist_sqlite_arm(assist_sqlite_guard *guard) {
    guard->reason = 0;
    guard->detail[0] = 0;
    guard->memory_start = sqlite3_memory_used();
    guard->deadline_ns = guard->statement_ns > 0 ? assist_sqlite_now_ns() + guard->statement_ns : 0;
}
