/*
 * assist_bridge.h - a plugin in its own helper process (issue 17), for the host.
 *
 * The host spawns `assist _plugin-helper FD`, which opens the plugin library and gives it the very same C
 * ABI: each service call travels to the host over a socket and is served there by the real service tables,
 * on the matching thread; the host's calls into the plugin (entry, instance, callbacks) travel the other
 * way. Camera frames travel in shared memory (memfd). If the helper dies, hangs or breaks the protocol,
 * the host's side of the plugin answers every call at once and the death handler hears why.
 */
#ifndef ASSIST_BRIDGE_H
#define ASSIST_BRIDGE_H

#include "assist_plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct assist_bridge assist_bridge;

/** Called once, on a thread of the bridge, when the helper is gone: `description` says how ("crashed in
    start (SIGSEGV)", "did not answer within 5000 ms in on_command"), `expected` is true after a clean end.
    The bridge stays valid (calls on it return at once). */
typedef void (*assist_bridge_death_cb)(void *user, const char *description, bool expected);

/** Starts `executable` as the helper of the plugin library `library`, serving it with `host` (the plugin's
    own table, which stays valid as long as the bridge). `timeout_ms` bounds how long one call waits for the
    helper with no message at all (0: 5000). Returns NULL with a malloc'd `*err` when it cannot start or the
    library cannot be opened there. */
assist_bridge *assist_bridge_spawn(const char *executable, const char *library, const assist_host *host,
                                   int32_t timeout_ms, assist_bridge_death_cb on_death, void *user, char **err);

/** The plugin's entry as the helper read it: its init, deinit and create travel to the helper. Valid as long
    as the process. */
const assist_entry *assist_bridge_entry(assist_bridge *bridge);

/** The helper's process id. */
int32_t assist_bridge_pid(const assist_bridge *bridge);

/** False once the helper is gone. */
bool assist_bridge_alive(assist_bridge *bridge);

/* How many messages the host has read from the helper (calls, replies and notes; not the opening of lanes):
   what a frame or a call costs, counted. */
uint64_t assist_bridge_messages(assist_bridge *bridge);

/** Ends the helper now (its whole process group), recording `why`; the death handler runs. */
void assist_bridge_kill(assist_bridge *bridge, const char *why);

/** Ends the helper after the plugin was destroyed: asks it to leave, waits up to `wait_ms`, then kills it.
    Expected, so the death handler is told `expected`. */
void assist_bridge_close(assist_bridge *bridge, int32_t wait_ms);

/** Waits up to `wait_ms` for the helper's end to be known; true with its description in `out` (as the death
    handler hears it), false when it is still running. */
bool assist_bridge_wait_end(assist_bridge *bridge, int32_t wait_ms, char *out, size_t cap);

/** The fuzz target "helper-protocol": decodes one message of arbitrary bytes as the other side's. */
void assist_bridge_fuzz_decode(const uint8_t *data, size_t size);
/** The same target's second half: one request of arbitrary bytes read by the generated serving of the
    service operation its header names, as the host reads a helper's call, against a host that serves no
    table (every argument is read; nothing is called). */
void assist_bridge_fuzz_serve(const uint8_t *data, size_t size);

/** The helper process's main: serves the host on descriptor `fd`. Returns the exit status. */
int assist_bridge_helper_main(int fd);

#ifdef __cplusplus
}
#endif

#endif
