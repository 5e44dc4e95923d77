#!/usr/bin/env bash
# Camera figures (issue 3), release build:
#  1. the frame bus: host CPU per frame per subscriber, 1080p BGR24 to 5 matching subscribers, beside a bare
#     thread wake-up and one memcpy of the frame measured in the same run (bench/CameraBench);
#  2. capture-to-callback latency p50/p95 through the real V4L2 path (libv4l2 converting 1080p YUYV to
#     BGR24) against the fake device, 5 subscribers, beside the same run with the picture source (no V4L2).
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product CameraBench >/dev/null
swift build -c release --product assist >/dev/null
swift build -c release --product AssistMedia >/dev/null  # the camera's picture conversion
.build/release/CameraBench

work=$(mktemp -d /tmp/assist-camera-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
cc -std=gnu99 -O2 -shared -fPIC Tests/Fixtures/camera/fake_v4l2.c -o "$work/fake.so" -ldl -lpthread
ffmpeg -loglevel error -y -f lavfi -i testsrc=size=1920x1080:rate=30 -frames:v 8 -pix_fmt yuyv422 -f rawvideo "$work/frames.yuyv"
ffmpeg -loglevel error -y -f lavfi -i testsrc=size=1920x1080:rate=30 -frames:v 1 "$work/still.png"
export ASSIST_DATA_DIR="$work/data"
seconds=${SECONDS_PER_RUN:-5}
echo "capture to callback, 1080p, 5 subscribers, $seconds s:"
LD_PRELOAD="$work/fake.so" FAKE_V4L2_FRAMES="$work/frames.yuyv" FAKE_V4L2_WIDTH=1920 FAKE_V4L2_HEIGHT=1080 \
  .build/release/assist camera test --camera v4l2:/dev/video-fake0 --seconds "$seconds" --subscribers 5 \
  | sed 's/^/  v4l2 (fake device, YUYV): /'
.build/release/assist camera test --camera "image:$work/still.png" --camera-fps 30 --seconds "$seconds" --subscribers 5 \
  | sed 's/^/  picture source (baseline): /'
