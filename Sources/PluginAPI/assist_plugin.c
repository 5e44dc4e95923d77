/*
 * assist_plugin.c - compiled so that every target depending on the header rebuilds when it changes
 * (SwiftPM does not track header-only C targets), and to pin the v1.0 layout with static assertions.
 */
#include "assist_plugin.h"

#include <assert.h>

/* The v1.0 layout on LP64 Linux. A change here breaks every built plugin: append fields instead. */
_Static_assert(sizeof(assist_version) == 8, "assist_version is four uint16_t");
_Static_assert(offsetof(assist_host, get_service) == 32, "assist_host v1.0 layout");
_Static_assert(sizeof(assist_host) == 112, "assist_host v1.0 size");
_Static_assert(offsetof(assist_plugin, start) == 16, "assist_plugin v1.0 layout");
_Static_assert(sizeof(assist_plugin) == 144, "assist_plugin v1.0 size");
_Static_assert(offsetof(assist_entry, init) == 32, "assist_entry v1.0 layout");
_Static_assert(sizeof(assist_entry) == 120, "assist_entry v1.0 size");
_Static_assert(offsetof(assist_frame, plane) == 32, "assist_frame v1.0 layout");
_Static_assert(sizeof(assist_frame) == 112, "assist_frame v1.0 size");
_Static_assert(sizeof(assist_dialog_result) == 64, "assist_dialog_result v1.0 size");
_Static_assert(ASSIST_FOURCC_BGR24 == ASSIST_FOURCC('B', 'G', 'R', '3'), "BGR24 fourcc");
_Static_assert(ASSIST_FOURCC_RGB24 == ASSIST_FOURCC('R', 'G', 'B', '3'), "RGB24 fourcc");
_Static_assert(ASSIST_FOURCC_GRAY8 == ASSIST_FOURCC('G', 'R', 'E', 'Y'), "GRAY8 fourcc");
_Static_assert(ASSIST_FOURCC_YUYV == ASSIST_FOURCC('Y', 'U', 'Y', 'V'), "YUYV fourcc");
