#!/usr/bin/env bash
# read-text figures (issue 6): time to the first audio sample and character error rate on a photographed A4
# page, against `tesseract IMAGE - | espeak-ng --stdout` measured in the same run. Release build. libgomp
# reads OMP_THREAD_LIMIT only when it loads, so it is set here, before the benchmark starts.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product ReadTextBench >/dev/null
OMP_THREAD_LIMIT=1 .build/release/ReadTextBench
# Issue 37: the camera path, with the early start and without it, in the same run; issue 70: a PDF's first
# sentence against pdftotext and espeak-ng, and a scanned document opened again partway against opened afresh.
swift build -c release --product assist >/dev/null
swift build -c release --product AssistReadText >/dev/null
swift build -c release --product AssistMedia >/dev/null  # the camera's picture conversion
/usr/bin/python3 bench/read_text_camera_bench.py
/usr/bin/python3 bench/read_text_pdf_bench.py
/usr/bin/python3 bench/read_text_resume_bench.py
