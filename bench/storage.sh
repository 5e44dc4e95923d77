#!/usr/bin/env bash
# Storage figures. Release builds.
# Issue 5: 100k inserts through assist.storage/1 against GRDB directly, same run (StorageBench).
# Issue 68: the services inside the grant. The plugin bench/helper/bench_plugin.c, in a sandboxed helper, times
# 2000 one-row SELECTs through assist.storage/1 (p50, p95) and 200 input.register_command calls, on this build
# and on BASELINE (default 38b13c0, main before the host confined a plugin's SQL and indexed its commands),
# interleaved RUNS times (default 5); medians of each run's figures. The baseline is built once from
# `git archive` in .build-baseline/<commit> (several minutes the first time; SKIP_BASELINE=1 leaves it out).
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-5}
BASELINE=${BASELINE:-38b13c0}
swift build -c release --product StorageBench >/dev/null
.build/release/StorageBench

swift build -c release --product assist >/dev/null
declare -A hosts=([now]="$PWD/.build/release/assist")
if [ -z "${SKIP_BASELINE:-}" ]; then
  commit=$(git rev-parse --short "$BASELINE")
  base=.build-baseline/$commit
  if [ ! -x "$base/build/release/assist" ]; then
    echo "Building the baseline $commit in $base (once) ..."
    rm -rf "$base/src" && mkdir -p "$base/src"
    git archive "$commit" | tar -x -C "$base/src"
    swift build -c release --product assist --package-path "$base/src" --scratch-path "$PWD/$base/build" >/dev/null
  fi
  hosts[before]="$PWD/$base/build/release/assist"
fi

work=$(mktemp -d /tmp/assist-storage-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/plugins/bench"
cc -std=c99 -O2 -fPIC -shared -fvisibility=hidden -I Sources/PluginAPI/include bench/helper/bench_plugin.c \
  -o "$work/plugins/bench/libbench.so"
cat >"$work/plugins/bench/manifest.json" <<JSON
{"id": "org.example.bench", "name": "Bench", "version": "1.0.0", "library": "libbench.so", "abi": "1.0",
 "min_host": "1.0.0", "last_tested_host": "1.0.0", "mode": "foreground",
 "services": {"required": ["assist.dialog/1", "assist.storage/1", "assist.speech/1", "assist.input/1"]}}
JSON
median() { sort -n | awk '{a[NR]=$1} END {printf "%.1f", a[int((NR+1)/2)]}'; }
declare -A p50 p95 commands
for _ in $(seq "$RUNS"); do
  for which in "${!hosts[@]}"; do
    line=$("${hosts[$which]}" run --no-speech --data-dir "$work/data-$which" --plugin-dir "$work/plugins" \
      org.example.bench calls 2>/dev/null | grep '^storage us' || true)
    [ -n "$line" ] || { echo "The $which host did not run the bench plugin."; exit 1; }
    read -r a b c <<<"$(sed -E 's/.*p50 ([0-9.]+), p95 ([0-9.]+); 200 commands ([-0-9.]+) ms/\1 \2 \3/' <<<"$line")"
    p50[$which]+="$a "; p95[$which]+="$b "; commands[$which]+="$c "
  done
done
for which in now before; do
  [ -n "${hosts[$which]:-}" ] || continue
  printf '%s (%s): one-row SELECT from a helper p50 %s us, p95 %s us; 200 register_command %s ms\n' "$which" \
    "${hosts[$which]}" "$(printf '%s\n' ${p50[$which]} | median)" "$(printf '%s\n' ${p95[$which]} | median)" \
    "$(printf '%s\n' ${commands[$which]} | median)"
done
if [ -n "${hosts[before]:-}" ]; then
  awk -v a="$(printf '%s\n' ${p50[before]} | median)" -v b="$(printf '%s\n' ${p50[now]} | median)" \
    -v c="$(printf '%s\n' ${p95[before]} | median)" -v d="$(printf '%s\n' ${p95[now]} | median)" 'BEGIN {
    printf "confined storage against the baseline: p50 x%.2f, p95 x%.2f (goal: at most x2, and p50 under 50 us)\n", b / a, d / c }'
fi
