#!/usr/bin/env bash
# Time from `assist plugins install` to the plugin's first spoken line in `assist run` (issue 19's figure),
# release build: the C example packed once, then, RUNS times in a fresh home, installed (`--yes`) and run.
# Prints medians of the install alone and of install plus the first line, and their ratios to
# `assist --version` (process start and the Swift runtime) measured in the same run.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-15}
swift build -c release --product assist >/dev/null
assist=$PWD/.build/release/assist
work=$(mktemp -d /tmp/assist-install-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
cc -std=c99 -O2 -fPIC -shared -fvisibility=hidden -I Sources/PluginAPI/include examples/c-hello/hello.c \
  -o "$work/libhello.so"
mkdir -p "$work/src" && cp examples/c-hello/manifest.json "$work/libhello.so" "$work/src/"
"$assist" plugins pack "$work/src" --output "$work" >/dev/null
package="$work/org.example.hello-1.0.0.assist-plugin"

now_us() { echo $(( $(date +%s%N) / 1000 )); }
median() { sort -n | awk '{a[NR]=$1} END {printf "%.1f", a[int((NR+1)/2)]/1000}'; }
versions=() installs=() firsts=()
for run in $(seq "$RUNS"); do
  home="$work/home-$run"
  mkdir -p "$home"
  start=$(now_us); HOME=$home "$assist" --version >/dev/null; versions+=($(( $(now_us) - start )))
  start=$(now_us)
  HOME=$home "$assist" plugins install --no-speech --yes --data-dir "$home/data" "$package" >/dev/null
  installed=$(now_us)
  # The first line the plugin says, read as it comes; the run then ends with no input (the safe default).
  HOME=$home "$assist" run --no-speech --data-dir "$home/data" hello </dev/null | head -n 1 >/dev/null || true
  first=$(now_us)
  installs+=($(( installed - start ))); firsts+=($(( first - start )))
done
baseline=$(printf '%s\n' "${versions[@]}" | median)
install=$(printf '%s\n' "${installs[@]}" | median)
first=$(printf '%s\n' "${firsts[@]}" | median)
ratio() { awk -v a="$1" -v b="$baseline" 'BEGIN {printf "%.1f", a / b}'; }
echo "plugin install, release build, median of $RUNS runs on $(nproc) cores"
echo "assist --version (baseline):                     $baseline ms"
echo "assist plugins install (checks, validator, swap): $install ms  (x$(ratio "$install") baseline)"
echo "install to the plugin's first line in assist run: $first ms  (x$(ratio "$first") baseline)"
