#!/usr/bin/env bash
# The builds of the steps right after `make test` (abi-compat's 1.1 copy, the AddressSanitizer build), made while
# `make test` runs: its tests spend much of their time waiting on the programs they start (two cores 72 % busy
# over its halves on 2026-12-03), and these builds took about 7 of CI's 57 minutes one after the other. They run
# at idle priority (SCHED_IDLE, nice 19, idle I/O), so they take only time the tests leave. Each later step runs
# the same build command, which finds nothing to do, or waits for the one under way here (SwiftPM's lock,
# abi-compat's own). The ThreadSanitizer and fuzz builds are not made ahead: made during the ASan lane's tests, in
# a rehearsal, they made those tests 170 s slower (memory and caches are shared whatever the priority) for 250 s
# of build saved, and a frame-timing test failed there once.
# Usage: scripts/ci-prebuild.sh LOG   (.ci/run starts it in the background; each build's time is in LOG)
set -uo pipefail
cd "$(dirname "$0")/.."
log=$1
: >"$log"
# chrt and ionice are util-linux's; a system that refuses idle scheduling still gets nice 19.
idle=(nice -n 19)
chrt --idle 0 true 2>/dev/null && idle=(chrt --idle 0 "${idle[@]}")
ionice -c 3 true 2>/dev/null && idle=(ionice -c 3 "${idle[@]}")
status=0
build() {
  local name=$1 start=$SECONDS
  shift
  if "${idle[@]}" env "$@" >>"$log" 2>&1; then
    echo "ci-prebuild: $name built ahead in $((SECONDS - start)) s" >>"$log"
  else
    echo "ci-prebuild: $name failed ahead (its own step builds it again and says why)" >>"$log"
    status=1
  fi
}
# In the order the steps need them.
build "abi-compat's 1.1 copy" ABI_COMPAT_BUILD_ONLY=1 scripts/abi-compat.sh
build "the AddressSanitizer build" scripts/memcheck.sh asan-build
exit $status
