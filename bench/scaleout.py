#!/usr/bin/env python3
"""Scale-out of `mnemo serve` on one PostgreSQL schema; a measurement, not a test.

  /usr/bin/python3 bench/scaleout.py MNEMO_BINARY [--processes 1,2,3] [--duration 60]
      [--clients 8] [--preload 20000] [--embedder hash|none] [--replicated] [--out FILE]

Starts a throwaway PostgreSQL cluster (scripts/pg-cluster.sh, stopped again at the end, on
failure and on Ctrl-C too). For each N in --processes it imports the first --preload entries
of DATASET/memories.jsonl (../shared/bench/datagen.py) into a fresh schema `scaleout_n<N>`
with `mnemo import` (one transaction), starts N `mnemo serve` daemons, each with a workspace
of its own, all on that schema (MNEMO_MEMORY_BACKEND=postgres, MNEMO_POSTGRES_URL,
MNEMO_POSTGRES_SCHEMA), warms them up (first search: index loaded; one store: 20 001 entries
crosses index.hnsw_threshold, so every daemon rebuilds its index as hnsw on a background
thread after its next sync, and the run waits until memory.health reports every daemon's
space as hnsw; the warm-up times and that wait are reported: measured during the builds, a
window's first seconds were two graph builds and flat scans, not the steady state), then for
--duration seconds drives --clients threads, each
with one keep-alive HTTP connection to daemon (thread % N), sending JSON-RPC POST /rpc:
--search-share (0.8) memory.search of a query from DATASET/queries.jsonl (max_results 10),
the rest memory.store of a new unique key with the content of a dataset entry that was not
preloaded. It reports requests/s, p50/p95/p99 latency overall and per method, errors, and:

- visibility lag (--lag-samples, 50, spread over the run, on connections of their own, not
  counted in the throughput): a unique word is stored through daemon A; from its
  acknowledgement memory.search for it through daemon B = A + 1 (B = A when N = 1) is
  polled every --poll-ms (2 ms) until the key is in the results. Reported: ack -> the answer
  that had it, and how many searches it took (1: visible to the first search after the ack);
- CPU seconds over the measured window, from /proc/PID/stat: every mnemo daemon, the
  PostgreSQL server (postmaster + live backends + what exited backends left in the
  postmaster's cutime/cstime), this load generator itself (getrusage, all its threads), and
  the whole machine's busy share from /proc/stat, so the limiting resource is visible;
- consistency after the run: memory.stats' entry count through every daemon against preload
  + acknowledged creates, and memory.get of up to 50 stored keys through another daemon than
  the one that stored them.

With --replicated the cluster is a primary and two hot standbys (pg-cluster.sh
start-replicated, standby1 synchronous) and every daemon reads from the standbys
(MNEMO_POSTGRES_READ_URLS; a read goes to a standby that replayed the daemon's last write, else
to the primary); the PostgreSQL CPU is then the sum of the three servers (each one reported
too), and "pg ms/req" is that sum divided by the requests served.

The generator shares the machine (2 cores here): its own CPU is part of the table. Prints a
table on stdout and writes everything as JSON to --out (default scaleout.json).
"""
import argparse
import http.client
import json
import os
import random
import re
import shutil
import signal
import string
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from scaleout_measure import (PgActivitySampler, cpu_report, latency_summary, print_stages,
                              snapshot, stage_report, statement_counts)

REPO = Path(__file__).resolve().parent.parent
PG_CLUSTER = REPO / "scripts" / "pg-cluster.sh"
# index.hnsw_threshold's default: a vector space of more vectors is a graph (docs/config.md).
HNSW_THRESHOLD = 20000


