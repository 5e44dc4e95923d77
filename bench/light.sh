#!/usr/bin/env bash
# light's figures (issue 75): a frame to its tone's new pitch, p50 and p95, beside the same pitch handed to the cue
# player directly (bench/LightBench), and the pitch heard at 12 grey levels, which must rise with each.
# Release build; TRANSITIONS sets how many changes between a dark and a bright room (default 200).
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product LightBench >/dev/null
LOAD=" (load $(cut -d' ' -f1 /proc/loadavg))" .build/release/LightBench
