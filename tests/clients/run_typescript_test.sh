#!/usr/bin/env bash
# The TypeScript client (clients/typescript, issue 21): installs its pinned
# devDependencies (package-lock.json: typescript, @langchain/langgraph, the
# Vercel AI SDK) from npm into a temp copy, builds it with tsc, type-checks
# the README's code against it, runs its tests (node --test) against the
# built binary over HTTP, https (a certificate from tests/clients/make_test_cert.sh,
# trusted through NODE_EXTRA_CA_CERTS) and stdio, and installs the built package
# into a throwaway app the way its README says.
# Skips (exit 77) only when Node.js or npm is missing; scripts/install-deps.sh
# installs them, so CI never skips.
#   tests/clients/run_typescript_test.sh MNEMO_BINARY
set -euo pipefail
binary=$(realpath "${1:?usage: run_typescript_test.sh MNEMO_BINARY}")
root=$(cd "$(dirname "$0")/../.." && pwd)
if ! command -v node > /dev/null 2>&1 || ! command -v npm > /dev/null 2>&1; then
  echo "SKIPPED: the TypeScript client test needs Node.js and npm (scripts/install-deps.sh installs them)"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The package's tests reach ../../tests/node and ../../docs: keep the layout.
tar -C "$root" --exclude=node_modules --exclude=dist -cf - \
  clients/typescript tests/node/start_daemon.mjs docs/schema.json | tar -C "$tmp" -xf -
pkg="$tmp/clients/typescript"
(cd "$pkg" && npm ci --prefer-offline --no-audit --no-fund --loglevel=error && npm run --silent build && npm run --silent check)
"$root/tests/clients/make_test_cert.sh" "$tmp/certs"
(cd "$pkg" && MNEMO_BINARY="$binary" MNEMO_TEST_CERTS="$tmp/certs" \
  NODE_EXTRA_CA_CERTS="$tmp/certs/ca.pem" node --test test/)

# Installed from the folder into an app, the package works without its devDependencies.
mkdir "$tmp/app"
cd "$tmp/app"
echo '{"name": "app", "private": true, "type": "module"}' > package.json
npm install --offline --no-audit --no-fund --loglevel=error --install-links "$pkg"
MNEMO_BINARY="$binary" WORKSPACE="$tmp/app/ws" node --input-type=module -e '
import { MnemoClient } from "@mnemo/client";
const client = MnemoClient.stdio({ binary: process.env.MNEMO_BINARY, workspace: process.env.WORKSPACE });
await client.store({ key: "installed", value: "from the folder" });
const { results } = await client.search({ query: "folder" });
await client.close();
if (results[0]?.key !== "installed") throw new Error("search did not find the stored entry");
console.log("installed package: ok");
'
