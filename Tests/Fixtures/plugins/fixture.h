/*
 * fixture.h - what the service-driving test plugins share: trivial init/deinit, an instance with a zeroed
 * state of the plugin's own, and the one exported entry. A plugin defines `start`, `setup` (fills its state
 * once the instance exists) and optionally `on_frame`, then writes ASSIST_FIXTURE_ENTRY("org.test.x").
 */
#ifndef ASSIST_TEST_FIXTURE_H
#define ASSIST_TEST_FIXTURE_H

#include "assist_plugin.h"

#include <stdlib.h>

#define ASSIST_FIXTURE_ENTRY(ID, STATE, ON_FRAME)                                                          \
    static void fixture_stop(assist_plugin *p) { (void)p; }                                                \
    static void fixture_destroy(assist_plugin *p) {                                                        \
        free(p->plugin_data);                                                                              \
        free(p);                                                                                           \
    }                                                                                                      \
    static bool fixture_init(const assist_host *host) {                                                    \
        (void)host;                                                                                        \
        return true;                                                                                       \
    }                                                                                                      \
    static void fixture_deinit(void) {}                                                                    \
    static assist_plugin *fixture_create(const assist_host *host, char **err) {                            \
        assist_plugin *p = calloc(1, sizeof *p);                                                           \
        STATE *s = calloc(1, sizeof *s);                                                                   \
        (void)err;                                                                                         \
        if (p == NULL || s == NULL) {                                                                      \
            free(p);                                                                                       \
            free(s);                                                                                       \
            return NULL;                                                                                   \
        }                                                                                                  \
        setup(s, host);                                                                                    \
        p->struct_size = sizeof *p;                                                                        \
        p->plugin_data = s;                                                                                \
        p->start = start;                                                                                  \
        p->stop = fixture_stop;                                                                            \
        p->on_frame = ON_FRAME;                                                                            \
        p->destroy = fixture_destroy;                                                                      \
        return p;                                                                                          \
    }                                                                                                      \
    static const assist_entry fixture_entry = {                                                            \
        .struct_size = sizeof(assist_entry),                                                               \
        .abi = {ASSIST_ABI_MAJOR, ASSIST_ABI_MINOR, 0, 0},                                                 \
        .id = ID,                                                                                          \
        .version = "1.0.0",                                                                                \
        .init = fixture_init,                                                                              \
        .deinit = fixture_deinit,                                                                          \
        .create = fixture_create,                                                                          \
    };                                                                                                     \
    ASSIST_EXPORT const assist_entry *assist_plugin_entry(void) { return &fixture_entry; }

#endif
