#!/usr/bin/env bash
# photo-sensor figures (issue 16), release build, in a temporary folder: 10,000 new pictures dropped into a
# watched tree (100 folders) until all are recorded, beside `find | xargs sha256sum` on the same files; a
# catch-up of the 10,000 unchanged files at start (goal <= 1 s, stat only); CPU while idle with them watched
# (goal about 0); the sensor's resident memory beyond the host's own (goal <= 30 MB). FILES and RUNS change
# the sizes (defaults 10000 and 3).
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product assist >/dev/null
swift build -c release --product AssistPhotoSensor >/dev/null
exec python3 bench/photo_sensor_bench.py .build/release/assist
