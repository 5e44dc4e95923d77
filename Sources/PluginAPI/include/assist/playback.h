/*
 * assist/playback.h - the assist.playback/1 service. Include assist_plugin.h, not this.
 */
#ifndef ASSIST_PLAYBACK_H
#define ASSIST_PLAYBACK_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Only some pointers carry ASSIST_NULLABLE; the rest are documented in comments. */
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wnullability-completeness"
#endif

/* ----- assist.playback/1: a plugin's own recordings played back. Looked up by name like every service: a host
   without it returns NULL from get_service, so plugins must check. -------------------------------------- */

#define ASSIST_PLAYBACK_SERVICE "assist.playback/1"

typedef struct assist_playback_service {
    uint32_t struct_size;
    /** Plays a 16-bit PCM WAV file from the plugin's data, media or cache folder at `gain` (0-1) of its own
        loudness, replacing a clip already playing. ASSIST_E_PERMISSION for a file outside those folders;
        ASSIST_E_INVALID with `*err` for a file that is not 16-bit PCM WAV. [main] */
    assist_status (*play_file)(const assist_host *h, const char *path, double gain, char *ASSIST_NULLABLE *err);
    /** Stops the clip. [any] */
    assist_status (*stop)(const assist_host *h);
    /** True while a clip plays. [any] */
    bool (*is_playing)(const assist_host *h);
    void *reserved[8];
} assist_playback_service;

#if defined(__clang__)
#pragma clang diagnostic pop
#endif

#ifdef __cplusplus
}
#endif

#endif /* ASSIST_PLAYBACK_H */
