#include "assist_archive.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

/* Debian 12's libarchive13. */
#define ARCHIVE_LIBRARY "libarchive.so.13"

static assist_archive_api api;
static const char *load_error = NULL;
static char error_text[300];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static int find(void *handle, void **slot, const char *name) {
    *slot = dlsym(handle, name);
    if (*slot != NULL) return 1;
    snprintf(error_text, sizeof error_text, "%s has no %s", ARCHIVE_LIBRARY, name);
    load_error = error_text;
    return 0;
}

static void load(void) {
    void *handle = dlopen(ARCHIVE_LIBRARY, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (handle == NULL) {
        const char *why = dlerror();
        snprintf(error_text, sizeof error_text, "%s", why ? why : ARCHIVE_LIBRARY " cannot be opened");
        load_error = error_text;
        return;
    }
    if (!find(handle, (void **)&api.read_new, "archive_read_new")) return;
    if (!find(handle, (void **)&api.read_free, "archive_read_free")) return;
    if (!find(handle, (void **)&api.read_support_filter_gzip, "archive_read_support_filter_gzip")) return;
    if (!find(handle, (void **)&api.read_support_filter_xz, "archive_read_support_filter_xz")) return;
    if (!find(handle, (void **)&api.read_support_format_tar, "archive_read_support_format_tar")) return;
    if (!find(handle, (void **)&api.read_support_format_zip, "archive_read_support_format_zip")) return;
    if (!find(handle, (void **)&api.read_open_filename, "archive_read_open_filename")) return;
    if (!find(handle, (void **)&api.read_next_header, "archive_read_next_header")) return;
    if (!find(handle, (void **)&api.read_data, "archive_read_data")) return;
    if (!find(handle, (void **)&api.error_string, "archive_error_string")) return;
    if (!find(handle, (void **)&api.entry_pathname, "archive_entry_pathname")) return;
    if (!find(handle, (void **)&api.entry_hardlink, "archive_entry_hardlink")) return;
    if (!find(handle, (void **)&api.entry_symlink, "archive_entry_symlink")) return;
    if (!find(handle, (void **)&api.entry_filetype, "archive_entry_filetype")) return;
    if (!find(handle, (void **)&api.write_new, "archive_write_new")) return;
    if (!find(handle, (void **)&api.write_free, "archive_write_free")) return;
    if (!find(handle, (void **)&api.write_add_filter_gzip, "archive_write_add_filter_gzip")) return;
    if (!find(handle, (void **)&api.write_set_format_pax_restricted, "archive_write_set_format_pax_restricted")) return;
    if (!find(handle, (void **)&api.write_set_options, "archive_write_set_options")) return;
    if (!find(handle, (void **)&api.write_open_filename, "archive_write_open_filename")) return;
    if (!find(handle, (void **)&api.write_header, "archive_write_header")) return;
    if (!find(handle, (void **)&api.write_data, "archive_write_data")) return;
    if (!find(handle, (void **)&api.write_close, "archive_write_close")) return;
    if (!find(handle, (void **)&api.entry_new, "archive_entry_new")) return;
    if (!find(handle, (void **)&api.entry_free, "archive_entry_free")) return;
    if (!find(handle, (void **)&api.entry_set_pathname, "archive_entry_set_pathname")) return;
    if (!find(handle, (void **)&api.entry_set_size, "archive_entry_set_size")) return;
    if (!find(handle, (void **)&api.entry_set_filetype, "archive_entry_set_filetype")) return;
    if (!find(handle, (void **)&api.entry_set_perm, "archive_entry_set_perm")) return;
    if (!find(handle, (void **)&api.entry_set_mtime, "archive_entry_set_mtime")) return;
    if (!find(handle, (void **)&api.entry_set_uid, "archive_entry_set_uid")) return;
    if (!find(handle, (void **)&api.entry_set_gid, "archive_entry_set_gid")) return;
}

const assist_archive_api *assist_archive(void) {
    pthread_once(&once, load);
    return load_error == NULL ? &api : NULL;
}

const char *assist_archive_load_error(void) {
    pthread_once(&once, load);
    return load_error;
}
