#!/usr/bin/env bash
# Test photos for the detector and for teaching find-object a thing: scikit-image's sample pictures (CC0 and
# public domain), taken from Debian's python3-skimage package without installing it (apt-get download, then
# only these files extracted) and checked by SHA-256. Idempotent. Target: .build/test-photos (or $1).
set -euo pipefail
cd "$(dirname "$0")/.."
target="${1:-.build/test-photos}"
declare -A sums=(
  [coffee.png]=cc02f8ca188b167c775a7101b5d767d1e71792cf762c33d6fa15a4599b5a8de7
  [chelsea.png]=596aa1e7cb875eb79f437e310381d26b338a81c2da23439704a73c4651e8c4bb
  [astronaut.png]=88431cd9653ccd539741b555fb0a46b61558b301d4110412b5bc28b5e3ea6cb5
  [rocket.jpg]=c2dd0de7c538df8d111e479619b129464d0269d0ae5fd18ca91d33a7fdfea95c
  [logo.png]=f2c57fe8af089f08b5ba523d95573c26e62904ac5967f4c8851b27d033690168
  [coins.png]=f8d773fc9cfa6f4d8e5942dc34d0a0788fcaed2a4fefbbed0aef5398d7ef4cba
  [brick.png]=7966caf324f6ba843118d98f7a07746d22f6a343430add0233eca5f6eaaa8fcf
  [grass.png]=b6b6022426b38936c43a4ac09635cd78af074e90f42ffa8227ac8b7452d39f89
  [gravel.png]=c48615b451bf1e606fbd72c0aa9f8cc0f068ab7111ef7d93bb9b0f2586440c12
  [motorcycle_left.png]=db18e9c4157617403c3537a6ba355dfeafe9a7eabb6b9b94cb33f6525dd49179
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
dpkg-deb --fsys-tarfile "$work"/python3-skimage_*.deb | tar -x -C "$work" $(for file in "${!sums[@]}"; do echo "$folder/$file"; done)
all_good "$work/$folder" || {
  echo "A test photo does not have the expected SHA-256; nothing was installed." >&2
  exit 1
}
mkdir -p "$target"
for file in "${!sums[@]}"; do install -m 0644 "$work/$folder/$file" "$target/$file"; done
echo "The test photos are in $target."
