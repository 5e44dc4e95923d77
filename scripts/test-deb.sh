#!/usr/bin/env bash
# The Debian package, as an admin meets it: builds it (CONFIG=debug by default here: CI packages the build
# the tests ran on), checks it with lintian (no errors), installs it with apt, runs `assist doctor`, a
# feature and the kiosk's check from /usr/bin, then removes it and checks that nothing of it is left.
# Needs root (it installs into the system), as in CI.
set -euo pipefail
cd "$(dirname "$0")/.."
fail() { echo "deb test failed: $*"; exit 1; }
[ "$(id -u)" -eq 0 ] || { echo "deb test: needs root (it installs the package); skipped"; exit 0; }
dpkg-query -W -f='${Status}' assist 2>/dev/null | grep -q "install ok installed" \
  && fail "a package called assist is already installed; remove it first"
out=$(mktemp -d /tmp/assist-debtest.XXXXXX)
home=$(mktemp -d /tmp/assist-debhome.XXXXXX)
cleanup() {
  DEBIAN_FRONTEND=noninteractive apt-get remove --purge -y -q assist >/dev/null 2>&1 || true
  rm -rf "$out" "$home"
}
trap cleanup EXIT

package=$(CONFIG=${CONFIG:-debug} scripts/make-deb.sh "$out")
report=$(lintian --tag-display-limit 0 "$package" 2>&1 | grep -v 'running with root privileges' || true)
if echo "$report" | grep -q '^E: '; then fail "lintian: $report"; fi
echo "deb: lintian: $(echo "$report" | grep -c '^W: ' || true) warnings, no errors"

DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$package" >"$out/apt.log" 2>&1 || fail "apt install: $(tail -5 "$out/apt.log")"
[ -x /usr/bin/assist ] || fail "no /usr/bin/assist"
mapfile -t files < <(dpkg -L assist | while read -r path; do [ -f "$path" ] && echo "$path"; done)
echo "deb: installed ${#files[@]} files"
man -w assist >/dev/null || fail "no man page"
[ -f /usr/lib/systemd/system/assist-kiosk@.service ] || fail "no kiosk unit"
grep -q '^ExecStart=/usr/bin/assist kiosk$' /usr/lib/systemd/system/assist-kiosk@.service || fail "unit's ExecStart"
pkg-config --cflags assist-plugin | grep -q -- '-I/usr/include/assist' || fail "pkg-config does not find the header"

cd "$home"
export HOME="$home"
doctor=$(/usr/bin/assist doctor) || fail "doctor found something broken: $doctor"
echo "$doctor" | grep -q '^ok: plugin assist.clock: available$' || fail "doctor did not see the clock: $doctor"
echo "$doctor" | grep -q '^ok: data: /usr/share/assist$' || fail "doctor did not use /usr/share/assist: $doctor"
/usr/bin/assist run --no-speech clock | grep -q '^It is ' || fail "the installed clock did not speak"
text=$(timeout 120 /usr/bin/assist run --no-speech read-text --image /usr/share/assist/camera/sample.jpg --exit-at-end) \
  || fail "read-text failed: $text"
# The heading ends where a gap follows it, in the streamed reading as in the whole page's (issue 70).
echo "$text" | grep -q '^Assist sample page\.$' || fail "the installed read-text did not read the sample page: $text"
# Plugin packages through the installed libarchive (opened on first use): the clock packed, then refused,
# since assist.* ids are Assist's own.
HOME=$home /usr/bin/assist plugins pack /usr/lib/assist/plugins/assist.clock --output "$home" >/dev/null \
  || fail "plugins pack failed"
refused=$(HOME=$home /usr/bin/assist plugins install --no-speech --yes "$home"/assist.clock-*.assist-plugin 2>&1) \
  && fail "an assist.* package was installed: $refused"
echo "$refused" | grep -q 'belong to Assist' || fail "plugins install did not read the package: $refused"
check=$(ASSIST_SYSCONFDIR="$home/etc" /usr/bin/assist kiosk check 2>/dev/null || true)
echo "$check" | grep -q 'no admin PIN is set' || fail "kiosk check: $check"
cd /

DEBIAN_FRONTEND=noninteractive apt-get remove --purge -y -q assist >"$out/remove.log" 2>&1 || fail "remove: $(tail -5 "$out/remove.log")"
for path in "${files[@]}"; do [ ! -e "$path" ] || fail "$path is left after removal"; done
[ ! -e /usr/lib/assist ] && [ ! -e /usr/share/assist ] || fail "folders are left after removal"
echo "deb: passed (lintian, apt install, doctor, clock, read-text, plugin package, kiosk check, apt remove --purge)"
