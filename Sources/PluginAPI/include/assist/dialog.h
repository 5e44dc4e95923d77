/*
 * assist/dialog.h - the assist.dialog/1 service. Include assist_plugin.h, not this.
 */
#ifndef ASSIST_DIALOG_H
#define ASSIST_DIALOG_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Only some pointers carry ASSIST_NULLABLE; the rest are documented in comments. */
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wnullability-completeness"
#endif

/* ----- assist.dialog/1: talking with the user, spoken and printed as plain lines ------------------------ */

#define ASSIST_DIALOG_SERVICE "assist.dialog/1"

/** Speech priorities, as in Speech Dispatcher (SSIP). */
typedef int32_t assist_priority;
/* Speech Dispatcher's (SSIP) rules: */
#define ASSIST_PRIORITY_IMPORTANT 0    /* spoken next; postpones message/text, which resume at their word */
#define ASSIST_PRIORITY_MESSAGE 1      /* after important and message; postpones text, cancels notification, progress */
#define ASSIST_PRIORITY_TEXT 2         /* after important, message and text; cancels notification, progress */
#define ASSIST_PRIORITY_NOTIFICATION 3 /* spoken only when nothing speaks or waits, else dropped */
#define ASSIST_PRIORITY_PROGRESS 4     /* like notification, but the latest is kept and spoken when idle */

/** What kind of free text ask_text wants; the host uses it for echo and the spoken prompt. */
typedef int32_t assist_text_kind;
#define ASSIST_TEXT_PLAIN 0
#define ASSIST_TEXT_EMAIL 1
#define ASSIST_TEXT_SECRET 2 /* neither echoed, spoken nor logged */
#define ASSIST_TEXT_NUMBER 3
/* Plain text that is usually one of the words the plugin listens for after a phrase (set_choices in
   assist.input/1): an answer said aloud is judged against them first, then dictated. A host that predates it
   takes it as ASSIST_TEXT_PLAIN. */
#define ASSIST_TEXT_LISTED 4

/** The answer to a dialog. Borrowed for the callback. */
typedef struct assist_dialog_result {
    uint32_t struct_size;
    assist_status status; /* ASSIST_OK, ASSIST_E_CANCELLED or ASSIST_E_TIMEOUT */
    int32_t index;        /* ask_choice: the chosen index, 0-based; else -1 */
    bool yes;             /* confirm: the answer (the default on timeout) */
    const char *ASSIST_NULLABLE text; /* ask_text: the text typed, trimmed; else NULL */
    uint64_t request;     /* the id returned when the dialog was opened */
    uint64_t reserved[4];
} assist_dialog_result;

/** A dialog's answer, exactly once per accepted request; `r` is borrowed for the call. [main] */
typedef void (*assist_dialog_cb)(void *ASSIST_NULLABLE user, const assist_dialog_result *r);

typedef struct assist_dialog_service {
    uint32_t struct_size;
    /** Says `text` (spoken and printed) at `priority`. [any] */
    assist_status (*say)(const assist_host *h, const char *text, assist_priority priority);
    /** Asks a question with numbered choices; the user answers with a number, arrows and Enter, or the
        choice's words. A choice that starts with a letter and a colon ("S: status") is also picked by
        that letter's key. `default_index` (or -1 for none) is taken on a bare Enter. The answer reaches `cb`
        once, on [main]. `*request` (may be NULL) receives an id for cancel. `user` must live until `cb` has
        run (it runs exactly once, also when the dialog is cancelled or the plugin stops). [main] */
    assist_status (*ask_choice)(const assist_host *h, const char *prompt, const char *const *choices,
                                int32_t count, int32_t default_index, assist_dialog_cb cb,
                                void *ASSIST_NULLABLE user, uint64_t *ASSIST_NULLABLE request);
    /** Asks a yes/no question. Enter, silence for `timeout_ms` (0 = wait for ever) and "cancel" give
        `default_yes`; make the default the safe answer. `user` lives until `cb`, as for ask_choice. [main] */
    assist_status (*confirm)(const assist_host *h, const char *prompt, bool default_yes, uint32_t timeout_ms,
                             assist_dialog_cb cb, void *ASSIST_NULLABLE user, uint64_t *ASSIST_NULLABLE request);
    /** Asks for a line of free text (an e-mail address, a label). `user` lives until `cb`, as for ask_choice.
        [main] */
    assist_status (*ask_text)(const assist_host *h, const char *prompt, assist_text_kind kind,
                              assist_dialog_cb cb, void *ASSIST_NULLABLE user, uint64_t *ASSIST_NULLABLE request);
    /** Withdraws an open dialog; its callback runs with ASSIST_E_CANCELLED. [main] */
    assist_status (*cancel)(const assist_host *h, uint64_t request);
    void *reserved[8];
} assist_dialog_service;

#if defined(__clang__)
#pragma clang diagnostic pop
#endif

#ifdef __cplusplus
}
#endif

#endif /* ASSIST_DIALOG_H */
