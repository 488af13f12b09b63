#!/usr/bin/env python3
"""Daemon soak: memory (RSS) and latency of a real `mnemo serve` over time; a measurement, not a test.

  /usr/bin/python3 bench/soak.py MNEMO_BINARY [--scenario rss|turns|both] [--minutes 10]
      [--dataset /tmp/ds100k] [--out soak.json] [--rate 20] [--turn-rate 50] [--keep]

Use a copy of the binary (cp build/release/apps/mnemo/mnemo /tmp/mnemo-soak) so a rebuild
during the run does not replace it. Each scenario starts its own daemon (embedded SQLite, the
default config, hash embedder) on a fresh workspace in /tmp and port 0, and stops it with
SIGTERM at the end. Standard library only.

rss   Loads the dataset's memories.jsonl (100k entries from ../shared/bench/datagen.py) into the
      daemon with memory.store, 250 calls per JSON-RPC batch request (there is no import RPC;
      the batch keeps the daemon's own write path and its RSS in the measurement, which the
      `mnemo import` CLI before the daemon starts would not), then serves the 1 000 queries of
      queries.jsonl through memory.search one after the other and records VmRSS (target
      <= 700 MB). Then a mixed open-loop load at --rate calls/s (default 20: 50% memory.search,
      20% memory.store, 15% memory.context_build, 15% memory.turn_complete) for --minutes,
      sampling RSS every 10 s. Reports the curve, the slope over the last 5 minutes (MB/min,
      least squares; target: flat) and per-method latency.

turns memory.turn_complete at a steady --turn-rate turns/s (default 50, open loop: calls are
      sent on schedule by 4 client connections, so a slow call does not slow the rate) for
      --minutes, with the markdown archive on (it is always on while
      learning.episodic_capture_enabled is true, the default: one file per episodic row under
      <workspace>/memory_tree/content/episodic). Turns are a user message and an assistant
      reply taken from dataset memories plus one or two tool calls whose output is a dataset
      memory; 40 turns per session, 20 sessions interleaved. Reports latency p50/p95/p99
      (target p95 <= 5 ms; "service" is send to answer, "scheduled" counts from the intended
      send time, so queueing in the client shows), the archive queue (memory.health
      archive_queue: depth, peak, written) and RSS every 10 s (target: flat).

Memory: every sample has VmRSS, VmHWM, RssAnon, RssFile (/proc/PID/status) and Pss, Pss_Anon,
Pss_File (/proc/PID/smaps_rollup). SQLite reads the database through a memory map on each of
its connections (the writer and 4 readers), so a clean database page read by k connections counts
k times in VmRSS and once in Pss; RssFile rises and falls as SQLite remaps the growing file.
RssAnon is the figure to watch for leaks. Samples also carry the 1-minute load average and the
daemon's CPU seconds: on a shared machine the latency figures include waiting for a core.

--wrap runs the daemon under another program and follows the daemon's own pid, e.g.
  --wrap "heaptrack -o /tmp/soak-heap" --minutes 2 --limit 25000
(then heaptrack_print /tmp/soak-heap.zst). Keep such runs short.

Prints a summary and writes the curves to --out (JSON)."""
import argparse
import http.client
import json
import os
import queue
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

SAMPLE_SECS = 10.0
SLOPE_WINDOW_SECS = 300.0


# ---------------------------------------------------------------- daemon and transport