class PgCluster:
    def __init__(self, folder, replicated=False):
        self.folder = Path(folder)
        self.url = None
        self.started = False
        self.replicated = replicated
        self.standby_urls = []

    def start(self):
        self.started = True
        mode = "start-replicated" if self.replicated else "start"
        out = subprocess.run([str(PG_CLUSTER), mode, str(self.folder)], check=True,
                             capture_output=True, text=True)
        self.url = out.stdout.strip().splitlines()[-1]
        data = Path((self.folder / "data_path").read_text().strip())
        folders = [data / "data"]
        if self.replicated:
            self.standby_urls = (self.folder / "standby_urls").read_text().split()
            folders += [data / f"standby{i}" / "data" for i in (1, 2)]
        # The primary's first: postmaster_pid; every server's: postmaster_pids.
        self.postmaster_pids = [int((f / "postmaster.pid").read_text().split()[0])
                                for f in folders]
        self.postmaster_pid = self.postmaster_pids[0]
        self.version = subprocess.run(["psql", self.url, "-Atc", "show server_version"],
                                      capture_output=True, text=True).stdout.strip()

    def track_statements(self):
        """Loads pg_stat_statements into the primary (a restart with the options it was started
        with): what each statement of the load cost and how often it ran (--pg-statements)."""
        data = Path((self.folder / "data_path").read_text().strip()) / "data"
        subprocess.run(["psql", self.url, "-Atqc",
                        "alter system set shared_preload_libraries = 'pg_stat_statements'"],
                       check=True, capture_output=True)

        pg_ctl = sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"))[-1]
        # The server's output to its log, not to a pipe of ours (it would never close).
        cmd = [str(pg_ctl), "-D", str(data), "-l", str(data.parent / "server.log"), "-w",
               "restart"]
        if os.getuid() == 0:
            cmd = ["runuser", "-u", "postgres", "--"] + cmd
        subprocess.run(cmd, check=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        self.postmaster_pids[0] = int((data / "postmaster.pid").read_text().split()[0])
        self.postmaster_pid = self.postmaster_pids[0]
        subprocess.run(["psql", self.url, "-Atqc", "create extension pg_stat_statements"],
                       check=True, capture_output=True)
        # Statements run by triggers and functions too (the keyword notes of a write), and
        # the planning time of each statement: both known once the library is loaded.
        for setting in ("pg_stat_statements.track = 'all'",
                        "pg_stat_statements.track_planning = on"):
            subprocess.run(["psql", self.url, "-Atqc", f"alter system set {setting}"],
                           check=True, capture_output=True)
        subprocess.run(["psql", self.url, "-Atqc", "select pg_reload_conf()"], check=True,
                       capture_output=True)

    def stop(self):
        if self.started:
            subprocess.run([str(PG_CLUSTER), "stop", str(self.folder)], check=False,
                           capture_output=True)
            self.started = False


class Daemon:
    """One `mnemo serve` on a port of its own, stderr to a log file."""

    def __init__(self, binary, workspace, env):
        self.workspace = Path(workspace)
        self.workspace.mkdir(parents=True, exist_ok=True)
        self.log_path = self.workspace / "serve.log"
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen(
            [binary, "--workspace", str(self.workspace), "serve", "--listen", "127.0.0.1:0"],
            stdout=self.log, stderr=subprocess.STDOUT, env=env)
        self.port = None
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            m = re.search(r"listening on .*:(\d+)", self.log_path.read_text())
            if m:
                self.port = int(m.group(1))
                return
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"mnemo serve did not start: {self.log_path.read_text()[-2000:]}")

    @property
    def pid(self):
        return self.proc.pid

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()
        return self.proc.returncode

    def log_text(self):
        return self.log_path.read_text(errors="replace")


# ---------------------------------------------------------------------------------------------
# JSON-RPC over keep-alive HTTP


class RpcError(Exception):
    def __init__(self, kind, message):
        super().__init__(message)
        self.kind = kind


class Client:
    # The daemon closes a keep-alive connection idle for server.idle_timeout_ms (15 s by
    # default); http.client does not notice until its next write fails, so a connection idle
    # longer than this is replaced before it is used.
    REUSE_IDLE_S = 10.0

    def __init__(self, port):
        self.port = port
        self.conn = None
        self.next_id = 0
        self.last_used = 0.0

    def call(self, method, params):
        self.next_id += 1
        body = json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method,
                           "params": params}).encode()
        if self.conn is not None and time.monotonic() - self.last_used > self.REUSE_IDLE_S:
            self.close()
        if self.conn is None:
            self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        try:
            self.conn.request("POST", "/rpc", body, {"Content-Type": "application/json"})
            resp = self.conn.getresponse()
            data = resp.read()
        except (OSError, http.client.HTTPException) as e:
            self.close()
            raise RpcError("transport", f"{type(e).__name__}: {e}") from None
        finally:
            self.last_used = time.monotonic()
        if resp.status != 200:
            raise RpcError(f"http {resp.status}", data[:300].decode(errors="replace"))
        doc = json.loads(data)
        if "error" in doc:
            err = doc["error"]
            raise RpcError(f"rpc {err.get('code')}", str(err.get("message"))[:300])
        return doc["result"]

    def close(self):
        if self.conn is not None:
            self.conn.close()
            self.conn = None


