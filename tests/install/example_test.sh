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

# libmnemo exports the public API of include/mnemo and nothing else: no
# symbol of an internal namespace (docs/architecture.md, "Target graph").
exported=$(nm -DC --defined-only "$tmp/prefix/lib/libmnemo.so")
leaked=$(grep -E 'mnemo::(internal|storage|text|rules|context|archivist|embed|index|llm|transport)::' <<<"$exported" || true)
if [ -n "$leaked" ]; then
  echo "libmnemo exports internal symbols:"; head -20 <<<"$leaked"; exit 1
fi
if grep -q '::Impl::' <<<"$exported"; then
  echo "libmnemo exports Engine::Impl:"; grep '::Impl::' <<<"$exported" | head -5; exit 1
fi
# Each name it exports from namespace mnemo is declared in include/mnemo.
for name in $(grep -oE 'mnemo::[A-Za-z_][A-Za-z0-9_]*' <<<"$exported" | sed 's/^mnemo:://' | sort -u); do
  if ! grep -rqw -- "$name" "$tmp/prefix/include/mnemo"; then
    echo "libmnemo exports mnemo::$name, which include/mnemo does not declare"; exit 1
  fi
done
grep -q 'mnemo::Engine::Open(' <<<"$exported"
grep -q 'mnemo::LoadConfig(' <<<"$exported"
echo "libmnemo exports $(wc -l <<<"$exported") symbols, none internal"

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
