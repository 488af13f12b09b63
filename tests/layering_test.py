#!/usr/bin/env python3
"""Enforces the architecture of spec 00 / docs/architecture.md on #include lines.

Each folder may include only the folders below it; wire formats and SQL stay in
their rooms. Prints one line per violation and a closing 'N passed, N failed'."""
import pathlib
import re
import sys

ROOT = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")

# room -> rooms it may include (besides itself and the public include/mnemo),
# read from the one statement of the layer graph, CMakeLists.txt's
# set(MNEMO_LAYER_<layer> PUBLIC|PRIVATE ...) lines: the layers each layer
# links. The build enforces it (a layer compiles against the folders of what
# it links only); this check also covers headers no unit includes and a layer
# that a PUBLIC link below makes visible without being linked (transport
# including storage through core).
def layer_graph(root):
    text = (root / "CMakeLists.txt").read_text(encoding="utf-8")
    graph = {}
    for m in re.finditer(r"^set\(MNEMO_LAYER_(\w+)((?:\s+\w+)*)\)", text, flags=re.M):
        layer = m.group(1)
        rooms = set(m.group(2).split()) - {"PUBLIC", "PRIVATE"}
        graph["apps" if layer == "apps" else "src/" + layer] = rooms
    return graph


# A third-party format's header belongs to the layers whose CMakeLists.txt
# links its package (the build fences it off the others: CMakeLists.txt,
# MNEMO_FENCES).
def linked_by(root, package):
    return {folder for folder in ["src/" + p.name for p in (root / "src").iterdir() if p.is_dir()]
            + ["apps/mnemo"]
            if (root / folder / "CMakeLists.txt").exists()
            and package in (root / folder / "CMakeLists.txt").read_text(encoding="utf-8")}


ALLOWED = layer_graph(ROOT)
if len(ALLOWED) < 12:
    sys.exit(f"layering: found {len(ALLOWED)} layers in CMakeLists.txt, expected 12")
# third-party headers that only some rooms may use
RESTRICTED = {
    "sqlite3.h": {"src/storage"},
    "libpq-fe.h": {"src/storage"},
    # outbound HTTP goes through the one HttpClient seam (spec 00); the daemon
    # serves HTTP with its own event loop (src/transport/http/http_event_loop.cc,
    # docs/http-server.md), not with cpp-httplib
    "httplib.h": {"src/base/net/http_client.cc"},
    "hnswlib/hnswlib.h": {"src/index"},
    "libstemmer.h": {"src/text/pipeline/stemmer.cc"},
    "xxhash.h": {"src/index/checksum.cc"},
    "CLI/CLI.hpp": {"apps"},
    "nlohmann/json.hpp": linked_by(ROOT, "nlohmann_json::nlohmann_json"),
    "toml++/toml.h": linked_by(ROOT, "tomlplusplus::tomlplusplus"),
    # The configuration and the facade are the engine's: the layers below it
    # take options structs of their own, built by core from Config
    # (core/components.h, the services' *OptionsOf).
    "mnemo/config.h": {"src/core", "src/transport", "apps"},
    "mnemo/engine.h": {"src/core", "src/transport", "apps"},
    # The public services Engine hands out are the engine's too; the internal
    # services behind them are src/core's alone (no backdoor past them).
    **{f"mnemo/{name}.h": {"src/core", "src/transport", "apps"}
       for name in ("memory", "rules", "archivist", "knowledge", "documents", "context",
                    "tools", "admin")},
}
INTERNAL_ROOMS = {"base", "text", "storage", "core", "transport", "embed", "index", "rules",
                  "archivist", "context", "llm"}

def code_of(text):
    """`text` without its comments and string literals."""
    text = re.sub(r'"(\\.|[^"\\\n])*"', '""', text)
    return re.sub(r"//[^\n]*|/\*.*?\*/", "", text, flags=re.S)


include_re = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]')
failures = []
checked = 0
for room, allowed in ALLOWED.items():
    for path in sorted((ROOT / room).rglob("*")):
        if path.suffix not in (".h", ".cc"):
            continue
        checked += 1
        rel = path.relative_to(ROOT).as_posix()
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            m = include_re.match(line)
            if not m:
                continue
            inc = m.group(1)
            first = inc.split("/")[0]
            if first in INTERNAL_ROOMS and "/" in inc:
                own = room.split("/")[-1]
                if first != own and first not in allowed:
                    failures.append(f"{rel}:{n}: {room} may not include {inc} (allowed: {sorted(allowed)})")
            for header, rooms in RESTRICTED.items():
                if inc == header and not any(rel.startswith(r) for r in rooms):
                    failures.append(f"{rel}:{n}: {inc} belongs in {sorted(rooms)} only")
        text = path.read_text(encoding="utf-8")
        if not room.startswith("src/storage") and re.search(r"\bsqlite3_\w+\(|\bPGconn\b", text):
            failures.append(f"{rel}: SQLite/PostgreSQL API outside src/storage")
        # The wire (JSON-RPC, MCP) is the transports' alone: below them JSON
        # is only a data format.
        if (not rel.startswith(("src/transport", "apps"))
                and re.search(r'"(jsonrpc|structuredContent|isError|protocolVersion)"', text)):
            failures.append(f"{rel}: JSON-RPC or MCP wire fields outside src/transport")
        # The library reports through its logger (mnemo/logger.h): only the
        # default logger writes to standard error; the CLI (apps) talks to
        # its user there.
        if (room.startswith("src") and rel != "src/base/logger.cc"
                and re.search(r"std::(cerr|clog)\b|\bstderr\b|STDERR_FILENO", code_of(text))):
            failures.append(f"{rel}: writes to standard error; report through the Logger")

for f in failures:
    print(f)
print(f"layering: {checked} files checked")
print(f"{1 if not failures else 0} passed, {1 if failures else 0} failed")
sys.exit(1 if failures else 0)
