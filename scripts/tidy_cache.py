#!/usr/bin/env python3
"""Which sources clang-tidy must still check (scripts/check-style.sh).

clang-tidy parses every translation unit again (about 10 s each on this
project's 2 cores), so a clean result is remembered per translation unit,
keyed by everything its findings depend on: clang-tidy's version, the
.clang-tidy file, the compile command (with the source and build folders
made relative, so another clone of the same commit shares the key) and the
content of every project file the unit includes, as the build's own
dependency log (ninja -t deps) lists them. A change to any of these checks
the unit again. System headers count by path (they change with packages,
and so does clang-tidy's version line).

  tidy_cache.py BUILD list FILE...   prints the FILEs without a clean record
  tidy_cache.py BUILD mark FILE...   records the FILEs as clean

The records are empty files under ${XDG_CACHE_HOME:-~/.cache}/mnemo/clang-tidy.
"""

import hashlib
import json
import os
import shlex
import subprocess
import sys


def cache_dir():
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "mnemo", "clang-tidy")


def object_deps(build):
    """{object path: [dependency paths]} from the build's dependency log."""
    out = subprocess.run(["ninja", "-C", build, "-t", "deps"], check=True,
                         capture_output=True, text=True).stdout
    deps, current = {}, None
    for line in out.splitlines():
        if not line.strip():
            current = None
        elif not line.startswith(" "):
            current = line.split(":", 1)[0]
            deps[current] = []
        elif current is not None:
            deps[current].append(line.strip())
    return deps


def file_hash(path, memo):
    if path not in memo:
        with open(path, "rb") as f:
            memo[path] = hashlib.sha256(f.read()).hexdigest()
    return memo[path]


def keys(build, files):
    root = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
    build_abs = os.path.abspath(build)
    with open(os.path.join(build, "compile_commands.json"), encoding="utf-8") as f:
        commands = {os.path.realpath(c["file"]): c for c in json.load(f)}
    deps = object_deps(build)
    version = subprocess.run(["clang-tidy", "--version"], check=True, capture_output=True,
                             text=True).stdout
    memo = {}
    common = hashlib.sha256()
    common.update(version.encode())
    common.update(file_hash(os.path.join(root, ".clang-tidy"), memo).encode())
    out = {}
    for rel in files:
        command = commands.get(os.path.realpath(os.path.join(root, rel)))
        if command is None:
            out[rel] = None  # not compiled in this build: always checked
            continue
        args = shlex.split(command["command"])
        obj = args[args.index("-o") + 1] if "-o" in args else ""
        listed = deps.get(obj)
        if not listed:
            out[rel] = None  # not built yet: no dependency list to trust
            continue
        h = common.copy()
        h.update(command["command"].replace(build_abs, "<build>").replace(root, "<root>").encode())
        for dep in sorted(listed):
            path = dep if os.path.isabs(dep) else os.path.normpath(os.path.join(build_abs, dep))
            if path.startswith(root + os.sep):
                h.update(os.path.relpath(path, root).encode())
                h.update(file_hash(path, memo).encode())
            else:
                h.update(path.encode())
        out[rel] = h.hexdigest()
    return out


def main():
    if len(sys.argv) < 3 or sys.argv[2] not in ("list", "mark"):
        sys.exit(__doc__)
    build, action, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    folder = cache_dir()
    computed = keys(build, files)
    if action == "list":
        for rel in files:
            key = computed[rel]
            if key is None or not os.path.exists(os.path.join(folder, key)):
                print(rel)
        return
    os.makedirs(folder, exist_ok=True)
    for rel in files:
        if computed[rel] is not None:
            open(os.path.join(folder, computed[rel]), "w").close()


if __name__ == "__main__":
    main()
