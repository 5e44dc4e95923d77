/*
 * A C99 plugin for the host's tests. Its behaviour is chosen at compile time:
 *   -DPLUGIN_ID="org.test.x" -DPLUGIN_VERSION="1.0.0"   the identity in the entry table
 *   -DABI_MAJOR=1 -DABI_MINOR=0                          the ABI the entry claims
 *   -DINIT_FAILS                                          init returns false
 *   -DINIT_CRASHES                                        init dereferences NULL
 *   -DCREATE_FAILS                                        create returns NULL with an error string
 *   -DNO_ENTRY                                            the entry symbol is not exported
 *   -DENTRY_SIZE=n                                        the struct_size the entry claims
 *   -DSTART_CRASHES                                       start dereferences NULL (kills an in-process host)
 *   -DSTART_BLOCKS_MS=n                                   start sleeps n ms on the main thread (a hung plugin)
 *   -DINIT_SLEEPS_MS=n                                    init sleeps n ms (a slow library to load)
 *   -DLOADED_MARKER="path"                                creates the file `path` as the library is loaded
 *   -DCHOICES                                             init sets "apple", "banana", "cherry" to follow the
 *                                                         phrase "pick fruit"; started with a fruit, it says
 *                                                         "Picked <fruit>." and registers "wipe" (key w), which
 *                                                         the host asks about first
 * By default it asks a numbered question when started, says the answer, and finishes.
 */
#if defined(START_BLOCKS_MS) || defined(INIT_SLEEPS_MS)
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <time.h>
#endif
#include "assist_plugin.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef PLUGIN_ID
#define PLUGIN_ID "org.test.plugin"
#endif

#ifdef LOADED_MARKER
/* Runs when the library is opened, before any entry point: proof that a refused library was never opened. */
__attribute__((constructor)) static void mark_loaded(void) {
    FILE *marker = fopen(LOADED_MARKER, "w");
    if (marker) fclose(marker);
}
#endif
#ifndef PLUGIN_VERSION
#define PLUGIN_VERSION "1.0.0"
#endif
#ifndef ABI_MAJOR
#define ABI_MAJOR ASSIST_ABI_MAJOR
#endif
#ifndef ABI_MINOR
#define ABI_MINOR ASSIST_ABI_MINOR
#endif
#ifndef ENTRY_SIZE
#define ENTRY_SIZE sizeof(assist_entry)
#endif

typedef struct state {
    const assist_host *host;
    const assist_dialog_service *dialog;
    const assist_session_service *session;
    int commands;
} state;

static int init_count = 0;

static void on_answer(void *user, const assist_dialog_result *r) {
    state *s = user;
    char line[128];
    if (r->status == ASSIST_OK) {
        snprintf(line, sizeof line, "You chose number %d.", (int)r->index + 1);
    } else {
        snprintf(line, sizeof line, "No choice: %s.", assist_status_name(r->status));
    }
    s->dialog->say(s->host, line, ASSIST_PRIORITY_MESSAGE);
    s->session->finish(s->host, ASSIST_OK);
}

static assist_status start(assist_plugin *p, int32_t argc, const char *const *argv, char **err) {
    state *s = p->plugin_data;
#ifdef START_BLOCKS_MS
    {
        struct timespec pause = {START_BLOCKS_MS / 1000, (START_BLOCKS_MS % 1000) * 1000000L};
        while (nanosleep(&pause, &pause) != 0) {
        }
    }
#endif
#ifdef START_CRASHES
    {
        volatile int *nothing = NULL;
        *nothing = 1;
    }
#endif
#ifdef CHOICES
    if (argc > 0 && strcmp(argv[0], "--fail") != 0 && strcmp(argv[0], "--stay") != 0) {
        char line[160];
        snprintf(line, sizeof line, "Picked %s.", argv[argc - 1]);
        s->dialog->say(s->host, line, ASSIST_PRIORITY_MESSAGE);
        const assist_input_service *input = s->host->get_service(s->host, ASSIST_INPUT_SERVICE);
        if (input && input->register_command(s->host, "wipe", "Wipe everything", "w", "wipe", ASSIST_SCOPE_FOCUSED) ==
                         ASSIST_OK &&
            ASSIST_HAS_FIELD(assist_input_service, input, set_confirmation) && input->set_confirmation)
            input->set_confirmation(s->host, "wipe", "Wipe everything?");
        return ASSIST_OK;
    }
#endif
    if (argc > 0 && strcmp(argv[0], "--fail") == 0) {
        const char *text = "The test plugin was told to fail.";
        *err = s->host->alloc(s->host, strlen(text) + 1);
        if (*err) strcpy(*err, text);
        return ASSIST_E_INVALID;
    }
    if (argc > 0 && strcmp(argv[0], "--stay") == 0) {
        s->dialog->say(s->host, "Staying until stopped.", ASSIST_PRIORITY_MESSAGE);
        return ASSIST_OK;
    }
    static const char *const colours[] = {"Red", "Green", "Blue"};
    return s->dialog->ask_choice(s->host, "Pick a colour.", colours, 3, -1, on_answer, s, NULL);
}

