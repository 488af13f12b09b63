#!/usr/bin/env python3
"""The store that takes the vector index past index.hnsw_threshold; a measurement, not a test.

  /usr/bin/python3 bench/threshold_store.py MNEMO_BINARY [--threshold 20000] [--after 20]
      [--searches 20] [--second] [--out FILE]

Imports --threshold entries (distinct generated texts, hash embedder) into a new SQLite
workspace with `mnemo import`, starts `mnemo serve` on it, makes one search (the index is
loaded: flat, at the threshold), then sends memory.store requests one at a time over one
keep-alive JSON-RPC connection: the first takes the index past the threshold, --after more
follow, and every store is followed by a memory.search. Reports each request's latency,
the crossing store's first, and when the index file on disk became the hnsw kind (the
daemon saves it after the switch, index.save_interval_secs = 1 here). With --second, a
second daemon serves the same workspace (as daemons share a PostgreSQL store): it answers a
search before the crossing store and one right after it, which is when it sees the crossing
in the change log.

Before the switch moved to a maintenance thread, the crossing store rebuilt the index as a
graph inside the request. The machine may be shared: run it more than once.
"""
import argparse
import http.client
import json
import random
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

WORDS = ("lighthouse keeper harbour tide ledger copper violin orchard glacier lantern "
         "meadow falcon archive compass ember quartz saddle thimble walnut beacon canyon "
         "delta fjord garnet hollow island jasmine kettle lagoon marble nectar oasis pebble "
         "quiver raven summit tundra umber valley willow yonder zephyr anchor bramble cinder").split()


def note(rng, i):
    return f"note {i}: " + " ".join(rng.choice(WORDS) for _ in range(12))


class Rpc:
    def __init__(self, port):
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
        self.next_id = 0

    def call(self, method, params):
        self.next_id += 1
        body = json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method,
                           "params": params}).encode()
        t = time.perf_counter()
        self.conn.request("POST", "/rpc", body, {"Content-Type": "application/json"})
        resp = self.conn.getresponse()
        data = json.loads(resp.read())
        ms = (time.perf_counter() - t) * 1000.0
        if "error" in data:
            raise RuntimeError(f"{method}: {data['error']}")
        return data["result"], ms


def start_daemon(binary, ws, log_path):
    """(process, port, log file) of a `mnemo serve` on workspace `ws`."""
    log = open(log_path, "w")
    proc = subprocess.Popen([binary, "--workspace", str(ws), "serve", "--listen", "127.0.0.1:0"],
                            stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        m = re.search(r"listening on .*:(\d+)", log_path.read_text())
        if m:
            return proc, int(m.group(1)), log
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    proc.kill()
    proc.wait()
    sys.exit(f"mnemo serve exited: {log_path.read_text()[-2000:]}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("binary")
    ap.add_argument("--threshold", type=int, default=20000)
    ap.add_argument("--after", type=int, default=20)
    ap.add_argument("--searches", type=int, default=20)
    ap.add_argument("--second", action="store_true", help="a second daemon on the workspace")
    ap.add_argument("--out", default="threshold_store.json")
    args = ap.parse_args()
    rng = random.Random(7)
    out = {"binary": args.binary, "threshold": args.threshold}
    with tempfile.TemporaryDirectory(prefix="mnemo-threshold-") as tmp:
        ws = Path(tmp) / "ws"
        ws.mkdir()
        (ws / "mnemo.toml").write_text(
            f"[index]\nhnsw_threshold = {args.threshold}\nsave_interval_secs = 1\n")
        data = Path(tmp) / "preload.jsonl"
        with open(data, "w") as f:
            for i in range(args.threshold):
                f.write(json.dumps({"key": f"pre{i}", "content": note(rng, i)}) + "\n")
        t = time.monotonic()
        subprocess.run([args.binary, "--workspace", str(ws), "import", str(data)], check=True,
                       capture_output=True)
        out["import_s"] = time.monotonic() - t
        daemons = []
        try:
            for n in range(2 if args.second else 1):
                daemons.append(start_daemon(args.binary, ws, Path(tmp) / f"serve{n}.log"))
            rpc = Rpc(daemons[0][1])
            _, out["first_search_ms"] = rpc.call("memory.search", {"query": "lighthouse keeper",
                                                                   "max_results": 10})
            second = Rpc(daemons[1][1]) if args.second else None
            if second:
                second.call("memory.search", {"query": "lighthouse keeper", "max_results": 10})
            hnsw_file = ws / "index" / "hash-v2-384.hnsw.idx"
            stores, searches = [], []
            t0 = time.monotonic()
            hnsw_saved_s = None
            for i in range(1 + args.after):
                _, ms = rpc.call("memory.store", {"key": f"new{i}", "value": note(rng, -i - 1),
                                                  "category": "daily"})
                stores.append(ms)
                if second and i == 0:
                    _, out["second_daemon_search_after_crossing_ms"] = second.call(
                        "memory.search", {"query": rng.choice(WORDS), "max_results": 10})
                _, ms = rpc.call("memory.search", {"query": rng.choice(WORDS), "max_results": 10})
                searches.append(ms)
                if hnsw_saved_s is None and hnsw_file.exists():
                    hnsw_saved_s = time.monotonic() - t0
            while hnsw_saved_s is None and time.monotonic() - t0 < 300:
                time.sleep(0.1)
                if hnsw_file.exists():
                    hnsw_saved_s = time.monotonic() - t0
            for _ in range(args.searches):
                _, ms = rpc.call("memory.search", {"query": rng.choice(WORDS), "max_results": 10})
                searches.append(ms)
            out["crossing_store_ms"] = stores[0]
            out["later_stores_ms_median"] = statistics.median(stores[1:]) if stores[1:] else None
            out["later_stores_ms_max"] = max(stores[1:]) if stores[1:] else None
            out["search_after_crossing_ms"] = searches[0]
            out["searches_ms_median"] = statistics.median(searches)
            out["searches_ms_max"] = max(searches)
            out["hnsw_file_after_s"] = hnsw_saved_s
            out["stores_ms"] = stores
        finally:
            for proc, _, log in daemons:
                proc.send_signal(signal.SIGTERM)
                proc.wait(timeout=120)
                log.close()
    with open(args.out, "w") as f:
        json.dump(out, f, indent=1)
    print(f"threshold {args.threshold}: crossing store {out['crossing_store_ms']:.1f} ms, "
          f"next {args.after} stores median {out['later_stores_ms_median']:.1f} ms "
          f"(max {out['later_stores_ms_max']:.1f}), search right after the crossing "
          f"{out['search_after_crossing_ms']:.1f} ms, searches median "
          f"{out['searches_ms_median']:.1f} ms (max {out['searches_ms_max']:.1f}); "
          f"hnsw file on disk after {out['hnsw_file_after_s']} s")
    if args.second:
        print(f"second daemon's first search after the crossing store: "
              f"{out['second_daemon_search_after_crossing_ms']:.1f} ms")


if __name__ == "__main__":
    main()
