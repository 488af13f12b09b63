#!/usr/bin/env python3
"""Restart-to-first-answer after a crash (issue 17 item 5); a measurement, not a test.

  bench/restart_after_crash.py MNEMO_BINARY [ENTRIES] [SAVE_WAIT_SECS]

A daemon on a new workspace stores ENTRIES (default 20 500: above index.hnsw_threshold,
20 000) entries over HTTP, waits SAVE_WAIT_SECS (default 65: one daemon save period of
index.save_interval_secs = 60, the default, has passed), stores 100 more, and is killed
with SIGKILL. A new daemon is started and timed from its start to its first answer to
memory.search. Prints the time and what its stderr said about the index."""
import http.client
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

binary = sys.argv[1]
entries = int(sys.argv[2]) if len(sys.argv) > 2 else 20500
save_wait = float(sys.argv[3]) if len(sys.argv) > 3 else 65.0
ws = tempfile.mkdtemp(prefix="mnemo-restart-")


def start():
    p = subprocess.Popen([binary, "--workspace", ws, "serve", "--listen", "127.0.0.1:0"],
                         stderr=subprocess.PIPE, text=True)
    lines = []
    for line in p.stderr:
        lines.append(line)
        m = re.search(r"listening on .*:(\d+)", line)
        if m:
            break
    threading.Thread(target=lambda: lines.extend(p.stderr), daemon=True).start()
    return p, int(m.group(1)), lines


def call(port, method, params):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
    c.request("POST", "/rpc", body, {"Content-Type": "application/json"})
    r = json.loads(c.getresponse().read())
    c.close()
    if "result" not in r:
        raise RuntimeError(r)
    return r["result"]


WORDS = ("deploy server billing invoice garden python rust tea berlin lisbon meeting "
         "budget report laptop keyboard coffee kite zebra harbour lighthouse").split()


def store_range(port, lo, hi):
    for i in range(lo, hi):
        text = " ".join(WORDS[(i * 7 + k * 13) % len(WORDS)] for k in range(8)) + f" note {i}"
        call(port, "memory.store", {"key": f"k{i}", "value": text})


p, port, _ = start()
t0 = time.time()
threads = [threading.Thread(target=store_range, args=(port, entries * t // 4, entries * (t + 1) // 4))
           for t in range(4)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print(f"stored {entries} entries in {time.time() - t0:.1f} s", flush=True)
time.sleep(save_wait)
store_range(port, entries, entries + 100)
files = sorted(os.listdir(os.path.join(ws, "index"))) if os.path.isdir(os.path.join(ws, "index")) else []
print("index files before the kill:", files, flush=True)
p.send_signal(signal.SIGKILL)
p.wait()

t0 = time.time()
p, port, lines = start()
t_listen = time.time() - t0
call(port, "memory.search", {"query": "lighthouse keeper", "max_results": 5})
t_answer = time.time() - t0
print(f"restart after SIGKILL: listening after {t_listen * 1000:.0f} ms, "
      f"first search answered after {t_answer * 1000:.0f} ms", flush=True)
p.send_signal(signal.SIGTERM)
p.wait()
print("stderr of the restarted daemon:", "".join(lines).strip())
# The divergence check's cost at open: one count of the signature's vectors.
import sqlite3
db = sqlite3.connect(os.path.join(ws, "mnemo.db"))
t0 = time.time()
n = db.execute("SELECT count(*) FROM entry_vectors WHERE signature = 'hash-v2-384'").fetchone()[0]
print(f"CountVectors ({n} vectors): {(time.time() - t0) * 1000:.2f} ms")
db.close()
shutil.rmtree(ws)
