#!/usr/bin/env bash
# The MCP integration test with the official client SDK (issue 8): installs
# the pinned @modelcontextprotocol/sdk (package-lock.json) from npm into a
# temp folder and runs sdk_client.mjs against the built binary, over stdio,
# streamable HTTP and streamable HTTP over https (a certificate from
# tests/clients/make_test_cert.sh, trusted through NODE_EXTRA_CA_CERTS). Skips (exit 77) only when Node.js or npm is missing;
# scripts/install-deps.sh installs them, so CI never skips.
#   tests/mcp/run_sdk_test.sh MNEMO_BINARY
set -euo pipefail
binary=${1:?usage: run_sdk_test.sh MNEMO_BINARY}
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v node > /dev/null 2>&1 || ! command -v npm > /dev/null 2>&1; then
  echo "SKIPPED: the MCP SDK test needs Node.js and npm (scripts/install-deps.sh installs them)"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$here/package.json" "$here/package-lock.json" "$here/sdk_client.mjs" \
  "$here/../node/start_daemon.mjs" "$tmp/"
(cd "$tmp" && npm ci --no-audit --no-fund --loglevel=error)
"$here/../clients/make_test_cert.sh" "$tmp/certs"
MNEMO_TEST_CERTS="$tmp/certs" NODE_EXTRA_CA_CERTS="$tmp/certs/ca.pem" \
  node "$tmp/sdk_client.mjs" "$binary" "$tmp/scratch"
