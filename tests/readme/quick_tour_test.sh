#!/usr/bin/env bash
# The README's quick tour runs as written (issue 44: its curl line once met no
# daemon): the ```sh block under "## Quick tour" is taken from README.md and run
# with bash -e in an empty folder, `mnemo` on the PATH, a temp workspace. One
# change: the daemon's port 8765 becomes a free one (MNEMO_SERVER_LISTEN and the
# block's URLs), so the test runs beside any other daemon.
#   tests/readme/quick_tour_test.sh MNEMO_BINARY
set -euo pipefail
binary=$(realpath "${1:?usage: quick_tour_test.sh MNEMO_BINARY}")
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/bin" "$tmp/run"
ln -s "$binary" "$tmp/bin/mnemo"

block=$(awk '/^## /{in_tour = ($0 == "## Quick tour")} in_tour && /^```sh$/{inside = 1; next}
             inside && /^```$/{exit} inside' "$root/README.md")
if [ -z "$block" ]; then
  echo "FAIL: README.md has no \`\`\`sh block under \"## Quick tour\"" >&2
  exit 1
fi
serve_line=$(grep -n '^mnemo serve' <<< "$block" | head -1 | cut -d: -f1 || true)
curl_line=$(grep -n 'curl .*/rpc' <<< "$block" | head -1 | cut -d: -f1 || true)
if [ -z "$serve_line" ] || [ -z "$curl_line" ] || [ "$serve_line" -gt "$curl_line" ]; then
  echo "FAIL: the quick tour must start \`mnemo serve\` before its curl line" >&2
  exit 1
fi

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# If the block fails half-way, its daemon is stopped too.
{
  echo "trap 'kill \$(jobs -p) 2> /dev/null || true' EXIT"
  printf "%s\n" "${block//8765/$port}"
} > "$tmp/tour.sh"

cd "$tmp/run"
status=0
env -u XDG_DATA_HOME HOME="$tmp" PATH="$tmp/bin:$PATH" MNEMO_WORKSPACE="$tmp/ws" \
  MNEMO_SERVER_LISTEN="127.0.0.1:$port" timeout 60 bash -e "$tmp/tour.sh" > "$tmp/out" 2> "$tmp/err" ||
  status=$?
if [ "$status" -ne 0 ]; then
  echo "FAIL: the quick tour exited $status" >&2
  cat "$tmp/out" "$tmp/err" >&2
  exit 1
fi
# The curl line's answer: a JSON-RPC result finding the stored entry.
if ! tail -n 1 "$tmp/out" | grep -q '"jsonrpc":"2.0".*"key":"user_editor"'; then
  echo "FAIL: the curl line did not find user_editor over HTTP; the tour printed:" >&2
  cat "$tmp/out" "$tmp/err" >&2
  exit 1
fi
# The export/import line filled the second workspace.
"$binary" --workspace "$tmp/run/copy" memory get user_editor > /dev/null 2>&1
# The tour's own `kill` stopped its daemon: the port is free again.
for _ in $(seq 50); do
  curl -s -o /dev/null "localhost:$port/healthz" || break
  sleep 0.1
done
if curl -s -o /dev/null "localhost:$port/healthz"; then
  echo "FAIL: the quick tour left its daemon running" >&2
  exit 1
fi
echo "quick tour: ok"
