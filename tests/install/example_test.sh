#!/usr/bin/env bash
# Installs the build tree into a temporary prefix, then builds examples/basic
# against it twice — with find_package(mnemo) and with pkg-config — and runs it.
set -euo pipefail
build_dir=$1
source_dir=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cmake --install "$build_dir" --prefix "$tmp/prefix" >/dev/null
test -f "$tmp/prefix/include/mnemo/engine.h"
test -f "$tmp/prefix/lib/cmake/mnemo/mnemoConfig.cmake"
test -f "$tmp/prefix/lib/pkgconfig/mnemo.pc"
test -x "$tmp/prefix/bin/mnemo"

cmake -S "$source_dir/examples/basic" -B "$tmp/example" -G Ninja \
  -DCMAKE_PREFIX_PATH="$tmp/prefix" -DCMAKE_BUILD_RPATH="$tmp/prefix/lib" >/dev/null
cmake --build "$tmp/example" >/dev/null
out=$("$tmp/example/basic" "$tmp/ws1")
echo "find_package example: $out"
grep -q '^editor: ' <<<"$out"

PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig" \
  c++ "$source_dir/examples/basic/main.cc" -o "$tmp/basic-pc" \
  $(PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig" pkg-config --cflags --libs mnemo) \
  -Wl,-rpath,"$tmp/prefix/lib"
out=$("$tmp/basic-pc" "$tmp/ws2")
echo "pkg-config example: $out"
grep -q '^editor: ' <<<"$out"
"$tmp/prefix/bin/mnemo" version
echo "1 passed, 0 failed"
