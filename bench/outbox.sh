#!/usr/bin/env bash
# Outbox figures (issue 5): 10k small jobs through the outbox against the bare sender, and resident memory
# during a 1 GB streamed upload, in the same run. Release. JOBS and UPLOAD_MB change the sizes.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product OutboxBench >/dev/null
swift build -c release --product assist >/dev/null
.build/release/OutboxBench
