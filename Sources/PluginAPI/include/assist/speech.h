/*
 * assist/speech.h - the assist.speech/1 service. Include assist_plugin.h, not this.
 */
#ifndef ASSIST_SPEECH_H
#define ASSIST_SPEECH_H

#include "core.h"
#include "dialog.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Only some pointers carry ASSIST_NULLABLE; the rest are documented in comments. */
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wnullability-completeness"
#endif

/* ----- assist.speech/1 --------------------------------------------------------------------------------- */

#define ASSIST_SPEECH_SERVICE "assist.speech/1"

/** How an utterance ended. */
typedef int32_t assist_speech_outcome;
#define ASSIST_SPEECH_FINISHED 0  /* spoken to the end */
#define ASSIST_SPEECH_CANCELLED 1 /* stopped, or dropped by the priority rules */

/** Flags for assist_speech_options.flags. */
#define ASSIST_SPEECH_NO_PRINT 1u /* do not also print the text as a line (the plugin prints it itself) */
#define ASSIST_SPEECH_STATUS 2u   /* print it where the host prints its own lines, as a status line: on standard
                                     error while standard output holds a data command's data (a transcript) */

/** Options for one utterance: zero it, set struct_size, then set what you need. NULL means all defaults. */
typedef struct assist_speech_options {
    uint32_t struct_size;
    assist_priority priority;             /* ASSIST_PRIORITY_*; 0 (important) only when set on purpose */
    const char *ASSIST_NULLABLE language; /* "en", "ru", "zh"; NULL for the session's language */
    const char *ASSIST_NULLABLE voice;    /* an espeak-ng voice ("en-gb"); NULL for the language's. An unknown
                                             voice falls back to the language's and is logged. */
    int32_t words_per_minute;             /* 80..450; 0 for the user's rate (setting speech.rate) */
    uint32_t flags;                       /* ASSIST_SPEECH_* flags */
    void *reserved[4];
} assist_speech_options;

/** Called once per utterance with how it ended. [main] */
typedef void (*assist_speech_done_cb)(void *ASSIST_NULLABLE user, uint64_t utterance, assist_speech_outcome outcome);
/** Called as each word starts to sound: offsets into the text given to speak(), in Unicode characters and in
    UTF-8 bytes, and the word's length in bytes. [main] */
typedef void (*assist_speech_word_cb)(void *ASSIST_NULLABLE user, uint64_t utterance, uint32_t char_offset,
                                      uint32_t byte_offset, uint32_t byte_length);

typedef struct assist_speech_service {
    uint32_t struct_size;
    /** Queues `text` (UTF-8; invalid bytes are replaced) under the priority rules. On success `on_done` runs
        exactly once, and `*out_id` (may be NULL) names the utterance. Empty or blank text: ASSIST_E_INVALID
        and no callback. Without options the priority is MESSAGE. The text is copied. `user` must live until
        `on_done` has run (its last use; `on_word` runs before it). [any] */
    assist_status (*speak)(const assist_host *h, const char *text, const assist_speech_options *ASSIST_NULLABLE options,
                           assist_speech_done_cb ASSIST_NULLABLE on_done, assist_speech_word_cb ASSIST_NULLABLE on_word,
                           void *ASSIST_NULLABLE user, uint64_t *ASSIST_NULLABLE out_id);
    /** Stops one of this plugin's utterances at once; its on_done reports CANCELLED. ASSIST_E_NOT_FOUND when
        it already ended or is not this plugin's. [any] */
    assist_status (*stop)(const assist_host *h, uint64_t utterance);
    /** Stops every utterance of this plugin. [any] */
    assist_status (*cancel_mine)(const assist_host *h);
    /** Pauses this plugin's speech at once; other speech goes on. ASSIST_E_NOT_FOUND when it had nothing to
        pause (it is paused all the same, so later speech waits for resume). [any] */
    assist_status (*pause)(const assist_host *h);
    /** Resumes this plugin's speech at the start of the word that was being heard. [any] */
    assist_status (*resume)(const assist_host *h);
    /** True while any speech is sounding, this plugin's or not. [any] */
    bool (*is_speaking)(const assist_host *h);
    /** Prints `text` as plain lines without speaking it: a transcript a braille display can follow. [any] */
    assist_status (*print)(const assist_host *h, const char *text);
    void *reserved[8];
} assist_speech_service;

#if defined(__clang__)
#pragma clang diagnostic pop
#endif

#ifdef __cplusplus
}
#endif

#endif /* ASSIST_SPEECH_H */
