#!/usr/bin/env bash
# Cold start of `assist plugins list` and of `assist run` to the plugin's first callback, release build,
# with every plugin installed in a temporary prefix. Prints medians over RUNS and the ratio to
# `assist --version` (process start plus the Swift runtime) measured in the same run. Goal: under 100 ms.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-31}
swift build -c release >/dev/null
prefix=$(mktemp -d /tmp/assist-bench.XXXXXX)
trap 'rm -rf "$prefix"' EXIT
make -s install PREFIX="$prefix" CONFIG=release >/dev/null
export ASSIST_DATA_DIR="$prefix/data" HOME="$prefix"
assist="$prefix/bin/assist"

median_ms() {  # median wall time of a command, in ms, over RUNS runs
  local times=()
  for _ in $(seq "$RUNS"); do
    local start end
    start=$(date +%s%N)
    "$@" >/dev/null 2>&1 </dev/null || true
    end=$(date +%s%N)
    times+=($(( (end - start) / 1000 )))
  done
  printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.1f", a[int((NR+1)/2)]/1000}'
}

"$assist" plugins list >/dev/null  # warm the page cache once, as a user's second launch would be
baseline=$(median_ms "$assist" --version)
list=$(median_ms "$assist" plugins list)
run=$(median_ms "$assist" run --no-speech assist.clock)
ratio() { awk -v a="$1" -v b="$baseline" 'BEGIN {printf "%.2f", a / b}'; }
echo "cold start, release build, median of $RUNS runs on $(nproc) cores"
echo "assist --version (baseline):            $baseline ms"
echo "assist plugins list:                    $list ms  (x$(ratio "$list") baseline; goal < 100 ms)"
echo "assist run assist.clock to its speech:  $run ms  (x$(ratio "$run") baseline; goal < 30 ms)"
