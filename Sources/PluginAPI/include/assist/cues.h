/*
 * assist/cues.h - the assist.cues/1 service. Include assist_plugin.h, not this.
 */
#ifndef ASSIST_CUES_H
#define ASSIST_CUES_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Only some pointers carry ASSIST_NULLABLE; the rest are documented in comments. */
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wnullability-completeness"
#endif

/* ----- assist.cues/1 ----------------------------------------------------------------------------------- */

#define ASSIST_CUES_SERVICE "assist.cues/1"

/** Guidance patterns (haptic patterns rendered as tones). */
typedef int32_t assist_cue_pattern;
#define ASSIST_CUE_DOT 0        /* target to the left */
#define ASSIST_CUE_DASH 1       /* target to the right */
#define ASSIST_CUE_DOT_DASH 2   /* target above */
#define ASSIST_CUE_DASH_DOT 3   /* target below */
#define ASSIST_CUE_CONTINUOUS 4 /* target centred */
#define ASSIST_CUE_TONE 5       /* a steady tone at pitch_hz that glides to each new call's pitch, loudness
                                   (intensity) and pan within 12 ms, with no cycle to wait for (a light meter).
                                   A host that does not know it answers ASSIST_E_INVALID:
                                   fall back to ASSIST_CUE_CONTINUOUS with pitch_hz. */

typedef struct assist_cues_service {
    uint32_t struct_size;
    /** Plays an earcon once: "tap", "success", "error", "stable", "end", "found", "lost", "listen", "rise"
        or "fall" (a speed change), at
        `gain` 0..1 and `pan` -1 (left) .. 1 (right). ASSIST_E_NOT_FOUND for another name. [any] */
    assist_status (*play)(const assist_host *h, const char *name, double gain, double pan);
    /** Plays `pattern` repeatedly at `intensity` (0.1..1: faster and louder as the target nears), panned,
        at `pitch_hz` or the pattern's own pitch when 0. One pattern plays and one waits: a new request replaces
        the waiting one and starts when the current cycle ends (ASSIST_CUE_TONE has no cycle: it follows at
        once). [any] */
    assist_status (*guidance)(const assist_host *h, assist_cue_pattern pattern, double intensity, double pan,
                              double pitch_hz);
    /** Ends guidance with a short fade. [any] */
    assist_status (*stop)(const assist_host *h);
    /** False when the user turned cues off (setting cues.enabled); calls still succeed and play nothing. [any] */
    bool (*enabled)(const assist_host *h);
    void *reserved[8];
} assist_cues_service;

#if defined(__clang__)
#pragma clang diagnostic pop
#endif

#ifdef __cplusplus
}
#endif

#endif /* ASSIST_CUES_H */