class Daemon:
    """A `mnemo serve` on a fresh workspace; stderr kept in <workspace>.log."""

    def __init__(self, binary, keep, wrap=None):
        self.binary = binary
        self.keep = keep
        self.wrap = wrap or []
        self.pid = None  # the daemon's own pid (not the wrapper's)
        self.ws = tempfile.mkdtemp(prefix="mnemo-soak-", dir="/tmp")
        self.log_path = self.ws + ".log"
        self.proc = None
        self.port = None

    def start(self):
        log = open(self.log_path, "w")
        self.proc = subprocess.Popen(
            self.wrap + [self.binary, "--workspace", self.ws, "serve", "--listen", "127.0.0.1:0"],
            stdout=log, stderr=log)
        deadline = time.time() + 120
        while time.time() < deadline:
            with open(self.log_path) as f:
                m = re.search(r"listening on .*:(\d+)", f.read())
            if m:
                self.port = int(m.group(1))
                self.pid = self._daemon_pid()
                return
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        raise RuntimeError("daemon did not start; log: " + open(self.log_path).read()[-2000:])

    def _daemon_pid(self):
        """The pid whose command line is the daemon's (a wrapper such as heaptrack starts it
        as its child)."""
        if not self.wrap:
            return self.proc.pid
        for d in os.listdir("/proc"):
            if not d.isdigit():
                continue
            try:
                with open(f"/proc/{d}/cmdline", "rb") as f:
                    argv = f.read().split(b"\0")
            except OSError:
                continue
            if argv[0].decode(errors="replace") == self.binary and \
                    self.ws.encode() in argv and b"serve" in argv:
                return int(d)
        raise RuntimeError("cannot find the daemon's pid under the wrapper")

    def status(self):
        """MB: VmRSS, VmHWM, RssAnon, RssFile from /proc/PID/status, and Pss, Pss_Anon,
        Pss_File from smaps_rollup. SQLite maps the database once per connection (mmap_size),
        so a page read through several connections counts several times in VmRSS/RssFile
        but once in Pss."""
        out = {}
        for name, keys in (("status", ("VmRSS", "VmHWM", "RssAnon", "RssFile")),
                           ("smaps_rollup", ("Pss", "Pss_Anon", "Pss_File"))):
            try:
                with open(f"/proc/{self.pid}/{name}") as f:
                    for line in f:
                        k, _, v = line.partition(":")
                        if k in keys:
                            out[k] = int(v.split()[0]) / 1024.0
            except OSError:
                pass
        return out

    def stop(self):
        if self.proc and self.proc.poll() is None:
            os.kill(self.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=300)
            except subprocess.TimeoutExpired:
                os.kill(self.pid, signal.SIGKILL)
                self.proc.wait()
        if not self.keep:
            shutil.rmtree(self.ws, ignore_errors=True)
            if os.path.exists(self.log_path):
                os.unlink(self.log_path)