def unique_word(rng, n=14):
    return "zq" + "".join(rng.choice(string.ascii_lowercase) for _ in range(n))


# ---------------------------------------------------------------------------------------------
# One configuration


class Worker(threading.Thread):
    def __init__(self, tid, port, args, queries, contents, stop, tag):
        super().__init__(daemon=True)
        self.tid = tid
        self.client = Client(port)
        self.args = args
        self.queries = queries
        self.contents = contents
        self.stop_event = stop
        self.tag = tag
        self.rng = random.Random(f"{tag}-{tid}")
        self.lat = {"memory.search": [], "memory.store": []}
        self.errors = {}
        self.error_examples = {}
        self.stored = []  # keys acknowledged, created true
        self.replaced = 0

    def run(self):
        seq = 0
        while not self.stop_event.is_set():
            if self.rng.random() < self.args.search_share:
                method = "memory.search"
                params = {"query": self.rng.choice(self.queries),
                          "max_results": self.args.max_results}
            else:
                method = "memory.store"
                seq += 1
                content, category, tags = self.rng.choice(self.contents)
                params = {"key": f"so-{self.tag}-t{self.tid}-{seq}", "value": content,
                          "category": category, "tags": tags}
            t0 = time.perf_counter()
            try:
                result = self.client.call(method, params)
            except RpcError as e:
                key = f"{method} {e.kind}"
                self.errors[key] = self.errors.get(key, 0) + 1
                self.error_examples.setdefault(key, str(e))
                if e.kind == "transport":
                    time.sleep(0.01)
                continue
            except Exception as e:  # a malformed answer
                key = f"{method} {type(e).__name__}"
                self.errors[key] = self.errors.get(key, 0) + 1
                self.error_examples.setdefault(key, str(e)[:300])
                continue
            # Only completed calls count, so the last call cut by the stop is not measured.
            self.lat[method].append((time.perf_counter() - t0) * 1000.0)
            if method == "memory.store":
                if result.get("created"):
                    self.stored.append(params["key"])
                else:
                    self.replaced += 1
        self.client.close()


class LagProbe(threading.Thread):
    def __init__(self, daemons, args, stop, tag, start_at, spacing):
        super().__init__(daemon=True)
        self.daemons = daemons
        self.args = args
        self.stop_event = stop
        self.tag = tag
        self.start_at = start_at
        self.spacing = spacing
        self.rng = random.Random(f"lag-{tag}")
        self.samples = []
        self.failures = []
        self.stored = []
        self.clients = [Client(d.port) for d in daemons]

    def run(self):
        n = len(self.daemons)
        for s in range(self.args.lag_samples):
            when = self.start_at + s * self.spacing
            while time.monotonic() < when:
                if self.stop_event.wait(min(0.05, max(0.0, when - time.monotonic()))):
                    return
            a = s % n
            b = (a + 1) % n
            word = unique_word(self.rng)
            key = f"lag-{self.tag}-{s}"
            try:
                self.clients[a].call("memory.store", {"key": key,
                                                      "value": f"visibility probe {word}",
                                                      "category": "daily"})
            except RpcError as e:
                self.failures.append({"sample": s, "stage": "store", "error": str(e)})
                continue
            t_ack = time.perf_counter()
            self.stored.append(key)
            polls = 0
            found = False
            first_poll_ms = None
            while time.perf_counter() - t_ack < self.args.lag_timeout:
                polls += 1
                t0 = time.perf_counter()
                try:
                    res = self.clients[b].call("memory.search", {"query": word, "max_results": 5})
                except RpcError as e:
                    self.failures.append({"sample": s, "stage": "search", "error": str(e)})
                    break
                if first_poll_ms is None:
                    first_poll_ms = (time.perf_counter() - t0) * 1000.0
                if any(r.get("key") == key for r in res.get("results", [])):
                    found = True
                    break
                time.sleep(self.args.poll_ms / 1000.0)
            if found:
                self.samples.append({"from": a, "to": b, "polls": polls,
                                     "lag_ms": (time.perf_counter() - t_ack) * 1000.0,
                                     "first_search_ms": first_poll_ms})
            else:
                self.failures.append({"sample": s, "stage": "not visible",
                                      "error": f"not found after {polls} searches, "
                                               f"{self.args.lag_timeout} s"})
        for c in self.clients:
            c.close()


