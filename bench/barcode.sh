#!/usr/bin/env bash
# barcode figures (issue 75): read rate, false codes and time per 1280 x 720 frame on 300 pictures made here
# (bench/barcode_set.py, with zint and ImageMagick), beside Debian's zbarimg on the same files. Release build.
set -euo pipefail
cd "$(dirname "$0")/.."
set_dir=.build/barcode-set
[ -f "$set_dir/truth.tsv" ] || /usr/bin/python3 bench/barcode_set.py "$set_dir"
swift build -c release --product BarcodeBench >/dev/null
.build/release/BarcodeBench "$set_dir"
# From the camera: a steady code's first reading, in whole runs of the release host and plugin.
swift build -c release --product assist >/dev/null
swift build -c release --product AssistBarcode >/dev/null
/usr/bin/python3 bench/barcode_camera_bench.py "$set_dir"
