#!/usr/bin/env bash
# Test photos for the detector: scikit-image's coffee.png and chelsea.png (CC0), taken from Debian's
# python3-skimage package without installing it (apt-get download, then only the two files extracted) and
# checked by SHA-256. Idempotent. Target: .build/test-photos (or $1).
set -euo pipefail
cd "$(dirname "$0")/.."
target="${1:-.build/test-photos}"
declare -A sums=(
  [coffee.png]=cc02f8ca188b167c775a7101b5d767d1e71792cf762c33d6fa15a4599b5a8de7
  [chelsea.png]=596aa1e7cb875eb79f437e310381d26b338a81c2da23439704a73c4651e8c4bb
)

all_good() {
  for file in "${!sums[@]}"; do
    [ -f "$1/$file" ] && echo "${sums[$file]}  $1/$file" | sha256sum --check --status || return 1
  done
}

all_good "$target" && exit 0
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"  # apt downloads as its own user
echo "Fetching the test photos from Debian's python3-skimage package (21 MB, not installed)..."
(cd "$work" && apt-get download python3-skimage >/dev/null)
folder=./usr/lib/python3/dist-packages/skimage/data
dpkg-deb --fsys-tarfile "$work"/python3-skimage_*.deb | tar -x -C "$work" "$folder/coffee.png" "$folder/chelsea.png"
all_good "$work/$folder" || {
  echo "A test photo does not have the expected SHA-256; nothing was installed." >&2
  exit 1
}
mkdir -p "$target"
for file in "${!sums[@]}"; do install -m 0644 "$work/$folder/$file" "$target/$file"; done
echo "The test photos are in $target."