def wait_for_graph_index(clients, entries, timeout_s=300.0):
    """Seconds until every daemon's vector spaces of more than HNSW_THRESHOLD vectors are
    hnsw (memory.health); 0 when none has that many. Raises when they do not in time."""
    if entries <= HNSW_THRESHOLD:
        return 0.0
    t0 = time.monotonic()
    while True:
        kinds = [s.get("kind") for c in clients
                 for s in c.call("memory.health", {"audit_lines": 0}).get("spaces", [])
                 if s.get("vectors", 0) > HNSW_THRESHOLD]
        if all(k == "hnsw" for k in kinds):
            return time.monotonic() - t0
        if time.monotonic() - t0 > timeout_s:
            raise RuntimeError(f"vector indexes still {kinds} after {timeout_s:.0f} s")
        time.sleep(0.2)


def run_config(n, args, pg, workdir, preload_file, queries, contents, env_base):
    tag = f"n{n}"
    schema = f"scaleout_{tag}"
    env = dict(env_base, MNEMO_POSTGRES_SCHEMA=schema)
    folder = workdir / tag
    out = {"processes": n, "schema": schema}

    t0 = time.monotonic()
    imp = subprocess.run([args.binary, "--workspace", str(folder / "import"), "import",
                          str(preload_file)], env=env, capture_output=True, text=True)
    out["import_s"] = time.monotonic() - t0
    if imp.returncode != 0:
        raise RuntimeError(f"mnemo import failed ({imp.returncode}): {imp.stderr[-2000:]}")
    out["import_output"] = (imp.stdout + imp.stderr).strip()
    print(f"[N={n}] imported {args.preload} entries into {schema} in {out['import_s']:.1f} s",
          flush=True)

    daemons = []
    stop = threading.Event()
    try:
        t0 = time.monotonic()
        for i in range(n):
            daemons.append(Daemon(args.binary, folder / f"p{i}", env))
        out["ports"] = [d.port for d in daemons]
        out["start_s"] = time.monotonic() - t0

        # Warm-up: the first search loads each daemon's index from the store's vector log;
        # one store makes preload + 1 entries, which crosses index.hnsw_threshold (20 000)
        # with the default preload, so each daemon's next sync rebuilds its index as hnsw.
        warm = {"first_search_ms": [], "store_ms": None, "search_after_store_ms": []}
        clients = [Client(d.port) for d in daemons]
        q = queries[0]
        for c in clients:
            t = time.perf_counter()
            c.call("memory.search", {"query": q, "max_results": args.max_results})
            warm["first_search_ms"].append((time.perf_counter() - t) * 1000.0)
        t = time.perf_counter()
        created = clients[0].call("memory.store", {"key": f"warm-{tag}", "value": "warm-up entry",
                                                   "category": "daily"})
        warm["store_ms"] = (time.perf_counter() - t) * 1000.0
        warm_created = 1 if created.get("created") else 0
        for c in clients:
            t = time.perf_counter()
            c.call("memory.search", {"query": q, "max_results": args.max_results})
            warm["search_after_store_ms"].append((time.perf_counter() - t) * 1000.0)
        # That rebuild runs on a background thread of each daemon (the flat index serves
        # meanwhile): wait for it, or the window's first seconds measure two graph builds.
        warm["index_settled_s"] = wait_for_graph_index(clients, args.preload + warm_created)
        out["warmup"] = warm
        print(f"[N={n}] {n} daemon(s) up on ports {out['ports']}; warm-up (ms): first search "
              f"{[round(x) for x in warm['first_search_ms']]}, store {warm['store_ms']:.0f}, "
              f"search after it {[round(x) for x in warm['search_after_store_ms']]}; indexes "
              f"settled {warm['index_settled_s']:.1f} s later", flush=True)

        workers = [Worker(i, daemons[i % n].port, args, queries, contents, stop, tag)
                   for i in range(args.clients)]
        spacing = max(0.05, (args.duration - 2.0) / max(1, args.lag_samples))
        probe = LagProbe(daemons, args, stop, tag, time.monotonic() + 1.0, spacing)
        sampler = PgActivitySampler(pg.url, stop) if args.pg_activity else None
        out["loadavg_before"] = os.getloadavg()
        if args.pg_statements:
            subprocess.run(["psql", pg.url, "-Atqc", "select pg_stat_statements_reset()"],
                           check=True, capture_output=True)
        log_offsets = [d.log_path.stat().st_size for d in daemons]
        before = snapshot(daemons, pg)
        for w in workers:
            w.start()
        probe.start()
        if sampler:
            sampler.start()
        time.sleep(args.duration)
        stop.set()
        for w in workers:
            w.join()
        after = snapshot(daemons, pg)
        out["loadavg_after"] = os.getloadavg()
        if args.stages:
            out["stages"] = stage_report(daemons, log_offsets)
            print_stages(n, out["stages"])
        if args.pg_statements:
            # The probe's searches run in the same window: counted with the workers'.
            searches = (sum(len(w.lat["memory.search"]) for w in workers) +
                        sum(s.get("polls", 1) for s in probe.samples))
            out["statements"] = statement_counts(pg.url, searches)
            out["statements"]["searches"] = searches
            print(f"[N={n}] keyword search statements per search: "
                  f"{out['statements']['keyword_search_statements_per_search']:.3f}; " +
                  "; ".join(f"{k} {v['per_search']:.3f}/search {v['exec_ms'] / max(1, v['calls']):.3f} ms"
                            for k, v in out["statements"]["kinds"].items()), flush=True)
        probe.join()
        if sampler:
            sampler.join()
            out["pg_activity"] = sampler.report()
        for c in clients:
            c.close()

        wall = after["t"] - before["t"]
        lat_all, lat_by = [], {}
        for method in ("memory.search", "memory.store"):
            values = [x for w in workers for x in w.lat[method]]
            lat_by[method] = latency_summary(values)
            lat_by[method]["per_s"] = len(values) / wall
            lat_all.extend(values)
        errors, examples = {}, {}
        for w in workers:
            for k, v in w.errors.items():
                errors[k] = errors.get(k, 0) + v
            for k, v in w.error_examples.items():
                examples.setdefault(k, v)
        out["load"] = {
            "clients": args.clients,
            "wall_s": wall,
            "requests": len(lat_all),
            "requests_per_s": len(lat_all) / wall,
            "latency": latency_summary(lat_all),
            "by_method": lat_by,
            "errors": sum(errors.values()),
            "errors_by_kind": errors,
            "error_examples": examples,
            "stores_replaced": sum(w.replaced for w in workers),
            "per_daemon_requests": [sum(len(w.lat["memory.search"]) + len(w.lat["memory.store"])
                                        for w in workers if w.client.port == d.port)
                                    for d in daemons],
        }
        lags = sorted(s["lag_ms"] for s in probe.samples)
        polls = [s["polls"] for s in probe.samples]
        out["visibility"] = {
            "samples": len(probe.samples),
            "failures": probe.failures,
            "lag_ms": latency_summary(lags),
            "first_search_hit": sum(1 for p in polls if p == 1),
            "max_polls": max(polls) if polls else None,
            "poll_ms": args.poll_ms,
            "raw": probe.samples,
        }
        out["cpu"] = cpu_report(before, after)
        out["cpu"]["postgres_ms_per_request"] = (
            1000.0 * out["cpu"]["postgres_cpu_s"] / len(lat_all) if lat_all else None)

        out["consistency"] = check_consistency(daemons, args, workers, probe, warm_created)
    finally:
        stop.set()  # an interrupted run: the clients stop before their daemons do
        codes = [d.stop() for d in daemons]
        out["exit_codes"] = codes
        out["daemon_logs"] = [tail_of_interest(d.log_text()) for d in daemons]
    return out


