/*
 * assist_plugin.c - compiled so that every target depending on the header rebuilds when it changes
 * (SwiftPM does not track header-only C targets), and to pin the v1.0 layout with static assertions.
 */
#include "assist_plugin.h"

#include <assert.h>

/* The v1.0 layout on LP64 Linux: each struct through its last 1.0 field, the smallest struct_size a reader
   accepts (PluginABI's minimumSize says the same in Swift). A change here breaks every built plugin: append
   fields instead, which leaves these lines true. */
_Static_assert(sizeof(assist_version) == 8, "assist_version is four uint16_t");
_Static_assert(offsetof(assist_host, get_service) == 32, "assist_host v1.0 layout");
_Static_assert(offsetof(assist_plugin, start) == 16, "assist_plugin v1.0 layout");
_Static_assert(offsetof(assist_entry, init) == 32, "assist_entry v1.0 layout");
_Static_assert(offsetof(assist_frame, plane) == 32, "assist_frame v1.0 layout");
_Static_assert(ASSIST_SIZE_THROUGH(assist_host, alloc) == 48, "assist_host v1.0 layout");
_Static_assert(ASSIST_SIZE_THROUGH(assist_plugin, destroy) == 80, "assist_plugin v1.0 layout");
_Static_assert(ASSIST_SIZE_THROUGH(assist_entry, create) == 56, "assist_entry v1.0 layout");
_Static_assert(ASSIST_SIZE_THROUGH(assist_frame, seq) == 80, "assist_frame v1.0 layout");
_Static_assert(ASSIST_SIZE_THROUGH(assist_dialog_result, request) == 32, "assist_dialog_result v1.0 layout");
_Static_assert(ASSIST_SIZE_THROUGH(assist_value, size) == 40, "assist_value v1.0 layout");
_Static_assert(ASSIST_SIZE_THROUGH(assist_http_field, value) == 24, "assist_http_field v1.0 layout");
_Static_assert(ASSIST_SIZE_THROUGH(assist_outbox_part, content_type) == 48, "assist_outbox_part v1.0 layout");
_Static_assert(ASSIST_SIZE_THROUGH(assist_outbox_request, tag) == 112, "assist_outbox_request v1.0 layout");
_Static_assert(ASSIST_SIZE_THROUGH(assist_outbox_outcome, error) == 72, "assist_outbox_outcome v1.0 layout");
_Static_assert(ASSIST_SIZE_THROUGH(assist_speech_options, flags) == 32, "assist_speech_options v1.0 layout");
_Static_assert(ASSIST_SIZE_THROUGH(assist_camera_request, flags) == 36, "assist_camera_request v1.0 layout");
_Static_assert(ASSIST_SIZE_THROUGH(assist_camera_stats, converted) == 40, "assist_camera_stats v1.0 layout");
_Static_assert(ASSIST_FOURCC_BGR24 == ASSIST_FOURCC('B', 'G', 'R', '3'), "BGR24 fourcc");
_Static_assert(ASSIST_FOURCC_RGB24 == ASSIST_FOURCC('R', 'G', 'B', '3'), "RGB24 fourcc");
_Static_assert(ASSIST_FOURCC_GRAY8 == ASSIST_FOURCC('G', 'R', 'E', 'Y'), "GRAY8 fourcc");
_Static_assert(ASSIST_FOURCC_YUYV == ASSIST_FOURCC('Y', 'U', 'Y', 'V'), "YUYV fourcc");
