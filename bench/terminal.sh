#!/usr/bin/env bash
# Terminal figures (issue 31): a key typed on a pseudo-terminal to the first sample of its spoken answer,
# through the console, dispatcher, dialogs, speech and mixer, beside the speech service speaking directly.
# After 20 stray keys (issue 72), the answer to the next key against the same key alone.
# Release build; RUNS sets the sample count (default 21).
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product TerminalBench >/dev/null
.build/release/TerminalBench
