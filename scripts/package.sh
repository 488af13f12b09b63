#!/usr/bin/env bash
# Builds the Debian package (cmake/package.cmake) from an optimised build
# without tests: build/release/mnemo_<version>_amd64.deb. Install it with
#   apt install ./build/release/mnemo_*_amd64.deb
# then `systemctl enable --now mnemo` (the workspace is /var/lib/mnemo).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release -DMNEMO_BUILD_TESTS=OFF \
  -DMNEMO_BUILD_BENCH=OFF > /dev/null
cmake --build build/release
# The word vectors go into the package (/usr/share/mnemo/).
./scripts/wordvectors.sh build build/release/apps/mnemo/mnemo build/data/wordvectors-en-100d.mwv
(cd build/release && cpack -G DEB)
