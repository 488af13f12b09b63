#!/usr/bin/env bash
# Runs every libFuzzer target of a MNEMO_FUZZ build for a bounded time
# (tests/fuzz/README.md), two at a time. New inputs go to a scratch folder,
# never into the repository's seed corpus. A crash fails the run and leaves
# the input in <build>/fuzz-artifacts/ (add it to the seed corpus as a
# regression test once fixed).
#   scripts/fuzz.sh BUILD_DIR [SECONDS_PER_TARGET]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:?usage: scripts/fuzz.sh BUILD_DIR [SECONDS]}
seconds=${2:-60}
targets=(jsonrpc query cleaner archive_file config entry_file foreign_formats http_request)
artifacts="$build/fuzz-artifacts"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$artifacts"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

run_one() {
  local name=$1 bin="$build/tests/fuzz/${1}_fuzz"
  if [ ! -x "$bin" ]; then echo "fuzz: $bin is missing (configure with -DMNEMO_FUZZ=ON)"; return 1; fi
  mkdir -p "$scratch/$name"
  if "$bin" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 -max_len=8192 \
      -print_final_stats=1 -artifact_prefix="$artifacts/${name}-" \
      "$scratch/$name" "tests/fuzz/corpus/$name" > "$scratch/$name.log" 2>&1; then
    echo "fuzz: $name ok ($(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$scratch/$name.log" | grep -o '[0-9]*$') runs in ${seconds}s)"
  else
    echo "fuzz: $name FAILED; the last lines of its log:"
    tail -n 60 "$scratch/$name.log"
    return 1
  fi
}
export -f run_one
export build seconds artifacts scratch
printf '%s\n' "${targets[@]}" | xargs -P 2 -I{} bash -c 'run_one {}'
