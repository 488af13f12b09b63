#!/usr/bin/env python3
"""The include graph is the link graph (docs/architecture.md, "Target graph").

Preprocesses one-line probe files with the include path the build gives each
layer (written at configure time from the targets: tests/CMakeLists.txt) and
checks that a header of a layer it does not link, above or beside it, is not
found, and that a third-party format it does not link stops at its fence;
the same probes with a layer that links them pass, so the check cannot pass
on a path that finds nothing. Prints one line per case and 'N passed, N failed'.

Usage: layer_includes_test.py <c++ compiler> <layer include paths file>"""
import os
import subprocess
import sys
import tempfile

compiler, paths_file = sys.argv[1], sys.argv[2]
paths = {}
for line in open(paths_file, encoding="utf-8"):
    layer, _, dirs = line.rstrip("\n").partition("=")
    if layer:
        # (the system folder is the compiler's own, searched last)
        paths[layer] = [d for d in dirs.split(";") if d and d != "/usr/include"]

# (layer, include line, what happens): "ok", "missing" (not on the path) or
# "fenced" (a third-party format the layer does not link).
CASES = [
    ("text", '#include "storage/entry_store.h"', "missing"),      # upward
    ("storage", '#include "core/validation.h"', "missing"),       # upward
    ("index", '#include "text/pipeline/tokenizer.h"', "missing"),          # beside
    ("rules", '#include "context/graph.h"', "missing"),           # beside
    ("embed", '#include "storage/entry_store.h"', "missing"),     # beside
    ("archivist", '#include "rules/edicts.h"', "missing"),        # beside
    ("core", '#include "transport/rpc/method_table.h"', "missing"),  # upward
    ("rules", '#include "storage/entry_store.h"', "ok"),
    ("archivist", '#include "context/graph.h"', "ok"),
    ("transport", '#include "core/validation.h"', "ok"),
    ("index", "#include <nlohmann/json.hpp>", "fenced"),
    ("context", "#include <nlohmann/json.hpp>", "fenced"),
    ("storage", "#include <toml++/toml.h>", "fenced"),
    ("text", "#include <httplib.h>", "fenced"),
    ("transport", "#include <CLI/CLI.hpp>", "fenced"),
    ("storage", "#include <nlohmann/json.hpp>", "ok"),
    ("core", "#include <toml++/toml.h>", "ok"),
    ("base", "#include <httplib.h>", "ok"),
]

failures = 0
with tempfile.TemporaryDirectory() as tmp:
    for n, (layer, line, expected) in enumerate(CASES):
        probe = os.path.join(tmp, f"probe{n}.cc")
        with open(probe, "w", encoding="utf-8") as f:
            f.write(line + "\n")
        args = [compiler, "-std=c++20", "-E", "-o", os.devnull, probe]
        args += [f"-I{d}" for d in paths[layer]]
        r = subprocess.run(args, capture_output=True, text=True)
        if r.returncode == 0:
            got = "ok"
        elif "this layer does not link" in r.stderr:
            got = "fenced"
        elif "No such file or directory" in r.stderr:
            got = "missing"
        else:
            got = "error: " + r.stderr.strip().splitlines()[0] if r.stderr.strip() else "error"
        status = "ok  " if got == expected else "FAIL"
        failures += got != expected
        print(f"{status} {layer}: {line} -> {got} (expected {expected})")
print(f"{len(CASES) - failures} passed, {failures} failed")
sys.exit(1 if failures else 0)