def check_consistency(daemons, args, workers, probe, warm_created):
    n = len(daemons)
    created = sum(len(w.stored) for w in workers) + len(probe.stored) + warm_created
    expected = args.preload + created
    counts = []
    for d in daemons:
        c = Client(d.port)
        try:
            counts.append(c.call("memory.stats", {})["entries"])
        except RpcError as e:
            counts.append(f"error: {e}")
        c.close()
    # Keys stored by a worker on daemon i, read back through daemon i + 1.
    missing, checked = [], 0
    rng = random.Random(7)
    sample = [(w, k) for w in workers for k in w.stored]
    rng.shuffle(sample)
    readers = {d.port: Client(d.port) for d in daemons}
    ports = [d.port for d in daemons]
    for w, key in sample[:args.get_checks]:
        reader = ports[(ports.index(w.client.port) + 1) % n]
        checked += 1
        try:
            readers[reader].call("memory.get", {"key": key})
        except RpcError as e:
            missing.append({"key": key, "error": str(e)})
    for c in readers.values():
        c.close()
    return {"expected_entries": expected, "entries_per_daemon": counts,
            "counts_match": all(c == expected for c in counts),
            "get_checked": checked, "get_missing": missing}


def tail_of_interest(text):
    """The daemon's log without the start/stop lines every run prints."""
    routine = ("listening on", "SIGTERM: finishing", "mnemo: stopped")
    lines = [l for l in text.splitlines() if l.strip() and not any(r in l for r in routine)]
    return lines[-40:]


