#!/usr/bin/env bash
# collect-videos figures (issue 18), release build: a clip filmed from a 1920x1080 30 fps camera (the video
# camera source, cropped to 1080x1080 by the camera service) and encoded to H.264 in fragmented MP4 by the
# plugin, beside ffmpeg decoding the same frames, cropping them and encoding with libx264 at the same preset.
# Prints CPU seconds per clip second (real-time factor = clip seconds / CPU seconds), frames dropped and file
# size per second. SECONDS_PER_CLIP (default 10) and RUNS (default 3) change the sizes.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${SECONDS_PER_CLIP:-10}
runs=${RUNS:-3}
swift build -c release --product assist >/dev/null
swift build -c release --product AssistMedia >/dev/null  # the camera's picture conversion
swift build -c release --product AssistCollectVideos >/dev/null
work=$(mktemp -d /tmp/assist-video-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
ffmpeg -v error -y -f lavfi -i "testsrc2=size=1920x1080:rate=30" -t $((seconds + 2)) -pix_fmt yuv420p "$work/camera.mp4"
server_script=../shared/orbit-server/orbit-server.sh
cat >"$work/config.toml" <<TOML
[collect-videos]
server-url = "http://127.0.0.1:9/phasetwo/"
app-credential = "Basic unused"
contact = "bench"
TOML
assist=(.build/release/assist run collect-videos --no-speech --data-dir "$work/data" --config "$work/config.toml")
"${assist[@]}" thing add "Bench thing" >/dev/null
ours=() theirs=() frames=() sizes=()
for run in $(seq "$runs"); do
  slot=$(( (run - 1) % 5 + 1 ))
  /usr/bin/time -f "%U %S" -o "$work/time" "${assist[@]}" record Bench thing --kind training --slot "$slot" \
    --seconds "$seconds" --camera "video:$work/camera.mp4" >/dev/null
  ours+=("$(awk '{print $1 + $2}' "$work/time")")
  clip=$(ls -t "$work"/data/plugins/assist.collect-videos/media/videos/*.mp4 | head -1)
  frames+=("$(ffprobe -v error -count_frames -select_streams v -show_entries stream=nb_read_frames -of csv=p=0 "$clip")")
  sizes+=("$(stat -c %s "$clip")")
  /usr/bin/time -f "%U %S" -o "$work/time" ffmpeg -v error -y -i "$work/camera.mp4" -t "$seconds" \
    -vf "crop=1080:1080" -an -c:v libx264 -preset veryfast -pix_fmt yuv420p \
    -movflags frag_keyframe+empty_moov+default_base_moof "$work/baseline.mp4"
  theirs+=("$(awk '{print $1 + $2}' "$work/time")")
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
ours_cpu=$(median "${ours[@]}")
theirs_cpu=$(median "${theirs[@]}")
kept=$(median "${frames[@]}")
size=$(median "${sizes[@]}")
expected=$((seconds * 30))
awk -v s="$seconds" -v o="$ours_cpu" -v t="$theirs_cpu" -v k="$kept" -v e="$expected" -v z="$size" -v r="$runs" 'BEGIN {
  printf "collect-videos benchmark: %d s clips, 1080x1080 from a 1920x1080 30 fps camera, libx264 veryfast, medians of %d runs, release build\n", s, r
  printf "  Assist (camera service + plugin encoder): %.2f CPU s for %d s = real-time factor %.2f (goal >= 1.5), %.0f %% of one core\n", o, s, s / o, 100 * o / s
  printf "  ffmpeg decode + crop + libx264 on the same frames: %.2f CPU s = real-time factor %.2f; Assist takes %.2fx its CPU\n", t, s / t, o / t
  printf "  frames kept: %d of %d (%d dropped; goal 0)\n", k, e, e - k
  printf "  file size: %.0f kB per second\n", z / s / 1024
}'
