/* libarchive (Debian's libarchive-dev): plugin packages (.assist-plugin, a gzip'd tar) are written by
 * `assist plugins pack` and read, entry by entry, by `assist plugins install`. */
#include <archive.h>
#include <archive_entry.h>
