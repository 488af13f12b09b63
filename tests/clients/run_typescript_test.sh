#!/usr/bin/env bash
# The TypeScript client (clients/typescript, issue 21): installs its pinned
# devDependencies (package-lock.json: typescript, @langchain/langgraph, the
# Vercel AI SDK) from npm into a temp copy, builds it with tsc, type-checks
# the README's code against it, runs its tests (node --test) against the
# built binary over HTTP, https (a certificate from tests/clients/make_test_cert.sh,
# trusted through NODE_EXTRA_CA_CERTS) and stdio, and installs the packed package
# into a throwaway app the way the READMEs say, where later installs keep it a copy.
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

# Installed into an app the way the READMEs say: packed, the tarball beside the app's
# package.json, installed from it. The READMEs name the tarball of this version.
version=$(node -p 'require(process.argv[1]).version' "$pkg/package.json")
tarball="mnemo-client-$version.tgz"
for readme in "$root/README.md" "$root/clients/typescript/README.md"; do
  if ! grep -q "npm install ./$tarball" "$readme"; then
    echo "FAIL: $readme does not install ./$tarball" >&2
    exit 1
  fi
done
mkdir "$tmp/app"
(cd "$pkg" && npm pack --silent --pack-destination "$tmp/app" > /dev/null)
cd "$tmp/app"
echo '{"name": "app", "private": true, "type": "module"}' > package.json
npm install --offline --no-audit --no-fund --loglevel=error "./$tarball"
# It stays a copy through later installs (issue 44: installed from the folder with
# --install-links, the next `npm install` made it a symbolic link to the checkout): the
# README's LangGraph step (at the versions the client is tested with), then a plain one.
copied() {
  if [ -L node_modules/@mnemo/client ] || [ ! -f node_modules/@mnemo/client/dist/langgraph.js ]; then
    echo "FAIL: after $1, node_modules/@mnemo/client is not a copy of the package:" >&2
    ls -l node_modules/@mnemo >&2
    exit 1
  fi
}
copied "npm install ./$tarball"
dev() { node -p 'require(process.argv[1]).devDependencies[process.argv[2]]' "$pkg/package.json" "$1"; }
npm install --prefer-offline --no-audit --no-fund --loglevel=error \
  "@langchain/langgraph@$(dev @langchain/langgraph)" "@langchain/core@$(dev @langchain/core)"
copied "npm install @langchain/langgraph @langchain/core"
npm install --offline --no-audit --no-fund --loglevel=error
copied "a second npm install"

MNEMO_BINARY="$binary" WORKSPACE="$tmp/app/ws" node --input-type=module -e '
import { MnemoClient } from "@mnemo/client";
import { MnemoStore } from "@mnemo/client/langgraph";
const client = MnemoClient.stdio({ binary: process.env.MNEMO_BINARY, workspace: process.env.WORKSPACE });
await client.store({ key: "installed", value: "from the packed package" });
const { results } = await client.search({ query: "packed" });
if (results[0]?.key !== "installed") throw new Error("search did not find the stored entry");
const store = new MnemoStore(client);
await store.put(["prefs", "ana"], "editor", { text: "Helix" });
const item = await store.get(["prefs", "ana"], "editor");
await client.close();
if (item?.value?.text !== "Helix") throw new Error("the LangGraph store did not give back its item");
console.log("installed package: ok");
'
