#!/usr/bin/env bash
# Issue 17's figures, release build, the same plugin (bench/helper/bench_plugin.c) in process and in a helper
# process in the same run: service-call round trips (settings get, storage exec of one row, speak), capture
# to on_frame latency at 1080p 30 fps (one subscriber), CPU for the frames, helper start-up and memory.
# Issue 34's: the helper with its sandbox (the default) against one without (plugins.sandbox = false): start-up
# and service-call round trips.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-9}
swift build -c release --product assist >/dev/null
swift build -c release --product AssistMedia >/dev/null  # the camera's picture conversion
assist=$PWD/.build/release/assist
work=$(mktemp -d /tmp/assist-helper-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/plugins/bench" "$work/cfg/assist"
cc -std=c99 -O2 -fPIC -shared -fvisibility=hidden -I Sources/PluginAPI/include bench/helper/bench_plugin.c \
  -o "$work/plugins/bench/libbench.so"
cat >"$work/plugins/bench/manifest.json" <<JSON
{"id": "org.example.bench", "name": "Bench", "version": "1.0.0", "library": "libbench.so", "abi": "1.0",
 "min_host": "1.0.0", "last_tested_host": "1.0.0", "mode": "foreground",
 "services": {"required": ["assist.dialog/1", "assist.storage/1", "assist.speech/1", "assist.camera/1"]},
 "devices": ["camera"]}
JSON
ffmpeg -loglevel error -y -f lavfi -i testsrc=size=1920x1080:rate=30 -t 6 -pix_fmt yuv420p "$work/clip.mp4"

# $1: process (sandboxed), unsandboxed or in-process; the rest: assist arguments.
run() {
  local where=$1
  shift
  case "$where" in
    in-process) echo 'plugins.in-process = ["org.example.bench"]' >"$work/cfg/assist/config.toml" ;;
    unsandboxed) echo 'plugins.sandbox = false' >"$work/cfg/assist/config.toml" ;;
    *) : >"$work/cfg/assist/config.toml" ;;
  esac
  XDG_CONFIG_HOME="$work/cfg" /usr/bin/time -o "$work/time-$where" -f '%U %S' "$assist" run --no-speech --data-dir "$work/data-$where" --plugin-dir "$work/plugins" "$@"
}
now_us() { echo $(( $(date +%s%N) / 1000 )); }
median() { sort -n | awk '{a[NR]=$1} END {printf "%.1f", a[int((NR+1)/2)]}'; }

echo "plugin in process vs in a helper process, release build, $(nproc) cores"
for where in in-process unsandboxed process; do
  run "$where" org.example.bench calls 2>/dev/null | grep '^calls' | sed "s/^/$where: /"
done
for where in in-process process; do
  run "$where" --camera "video:$work/clip.mp4" org.example.bench frames-kept | grep '^frames' \
    | sed "s/^frames/frames each kept, the one before released,/; s/^/$where: /"
done
for where in in-process process; do
  run "$where" --camera "video:$work/clip.mp4" org.example.bench frames | grep '^frames' | sed "s/^/$where: /"
  awk -v w="$where" '{printf "%s: CPU for the 90 frames and start-up %.2f s (user+system, both processes)\n", w, $1 + $2}' \
    "$work/time-$where"
done
# Interleaved, so a machine that slows down during the run weighs on each alike.
declare -A starts times
for _ in $(seq "$RUNS"); do
  for where in in-process unsandboxed process; do
    start=$(now_us); run "$where" org.example.bench noop >/dev/null 2>&1
    times[$where]+="$(( $(now_us) - start )) "
  done
done
for where in in-process unsandboxed process; do
  starts[$where]=$(printf '%s\n' ${times[$where]} | median)
done
awk -v a="${starts[in-process]}" -v b="${starts[process]}" 'BEGIN {
  printf "assist run of a plugin that finishes at once, median: in process %.1f ms, in a helper %.1f ms; helper start-up %.1f ms (goal <= 50)\n", a / 1000, b / 1000, (b - a) / 1000 }'
awk -v a="${starts[unsandboxed]}" -v b="${starts[process]}" 'BEGIN {
  printf "the sandbox: helper start-up median %.1f ms without, %.1f ms with; it adds %.1f ms (goal <= 10)\n", a / 1000, b / 1000, (b - a) / 1000 }'