# ---------------------------------------------------------------------------------------------
# Report


def fmt(x, digits=1):
    return "-" if x is None else f"{x:.{digits}f}"


def print_report(result):
    configs = result["configs"]
    print()
    print(f"mnemo serve scale-out on PostgreSQL {result['postgres_version']}: "
          f"{result['args']['clients']} client threads, {result['args']['duration']} s each, "
          f"{int(result['args']['search_share'] * 100)} % search / "
          f"{100 - int(result['args']['search_share'] * 100)} % store, preload "
          f"{result['args']['preload']}, embedder {result['args']['embedder']}, "
          f"{result['cores']} cores, "
          f"{'primary + 2 standbys, reads from the standbys' if result['args'].get('replicated') else 'one server'}")
    print()
    head = (f"{'N':>2} {'req/s':>7} {'srch/s':>7} {'stor/s':>7} {'p50':>6} {'p95':>6} {'p99':>6} "
            f"| {'s.p50':>6} {'s.p95':>6} {'s.p99':>6} | {'w.p50':>6} {'w.p95':>6} {'w.p99':>6} "
            f"| {'err':>4}")
    print("latency in ms; s. = memory.search, w. = memory.store")
    print(head)
    print("-" * len(head))
    for c in configs:
        ld = c["load"]
        s, w, a = ld["by_method"]["memory.search"], ld["by_method"]["memory.store"], ld["latency"]
        print(f"{c['processes']:>2} {ld['requests_per_s']:>7.1f} {s['per_s']:>7.1f} "
              f"{w['per_s']:>7.1f} {fmt(a['p50_ms']):>6} {fmt(a['p95_ms']):>6} "
              f"{fmt(a['p99_ms']):>6} | {fmt(s['p50_ms']):>6} {fmt(s['p95_ms']):>6} "
              f"{fmt(s['p99_ms']):>6} | {fmt(w['p50_ms']):>6} {fmt(w['p95_ms']):>6} "
              f"{fmt(w['p99_ms']):>6} | {ld['errors']:>4}")
    print()
    print("visibility lag: store acknowledged by daemon A -> first search through daemon B "
          "(A+1; A when N=1) that finds it")
    print("CPU over the window, in cores (1.0 = one core busy the whole time)")
    head = (f"{'N':>2} {'lag p50':>8} {'p95':>6} {'max':>6} {'1st hit':>8} | {'mnemo':>6} "
            f"{'(each)':>18} {'pg':>6} {'gen':>6} {'other':>6} {'busy':>6} | {'pg ms/req':>9} "
            f"| {'consistent':>10}")
    print(head)
    print("-" * len(head))
    for c in configs:
        v, cpu = c["visibility"], c["cpu"]
        each = "/".join(f"{x / cpu['wall_s']:.2f}" for x in cpu["mnemo_cpu_s"])
        hit = f"{v['first_search_hit']}/{v['samples']}"
        ok = "yes" if c["consistency"]["counts_match"] and not c["consistency"]["get_missing"] \
            else "NO"
        lag = v["lag_ms"]
        print(f"{c['processes']:>2} {fmt(lag['p50_ms']):>8} {fmt(lag['p95_ms']):>6} "
              f"{fmt(lag['max_ms']):>6} {hit:>8} | {cpu['mnemo_cores']:>6.2f} "
              f"{each:>18} {cpu['postgres_cores']:>6.2f} {cpu['generator_cores']:>6.2f} "
              f"{cpu['other_cpu_s'] / cpu['wall_s']:>6.2f} {fmt(cpu['machine_busy_cores'], 2):>6} "
              f"| {fmt(cpu['postgres_ms_per_request'], 2):>9} | {ok:>10}")
    print()
    for c in configs:
        notes = []
        ld = c["load"]
        if ld["errors"]:
            notes.append(f"errors {ld['errors_by_kind']}; e.g. {ld['error_examples']}")
        if c["visibility"]["failures"]:
            notes.append(f"lag probe failures: {c['visibility']['failures'][:5]}")
        cons = c["consistency"]
        if not cons["counts_match"]:
            notes.append(f"entries expected {cons['expected_entries']}, daemons report "
                         f"{cons['entries_per_daemon']}")
        if cons["get_missing"]:
            notes.append(f"memory.get missed {len(cons['get_missing'])} of {cons['get_checked']}: "
                         f"{cons['get_missing'][:3]}")
        if any(code != 0 for code in c["exit_codes"]):
            notes.append(f"daemon exit codes {c['exit_codes']}")
        for i, lines in enumerate(c["daemon_logs"]):
            if lines:
                notes.append(f"daemon {i} log: " + " | ".join(lines[-5:]))
        warm = c["warmup"]
        if len(c["cpu"]["postgres_cpu_s_each"]) > 1:
            each = ", ".join(f"{x / c['cpu']['wall_s']:.2f}" for x in c["cpu"]["postgres_cpu_s_each"])
            notes.append(f"PostgreSQL cores: primary, standby1, standby2 = {each}")
        act = c.get("pg_activity")
        if act and act["samples"]:
            notes.append(f"pg_stat_activity, {act['samples']} samples: "
                         f"{fmt(act['mean_active_backends'], 2)} active backends on average; top:")
            for row in act["top"][:6]:
                notes.append(f"    {row['share_of_samples']:5.2f}  {row['what']}")
        notes.append(f"load average {c['loadavg_before'][0]:.1f} before, "
                     f"{c['loadavg_after'][0]:.1f} after (other processes share the machine)")
        notes.append(f"import {c['import_s']:.1f} s; warm-up store {warm['store_ms']:.0f} ms, "
                     f"search after it {[round(x) for x in warm['search_after_store_ms']]} ms; "
                     f"graph indexes built {warm.get('index_settled_s', 0):.1f} s after it; "
                     f"requests per daemon {ld['per_daemon_requests']}")
        for note in notes:
            print(f"N={c['processes']}: {note}")


