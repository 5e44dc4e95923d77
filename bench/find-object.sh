#!/usr/bin/env bash
# find-object figures (issue 7): detection frames/s at 416 on 2 cores beside OpenCV's Python DNN on the same
# frames, and frame-to-cue latency through the host, in one run. Release build; fetches the models and
# the test photos it needs (as make models and make test-photos do).
set -euo pipefail
cd "$(dirname "$0")/.."
share/assist/setup/fetch-models.sh >/dev/null
# The things taught in the second part are cut from scikit-image's sample photos (make test-photos).
scripts/fetch-test-photos.sh >/dev/null
swift build -c release --product FindObjectBench >/dev/null
swift build -c release --product assist >/dev/null
swift build -c release --product AssistFindObject >/dev/null
swift build -c release --product AssistDetector >/dev/null
swift build -c release --product AssistVideoReader >/dev/null
swift build -c release --product AssistMedia >/dev/null
.build/release/FindObjectBench
# Issue 39: a person's own things taught from videos and found in other scenes, with the two baselines.
/usr/bin/python3 bench/find_things_bench.py 2> >(grep -v "libpng warning" >&2)
