#!/usr/bin/env bash
# Installs dependencies, builds everything and runs the whole test suite
# (unit, conformance, end-to-end, install/example) plus the format check.
#   scripts/test.sh              normal build (build/test)
#   scripts/test.sh --sanitize   ASan + UBSan build with clang (build/asan)
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh

# Compiling is most of the time on 2 cores: the test builds carry no more
# debug information than a failure report needs (none in the optimised
# build; line tables for sanitizer stack traces).
build=build/test
flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -DNDEBUG" -DMNEMO_WERROR=ON)
if [ "${1:-}" = "--sanitize" ]; then
  # clang, so the fuzz targets are libFuzzer binaries (scripts/fuzz.sh runs
  # them); the suite replays their seed corpus either way.
  build=build/asan
  flags=(-DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_CXX_FLAGS_DEBUG=-g1"
    -DMNEMO_SANITIZE=ON -DMNEMO_FUZZ=ON -DMNEMO_BUILD_BENCH=OFF -DMNEMO_WERROR=ON)
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
fi

cmake -S . -B "$build" -G Ninja "${flags[@]}" >/dev/null
cmake --build "$build"
# The word-vector file, converted once and kept (build/data); the tests make
# their own small files, the evaluations and `mnemo bench` read this one.
./scripts/wordvectors.sh build "$build/apps/mnemo/mnemo" build/data/wordvectors-en-100d.mwv
# Two test binaries at a time (the machine has 2 cores; each test binary
# uses its own workspaces, ports and PostgreSQL schemas).
ctest --test-dir "$build" --output-on-failure -j2
# Style is a property of the source, checked once (in the normal build).
if [ "$build" = build/test ]; then ./scripts/check-style.sh "$build"; fi
