#!/usr/bin/env bash
# survey figures (issue 15): answer key to the next question's first speech sample beside the speech service
# speaking the same text, start tone's end to capture, and a whole scripted session to "Sent.". Release build
# of the benchmark and of the plugin library it loads; RUNS sets the sample count (default 21).
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product AssistSurvey >/dev/null
swift build -c release --product SurveyBench >/dev/null
.build/release/SurveyBench
