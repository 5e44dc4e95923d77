#!/usr/bin/env bash
# The test suite as two `swift test` processes at once. The tests spend much of their time waiting on the
# programs they spawn (the host, ffmpeg, piper), and one process runs only as many tests at a time as there
# are cores: two halves keep two cores busy, and the suite ends in about three quarters of the time.
#
# Usage: scripts/test-halves.sh SCRATCH FIRST_HALF [swift test options...]
#   SCRATCH     the build folder (.build, .build-asan, ...), already built with --build-tests
#   FIRST_HALF  a regular expression for the test targets of the first half, e.g. '^(HostCLITests|Voice)\.';
#               the second half is every other test
# Each half's output is in SCRATCH/test-1.log and SCRATCH/test-2.log, both in SCRATCH/test.log. Printed at
# the end: each half's failures and its last line. Exits non-zero when either half fails.
set -uo pipefail
scratch=$1 first=$2
shift 2
limit=${TEST_HALF_TIMEOUT:-1200}
cd "$(dirname "$0")/.."
# --ignore-lock: both halves only read the build folder (--skip-build).
timeout "$limit" swift test --ignore-lock --skip-build --scratch-path "$scratch" "$@" --filter "$first" \
  >"$scratch/test-1.log" 2>&1 &
pid=$!
timeout "$limit" swift test --ignore-lock --skip-build --scratch-path "$scratch" "$@" --skip "$first" \
  >"$scratch/test-2.log" 2>&1
second=$?
wait "$pid"
first_status=$?
# A half that ends with status 0 must also have printed its summary. Once in the ASan lane a half ended with
# status 0 and its log stopped short of any result (not reproduced since): such a half is run again, alone,
# and fails if it still gives no summary, so a half is never counted as passed on its status alone.
summarised() { grep -qE "^✔ Test run with [0-9]+ tests? .*passed" "$scratch/test-$1.log"; }
if [ "$first_status" -eq 0 ] && ! summarised 1; then
  echo "half 1 ended without its summary; running it again"
  timeout "$limit" swift test --skip-build --scratch-path "$scratch" "$@" --filter "$first" >"$scratch/test-1.log" 2>&1
  first_status=$?
  summarised 1 || first_status=1
fi
if [ "$second" -eq 0 ] && ! summarised 2; then
  echo "half 2 ended without its summary; running it again"
  timeout "$limit" swift test --skip-build --scratch-path "$scratch" "$@" --skip "$first" >"$scratch/test-2.log" 2>&1
  second=$?
  summarised 2 || second=1
fi
cat "$scratch/test-1.log" "$scratch/test-2.log" >"$scratch/test.log"
for half in 1 2; do
  log=$scratch/test-$half.log
  grep -E "^✘ Test .*(recorded an issue|failed after)" "$log" | cut -c1-400 | head -n 40
  echo "half $half: $(grep -E "Test run with|error:" "$log" | tail -n 1)"
done
[ "$first_status" -eq 0 ] && [ "$second" -eq 0 ] || { echo "Failures above; whole logs: $scratch/test-1.log and $scratch/test-2.log"; exit 1; }
