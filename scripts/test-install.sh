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
# Both examples ship as packages, installed by the installed host into this user's plugin folder.
packages=$(mktemp -d /tmp/assist-packages.XXXXXX)
trap 'rm -rf "$prefix" "$home" "$packages"' EXIT
make -s -C examples/c-hello clean libhello.so >/dev/null
nm -D --defined-only examples/c-hello/libhello.so | awk '{print $3}' | grep -qx assist_plugin_entry || fail "entry not exported"
[ "$(nm -D --defined-only examples/c-hello/libhello.so | wc -l)" -eq 1 ] || fail "the example exports more than its entry"
HOME=$home "$prefix/bin/assist" plugins pack examples/c-hello --output "$packages" >/dev/null || fail "pack c-hello"
make -s -C examples/c-hello clean >/dev/null

# The Swift template, built as a third party would: its own package, the installed header and PluginKit, the
# same toolchain.
swift build -c debug --package-path examples/swift-template --scratch-path "$prefix/.build-greeter" >/dev/null 2>&1 \
  || swift build -c debug --package-path examples/swift-template --scratch-path "$prefix/.build-greeter"
[ "$(nm -D --defined-only "$prefix/.build-greeter/debug/libGreeter.so" | grep -c ' T ')" -eq 1 ] \
  || fail "the Swift template exports more than its entry"
HOME=$home "$prefix/bin/assist" plugins pack examples/swift-template --library "$prefix/.build-greeter/debug/libGreeter.so" \
  --output "$packages" >/dev/null || fail "pack the Swift template"

cd "$home"
export HOME="$home" ASSIST_DATA_DIR="$home/data"
out=$("$prefix/bin/assist" plugins install --no-speech "$packages/org.example.hello-1.0.0.assist-plugin" <<<y) \
  || fail "install c-hello: $out"
echo "$out" | grep -qx 'Install Hello 1.0.0 for you? It is unsigned, so nobody vouches for who made it. It says it is made by Example Ltd; nobody has vouched for that. It asks for no camera, microphone or network. Y or N.' \
  || fail "install did not ask: $out"
echo "$out" | grep -q '^Installed in ' || fail "install did not say how long it took: $out"
"$prefix/bin/assist" plugins install --no-speech --yes "$packages/org.example.greeter-1.0.0.assist-plugin" >/dev/null \
  || fail "install the Swift template"
greeter="$home/.local/lib/assist/plugins/org.example.greeter"
list=$("$prefix/bin/assist" plugins list)
echo "$list" | grep -q '^assist.clock 1.0.0, Talking clock, available; first-party, Assist.s own, SHA-256 [0-9a-f]\{64\}$' \
  || fail "installed clock not listed: $list"
echo "$list" | grep -q "^org.example.hello 1.0.0, Hello, available; user, unsigned, SHA-256 $(sha256sum < "$home/.local/lib/assist/plugins/org.example.hello/libhello.so" | cut -c1-64)\$" \
  || fail "example not listed: $list"
echo "$list" | grep -q '^org.example.greeter 1.0.0, Greeter, available; user' || fail "Swift template not listed: $list"
# The validator runs both examples for real in a helper process (issue 17): start, commands, pause, stop, twice.
for plugin in org.example.hello org.example.greeter; do
  out=$("$prefix/bin/assist" plugins check "$home/.local/lib/assist/plugins/$plugin" 2>&1) || fail "check $plugin: $out"
  echo "$out" | grep -q 'passes the checks' || fail "check $plugin did not load it: $out"
  echo "$out" | grep -q "^$plugin: ran in a helper process: [0-9]* steps, no crash or hang.\$" || fail "check $plugin did not run it: $out"
done
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
[ "$out" = "The object model is installed in $prefix/share/assist/models/yolov4-tiny.
The things model is installed in $prefix/share/assist/models/mobilenetv2-embedder." ] \
  || fail "setup models did not find the installed model: $out"
mkdir -p "$home/frames" && cp /usr/share/darknet/data/dog.jpg "$home/frames/"
out=$("$prefix/bin/assist" run --no-speech --camera "dir:$home/frames" find-object dog) || fail "find-object: $out"
echo "$out" | grep -q '^Looking for object: dog$' || fail "installed find-object did not start: $out"
out=$("$prefix/bin/assist" plugins remove --no-speech org.example.greeter <<<y) || fail "remove: $out"
[ ! -e "$greeter" ] || fail "the Swift template was not removed"
echo "install: 18 passed, 0 failed"
