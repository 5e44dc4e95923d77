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

/** Called on a thread of the bridge when the helper says its sandbox refused calls of new kinds: `kinds` is
    every kind refused so far (ASSIST_SANDBOX_DENIED_*), `fresh` those not told before. */
typedef void (*assist_bridge_refused_cb)(void *user, uint32_t kinds, uint32_t fresh);

/* The kinds of calls a helper's sandbox refuses (docs/security.md). */
#define ASSIST_SANDBOX_DENIED_NETWORK 1u /* a socket or connection of its own */
#define ASSIST_SANDBOX_DENIED_PROGRAM 2u /* another program or process: exec, fork */
#define ASSIST_SANDBOX_DENIED_PROCESS 4u /* another process's memory, signals or limits: ptrace, kill */
#define ASSIST_SANDBOX_DENIED_SYSTEM 8u  /* mounts, kernel modules, keys, namespaces, io_uring, terminal input */

/* The layers of a helper's sandbox (assist_bridge_sandbox); the Landlock ABI is in bits 8-15. */
#define ASSIST_SANDBOX_NO_NEW_PRIVS 1u
#define ASSIST_SANDBOX_LANDLOCK 2u
#define ASSIST_SANDBOX_SECCOMP 4u
#define ASSIST_SANDBOX_RLIMITS 8u
#define ASSIST_SANDBOX_NO_CAPABILITIES 16u
#define ASSIST_SANDBOX_FULL 0x1fu

/** Starts `executable` as the helper of the plugin library `library`, serving it with `host` (the plugin's
    own table, which stays valid as long as the bridge). `helper_args` (NULL-terminated, may be NULL) follow
    the descriptor on the helper's command line: its sandbox. `environment` (NULL-terminated; NULL: the
    host's) is the helper's environment. `timeout_ms` bounds how long one call waits for the helper with no
    message at all (0: 5000). `on_refused` (may be NULL) hears what the sandbox refused. Returns NULL with a
    malloc'd `*err` when it cannot start or the library cannot be opened there. */
assist_bridge *assist_bridge_spawn(const char *executable, const char *library, const assist_host *host,
                                   const char *const *helper_args, const char *const *environment,
                                   int32_t timeout_ms, assist_bridge_death_cb on_death,
                                   assist_bridge_refused_cb on_refused, void *user, char **err);

/** The helper's sandbox as it set it up: its layers (ASSIST_SANDBOX_*), and in `note` what is missing ("" when
    nothing is). */
uint32_t assist_bridge_sandbox(assist_bridge *bridge, char *note, size_t cap);

/** The sandbox this kernel can give a helper (its layers), with `note` naming what it lacks ("" when nothing). */
uint32_t assist_sandbox_probe(char *note, size_t cap);

/** Asks the helper now which kinds of calls its sandbox refused; `on_refused` hears the new ones. False when it
    did not answer. */
bool assist_bridge_check_refused(assist_bridge *bridge);

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

/** The helper process's main: sets up the sandbox `argv` asks for (`--sandbox --read P --write P --memory-mb N
    --files N --require`, docs/security.md), then serves the host on descriptor `fd`. Returns the exit status. */
int assist_bridge_helper_main(int fd, int argc, char **argv);

#ifdef __cplusplus
}
#endif

#endif
