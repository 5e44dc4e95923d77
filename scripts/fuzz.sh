#!/usr/bin/env bash
# make fuzz: builds the fuzz targets with libFuzzer and AddressSanitizer (.build-fuzz) and runs each for
# FUZZ_SECONDS (default 60; CI uses a few), starting from the seed corpus in Tests/Fuzz/corpus/<target>.
# Prints executions, executions per second, coverage and crashes per target. New interesting inputs collect
# in .build-fuzz/corpus/<target> (not committed); a crash is saved in .build-fuzz/crashes/ and the run fails:
# copy the file into Tests/Fuzz/regressions/<target>/ once fixed, and the test suite replays it for ever.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-60}
targets=${FUZZ_TARGETS:-"manifest config journal outbox-job multipart elf keys phrases picture photo plain-text page-geometry survey-definition media-header media-details study-text package helper-protocol services wav barcode view-message"}
scratch=.build-fuzz

# libFuzzer's own main must win, so the replay driver's entry point is renamed; lld links what gold cannot.
# -sanitize=fuzzer alone left most modules without coverage counters in a clean build (167 edges instead of
# some 50000), so the coverage is asked for explicitly and checked below.
swift build --product AssistFuzz --scratch-path "$scratch" --sanitize=fuzzer --sanitize=address \
  -Xswiftc -sanitize-coverage=edge,inline-8bit-counters,pc-table,trace-cmp -Xswiftc -use-ld=lld -Xswiftc -Xfrontend -Xswiftc -entry-point-function-name \
  -Xswiftc -Xfrontend -Xswiftc assist_fuzz_replay 2>&1 | grep -E "error|Compiling|Build complete" | grep -v Compiling || true
fuzzer="$scratch/debug/AssistFuzz"
[ -x "$fuzzer" ] || { echo "The fuzz build failed; see the output above."; exit 1; }
size=$(readelf -S -W "$fuzzer" | awk '$2 == "__sancov_cntrs" { print $6 }')
counters=$((16#${size:-0}))
if [ "$counters" -lt 10000 ]; then
  echo "The fuzz build has only $counters coverage counters: Assist's modules are not instrumented."; exit 1
fi
# FUZZ_BUILD_ONLY=1: the build alone.
[ "${FUZZ_BUILD_ONLY:-0}" = 1 ] && exit 0
# The picture target decodes through libAssistMedia.so from the ordinary build.
swift build --product AssistMedia >/dev/null
export ASSIST_MEDIA_LIBRARY="$PWD/.build/debug/libAssistMedia.so"
export ASAN_OPTIONS=detect_leaks=0
# The targets that read paths write each input to a scratch folder of their process (assist-fuzz-PID, in the
# temporary folder); a fuzz run ends its processes by signal, so each run gets a temporary folder of its own,
# removed at the end, rather than leaving a folder per process in /tmp.
TMPDIR=$(mktemp -d "${TMPDIR:-/tmp}/assist-fuzz-run.XXXXXX")
export TMPDIR
trap 'rm -rf "$TMPDIR"' EXIT

printf '%-11s %10s %9s %6s %8s %s\n' target executions "exec/s" cov features crashes
failed=0
for target in $targets; do
  mkdir -p "$scratch/corpus/$target" "$scratch/crashes" "$scratch/logs"
  log="$scratch/logs/$target.log"
  rm -f "$scratch/crashes/$target-"*  # what an earlier run found is reported by that run
  set +e
  # services runs a host's real storage, whose statements may each move values of up to 64 MB: a budget of its
  # own (a statement past 0.2 s is ended by the host, so a hang still fails it).
  limit=1
  [ "$target" = services ] && limit=10
  ASSIST_FUZZ_TARGET=$target "$fuzzer" -max_total_time="$seconds" -timeout="$limit" -rss_limit_mb=2048 \
    -max_len=65536 -print_final_stats=1 -artifact_prefix="$scratch/crashes/$target-" \
    "$scratch/corpus/$target" "Tests/Fuzz/corpus/$target" >"$log" 2>&1
  status=$?
  set -e
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1 || true)
  speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1 || true)
  cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1 | cut -d' ' -f2 || true)
  ft=$(grep -oE 'ft: [0-9]+' "$log" | tail -1 | cut -d' ' -f2 || true)
  crashes=$(ls "$scratch/crashes" | grep -c "^$target-" || true)
  printf '%-11s %10s %9s %6s %8s %s\n' "$target" "${runs:-?}" "${speed:-?}" "${cov:-?}" "${ft:-?}" "$crashes"
  if [ "$status" -ne 0 ]; then
    failed=1
    echo "  $target failed (exit $status); the input is in $scratch/crashes/, the log in $log:"
    grep -E "ERROR|SUMMARY|Fatal error|timeout" "$log" | head -5 | sed 's/^/  /'
  fi
done
exit $failed
