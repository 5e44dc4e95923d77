#!/usr/bin/env bash
# Installs Assist into a fresh prefix, builds the C example against the installed header through
# pkg-config, and checks that the installed host finds everything without the source tree.
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=$(mktemp -d /tmp/assist-prefix.XXXXXX)
home=$(mktemp -d /tmp/assist-home.XXXXXX)
trap 'rm -rf "$prefix" "$home"' EXIT
fail() { echo "install test failed: $*"; exit 1; }

make -s install PREFIX="$prefix" CONFIG=debug >/dev/null
readelf -d "$prefix/bin/assist" | grep -q 'RUNPATH.*\$ORIGIN/../lib/assist/swift' || fail "assist has no \$ORIGIN RUNPATH"
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig" ASSIST_PLUGINKIT="$prefix/share/assist/swift/AssistPluginKit"
pkg-config --exists assist-plugin || fail "assist-plugin.pc is not found"
make -s -C examples/c-hello clean libhello.so install PLUGIN_DIR="$home/.local/lib/assist/plugins/org.example.hello" >/dev/null
nm -D --defined-only examples/c-hello/libhello.so | awk '{print $3}' | grep -qx assist_plugin_entry || fail "entry not exported"
[ "$(nm -D --defined-only examples/c-hello/libhello.so | wc -l)" -eq 1 ] || fail "the example exports more than its entry"
make -s -C examples/c-hello clean >/dev/null

# The Swift template, built as a third party would: its own package, the installed header and PluginKit, the
# same toolchain.
swift build -c debug --package-path examples/swift-template --scratch-path "$prefix/.build-greeter" >/dev/null 2>&1 \
  || swift build -c debug --package-path examples/swift-template --scratch-path "$prefix/.build-greeter"
greeter="$home/.local/lib/assist/plugins/org.example.greeter"
install -d "$greeter"
install -m 0644 examples/swift-template/manifest.json "$greeter/"
install -m 0755 "$prefix/.build-greeter/debug/libGreeter.so" "$greeter/"
[ "$(nm -D --defined-only "$greeter/libGreeter.so" | grep -c ' T ')" -eq 1 ] || fail "the Swift template exports more than its entry"

cd "$home"
export HOME="$home" ASSIST_DATA_DIR="$home/data"
list=$("$prefix/bin/assist" plugins list)
echo "$list" | grep -q '^assist.clock 1.0.0, Talking clock, available$' || fail "installed clock not listed: $list"
echo "$list" | grep -q '^org.example.hello 1.0.0, Hello, available$' || fail "example not listed: $list"
"$prefix/bin/assist" plugins check "$home/.local/lib/assist/plugins/org.example.hello" | grep -q 'passes the checks' || fail "check"
out=$(printf 'y\n' | "$prefix/bin/assist" run --no-speech org.example.hello)
echo "$out" | grep -q '^Hello from a plugin written in C.$' || fail "hello did not greet: $out"
echo "$out" | grep -q '^Here is a tip' || fail "hello did not answer yes: $out"
out=$(printf 'Ada\n' | "$prefix/bin/assist" run --no-speech org.example.greeter)
echo "$out" | grep -q '^Hello, Ada, from Swift.$' || fail "the Swift template did not greet: $out"
out=$(printf 'n\n' | "$prefix/bin/assist" run --no-speech org.example.hello)
echo "$out" | grep -q '^All right. Goodbye.$' || fail "hello did not answer no: $out"
out=$(timeout 20 "$prefix/bin/assist" run --no-speech org.example.hello </dev/null) || fail "hello hung or failed without input"
echo "$out" | grep -q '^All right. Goodbye.$' || fail "without input hello did not take the safe default: $out"
"$prefix/bin/assist" run --no-speech clock | grep -q '^It is ' || fail "installed clock did not speak"
out=$(PIP_NO_INDEX=1 "$prefix/bin/assist" setup models) || fail "setup models: $out"
[ "$out" = "The object model is installed in $prefix/share/assist/models/yolov4-tiny." ] \
  || fail "setup models did not find the installed model: $out"
mkdir -p "$home/frames" && cp /usr/share/darknet/data/dog.jpg "$home/frames/"
out=$("$prefix/bin/assist" run --no-speech --camera "dir:$home/frames" find-object dog) || fail "find-object: $out"
echo "$out" | grep -q '^Looking for object: dog$' || fail "installed find-object did not start: $out"
echo "install: 13 passed, 0 failed"
