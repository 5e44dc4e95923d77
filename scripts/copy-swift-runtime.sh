#!/usr/bin/env bash
# Copies the Swift runtime libraries a binary needs into a folder, so an installed Assist does not depend
# on the toolchain's location (ABI spec P9, P10). Plugins use the same copy: one runtime per process.
set -euo pipefail
binary=$1
target=$2
mkdir -p "$target"
ldd "$binary" | awk '/=> \// {print $3}' | while read -r library; do
  case "$library" in
    */swift/linux/*|*/usr/lib/swift/*) install -m 0644 "$library" "$target/" ;;
  esac
done
# Foundation loads these lazily; keep the set a plugin may need.
runtime=$(dirname "$(ldd "$binary" | awk '/libswiftCore.so/ {print $3}')")
for extra in libFoundationEssentials.so libFoundationInternationalization.so lib_FoundationICU.so libswiftDispatch.so libdispatch.so libBlocksRuntime.so libswiftSynchronization.so libswift_RegexParser.so libswift_StringProcessing.so libswiftSwiftOnoneSupport.so; do
  [ -f "$runtime/$extra" ] && install -m 0644 "$runtime/$extra" "$target/"
done
exit 0