# ---------------------------------------------------------------------------------------------


def load_dataset(folder, preload, workdir):
    mem_path = Path(folder) / "memories.jsonl"
    preload_file = workdir / "preload.jsonl"
    contents = []
    with open(mem_path, encoding="utf-8") as src, open(preload_file, "w", encoding="utf-8") as dst:
        for i, line in enumerate(src):
            if i < preload:
                dst.write(line)
            elif len(contents) < 50000:
                rec = json.loads(line)
                contents.append((rec["content"], rec.get("category", "core"),
                                 rec.get("tags", [])))
            else:
                break
    if i + 1 < preload:
        raise SystemExit(f"{mem_path} has only {i + 1} entries, fewer than --preload {preload}")
    if not contents:
        raise SystemExit(f"{mem_path} has no entries past the preload to store")
    queries = []
    with open(Path(folder) / "queries.jsonl", encoding="utf-8") as f:
        for line in f:
            queries.append(json.loads(line)["query"])
    return preload_file, queries, contents


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("binary", help="the mnemo binary (a copy, so a rebuild does not change it)")
    ap.add_argument("--dataset", default="/tmp/ds100k", help="datagen.py output folder")
    ap.add_argument("--preload", type=int, default=20000)
    ap.add_argument("--processes", default="1,2,3", help="comma-separated N values")
    ap.add_argument("--clients", type=int, default=8, help="client threads (connections)")
    ap.add_argument("--duration", type=float, default=60.0, help="seconds per configuration")
    ap.add_argument("--search-share", type=float, default=0.8)
    ap.add_argument("--max-results", type=int, default=10)
    ap.add_argument("--lag-samples", type=int, default=50)
    ap.add_argument("--poll-ms", type=float, default=2.0)
    ap.add_argument("--lag-timeout", type=float, default=5.0)
    ap.add_argument("--get-checks", type=int, default=50)
    ap.add_argument("--no-pg-activity", dest="pg_activity", action="store_false",
                    help="do not sample pg_stat_activity during the load")
    ap.add_argument("--embedder", choices=["hash", "none"], default="hash")
    ap.add_argument("--replicated", action="store_true",
                    help="a primary and two hot standbys; the daemons read from the standbys")
    ap.add_argument("--workdir", help="default: a new folder under /tmp, removed at the end")
    ap.add_argument("--pg-statements", action="store_true",
                    help="load pg_stat_statements and count each kind of statement per search "
                         "(costs the server some CPU of its own)")
    ap.add_argument("--stages", action="store_true",
                    help="run the daemons with MNEMO_LOG=debug and report where a request's time "
                         "went, by stage, from their debug lines (the logging costs them some CPU)")
    ap.add_argument("--keep", action="store_true", help="keep the work folder (logs)")
    ap.add_argument("--out", default="scaleout.json")
    args = ap.parse_args()
    args.binary = str(Path(args.binary).resolve())
    ns = [int(x) for x in args.processes.split(",") if x.strip()]

    workdir = Path(args.workdir or tempfile.mkdtemp(prefix="mnemo-scaleout-"))
    workdir.mkdir(parents=True, exist_ok=True)
    pg = PgCluster(workdir / "pg", replicated=args.replicated)

    def on_term(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")

    # SIGINT too: a shell starts a background job with SIGINT ignored, and Python then
    # installs no KeyboardInterrupt handler of its own.
    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGINT, on_term)
    version = subprocess.run([args.binary, "version"], capture_output=True,
                             text=True).stdout.strip()
    result = {"args": vars(args), "mnemo_version": version, "cores": os.cpu_count(),
              "started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "configs": []}
    try:
        preload_file, queries, contents = load_dataset(args.dataset, args.preload, workdir)
        pg.start()
        if args.pg_statements:
            pg.track_statements()
        result["postgres_version"] = pg.version
        print(f"PostgreSQL {pg.version} at {pg.url} (postmaster pid {pg.postmaster_pid}); "
              f"work folder {workdir}", flush=True)
        env = dict(os.environ)
        for k in list(env):
            if k.startswith("MNEMO_"):
                del env[k]
        env.update(MNEMO_MEMORY_BACKEND="postgres", MNEMO_POSTGRES_URL=pg.url,
                   MNEMO_EMBEDDING_PROVIDER=args.embedder)
        if args.stages:
            env["MNEMO_LOG"] = "debug"
        if pg.standby_urls:
            env["MNEMO_POSTGRES_READ_URLS"] = ",".join(pg.standby_urls)
        for n in ns:
            result["configs"].append(
                run_config(n, args, pg, workdir, preload_file, queries, contents, env))
            with open(args.out, "w") as f:
                json.dump(result, f, indent=1)
        print_report(result)
        print(f"\nJSON: {Path(args.out).resolve()}")
    except KeyboardInterrupt as e:
        print(f"interrupted ({e}); stopping", file=sys.stderr)
        result["interrupted"] = True
        with open(args.out, "w") as f:
            json.dump(result, f, indent=1)
        return 130
    except Exception as e:
        result["error"] = f"{type(e).__name__}: {e}"
        with open(args.out, "w") as f:
            json.dump(result, f, indent=1)
        raise
    finally:
        pg.stop()
        if not args.keep and not args.workdir:
            shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
