#!/usr/bin/env bash
# The Python client installs offline the way the READMEs say (issue 44: with a python3 that
# lacks the wheel package the build failed with `invalid command 'bdist_wheel'`, and it left
# build/ and *.egg-info in the checkout). The ```sh block under "## From Python" in README.md,
# and the first one of clients/python/README.md, run with bash -e from a copy of the checkout
# with each python3 on the PATH first in turn (Debian's, a pyenv or /usr/local one...), and
# once more into a venv whose only package is pip (no setuptools, no wheel). Each time the
# installed package imports from the venv with its py.typed, and the copy of clients/python
# holds exactly the files it held before.
#   tests/clients/python_install_test.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The first ```sh block after the line `heading` of `file`.
block() {
  awk -v heading="$2" '$0 == heading {found = 1; next} found && /^```sh$/ {inside = 1; next}
                       inside && /^```$/ {exit} inside' "$1"
}
main_block=$(block "$root/README.md" "## From Python")
client_block=$(block "$root/clients/python/README.md" "# mnemo Python client")
for b in "$main_block" "$client_block"; do
  if ! grep -q 'pip install' <<< "$b"; then
    echo "FAIL: no \`pip install\` block found in the READMEs" >&2
    exit 1
  fi
done

failures=0
case_number=0
# install_case NAME PYTHON3 BLOCK [BARE_VENV]: runs BLOCK in a fresh copy with PYTHON3 as
# `python3`; with BARE_VENV, that venv is .venv and the block's venv line is not run.
install_case() {
  local name=$1 python=$2 commands=$3 bare=${4:-}
  case_number=$((case_number + 1))
  local work="$tmp/case$case_number"
  mkdir -p "$work/bin" "$work/checkout/clients"
  tar -C "$root/clients" --exclude=__pycache__ -cf - python | tar -C "$work/checkout/clients" -xf -
  ln -s "$python" "$work/bin/python3"
  local before
  before=$(cd "$work/checkout/clients/python" && find . | sort)
  if [ -n "$bare" ]; then
    mv "$bare" "$work/checkout/.venv"
    commands=$(grep -v '^python3 -m venv' <<< "$commands")
  fi
  if ! (cd "$work/checkout" && PATH="$work/bin:$PATH" PIP_NO_INPUT=1 bash -e -c "$commands") \
    > "$work/log" 2>&1; then
    echo "FAIL ($name): the documented install failed:" >&2
    cat "$work/log" >&2
    failures=$((failures + 1))
    return
  fi
  if ! (cd "$work" && PYTHONDONTWRITEBYTECODE=1 "$work/checkout/.venv/bin/python" -c '
import pathlib, sys, mnemo
package = pathlib.Path(mnemo.__file__).resolve().parent
assert pathlib.Path(sys.prefix).resolve() in package.parents, package
assert (package / "py.typed").is_file()
from mnemo import Client, MnemoError
') > "$work/import.log" 2>&1; then
    echo "FAIL ($name): the installed package does not import from the venv:" >&2
    cat "$work/import.log" >&2
    failures=$((failures + 1))
  fi
  local after
  after=$(cd "$work/checkout/clients/python" && find . | sort)
  if [ "$before" != "$after" ]; then
    echo "FAIL ($name): the install wrote into clients/python:" >&2
    diff <(echo "$before") <(echo "$after") >&2 || true
    failures=$((failures + 1))
  fi
  echo "$name: ok"
}

declare -A seen=()
first=""
while IFS= read -r candidate; do
  real=$("$candidate" -c 'import sys; print(sys.executable)' 2> /dev/null) || continue
  real=$(realpath "$real")
  [ -n "${seen[$real]:-}" ] && continue
  seen[$real]=1
  if ! "$real" -c 'import pip, venv' > /dev/null 2>&1; then
    echo "$candidate ($real): no pip, which the README asks for; not tried"
    continue
  fi
  [ -n "$first" ] || first=$real
  install_case "README.md with $candidate ($real)" "$real" "$main_block"
  install_case "clients/python/README.md with $candidate ($real)" "$real" "$client_block"
done < <(which -a python3)
if [ -z "$first" ]; then
  echo "SKIPPED: no python3 with pip on the PATH (Debian: python3-pip)"
  exit 77
fi

# A python3 with pip and nothing else: a venv without pip, pip's own folder copied into it.
bare="$tmp/bare"
"$first" -m venv --without-pip "$bare"
site=$("$bare/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
cp -r "$("$first" -c 'import os, pip; print(os.path.dirname(pip.__file__))')" "$site/"
if "$bare/bin/python" -c 'import setuptools' > /dev/null 2>&1 ||
  "$bare/bin/python" -c 'import wheel' > /dev/null 2>&1; then
  echo "FAIL: the bare venv still reaches setuptools or wheel" >&2
  exit 1
fi
install_case "a python3 with pip but no setuptools or wheel" "$bare/bin/python" "$main_block" "$bare"

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)" >&2
  exit 1
fi
