/* The helper's sandbox (issue 34, docs/security.md): set up by the helper on its one thread, before the
   channel's threads start and before the plugin's library is opened, so every thread the plugin ever runs on
   is inside it. Private to CPluginBridge. */
#ifndef ASSIST_BRIDGE_SANDBOX_H
#define ASSIST_BRIDGE_SANDBOX_H

#include "assist_bridge.h"
#include "ops.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What the host asks for, read from the helper's command line (`--sandbox --read P --write P --memory-mb N
   --files N --require`). */
typedef struct {
    bool enabled;
    bool required; /* a sandbox that cannot be set up in full refuses the plugin */
    const char *read[32];
    size_t reads;
    const char *write[8];
    size_t writes;
    uint64_t memory_mb; /* 0: no limit */
    uint64_t open_files;
} sandbox_policy;

/* The layers it sets up and the kinds of calls it refuses are assist_bridge.h's ASSIST_SANDBOX_*. */

/* Reads the policy from `argv` (after the descriptor); false with `why` on a word it does not know. */
BRIDGE_PRIVATE bool sandbox_parse(int argc, char **argv, sandbox_policy *policy, char *why, size_t cap);

/* Sets up what `policy` asks for, as far as this kernel allows; the layers set up, with `note` saying what is
   missing ("" when nothing is). Must run while the process has one thread. */
BRIDGE_PRIVATE uint32_t sandbox_apply(const sandbox_policy *policy, char *note, size_t cap);

/* The kinds of calls refused so far (ASSIST_SANDBOX_DENIED_*). Any thread. */
BRIDGE_PRIVATE uint32_t sandbox_denied(void);

#endif
