/*
 * bridge_probe.h - a host made for one check (issue 30): every versioned struct crosses a helper process
 * whole, both ways, a field added in a newer minor version too (scripts/abi-compat.sh runs it against a
 * simulated ABI 1.1).
 */
#ifndef ASSIST_BRIDGE_PROBE_H
#define ASSIST_BRIDGE_PROBE_H

#include <stddef.h>

/* Runs the plugin `library` (Tests/Fixtures/plugins/whole_structs_plugin.c, built) in a helper process of
   `assist`, against a host whose services record every struct they receive and send one of each back, and
   compares each field. Returns how many structs arrived changed; `report` (cap bytes) holds a line for each
   struct checked: "<what> whole" or "<what> broken: <why>". */
int bridge_probe_run(const char *assist, const char *library, char *report, size_t cap);

#endif
