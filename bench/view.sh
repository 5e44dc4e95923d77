#!/usr/bin/env bash
# The low-vision view's figures (issue 74): first paint, a spoken word to its mark, a key on the page to its
# answer, the preview's CPU and the view's memory, each beside a baseline measured in the same run
# (bench/view_bench.py). Release build; Debian's chromium and Playwright from `make view-test`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/test-view.sh
swift build -c release >/dev/null  # the host and every first-party plugin
page=.build/view-bench-page.png
[ -f "$page" ] || convert -size 1600x900 xc:white -font DejaVu-Sans -pointsize 48 -fill black \
  -annotate +100+200 "Call Dr. Smith tomorrow morning. He is in." \
  -annotate +100+300 "Reading aloud helps people who cannot see." "$page"
.build/view-test/bin/python bench/view_bench.py .build/release/assist "$page"
