/* assist_archive.h - libarchive for plugin packages (.assist-plugin), opened with dlopen on first use.
 *
 * libarchive brings some thirty libraries with it (libxml2, ICU, nettle, the compressors); linked, every
 * `assist` command would load them. Only `assist plugins pack | install | update` need it, so it is opened
 * when one of them runs, and its functions are reached through this table (the declarations are
 * libarchive's own, so the types cannot drift).
 */
#ifndef ASSIST_ARCHIVE_H
#define ASSIST_ARCHIVE_H

#include <archive.h>
#include <archive_entry.h>

typedef struct assist_archive_api {
    __typeof__(archive_read_new) *_Nonnull read_new;
    __typeof__(archive_read_free) *_Nonnull read_free;
    __typeof__(archive_read_support_filter_gzip) *_Nonnull read_support_filter_gzip;
    __typeof__(archive_read_support_filter_xz) *_Nonnull read_support_filter_xz;
    __typeof__(archive_read_support_format_tar) *_Nonnull read_support_format_tar;
    __typeof__(archive_read_support_format_zip) *_Nonnull read_support_format_zip;
    __typeof__(archive_read_open_filename) *_Nonnull read_open_filename;
    __typeof__(archive_read_next_header) *_Nonnull read_next_header;
    __typeof__(archive_read_data) *_Nonnull read_data;
    __typeof__(archive_error_string) *_Nonnull error_string;
    __typeof__(archive_entry_pathname) *_Nonnull entry_pathname;
    __typeof__(archive_entry_hardlink) *_Nonnull entry_hardlink;
    __typeof__(archive_entry_symlink) *_Nonnull entry_symlink;
    __typeof__(archive_entry_filetype) *_Nonnull entry_filetype;
    __typeof__(archive_write_new) *_Nonnull write_new;
    __typeof__(archive_write_free) *_Nonnull write_free;
    __typeof__(archive_write_add_filter_gzip) *_Nonnull write_add_filter_gzip;
    __typeof__(archive_write_set_format_pax_restricted) *_Nonnull write_set_format_pax_restricted;
    __typeof__(archive_write_set_options) *_Nonnull write_set_options;
    __typeof__(archive_write_open_filename) *_Nonnull write_open_filename;
    __typeof__(archive_write_header) *_Nonnull write_header;
    __typeof__(archive_write_data) *_Nonnull write_data;
    __typeof__(archive_write_close) *_Nonnull write_close;
    __typeof__(archive_entry_new) *_Nonnull entry_new;
    __typeof__(archive_entry_free) *_Nonnull entry_free;
    __typeof__(archive_entry_set_pathname) *_Nonnull entry_set_pathname;
    __typeof__(archive_entry_set_size) *_Nonnull entry_set_size;
    __typeof__(archive_entry_set_filetype) *_Nonnull entry_set_filetype;
    __typeof__(archive_entry_set_perm) *_Nonnull entry_set_perm;
    __typeof__(archive_entry_set_mtime) *_Nonnull entry_set_mtime;
    __typeof__(archive_entry_set_uid) *_Nonnull entry_set_uid;
    __typeof__(archive_entry_set_gid) *_Nonnull entry_set_gid;
} assist_archive_api;

/** The table, or NULL when libarchive cannot be opened (assist_archive_load_error says why). Thread-safe. */
const assist_archive_api *_Nullable assist_archive(void);

/** Why libarchive could not be opened, or NULL. */
const char *_Nullable assist_archive_load_error(void);

#endif /* ASSIST_ARCHIVE_H */
