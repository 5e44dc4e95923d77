#!/usr/bin/env bash
# ABI compatibility across a minor version: the append-only promise of docs/plugin-abi.md §7, exercised.
#
# Makes a simulated ABI 1.1 header (ASSIST_ABI_MINOR 1 and one field appended to every struct that carries
# struct_size, before its reserved tail), builds the whole package against it in a copy of the tree, then:
#   1. runs the plugin-host suite with its C test plugins built against today's 1.0 header:
#      1.0 plugins on a 1.1 host (every service, the loader, the outbox, storage, camera, sound);
#   2. runs it again with the test plugins built against the 1.1 header: 1.1 plugins on the 1.1 host. In
#      both, WholeStructsThroughAHelperTests sends every struct through a helper process of the 1.1 host: the
#      1.1 plugin's added field arrives (ASSIST_ABI_SIMULATED_FIELD), and reads as zero from the 1.0 one;
#   3. runs the C example, built against 1.0, on the 1.1 host's command line, and built against 1.1 on
#      today's host, which refuses it for its newer minor with the loader's sentence (a plugin probes newer
#      behaviour by service id, so it may not need a newer host than it says).
# Usage: scripts/abi-compat.sh   (make abi-compat; CI runs it)
#        ABI_COMPAT_BUILD_ONLY=1 scripts/abi-compat.sh   the 1.1 copy and its build only
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=${ABI_COMPAT_DIR:-$root/.build-abi11}
tree=$work/tree
fail() { echo "abi-compat: $*" >&2; exit 1; }