class Rpc:
    """One keep-alive HTTP connection (reopened after an error) to POST /rpc."""

    def __init__(self, port, timeout=300):
        self.port = port
        self.timeout = timeout
        self.conn = None
        self.next_id = 0

    def _post(self, body):
        for attempt in (0, 1):
            if self.conn is None:
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port,
                                                       timeout=self.timeout)
            try:
                self.conn.request("POST", "/rpc", body, {"Content-Type": "application/json"})
                resp = self.conn.getresponse()
                data = resp.read()
                if resp.status != 200:
                    raise RuntimeError(f"HTTP {resp.status}: {data[:300]!r}")
                return json.loads(data)
            except (http.client.HTTPException, ConnectionError, OSError):
                self.conn.close()
                self.conn = None
                if attempt:
                    raise

    def call(self, method, params):
        """The result, or raises RuntimeError with the JSON-RPC error."""
        self.next_id += 1
        r = self._post(json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method,
                                   "params": params}))
        if "result" not in r:
            raise RuntimeError(f"{method}: {r.get('error')}")
        return r["result"]

    def batch(self, method, params_list):
        """Error objects of the failed calls of one batch request."""
        reqs = []
        for p in params_list:
            self.next_id += 1
            reqs.append({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": p})
        return [r["error"] for r in self._post(json.dumps(reqs)) if "error" in r]


# ---------------------------------------------------------------- statistics

def percentile(sorted_vals, p):
    if not sorted_vals:
        return None
    k = (len(sorted_vals) - 1) * p / 100.0
    lo = int(k)
    hi = min(lo + 1, len(sorted_vals) - 1)
    return sorted_vals[lo] + (sorted_vals[hi] - sorted_vals[lo]) * (k - lo)


def lat_summary(ms):
    s = sorted(ms)
    if not s:
        return {"n": 0}
    return {"n": len(s), "p50_ms": round(percentile(s, 50), 3),
            "p95_ms": round(percentile(s, 95), 3), "p99_ms": round(percentile(s, 99), 3),
            "max_ms": round(s[-1], 3), "mean_ms": round(sum(s) / len(s), 3)}


def slope_mb_per_min(points, window=SLOPE_WINDOW_SECS):
    """Least-squares slope of (t_s, mb) over the last `window` seconds, in MB/min."""
    if not points:
        return None
    t_end = points[-1][0]
    pts = [(t, y) for t, y in points if t >= t_end - window]
    if len(pts) < 2:
        return None
    n = len(pts)
    mt = sum(t for t, _ in pts) / n
    my = sum(y for _, y in pts) / n
    den = sum((t - mt) ** 2 for t, _ in pts)
    if den == 0:
        return None
    return sum((t - mt) * (y - my) for t, y in pts) / den * 60.0


def slopes_by_measure(samples):
    """Slope over the last 5 minutes (MB/min) of each memory measure the samples carry."""
    out = {}
    for k in ("VmRSS", "Pss", "RssAnon", "Pss_Anon", "RssFile"):
        pts = [(s["t_s"], s[k]) for s in samples if k in s]
        v = slope_mb_per_min(pts)
        if v is not None:
            out[k] = round(v, 3)
    return out


# ---------------------------------------------------------------- load generation

class Sampler(threading.Thread):
    """Every SAMPLE_SECS: RSS of the daemon and (optionally) memory.health's archive queue."""

    def __init__(self, daemon, t0, archive=False, extra=None):
        super().__init__(daemon=True)
        self.d = daemon
        self.t0 = t0
        self.archive = archive
        self.extra = extra
        self.samples = []
        self.stop_ev = threading.Event()
        self.rpc = Rpc(daemon.port)

    def sample(self):
        s = {"t_s": round(time.time() - self.t0, 1)}
        s.update({k: round(v, 1) for k, v in self.d.status().items()})
        # Other work on the machine shows in every latency figure: keep the load beside them.
        with open("/proc/loadavg") as f:
            s["load1"] = float(f.read().split()[0])
        with open(f"/proc/{self.d.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
            s["cpu_s"] = round((int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK"), 1)
        if self.archive:
            try:
                q = self.rpc.call("memory.health", {"audit_lines": 0})["archive_queue"]
                s["archive"] = q
            except Exception as e:  # noqa: BLE001 - a failed probe is recorded, not fatal
                s["archive_error"] = str(e)
        if self.extra:
            s.update(self.extra())
        self.samples.append(s)

    def run(self):
        next_t = time.time()
        while not self.stop_ev.is_set():
            self.sample()
            next_t += SAMPLE_SECS
            self.stop_ev.wait(max(0.0, next_t - time.time()))

    def finish(self):
        self.stop_ev.set()
        self.join()
        self.sample()
        return self.samples


def open_loop(port, rate, seconds, make_call, workers=4):
    """Sends make_call(i) -> (method, params) at `rate` calls/s for `seconds` from `workers`
    connections. Returns {method: {"service": [ms], "scheduled": [ms]}}, errors, sent."""
    jobs = queue.Queue()
    lat = {}
    errors = {}
    lock = threading.Lock()

    def worker():
        rpc = Rpc(port)
        while True:
            job = jobs.get()
            if job is None:
                return
            due, method, params = job
            t = time.perf_counter()
            ok = True
            try:
                rpc.call(method, params)
            except Exception as e:  # noqa: BLE001 - counted per method
                ok = False
                with lock:
                    errors.setdefault(method, []).append(str(e)[:200])
            end = time.perf_counter()
            if ok:
                with lock:
                    d = lat.setdefault(method, {"service": [], "scheduled": []})
                    d["service"].append((end - t) * 1e3)
                    d["scheduled"].append((end - due) * 1e3)

    threads = [threading.Thread(target=worker, daemon=True) for _ in range(workers)]
    for th in threads:
        th.start()
    start = time.perf_counter()
    interval = 1.0 / rate
    i = 0
    while True:
        due = start + i * interval
        if due - start >= seconds:
            break
        now = time.perf_counter()
        if due > now:
            time.sleep(due - now)
        method, params = make_call(i)
        jobs.put((due, method, params))
        i += 1
    for _ in threads:
        jobs.put(None)
    for th in threads:
        th.join()
    return lat, errors, i


# ---------------------------------------------------------------- dataset and payloads

def load_jsonl(path, limit=None):
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                out.append(json.loads(line))
                if limit and len(out) >= limit:
                    break
    return out


TOOLS = ["shell", "web_search", "read_file", "email_send", "calendar_lookup", "git"]


class TurnMaker:
    """Realistic turns: dataset memories as user message, reply and tool output."""

    def __init__(self, memories, seed, prefix, sessions=20, turns_per_session=40):
        self.rnd = random.Random(seed)
        self.texts = [m["content"] for m in memories]
        self.prefix = prefix
        self.turns_per_session = turns_per_session
        self.slots = [[f"{prefix}-s{k}", 0] for k in range(sessions)]
        self.next_session = sessions
        self.n = 0

    def text(self):
        return self.rnd.choice(self.texts)

    def make(self):
        slot = self.slots[self.n % len(self.slots)]
        if slot[1] >= self.turns_per_session:
            slot[0], slot[1] = f"{self.prefix}-s{self.next_session}", 0
            self.next_session += 1
        slot[1] += 1
        self.n += 1
        calls = []
        for c in range(self.rnd.choice((1, 1, 2))):
            name = self.rnd.choice(TOOLS)
            ok = self.rnd.random() > 0.05
            calls.append({"id": f"c{self.n}-{c}", "name": name,
                          "arguments": {"query": self.text()[:80], "limit": 5},
                          "output": self.text() if ok else "error: timed out after 30s",
                          "success": ok, "duration_ms": self.rnd.randint(5, 900)})
        return {"session_id": slot[0], "turn_id": f"t{self.n}", "agent_id": "soak-agent",
                "user_message": self.text(),
                "assistant_response": self.text() + " " + self.text(),
                "tool_calls": calls}


# ---------------------------------------------------------------- scenarios

def scenario_rss(args):
    memories = load_jsonl(os.path.join(args.dataset, "memories.jsonl"), args.limit)
    queries = [q["query"] for q in load_jsonl(os.path.join(args.dataset, "queries.jsonl"))]
    d = Daemon(args.binary, args.keep, args.wrap.split() if args.wrap else None)
    d.start()
    res = {"workspace": d.ws, "daemon_log": d.log_path, "entries": len(memories)}
    try:
        t0 = time.time()
        rss0 = d.status()
        sampler = Sampler(d, t0)
        sampler.start()
        rpc = Rpc(d.port)
        # Import: memory.store in JSON-RPC batches, two connections (the machine has 2 cores).
        batches = [memories[i:i + args.batch] for i in range(0, len(memories), args.batch)]
        errs = []
        lock = threading.Lock()

        def importer(k):
            r = Rpc(d.port)
            for b in batches[k::2]:
                e = r.batch("memory.store", [{"key": m["key"], "value": m["content"],
                                              "category": m["category"],
                                              "namespace": m["namespace"],
                                              "tags": m.get("tags", [])} for m in b])
                with lock:
                    errs.extend(e)

        ths = [threading.Thread(target=importer, args=(k,)) for k in range(2)]
        for th in ths:
            th.start()
        for th in ths:
            th.join()
        t_import = time.time() - t0
        res["import"] = {"method": f"memory.store, JSON-RPC batches of {args.batch}, 2 connections",
                         "seconds": round(t_import, 1),
                         "entries_per_s": round(len(memories) / t_import, 1),
                         "errors": len(errs), "error_examples": [str(e)[:200] for e in errs[:3]],
                         "rss_after": d.status()}
        # 1 000 searches, one after the other.
        lat = []
        t1 = time.time()
        for q in queries:
            t = time.perf_counter()
            rpc.call("memory.search", {"query": q, "max_results": 10})
            lat.append((time.perf_counter() - t) * 1e3)
        res["searches"] = {"n": len(queries), "seconds": round(time.time() - t1, 1),
                           "latency": lat_summary(lat)}
        res["rss_after_searches"] = d.status()
        res["t_mixed_start_s"] = round(time.time() - t0, 1)
        res["rss_idle_start"] = rss0

        # Mixed load.
        rnd = random.Random(11)
        turns = TurnMaker(memories, 12, "mix")
        new_key = [0]

        def make_call(i):
            x = rnd.random()
            if x < 0.50:
                return "memory.search", {"query": rnd.choice(queries), "max_results": 10}
            if x < 0.70:
                m = rnd.choice(memories)
                if rnd.random() < 0.5:
                    new_key[0] += 1
                    return "memory.store", {"key": f"soak-{new_key[0]:07d}",
                                            "value": m["content"], "category": m["category"]}
                return "memory.store", {"key": m["key"], "namespace": m["namespace"],
                                        "category": m["category"],
                                        "value": m["content"] + " (edited)"}
            if x < 0.85:
                return "memory.context_build", {"query": rnd.choice(queries),
                                                "session_id": turns.slots[0][0]}
            return "memory.turn_complete", turns.make()

        lat_mixed, errors, sent = open_loop(d.port, args.rate, args.minutes * 60, make_call)
        samples = sampler.finish()
        t_mix = res["t_mixed_start_s"]
        mixed_pts = [(s["t_s"] - t_mix, s["VmRSS"]) for s in samples if s["t_s"] >= t_mix]
        res["mixed"] = {
            "rate_per_s": args.rate, "seconds": args.minutes * 60, "sent": sent,
            "latency": {m: {"service": lat_summary(v["service"]),
                            "scheduled": lat_summary(v["scheduled"])}
                        for m, v in sorted(lat_mixed.items())},
            "errors": {m: {"n": len(v), "examples": v[:3]} for m, v in errors.items()},
            "rss_start_mb": mixed_pts[0][1] if mixed_pts else None,
            "rss_end_mb": mixed_pts[-1][1] if mixed_pts else None,
            "slope_last5_mb_per_min": slope_mb_per_min(mixed_pts),
            "slope_all_mb_per_min": slope_mb_per_min(mixed_pts, window=1e9),
            "slope_last5_by_measure": slopes_by_measure(
                [s for s in samples if s["t_s"] >= t_mix]),
        }
        res["curve"] = samples
        res["targets"] = {
            "rss_after_searches_le_700mb": res["rss_after_searches"]["VmRSS"] <= 700,
            "rss_flat_last5_abs_slope_le_1mb_per_min":
                res["mixed"]["slope_last5_mb_per_min"] is not None
                and abs(res["mixed"]["slope_last5_mb_per_min"]) <= 1.0,
        }
    finally:
        d.stop()
    return res


def scenario_turns(args):
    memories = load_jsonl(os.path.join(args.dataset, "memories.jsonl"), 20000)
    d = Daemon(args.binary, args.keep, args.wrap.split() if args.wrap else None)
    d.start()
    archive_dir = os.path.join(d.ws, "memory_tree", "content", "episodic")
    res = {"workspace": d.ws, "daemon_log": d.log_path, "archive_dir": archive_dir}
    try:
        turns = TurnMaker(memories, 21, "soak")
        t0 = time.time()
        sampler = Sampler(d, t0, archive=True)
        sampler.start()
        lat, errors, sent = open_loop(d.port, args.turn_rate, args.minutes * 60,
                                      lambda i: ("memory.turn_complete", turns.make()))
        t_load = time.time() - t0
        samples = sampler.finish()
        # Drain: how long the archive takes to catch up once turns stop.
        rpc = Rpc(d.port)
        t_drain = time.time()
        q = rpc.call("memory.health", {"audit_lines": 0})["archive_queue"]
        last_written = -1
        while (q["depth"] > 0 or q["written"] != last_written) and time.time() - t_drain < 300:
            last_written = q["written"]
            time.sleep(0.5)
            q = rpc.call("memory.health", {"audit_lines": 0})["archive_queue"]
        files = sum(len([f for f in fs if f.endswith(".md")]) for _, _, fs in os.walk(archive_dir))
        tl = lat.get("memory.turn_complete", {"service": [], "scheduled": []})
        pts = [(s["t_s"], s["VmRSS"]) for s in samples]
        # Latency per minute, to see drift.
        res.update({
            "rate_per_s": args.turn_rate, "seconds": args.minutes * 60, "sent": sent,
            "achieved_rate_per_s": round(len(tl["service"]) / t_load, 2),
            "latency_service": lat_summary(tl["service"]),
            "latency_scheduled": lat_summary(tl["scheduled"]),
            "latency_by_minute_p95_ms": minute_p95(tl["service"], args.turn_rate),
            "errors": {m: {"n": len(v), "examples": v[:3]} for m, v in errors.items()},
            "archive_final": q, "archive_drain_s": round(time.time() - t_drain, 1),
            "archive_files_on_disk": files,
            "rss_start_mb": pts[0][1], "rss_end_mb": pts[-1][1],
            "slope_last5_mb_per_min": slope_mb_per_min(pts),
            "slope_all_mb_per_min": slope_mb_per_min(pts, window=1e9),
            "slope_last5_by_measure": slopes_by_measure(samples),
            "curve": samples,
        })
        res["targets"] = {
            "p95_le_5ms": res["latency_service"].get("p95_ms", 1e9) <= 5.0,
            "rss_flat_last5_abs_slope_le_1mb_per_min":
                res["slope_last5_mb_per_min"] is not None
                and abs(res["slope_last5_mb_per_min"]) <= 1.0,
        }
    finally:
        d.stop()
    return res


def minute_p95(values, rate):
    """p95 of each minute's calls (calls in send order, `rate` per second)."""
    per = int(rate * 60)
    return [round(percentile(sorted(values[i:i + per]), 95), 2)
            for i in range(0, len(values), per) if values[i:i + per]]


# ---------------------------------------------------------------- report

def fmt_curve(samples, t_from=0.0):
    rows = []
    for s in samples:
        if s["t_s"] < t_from:
            continue
        row = f"{s['t_s'] - t_from:7.0f}s {s['VmRSS']:8.1f}"
        if "Pss" in s:
            row += f"  pss={s['Pss']:7.1f} anon={s['RssAnon']:7.1f} file={s['RssFile']:7.1f}"
        if "archive" in s:
            a = s["archive"]
            row += f"  q={a['depth']:<5} peak={a['peak']:<5} written={a['written']}"
        rows.append(row)
    return "\n".join("    " + r for r in rows)


def print_summary(out):
    if "rss" in out:
        r = out["rss"]
        print("== rss scenario ==")
        print(f"  import: {r['import']['method']}: {r['entries']} entries in "
              f"{r['import']['seconds']} s ({r['import']['entries_per_s']}/s), "
              f"errors {r['import']['errors']}; RSS {r['import']['rss_after']['VmRSS']:.1f} MB")
        print(f"  1000 searches: {r['searches']['seconds']} s, latency {r['searches']['latency']}")
        a = r["rss_after_searches"]
        print(f"  RSS after import + searches: {a['VmRSS']:.1f} MB (HWM {a['VmHWM']:.1f}, "
              f"anon {a['RssAnon']:.1f}, file {a['RssFile']:.1f}, Pss {a.get('Pss', 0):.1f}); "
              f"target <= 700 MB: "
              f"{'met' if r['targets']['rss_after_searches_le_700mb'] else 'NOT met'}")
        m = r["mixed"]
        print(f"  mixed load {m['rate_per_s']}/s for {m['seconds']} s ({m['sent']} calls): RSS "
              f"{m['rss_start_mb']} -> {m['rss_end_mb']} MB, slope last 5 min "
              f"{fmt_num(m['slope_last5_mb_per_min'])} MB/min (all "
              f"{fmt_num(m['slope_all_mb_per_min'])}); flat: "
              f"{'yes' if r['targets']['rss_flat_last5_abs_slope_le_1mb_per_min'] else 'NO'}")
        print(f"  slopes last 5 min (MB/min): {m['slope_last5_by_measure']}")
        for meth, v in m["latency"].items():
            s = v["service"]
            print(f"    {meth:24s} n={s['n']:6d} p50={s['p50_ms']:8.2f} p95={s['p95_ms']:8.2f} "
                  f"p99={s['p99_ms']:8.2f} ms")
        if m["errors"]:
            print(f"  errors: {m['errors']}")
        print("  curve (s since mixed start, VmRSS MB, Pss, RssAnon, RssFile):")
        print(fmt_curve(r["curve"], r["t_mixed_start_s"]))
    if "turns" in out:
        r = out["turns"]
        print("== turns scenario ==")
        ls, lsc = r["latency_service"], r["latency_scheduled"]
        print(f"  turn_complete at {r['rate_per_s']}/s for {r['seconds']} s: {r['sent']} sent, "
              f"achieved {r['achieved_rate_per_s']}/s")
        print(f"  latency (service)   p50={ls.get('p50_ms')} p95={ls.get('p95_ms')} "
              f"p99={ls.get('p99_ms')} max={ls.get('max_ms')} ms; target p95 <= 5 ms: "
              f"{'met' if r['targets']['p95_le_5ms'] else 'NOT met'}")
        print(f"  latency (scheduled) p50={lsc.get('p50_ms')} p95={lsc.get('p95_ms')} "
              f"p99={lsc.get('p99_ms')} ms")
        print(f"  p95 by minute (ms): {r['latency_by_minute_p95_ms']}")
        print(f"  archive at end: {r['archive_final']}, drained in {r['archive_drain_s']} s, "
              f"{r['archive_files_on_disk']} files on disk")
        print(f"  RSS {r['rss_start_mb']} -> {r['rss_end_mb']} MB, slope last 5 min "
              f"{fmt_num(r['slope_last5_mb_per_min'])} MB/min (all "
              f"{fmt_num(r['slope_all_mb_per_min'])}); flat: "
              f"{'yes' if r['targets']['rss_flat_last5_abs_slope_le_1mb_per_min'] else 'NO'}")
        print(f"  slopes last 5 min (MB/min): {r['slope_last5_by_measure']}")
        if r["errors"]:
            print(f"  errors: {r['errors']}")
        print("  curve (s, VmRSS MB, Pss, RssAnon, RssFile, archive queue):")
        print(fmt_curve(r["curve"]))


def fmt_num(x):
    return "n/a" if x is None else f"{x:+.2f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("binary")
    ap.add_argument("--scenario", choices=("rss", "turns", "both"), default="both")
    ap.add_argument("--minutes", type=float, default=10.0)
    ap.add_argument("--dataset", default="/tmp/ds100k")
    ap.add_argument("--out", default="soak.json")
    ap.add_argument("--rate", type=float, default=20.0, help="rss: mixed calls per second")
    ap.add_argument("--turn-rate", type=float, default=50.0, help="turns: turns per second")
    ap.add_argument("--batch", type=int, default=250, help="rss: memory.store calls per batch")
    ap.add_argument("--limit", type=int, default=None, help="rss: load only this many entries")
    ap.add_argument("--keep", action="store_true", help="keep the workspaces")
    ap.add_argument("--wrap", default=None,
                    help='command line the daemon runs under, e.g. "heaptrack -o /tmp/h"')
    args = ap.parse_args()
    out = {"binary": args.binary, "minutes": args.minutes,
           "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    if args.scenario in ("rss", "both"):
        out["rss"] = scenario_rss(args)
    if args.scenario in ("turns", "both"):
        out["turns"] = scenario_turns(args)
    with open(args.out, "w") as f:
        json.dump(out, f, indent=1)
    print_summary(out)
    print(f"curves: {args.out}")


if __name__ == "__main__":
    sys.exit(main())
