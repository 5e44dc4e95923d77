/*
 * whole_structs.h - the values Tests/Fixtures/plugins/whole_structs_plugin.c sends through a helper process
 * and the probe host (bridge_probe.c) sends back: every versioned struct that crosses the bridge, each field
 * set. ASSIST_ABI_SIMULATED_FIELD names the field scripts/abi-compat.sh appends to every struct in its
 * simulated ABI 1.1; where the header has it, it carries WS_ADDED + a number of its own per struct.
 */
#ifndef ASSIST_WHOLE_STRUCTS_H
#define ASSIST_WHOLE_STRUCTS_H

#define WS_ADDED 0x1100u

/* plugin -> host */
#define WS_WORDS_PER_MINUTE 217
#define WS_SPEECH_FLAGS 1u
#define WS_MAX_WIDTH 321u
#define WS_MAX_HEIGHT 241u
#define WS_MAX_FPS 7.5
#define WS_ZOOM 1.25
#define WS_ATTEMPTS 3u
#define WS_INTEGER 4242
#define WS_REAL 2.5

/* host -> plugin */
#define WS_REQUEST 77u
#define WS_JOB 9
#define WS_STATUS 201
#define WS_DELIVERED 11u
#define WS_DROPPED 12u
#define WS_SKIPPED 13u
#define WS_CONVERTED 14u
#define WS_TIMESTAMP 123456789u
#define WS_SEQ 5u

#endif
