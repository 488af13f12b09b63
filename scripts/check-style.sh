#!/usr/bin/env bash
# Style checks that are part of the build's checks (STYLE.md "Tools"):
# clang-format on every C++ file, clang-tidy on the sources (needs the
# compile_commands.json of the build dir given as $1).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/test}
mapfile -t files < <(git ls-files '*.h' '*.cc' 2>/dev/null || find include src apps tests bench examples -name '*.h' -o -name '*.cc')
clang-format --dry-run --Werror "${files[@]}"
echo "check-style: clang-format clean (${#files[@]} files)"
if [ "${MNEMO_SKIP_TIDY:-0}" = 1 ]; then
  echo "check-style: clang-tidy skipped (MNEMO_SKIP_TIDY=1)"
  exit 0
fi
mapfile -t sources < <(printf '%s\n' "${files[@]}" | grep -E '^(src|apps)/.*\.cc$')
# A unit found clean before, with the same includes, command and tool, is not
# parsed again (scripts/tidy_cache.py): the whole run is ~15 minutes on 2 cores.
mapfile -t pending < <(python3 scripts/tidy_cache.py "$build" list "${sources[@]}")
# clang-tidy prints findings on stdout and compiler diagnostics on stderr;
# keep both, drop the "N warnings generated" noise from system headers.
status=0
: > "$build/clang-tidy.raw"
if [ ${#pending[@]} -gt 0 ]; then
  printf '%s\n' "${pending[@]}" | xargs -P 2 -n 4 clang-tidy -p "$build" --quiet \
    > "$build/clang-tidy.raw" 2>&1 || status=$?
fi
grep -E "(warning|error):" "$build/clang-tidy.raw" > "$build/clang-tidy.log" || true
if [ -s "$build/clang-tidy.log" ] || [ "$status" -ne 0 ]; then
  cat "$build/clang-tidy.log"
  echo "check-style: clang-tidy found problems" >&2
  exit 1
fi
if [ ${#pending[@]} -gt 0 ]; then python3 scripts/tidy_cache.py "$build" mark "${pending[@]}"; fi
echo "check-style: clang-tidy clean (${#sources[@]} files, ${#pending[@]} checked now," \
  "$(( ${#sources[@]} - ${#pending[@]} )) unchanged since a clean check)"
