#!/usr/bin/env bash
# The kiosk's start-up figures (docs/kiosk.md): boot to the first spoken word (goal 1 s) and a crash until
# speech again with the unit's RestartSec (goal 2 s), medians over RUNS, against `assist say` in the same
# run. A release build, installed in a temporary prefix (CONFIG=debug for the debug build, uninstalled).
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-7}
CONFIG=${CONFIG:-release}
swift build -c "$CONFIG" >/dev/null
work=$(mktemp -d /tmp/assist-kiosk-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
assist=$(swift build -c "$CONFIG" --show-bin-path)/assist
if [ "$CONFIG" = release ]; then
  make -s install PREFIX="$work/prefix" CONFIG=release >/dev/null
  assist=$work/prefix/bin/assist
fi
mkdir -p "$work/etc"
export ASSIST_SYSCONFDIR="$work/etc" HOME="$work"
printf '24680\n24680\n' | "$assist" kiosk set-pin >/dev/null
{ "$assist" kiosk hash assist.clock assist.read-text; printf '\n[kiosk]\nmenu = true\n'; } >"$work/etc/config.toml"
"$assist" kiosk check >/dev/null
echo "$CONFIG build"
python3 bench/kiosk_bench.py "$assist" "$RUNS" "$work"
