/*
 * assist_plugin.h - the stable C ABI between the `assist` host and its plugins.
 *
 * ABI 1.0. Plain C99. Every name starts with `assist_` / `ASSIST_`.
 *
 * Rules that hold for every declaration below:
 *  - Every struct begins with `uint32_t struct_size` and is append-only: new fields are only ever added at
 *    the end, just before the reserved tail. Read a field only when ASSIST_HAS_FIELD says it is there.
 *  - One rule reads a struct someone else wrote, on both sides (assist_struct_copy): copy
 *    min(struct_size, the size you know) bytes into a zeroed local; refuse it only when struct_size is below
 *    the struct's size in the ABI version that introduced it (its ASSIST_SIZE_THROUGH its last field). A
 *    larger struct from a newer writer is read as far as you know it; a smaller one reads as zeros beyond it.
 *  - So a field's zero value always means "as before this field existed": a new field is read from an older
 *    writer's zeroed reserved tail or from the zero fill.
 *  - Reserved tails are zeroed by the writer and ignored by the reader.
 *  - Arrays of structs are walked with ASSIST_ELEMENT: the elements' struct_size is the array's stride.
 *  - Strings are UTF-8 and NUL-terminated. Every pointer is borrowed, for the duration of the call, unless
 *    its comment says otherwise.
 *  - Every function carries a thread tag:
 *      [main]   the host's main loop;       [frame]  the camera thread;
 *      [worker] a host pool thread;         [any]    any thread, the function is thread-safe.
 *    For one plugin instance no two [main] calls overlap and no two [frame] calls overlap; a [main] and a
 *    [frame] call may overlap, so guard the state they share.
 *  - A failing call may set `*err` to one short speakable sentence allocated with `host->alloc`. The host
 *    frees it; the plugin never frees a string it got from the host.
 *
 * Lifecycle: init -> create -> start <-> pause/resume -> stop -> destroy -> deinit.
 * The full guide is docs/plugin-abi.md.
 */
#ifndef ASSIST_PLUGIN_H
#define ASSIST_PLUGIN_H

/*
 * Index: one header per part, all included below.
 *   assist/core.h             versions, status codes, the struct rule, host/plugin/entry tables, commands, frames
 *   assist/log.h              assist.log/1: log lines (never spoken)
 *   assist/dialog.h           assist.dialog/1: say, choices, yes/no, free text; speech priorities
 *   assist/input.h            assist.input/1: commands by key, word or voice
 *   assist/session.h          assist.session/1: finish, language, the plugin's folders
 *   assist/events.h           assist.events/1: publish and subscribe
 *   assist/settings.h         assist.settings/1: typed settings, admin locks
 *   assist/clock.h            assist.clock/1: time and timers
 *   assist/worker.h           assist.worker/1: a pool thread, back to main
 *   assist/thread-check.h     assist.thread-check/1: which thread am I on
 *   assist/camera.h           assist.camera/1: frames, retain/release, controls, stats
 *   assist/storage.h          assist.storage/1: SQLite databases, media files, quota
 *   assist/speech.h           assist.speech/1: utterances with priorities, word events
 *   assist/cues.h             assist.cues/1: earcons and guidance patterns
 *   assist/audio-in.h         assist.audio-in/1: the microphone as 16-bit PCM
 *   assist/outbox.h           assist.outbox/1: HTTP requests sent in the background, their outcomes
 *   assist/playback.h         assist.playback/1: a plugin's own recordings played back
 * Services are reached with host->get_service(host, ASSIST_*_SERVICE) and each starts with struct_size.
 * Every function takes the plugin's `h` first, so the host knows the caller.
 */

#include "assist/core.h"
#include "assist/log.h"
#include "assist/dialog.h"
#include "assist/input.h"
#include "assist/session.h"
#include "assist/events.h"
#include "assist/settings.h"
#include "assist/clock.h"
#include "assist/worker.h"
#include "assist/thread-check.h"
#include "assist/camera.h"
#include "assist/storage.h"
#include "assist/speech.h"
#include "assist/cues.h"
#include "assist/audio-in.h"
#include "assist/outbox.h"
#include "assist/playback.h"

#endif /* ASSIST_PLUGIN_H */
