#!/usr/bin/env bash
# Installs dependencies, builds mnemo (release) and runs the daemon on the
# embedded SQLite default (workspace: $MNEMO_WORKSPACE or ~/.local/share/mnemo).
# Extra arguments go to `mnemo serve` (e.g. --listen 127.0.0.1:9000).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DMNEMO_BUILD_TESTS=OFF -DMNEMO_BUILD_BENCH=OFF >/dev/null
cmake --build build/release --target mnemo_cli
# The English word vectors of the default embedder, converted once (docs/search.md).
./scripts/wordvectors.sh build build/release/apps/mnemo/mnemo build/data/wordvectors-en-100d.mwv
export MNEMO_DATA_DIR="${MNEMO_DATA_DIR:-$PWD/build/data}"
exec ./build/release/apps/mnemo/mnemo serve "$@"
