#!/usr/bin/env bash
# The Python client (clients/python, issue 21): installs it with pip, offline, into a
# temp venv (Debian's python3-pip through the venv's system site-packages; the build
# needs only the standard library; no PyPI) and runs its pytest suite from that install
# against the built binary, over HTTP, https (tests/test_tls.py: a certificate from
# tests/clients/make_test_cert.sh) and stdio (and mypy --strict, Debian's mypy).
# Skips (exit 77) only when Debian's python3-pytest is missing; scripts/install-deps.sh
# installs it, so CI never skips.
#   tests/clients/run_python_test.sh MNEMO_BINARY [PYTEST_ARGS...]
set -euo pipefail
binary=$(realpath "${1:?usage: run_python_test.sh MNEMO_BINARY [PYTEST_ARGS...]}")
shift
root=$(cd "$(dirname "$0")/../.." && pwd)
# Debian's interpreter, where python3-pytest lives (a pyenv python3 on PATH has no pytest).
python=/usr/bin/python3
[ -x "$python" ] || python=$(command -v python3)
if ! "$python" -c 'import pytest' > /dev/null 2>&1; then
  echo "SKIPPED: the Python client test needs pytest (Debian's python3-pytest; scripts/install-deps.sh installs it)"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# A copy: the suite runs from it, away from the checkout.
cp -r "$root/clients/python" "$tmp/src"
# --without-pip: the system's pip serves (seeding the venv with its own takes seconds).
"$python" -m venv --without-pip --system-site-packages "$tmp/venv"
"$tmp/venv/bin/python" -m pip install --quiet --no-build-isolation --no-index --no-deps \
  --disable-pip-version-check "$tmp/src"
# From $tmp, so `import mnemo` finds the installed package, not a source folder.
cd "$tmp"
MNEMO_SOURCE_DIR=$root MNEMO_EXPECT_INSTALLED=1 PYTHONDONTWRITEBYTECODE=1 \
  "$tmp/venv/bin/python" -m pytest -p no:cacheprovider -q --rootdir "$tmp/src" \
  --mnemo-binary "$binary" "$tmp/src/tests" "$@"