static void pause_(assist_plugin *p) { (void)p; }
static void resume_(assist_plugin *p) { (void)p; }
static void stop(assist_plugin *p) {
    state *s = p->plugin_data;
    s->dialog->say(s->host, "Test plugin stopped.", ASSIST_PRIORITY_MESSAGE);
}
static void on_command(assist_plugin *p, const char *cmd, const char *arg) {
    state *s = p->plugin_data;
    char line[160];
    s->commands++;
    snprintf(line, sizeof line, "Command %s%s%s.", cmd, arg ? " " : "", arg ? arg : "");
    s->dialog->say(s->host, line, ASSIST_PRIORITY_MESSAGE);
}
static void destroy(assist_plugin *p) {
    free(p->plugin_data);
    free(p);
}

static bool init(const assist_host *h) {
#ifdef INIT_CRASHES
    volatile int *nowhere = NULL;
    *nowhere = 1;
#endif
#ifdef INIT_FAILS
    (void)h;
    return false;
#else
#ifdef INIT_SLEEPS_MS
    {
        struct timespec pause = {INIT_SLEEPS_MS / 1000, (INIT_SLEEPS_MS % 1000) * 1000000L};
        while (nanosleep(&pause, &pause) != 0) {
        }
    }
#endif
    const assist_log_service *log = h->get_service(h, ASSIST_LOG_SERVICE);
    if (log) log->log(h, ASSIST_LOG_DEBUG, "test plugin init");
#ifdef CHOICES
    {
        static const char *const fruits[] = {"apple", "banana", "cherry"};
        const assist_input_service *input = h->get_service(h, ASSIST_INPUT_SERVICE);
        if (input && ASSIST_HAS_FIELD(assist_input_service, input, set_choices) && input->set_choices)
            input->set_choices(h, "pick fruit", "Which fruit?", fruits, 3);
    }
#endif
    init_count++;
    return true;
#endif
}

static void deinit(void) { init_count--; }

static assist_plugin *create(const assist_host *h, char **err) {
#ifdef CREATE_FAILS
    const char *text = "The test plugin cannot be created.";
    *err = h->alloc(h, strlen(text) + 1);
    if (*err) strcpy(*err, text);
    return NULL;
#endif
    (void)err;
    assist_plugin *p = calloc(1, sizeof *p);
    state *s = calloc(1, sizeof *s);
    if (!p || !s) return NULL;
    s->host = h;
    s->dialog = h->get_service(h, ASSIST_DIALOG_SERVICE);
    s->session = h->get_service(h, ASSIST_SESSION_SERVICE);
    if (h->get_service(h, "assist.nope/1") != NULL) return NULL;
    p->struct_size = sizeof *p;
    p->plugin_data = s;
    p->start = start;
    p->pause = pause_;
    p->resume = resume_;
    p->stop = stop;
    p->on_command = on_command;
    p->destroy = destroy;
    return p;
}

static const assist_entry entry = {
    .struct_size = ENTRY_SIZE,
    .abi = {ABI_MAJOR, ABI_MINOR, 0, 0},
    .id = PLUGIN_ID,
    .version = PLUGIN_VERSION,
    .init = init,
    .deinit = deinit,
    .create = create,
};

#ifndef NO_ENTRY
ASSIST_EXPORT const assist_entry *assist_plugin_entry(void) { return &entry; }
#else
const assist_entry *other_symbol(void);
ASSIST_EXPORT const assist_entry *other_symbol(void) { return &entry; }
#endif
