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
exec ./build/release/apps/mnemo/mnemo serve "$@"
