#!/usr/bin/env bash
# The inspector in Debian's Chromium and Firefox ESR (issue 20): installs the pinned
# puppeteer-core and axe-core (package-lock.json; puppeteer-core downloads no
# browser) into a temp folder and runs browser_test.mjs against the built
# binary. Skips (exit 77) with a message only where Node.js, npm or
# Chromium is missing; scripts/install-deps.sh installs all three.
#   tests/inspector/run_browser_test.sh MNEMO_BINARY
set -euo pipefail
binary=${1:?usage: run_browser_test.sh MNEMO_BINARY}
here=$(cd "$(dirname "$0")" && pwd)
chromium=${MNEMO_CHROMIUM:-/usr/bin/chromium}
if ! command -v node > /dev/null 2>&1 || ! command -v npm > /dev/null 2>&1; then
  echo "SKIPPED: the inspector's browser test needs Node.js and npm (scripts/install-deps.sh)"
  exit 77
fi
if [ ! -x "$chromium" ]; then
  echo "SKIPPED: the inspector's browser test needs Chromium at $chromium (Debian's chromium;" \
    "scripts/install-deps.sh installs it, MNEMO_CHROMIUM names another)"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$here/package.json" "$here/package-lock.json" "$here/browser_test.mjs" \
  "$here/../node/start_daemon.mjs" "$tmp/"
(cd "$tmp" && PUPPETEER_SKIP_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error)
MNEMO_CHROMIUM="$chromium" node "$tmp/browser_test.mjs" "$binary" "$tmp/scratch"
