#!/usr/bin/env bash
# The builds CI's later steps need (the 1.1 copy of abi-compat, the AddressSanitizer and ThreadSanitizer builds,
# the fuzz build), made while `make test` runs: its tests spend much of their time waiting on the programs they
# start (a third to half of two cores idle on 2026-12-03), and these builds took some 13 of CI's 57 minutes one
# after the other. They run at idle priority (SCHED_IDLE, nice 19, idle I/O), so they take only time the tests
# leave: a test's timing is not theirs to change. Each later step runs the same build command, which finds
# nothing to do, or waits for the one under way here (SwiftPM's lock, abi-compat's own).
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
build "the ThreadSanitizer build" scripts/memcheck.sh tsan-build
build "the fuzz build" FUZZ_BUILD_ONLY=1 scripts/fuzz.sh
exit $status