# The copy of the tree made for 1.1. Made again only when the sources changed since it was made: a copy made
# ahead (ABI_COMPAT_BUILD_ONLY=1, by scripts/ci-prebuild.sh) and built is then used as it is, and the build
# finds nothing to do (writing the same files again would make it compile everything again).
prepare() {
echo "abi-compat: a copy of the tree for 1.1"
rm -rf "$tree"
mkdir -p "$tree"
# The working tree as it is (tracked and new files), without build products.
(cd "$root" && git ls-files -co --exclude-standard -z | tar --null -T - -cf -) | tar -x -C "$tree"

python3 - "$tree/Sources/PluginAPI/include" <<'PY'
import glob, os, re, sys
folder = sys.argv[1]
reserved = re.compile(r"^\s+(?:void \*|uint64_t |uint32_t )reserved\w*(?:\[\d+\])?;")
grown = []
bumped = 0

def grow(match):
    name, body = match.group(1), match.group(2)
    if "uint32_t struct_size;" not in body:
        return match.group(0)
    lines = body.split("\n")
    at = len(lines)
    while at > 0 and (reserved.match(lines[at - 1]) or not lines[at - 1].strip()):
        at -= 1
    lines.insert(at, "    uint64_t added_in_1_1; /* simulated ABI 1.1 field */")
    grown.append(name)
    return "typedef struct %s {%s\n} %s;" % (name, "\n".join(lines), name)

for path in glob.glob(os.path.join(folder, "**", "*.h"), recursive=True):
    text = open(path).read()
    # The field's name, for the probe of Tests/BridgeProbe and its fixture plugin, which check it arrives.
    text, count = re.subn(r"#define ASSIST_ABI_MINOR 0\b",
                          "#define ASSIST_ABI_MINOR 1\n#define ASSIST_ABI_SIMULATED_FIELD added_in_1_1", text)
    bumped += count
    text = re.sub(r"typedef struct (assist_\w+) \{(.*?)\n\} \1;", grow, text, flags=re.S)
    open(path, "w").write(text)
assert bumped == 1, "ASSIST_ABI_MINOR not found"
assert len(grown) >= 25, grown
print("abi-compat: simulated ABI 1.1 grows %d structs" % len(grown))
PY
sed -i 's/"abi": "1.0"/"abi": "1.1"/' "$tree"/Plugins/*/manifest.json
# A new minor version records its layout (scripts/gen-bridge.py --check compares the headers with it).
python3 "$tree/scripts/gen-bridge.py" --layout >"$tree/scripts/abi-layouts/1.1.txt"

# Only what these runs use is built against 1.1 (about half the package's build time): the host, the
# plugins and every library, and of the test targets only PluginHostTests; the benchmarks, the fuzz
# driver and the other test targets are left out of the copy's manifest.
python3 - "$tree/Package.swift" <<'PY'
import re, sys
path = sys.argv[1]
text = open(path).read()
keep = {"Host", "PluginHostTests"}
out, at, dropped = [], 0, []
for match in re.finditer(r"\.(testTarget|executableTarget)\(", text):
    if match.start() < at:
        continue
    depth, end = 0, match.end() - 1
    while True:
        depth += {"(": 1, ")": -1}.get(text[end], 0)
        end += 1
        if depth == 0:
            break
    name = re.search(r'name:\s*"([^"]+)"', text[match.start():end]).group(1)
    if name in keep:
        continue
    if text[end:end + 1] == ",":
        end += 1
    out.append(text[at:match.start()])
    at = end
    dropped.append(name)
out.append(text[at:])
open(path, "w").write("".join(out))
assert "PluginHostTests" in text and len(dropped) >= 10, dropped
print("abi-compat: built without %d targets these runs do not use" % len(dropped))
PY
}

# The sources as they are (tracked and new files), by content and time.
stamp=$(cd "$root" && git ls-files -co --exclude-standard -z | tar --null -T - -cf - | sha256sum | cut -d' ' -f1)
mkdir -p "$work"
# One preparation and build at a time: a copy made ahead may still be building when the checks start.
exec 9>"$work/lock"
flock 9
if [ "$(cat "$work/prepared" 2>/dev/null)" != "$stamp" ]; then
  rm -f "$work/prepared"
  prepare
  echo "$stamp" >"$work/prepared"
fi

cd "$tree"
swift build --build-tests --scratch-path "$work/build" 2>&1 | grep -E "error|Compiling|Build complete" | tail -3
[ "${PIPESTATUS[0]}" -eq 0 ] || fail "the package does not build against the simulated 1.1 header"
flock -u 9
[ "${ABI_COMPAT_BUILD_ONLY:-0}" = 1 ] && exit 0

echo "abi-compat: 1.0 plugins on a 1.1 host"
ASSIST_TEST_PLUGIN_HEADERS="$root/Sources/PluginAPI/include" \
    swift test --skip-build --scratch-path "$work/build" --filter PluginHostTests 2>&1 | tail -1 | tee "$work/1.0-on-1.1.log"
grep -q "passed" "$work/1.0-on-1.1.log" || fail "1.0 plugins failed on the 1.1 host"

echo "abi-compat: 1.1 plugins on the 1.1 host"
swift test --skip-build --scratch-path "$work/build" --filter PluginHostTests 2>&1 | tail -1 | tee "$work/1.1-on-1.1.log"
grep -q "passed" "$work/1.1-on-1.1.log" || fail "1.1 plugins failed on the 1.1 host"

# The C example from the command line, both ways.
# Outside the source tree, which a plugin folder inside would be taken for a development build of.
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
example() { # HEADER_DIR ABI -> a plugin folder in $home
    local folder=$home/plugins-$2/org.example.hello
    mkdir -p "$folder"
    cc -std=c99 -Wall -Wextra -Werror -pedantic -fPIC -shared -I "$1" "$root/examples/c-hello/hello.c" \
        -o "$folder/libhello.so"
    sed "s/\"abi\": \"1.0\"/\"abi\": \"$2\"/" "$root/examples/c-hello/manifest.json" >"$folder/manifest.json"
}
example "$root/Sources/PluginAPI/include" 1.0
example "$tree/Sources/PluginAPI/include" 1.1
host11=$("$work/build/debug/assist" --version >/dev/null && echo "$work/build/debug/assist")
out=$(printf 'y\n' | HOME=$home ASSIST_DATA_DIR=$home/data ASSIST_PLUGIN_PATH=$home/plugins-1.0 \
    "$host11" run --no-speech org.example.hello 2>&1) || fail "the 1.0 example failed on the 1.1 host: $out"
echo "$out" | grep -q '^Hello from a plugin written in C.$' || fail "the 1.0 example did not greet on 1.1: $out"
echo "abi-compat: the 1.0 C example runs on the 1.1 host"

[ -x "$root/.build/debug/assist" ] || (cd "$root" && swift build --product assist >/dev/null)
out=$(HOME=$home ASSIST_DATA_DIR=$home/data ASSIST_PLUGIN_PATH=$home/plugins-1.1 \
    "$root/.build/debug/assist" plugins list 2>&1 || true)
echo "$out" | grep -qi "org.example.hello.*newer" || fail "today's host did not refuse the 1.1 example: $out"
echo "abi-compat: today's 1.0 host refuses the 1.1 example: $(echo "$out" | grep -i org.example.hello)"
echo "abi-compat: passed"
