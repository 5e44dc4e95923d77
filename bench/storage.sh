#!/usr/bin/env bash
# Storage figures (issue 5): 100k inserts through assist.storage/1 against GRDB directly, same run. Release.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product StorageBench >/dev/null
.build/release/StorageBench
