#!/usr/bin/env bash
# Audio figures (issue 4): speak() to first sample, cue onset, continuous cue CPU, each beside espeak-ng's own
# C API measured in the same run. Release build; RUNS sets the sample count (default 31).
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product AudioBench >/dev/null
.build/release/AudioBench
