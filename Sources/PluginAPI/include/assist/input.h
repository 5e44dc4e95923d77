/*
 * assist/input.h - the assist.input/1 service. Include assist_plugin.h, not this.
 */
#ifndef ASSIST_INPUT_H
#define ASSIST_INPUT_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Only some pointers carry ASSIST_NULLABLE; the rest are documented in comments. */
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wnullability-completeness"
#endif

/* ----- assist.input/1: commands by key, typed word or voice ----------------------------------------------- */

#define ASSIST_INPUT_SERVICE "assist.input/1"

typedef int32_t assist_scope;
#define ASSIST_SCOPE_FOCUSED 0 /* only while this feature has the focus */
#define ASSIST_SCOPE_GLOBAL 1  /* from anywhere in the host (launch keywords) */

typedef struct assist_input_service {
    uint32_t struct_size;
    /** Adds a command delivered to on_command as `id`. `label` is spoken by help; `key` is a key name
        ("w", "ctrl+s", "space", "left", "f5") or NULL; `phrase` is the typed or spoken words or NULL.
        A key or phrase already taken, or reserved by the host, gives ASSIST_E_BUSY. [main] */
    assist_status (*register_command)(const assist_host *h, const char *id, const char *label,
                                      const char *ASSIST_NULLABLE key, const char *ASSIST_NULLABLE phrase,
                                      assist_scope scope);
    /** Removes a command added by this plugin. [main] */
    assist_status (*unregister_command)(const assist_host *h, const char *id);
    /** True when the host can take dictation in `lang` ("en"): voice commands are on and a language model
        for `lang` is installed. [any] */
    bool (*dictation_available)(const assist_host *h, const char *lang);
    /* Added after 1.0 in reserved slots: NULL in older hosts, so check before calling. */
    /** The closed list of words that may follow `phrase`, one of your manifest's keywords or a command's
        phrase ("find object", then "cup" or "mug"): once the phrase is heard, the recogniser listens for
        exactly one of `choices` (`count` UTF-8 strings in the session's language), and the words go on as if
        typed after the phrase ("find object cup"). When nothing follows the phrase, the host says `prompt`
        (NULL: no question) and listens for the list a while longer. Typing is not limited to the list.
        Call it from `init` so the list is there before the phrase is first heard; count 0 removes it.
        Kept until the library is unloaded. [main] */
    assist_status (*set_choices)(const assist_host *h, const char *phrase, const char *ASSIST_NULLABLE prompt,
                                 const char *const *choices, size_t count);
    /** Marks command `id` (registered by you) as destructive or costly: before it reaches on_command, from a
        key, typed words or voice, the host asks `question` ("Delete every recording?") and waits for yes or
        no, by voice or key. Only yes delivers it. NULL `question` removes the mark. [main] */
    assist_status (*set_confirmation)(const assist_host *h, const char *id, const char *ASSIST_NULLABLE question);
    void *reserved[6];
} assist_input_service;

#if defined(__clang__)
#pragma clang diagnostic pop
#endif

#ifdef __cplusplus
}
#endif

#endif /* ASSIST_INPUT_H */
