#!/usr/bin/env python3
"""A discrete simulation of mnemo sharded by tenant (docs/scaling.md).

    python3 bench/shard_sim.py [--inputs FILE] [--set PATH=VALUE ...] [--seed N]
                               [--sweep RATE,...] [--variants RATE] [--json]

The numbers of docs/scaling.md:
    python3 bench/shard_sim.py --seed 1 --sweep 1000,2000,2500,3000 --variants 2000

What it models:
- A corpus of `corpus.memories` memories owned by `corpus.principals` principals
  whose sizes follow a Zipf law (exponent `corpus.zipf_s`), plus
  `corpus.shared_namespaces` shared namespaces holding `corpus.shared_fraction`
  of the memories (their own Zipf law). Principals and shared namespaces are
  both tenants: the unit that is placed on one shard.
- Placement: a tenant larger than `layout.dedicated_memories` gets
  ceil(size / `layout.max_shard_memories`) shards of its own (its queries fan
  out to all of them, a write goes to one); every other tenant is hashed onto
  the remaining shards. Shard i lives on node i % nodes. A shared namespace's
  own shards may have `layout.shared_replicas` copies on consecutive nodes: a
  query reads one copy at random, a write goes to the first.
- Requests arrive as a Poisson process (`traffic.requests_per_s`). The tenant
  of a request is drawn with weight size^`traffic.activity_exponent`. A query
  reads its principal's shard(s) and, with probability
  `traffic.shared_query_fraction`, one shared namespace's shard(s) too
  (drawn by size); its latency is the slowest sub-query plus a merge cost. A
  write goes to one shard (to a shared namespace with probability
  `traffic.shared_write_fraction`).
- Service times are drawn from the measured per-shard distribution
  (percentiles p50/p95/p99 at `reference_memories`), scaled to the shard's size
  (or, with `query.scale_by = "tenant"`, a query to its tenant's size) by
  size^exponent per percentile, interpolated log-linearly between the
  percentiles. A sub-request adds `round_trips` x (network RTT - the RTT of the
  measurement), which the measurement did not pay (loopback).
- Each node is `layout.servers_per_node` FCFS servers (request slots). A write
  holds a server, then waits for its shard's write lock (mnemo's advisory lock,
  per schema today, per shard here), then holds both for its service time, its
  extra round trips and the commit (`write.commit_ms`; the measurement ran with
  fsync off).
- Reported: end-to-end p50/p95/p99 of queries (single-shard and fan-out) and
  writes, utilisation per node, the hottest shard (requests/s and write-lock
  busy share), index memory per node (float32 vs int8 + links), connections to
  PostgreSQL, the rebuild time of the largest shard's vector index, and the
  keyword-index (GIN) entries written per second. --sweep reruns the inputs
  at other request rates, --variants reruns the named VARIANTS (the
  alternatives docs/scaling.md compares), a line each.

What it does not model: the embedder (its HTTP call is outside the measured
figures), PostgreSQL's own CPU, disk and cache apart from the node (a node is a
mnemo process and the database worker holding its shards, as measured on one
machine), background work (hygiene, segment recaps, autovacuum, GIN pending-list
merges, index file saves), node failures and shard moves, per-principal BM25
statistics (the benchmark ran with ACL off: the admin's cost), cache effects of
hot tenants, and correlation between a principal's requests. Service times are
independent draws. Latency of a shard smaller than the reference is not scaled
below it.

Standard library only; deterministic for a given --seed and inputs.
"""

import argparse
import bisect
import copy
import heapq
import json
import math
import random
import sys
import zlib

# Defaults: the README's measured figures (Benchmarks section; 2-core machine).
# Where a figure is derived rather than measured, the note beside it says how.
DEFAULTS = {
    "corpus": {
        "memories": 100_000_000,
        "principals": 100_000,
        "zipf_s": 0.8,  # assumption: top principal ~2.1M memories, median ~400
        "shared_namespaces": 1_000,
        "shared_fraction": 0.05,  # assumption: 5% of memories are shared
        "shared_zipf_s": 1.0,
    },
    "layout": {
        "nodes": 16,
        "shards_per_node": 16,
        "servers_per_node": 16,  # request slots (~cores) per node
        "max_shard_memories": 1_000_000,  # the largest size measured
        "dedicated_memories": 250_000,  # a tenant this large gets shard(s) of its own
        # Copies of a shared namespace's dedicated shards on other nodes (read
        # replicas of its rows and vector index; writes go to the first copy).
        "shared_replicas": 1,
    },
    "query": {
        # PostgreSQL 15, hybrid search with the dataset's 384-dim vectors at 100k
        # (README, run of 2026-11-30, compiles running): p50 7.1, p95 65.0 ms.
        # p99 not measured: a log-normal through p50 and p95 gives 163 ms.
        "reference_memories": 100_000,
        "percentiles_ms": {"p50": 7.1, "p95": 65.0, "p99": 163.0},
        # Growth 100k -> 1M measured on SQLite (hybrid, hash embedder, 2026-11-29):
        # p50 2.3 -> 7.1 ms (x3.09: exponent 0.49), p95 7.2 -> 64.6 ms (x8.97:
        # 0.95). p99 assumed to grow as p95.
        "size_exponent": {"p50": 0.49, "p95": 0.95, "p99": 0.95},
        # Statements of one hybrid search under ACL: corpus statistics, term
        # counts, scored query (3), vector catch-up (1), fetch by labels (1),
        # stored vectors of keyword-side candidates (1), count + labels of the
        # caller's subset (2).
        "round_trips": 8,
        "merge_ms": 0.3,  # fusing the results of a fan-out (assumption)
        # "shard": a query costs what a search over its whole shard cost (today's
        # indexes: GIN over every tenant's rows, one graph per shard). "tenant":
        # what a search over its tenant's rows alone costs (GIN on (tenant, tsv)
        # through btree_gin, exact scan of a small tenant's vectors), never below
        # the cost at reference_memories, the smallest size measured.
        "scale_by": "shard",
    },
    "write": {
        # memory.turn_complete p50/p95 at 100k turns on SQLite (1.16 / 5.4 ms) x
        # 1.95, PostgreSQL's import time over SQLite's in the same run (114.7 s /
        # 58.7 s): 2.3 / 10.5 ms; p99 by a log-normal: 19.8 ms.
        "reference_memories": 100_000,
        "percentiles_ms": {"p50": 2.3, "p95": 10.5, "p99": 19.8},
        # Import with vectors per entry, 100k -> 1M on SQLite: 0.23 -> 0.53 ms.
        "size_exponent": {"p50": 0.36, "p95": 0.36, "p99": 0.36},
        "round_trips": 10,  # assumption: statements of one turn write
        "commit_ms": 1.0,  # assumption: WAL flush on NVMe; the bench ran fsync = off
        "gin_entries_per_write": 60,  # two turn rows x ~30 distinct tokens (ds100k)
    },
    "network": {
        "measured_rtt_ms": 0.05,  # loopback, as in the measurement
        "rtt_ms": 0.5,  # assumption: same-zone network plus a Citus coordinator hop
    },
    "traffic": {
        "requests_per_s": 1_000,
        "write_fraction": 0.4,
        "shared_query_fraction": 0.2,
        "shared_write_fraction": 0.05,
        "activity_exponent": 1.0,  # a tenant's requests grow with its size
        "duration_s": 60,
        "warmup_s": 5,
    },
    "memory": {
        "dim": 384,
        "hnsw_m": 16,
        # hnswlib per element besides the vector: level-0 links (2M x 4 + 4),
        # label (8), upper levels (~(M x 4 + 4) / (M - 1)), its per-element mutex
        # (40), the label map (~40).
        "label_map_bytes": 40,
        "mutex_bytes": 40,
        "int8_scale_bytes": 4,
        "vectors_per_memory": 1.0,
    },
    "postgres": {
        "pool_size": 8,  # [postgres] pool_size: one pool per store (schema) today
        "pool_per_node": 64,  # one pool per node with a tenant column
    },
    "rebuild": {
        # Debian's hnswlib built 100k x 384 in 8.2 s on 2 threads (M 16,
        # ef_construction 100; spec 20): 6 100 vectors/s per thread at 100k,
        # slowed by log(n) beyond.
        "vectors_per_s_per_thread_100k": 6_100,
        "threads": 8,
        "parallel_efficiency": 0.8,
        # Reading the vectors back from PostgreSQL (hex bytea: 3 KB per
        # vector on the wire). Assumption: 300 MB/s decoded.
        "fetch_mb_per_s": 300,
    },
}


def deep_merge(base, override, where="inputs"):
    out = copy.deepcopy(base)
    for k, v in override.items():
        if k not in out:
            sys.exit(f"shard_sim: {where}.{k} is not an input (see --print-defaults)")
        if isinstance(v, dict) and isinstance(out[k], dict):
            out[k] = deep_merge(out[k], v, f"{where}.{k}")
        else:
            out[k] = v
    return out


def apply_set(inputs, assignment):
    path, _, raw = assignment.partition("=")
    if not raw:
        sys.exit(f"shard_sim: --set {assignment!r}: use SECTION.KEY=VALUE")
    try:
        value = json.loads(raw)
    except json.JSONDecodeError:
        value = raw
    node = inputs
    keys = path.split(".")
    for k in keys[:-1]:
        if not isinstance(node.get(k), dict):
            sys.exit(f"shard_sim: --set {path}: no section {k!r}")
        node = node[k]
    if keys[-1] not in node:
        sys.exit(f"shard_sim: --set {path}: no key {keys[-1]!r} (see DEFAULTS)")
    node[keys[-1]] = value


def zipf_sizes(total, count, s):
    weights = [r ** -s for r in range(1, count + 1)]
    norm = total / sum(weights)
    return [max(1, round(w * norm)) for w in weights]


class Sampler:
    """Service times: percentiles scaled by shard size, log-linear in between."""

    def __init__(self, spec):
        self.ref = spec["reference_memories"]
        self.p = spec["percentiles_ms"]
        self.e = spec["size_exponent"]
        self.cache = {}

    def knots(self, size):
        if size not in self.cache:
            f = max(1.0, size / self.ref)
            p50 = self.p["p50"] * f ** self.e["p50"]
            p95 = self.p["p95"] * f ** self.e["p95"]
            p99 = self.p["p99"] * f ** self.e["p99"]
            # Ends (assumption): the fastest request at 0.3 x p50, the slowest at
            # p99 x (p99 / p95).
            qs = [0.0, 0.5, 0.95, 0.99, 1.0]
            vs = [math.log(v) for v in (0.3 * p50, p50, p95, p99, p99 * p99 / p95)]
            self.cache[size] = (qs, vs)
        return self.cache[size]

    def draw(self, rng, size):
        qs, vs = self.knots(size)
        u = rng.random()
        i = min(bisect.bisect_right(qs, u) - 1, len(qs) - 2)
        t = (u - qs[i]) / (qs[i + 1] - qs[i])
        return math.exp(vs[i] + t * (vs[i + 1] - vs[i]))


def place(cfg):
    c, lay = cfg["corpus"], cfg["layout"]
    shards = lay["nodes"] * lay["shards_per_node"]
    shared_total = round(c["memories"] * c["shared_fraction"])
    tenants = zipf_sizes(c["memories"] - shared_total, c["principals"], c["zipf_s"])
    n_principals = len(tenants)
    if c["shared_namespaces"] > 0 and shared_total > 0:
        tenants += zipf_sizes(shared_total, c["shared_namespaces"], c["shared_zipf_s"])
    cap = lay["max_shard_memories"]
    shard_size = [0] * shards
    shard_tenants = [0] * shards
    tenant_shards = [None] * len(tenants)
    next_dedicated = 0
    for t, size in enumerate(tenants):
        if size > lay["dedicated_memories"]:
            k = math.ceil(size / cap)
            own = list(range(next_dedicated, next_dedicated + k))
            next_dedicated += k
            if next_dedicated >= shards:
                sys.exit(f"shard_sim: {shards} shards cannot hold the tenants larger than "
                         f"{cap} memories; raise layout.nodes or layout.shards_per_node")
            for s in own:
                shard_size[s] += size // k
                shard_tenants[s] += 1
            tenant_shards[t] = own
    shared_dedicated = {s for t in range(n_principals, len(tenants))
                        for s in (tenant_shards[t] or [])}
    pool = shards - next_dedicated
    for t, size in enumerate(tenants):
        if tenant_shards[t] is None:
            s = next_dedicated + zlib.crc32(f"tenant-{t}".encode()) % pool
            shard_size[s] += size
            shard_tenants[s] += 1
            tenant_shards[t] = [s]
    return {
        "tenants": tenants,
        "n_principals": n_principals,
        "tenant_shards": tenant_shards,
        "shard_size": shard_size,
        "shard_tenants": shard_tenants,
        "dedicated_shards": next_dedicated,
        # Dedicated shards of shared namespaces: the ones with read replicas.
        "shared_shard": [s in shared_dedicated for s in range(shards)],
    }


def pct(values, q):
    if not values:
        return float("nan")
    v = sorted(values)
    return v[min(len(v) - 1, int(q * len(v)))]


def bytes_per_vector(mem, representation):
    m = mem["hnsw_m"]
    links = (2 * m * 4 + 4) + (m * 4 + 4) / (m - 1) + 8
    overhead = links + mem["mutex_bytes"] + mem["label_map_bytes"]
    if representation == "int8":
        return mem["dim"] + mem["int8_scale_bytes"] + overhead
    return mem["dim"] * 4 + overhead


def rebuild_seconds(cfg, size):
    rb, mem = cfg["rebuild"], cfg["memory"]
    n = size * mem["vectors_per_memory"]
    if n <= 0:
        return 0.0
    per_thread = rb["vectors_per_s_per_thread_100k"] * math.log(1e5) / math.log(max(n, 1e5))
    build = n / (per_thread * rb["threads"] * rb["parallel_efficiency"])
    fetch = n * mem["dim"] * 4 * 2 / 1e6 / rb["fetch_mb_per_s"]
    return build + fetch


def simulate(cfg, seed):
    rng = random.Random(seed)
    lay, tr, net = cfg["layout"], cfg["traffic"], cfg["network"]
    layout = place(cfg)
    tenants = layout["tenants"]
    n_p = layout["n_principals"]
    shard_size = layout["shard_size"]
    nodes = lay["nodes"]
    shards = len(shard_size)
    qs, ws = Sampler(cfg["query"]), Sampler(cfg["write"])
    extra_rtt = max(0.0, net["rtt_ms"] - net["measured_rtt_ms"])
    q_net = cfg["query"]["round_trips"] * extra_rtt
    w_hold_extra = cfg["write"]["round_trips"] * extra_rtt + cfg["write"]["commit_ms"]

    a = tr["activity_exponent"]
    cum_p, acc = [], 0.0
    for size in tenants[:n_p]:
        acc += size ** a
        cum_p.append(acc)
    cum_s, acc = [], 0.0
    for size in tenants[n_p:]:
        acc += size ** a
        cum_s.append(acc)

    servers = [[0.0] * lay["servers_per_node"] for _ in range(nodes)]
    busy = [0.0] * nodes
    lock_free = [0.0] * shards
    lock_busy = [0.0] * shards
    shard_reqs = [0] * shards
    lat_q1, lat_qn, lat_w = [], [], []
    duration_ms = tr["duration_s"] * 1000.0
    warmup_ms = tr["warmup_s"] * 1000.0
    rate_per_ms = tr["requests_per_s"] / 1000.0

    replicas = max(1, min(lay["shared_replicas"], nodes))
    shared_shard = layout["shared_shard"]

    by_tenant = cfg["query"]["scale_by"] == "tenant"
    if cfg["query"]["scale_by"] not in ("shard", "tenant"):
        sys.exit("shard_sim: query.scale_by must be shard or tenant")

    def run(shard, arrival, is_write, tenant_part):
        copy_index = 0
        if shared_shard[shard] and not is_write and replicas > 1:
            copy_index = rng.randrange(replicas)
        node = (shard + copy_index) % nodes
        heap = servers[node]
        start = max(arrival, heapq.heappop(heap))
        if is_write:
            hold = ws.draw(rng, shard_size[shard]) + w_hold_extra
            exec_start = max(start, lock_free[shard])
            end = exec_start + hold
            lock_free[shard] = end
            if arrival >= warmup_ms:
                lock_busy[shard] += hold
            done = end
        else:
            end = start + qs.draw(rng, tenant_part if by_tenant else shard_size[shard])
            done = end + q_net
        heapq.heappush(heap, end)
        if arrival >= warmup_ms:
            busy[node] += end - start
            shard_reqs[shard] += 1
        return done

    t = 0.0
    while True:
        t += rng.expovariate(rate_per_ms)
        if t >= duration_ms:
            break
        is_write = rng.random() < tr["write_fraction"]
        shared = rng.random() < (tr["shared_write_fraction"] if is_write
                                 else tr["shared_query_fraction"])
        p = bisect.bisect_left(cum_p, rng.random() * cum_p[-1])
        if is_write:
            if shared and cum_s:
                tenant = n_p + bisect.bisect_left(cum_s, rng.random() * cum_s[-1])
            else:
                tenant = p
            own = layout["tenant_shards"][tenant]
            shard = own[rng.randrange(len(own))]
            done = run(shard, t, True, 0)
            if t >= warmup_ms:
                lat_w.append(done - t)
            continue
        ts = layout["tenant_shards"]
        targets = [(s, tenants[p] // len(ts[p])) for s in ts[p]]
        if shared and cum_s:
            ns = n_p + bisect.bisect_left(cum_s, rng.random() * cum_s[-1])
            targets += [(s, tenants[ns] // len(ts[ns])) for s in ts[ns]]
        done = max(run(s, t, False, part) for s, part in targets)
        if len(targets) > 1:
            done += cfg["query"]["merge_ms"]
        if t >= warmup_ms:
            (lat_qn if len(targets) > 1 else lat_q1).append(done - t)

    window_s = (duration_ms - warmup_ms) / 1000.0
    util = [b / (lay["servers_per_node"] * (duration_ms - warmup_ms)) for b in busy]
    hot = max(range(shards), key=lambda s: shard_reqs[s])
    hot_lock = max(range(shards), key=lambda s: lock_busy[s])
    node_vectors = [0.0] * nodes
    node_rebuild = [0.0] * nodes
    for s, size in enumerate(shard_size):
        for c in range(replicas if shared_shard[s] else 1):
            node_vectors[(s + c) % nodes] += size * cfg["memory"]["vectors_per_memory"]
            node_rebuild[(s + c) % nodes] += rebuild_seconds(cfg, size)
    bpv32 = bytes_per_vector(cfg["memory"], "float32")
    bpv8 = bytes_per_vector(cfg["memory"], "int8")
    largest = max(shard_size)
    writes_per_s = len(lat_w) / window_s
    sizes_sorted = sorted(shard_size)
    lat_q = lat_q1 + lat_qn
    return {
        "seed": seed,
        "layout": {
            "shards": shards,
            "nodes": nodes,
            "tenants": len(tenants),
            "largest_principal": tenants[0],
            "median_principal": sorted(tenants[:n_p])[n_p // 2],
            "tenants_split": sum(1 for ts in layout["tenant_shards"] if len(ts) > 1),
            "dedicated_shards": layout["dedicated_shards"],
            "shard_memories_min_median_max": [sizes_sorted[0], sizes_sorted[shards // 2],
                                              sizes_sorted[-1]],
            "shards_above_1m": sum(1 for s in shard_size if s > 1_000_000),
        },
        "requests": {
            "queries": len(lat_q),
            "fanout_queries": len(lat_qn),
            "writes": len(lat_w),
            "window_s": window_s,
        },
        "latency_ms": {
            "query": [pct(lat_q, 0.5), pct(lat_q, 0.95), pct(lat_q, 0.99)],
            "query_one_shard": [pct(lat_q1, 0.5), pct(lat_q1, 0.95), pct(lat_q1, 0.99)],
            "query_fanout": [pct(lat_qn, 0.5), pct(lat_qn, 0.95), pct(lat_qn, 0.99)],
            "write": [pct(lat_w, 0.5), pct(lat_w, 0.95), pct(lat_w, 0.99)],
        },
        "node_utilisation": {
            "min": min(util), "mean": sum(util) / nodes, "max": max(util),
            "hottest_node": max(range(nodes), key=lambda n: util[n]),
            "per_node": util,
        },
        "hottest_shard": {
            "shard": hot,
            "node": hot % nodes,
            "memories": shard_size[hot],
            "tenants": layout["shard_tenants"][hot],
            "requests_per_s": shard_reqs[hot] / window_s,
            "share_of_requests": shard_reqs[hot] / max(1, sum(shard_reqs)),
        },
        "busiest_write_lock": {
            "shard": hot_lock,
            "memories": shard_size[hot_lock],
            "busy_share": lock_busy[hot_lock] / (duration_ms - warmup_ms),
        },
        "memory_per_node_gb": {
            "bytes_per_vector_float32": bpv32,
            "bytes_per_vector_int8": bpv8,
            "float32_mean_max": [sum(node_vectors) / nodes * bpv32 / 1e9,
                                 max(node_vectors) * bpv32 / 1e9],
            "int8_mean_max": [sum(node_vectors) / nodes * bpv8 / 1e9,
                              max(node_vectors) * bpv8 / 1e9],
            "float32_rescoring_copy_on_disk_max": max(node_vectors) * cfg["memory"]["dim"] * 4
                                                  / 1e9,
        },
        "postgres": {
            "connections_pool_per_shard": shards * cfg["postgres"]["pool_size"],
            "connections_pool_per_node": nodes * cfg["postgres"]["pool_per_node"],
            "gin_entries_per_s": writes_per_s * cfg["write"]["gin_entries_per_write"],
        },
        "rebuild_s": {
            "largest_shard": rebuild_seconds(cfg, largest),
            "node_max_sequential": max(node_rebuild),
        },
    }


def num(x):
    return f"{x:,.0f}".replace(",", " ")


def fmt3(v):
    return " / ".join(f"{x:.1f}" for x in v)


def print_report(r, cfg):
    lay, req, lat = r["layout"], r["requests"], r["latency_ms"]
    u, hs, wl = r["node_utilisation"], r["hottest_shard"], r["busiest_write_lock"]
    mem, pg, rb = r["memory_per_node_gb"], r["postgres"], r["rebuild_s"]
    mn, md, mx = lay["shard_memories_min_median_max"]
    f32, i8 = mem["float32_mean_max"], mem["int8_mean_max"]
    print(f"layout: {lay['nodes']} nodes x {cfg['layout']['shards_per_node']} shards = "
          f"{num(lay['shards'])} shards, {num(lay['tenants'])} tenants (largest principal "
          f"{num(lay['largest_principal'])} memories, median {num(lay['median_principal'])})")
    print(f"  {lay['tenants_split']} tenants split over {lay['dedicated_shards']} dedicated "
          f"shards; memories per shard min {num(mn)} / median {num(md)} / max {num(mx)}; "
          f"shards above 1M (extrapolated): {lay['shards_above_1m']}")
    print(f"requests in {req['window_s']:.0f} s after warm-up: {num(req['queries'])} queries "
          f"({num(req['fanout_queries'])} fan-out), {num(req['writes'])} writes "
          f"at {num(cfg['traffic']['requests_per_s'])}/s")
    print(f"latency p50 / p95 / p99 ms: query {fmt3(lat['query'])}")
    print(f"  one shard {fmt3(lat['query_one_shard'])}; fan-out {fmt3(lat['query_fanout'])}")
    print(f"  write {fmt3(lat['write'])}")
    print(f"node utilisation: min {u['min']:.0%}, mean {u['mean']:.0%}, max {u['max']:.0%} "
          f"(node {u['hottest_node']}; above 100% its queue grows without bound)")
    print(f"hottest shard: {hs['shard']} on node {hs['node']}, {num(hs['memories'])} memories, "
          f"tenants {hs['tenants']}, {hs['requests_per_s']:.1f} req/s, all copies "
          f"({hs['share_of_requests']:.1%} of sub-requests)")
    print(f"busiest write lock: shard {wl['shard']} ({num(wl['memories'])} memories), "
          f"held {wl['busy_share']:.1%} of the time")
    print(f"index memory per node, mean / max: float32 {f32[0]:.1f} / {f32[1]:.1f} GB "
          f"({mem['bytes_per_vector_float32']:.0f} B/vector); int8 {i8[0]:.1f} / {i8[1]:.1f} GB "
          f"({mem['bytes_per_vector_int8']:.0f} B/vector) + "
          f"{mem['float32_rescoring_copy_on_disk_max']:.1f} GB float32 on disk for rescoring")
    print(f"postgres connections: {num(pg['connections_pool_per_shard'])} with a pool per "
          f"shard, {num(pg['connections_pool_per_node'])} with a pool per node; "
          f"GIN entries written {num(pg['gin_entries_per_s'])}/s")
    print(f"vector index rebuild: largest shard {rb['largest_shard']:.0f} s, "
          f"a whole node {rb['node_max_sequential']:.0f} s "
          f"({cfg['rebuild']['threads']} threads)")


# Named variants of the inputs (--variants), each a list of --set overrides
# applied on top of the inputs: the alternatives docs/scaling.md compares.
VARIANTS = [
    ("as given", []),
    ("1 024 shards of ~90k", ["layout.shards_per_node=64", "layout.dedicated_memories=100000",
                              "layout.max_shard_memories=250000"]),
    ("indexes per tenant", ['query.scale_by="tenant"']),
    ("shared shards x4", ["layout.shared_replicas=4"]),
    ("hotter tenants (^1.3)", ["traffic.activity_exponent=1.3"]),
    ("loopback RTT, fsync off", ["network.rtt_ms=0.05", "write.commit_ms=0"]),
]


def summary_line(label, rate, r):
    u = r["node_utilisation"]
    return (f"  {label:<24} {num(rate):>7} | {fmt3(r['latency_ms']['query'])} | "
            f"{r['latency_ms']['write'][2]:>7.1f} | {u['mean']:>4.0%} / {u['max']:>4.0%} | "
            f"{r['busiest_write_lock']['busy_share']:.1%}")


SUMMARY_HEADER = ("  inputs                     req/s | query p50 / p95 / p99 ms | write p99 | "
                  "node util mean / max | busiest write lock")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--inputs", help="JSON file overriding DEFAULTS (same shape, any subset)")
    ap.add_argument("--set", action="append", default=[], metavar="PATH=VALUE",
                    help="override one input, e.g. traffic.requests_per_s=3000 (repeatable)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--sweep", metavar="RATE,RATE,...",
                    help="also run the inputs at these request rates (per second), a line each")
    ap.add_argument("--variants", metavar="RATE", type=float,
                    help="also run each named variant (VARIANTS) at this request rate")
    ap.add_argument("--json", action="store_true", help="print the inputs and results as JSON")
    ap.add_argument("--print-defaults", action="store_true", help="print DEFAULTS as JSON")
    args = ap.parse_args()
    if args.print_defaults:
        print(json.dumps(DEFAULTS, indent=2))
        return
    cfg = DEFAULTS
    if args.inputs:
        with open(args.inputs, encoding="utf-8") as f:
            cfg = deep_merge(cfg, json.load(f))
    cfg = copy.deepcopy(cfg)
    for a in args.set:
        apply_set(cfg, a)
    result = simulate(cfg, args.seed)
    runs = []  # (label, rate, result)
    for rate in (float(x) for x in args.sweep.split(",")) if args.sweep else []:
        c = copy.deepcopy(cfg)
        c["traffic"]["requests_per_s"] = rate
        runs.append(("as given", rate, simulate(c, args.seed)))
    if args.variants:
        for label, sets in VARIANTS:
            if not sets and any(rate == args.variants for _, rate, _ in runs):
                continue  # the sweep ran the inputs at this rate already
            c = copy.deepcopy(cfg)
            for a in sets:
                apply_set(c, a)
            c["traffic"]["requests_per_s"] = args.variants
            runs.append((label, args.variants, simulate(c, args.seed)))
    if args.json:
        print(json.dumps({"inputs": cfg, "result": result,
                          "runs": [{"inputs": label, "requests_per_s": rate, "result": r}
                                   for label, rate, r in runs]}, indent=2))
        return
    print_report(result, cfg)
    if runs:
        print(SUMMARY_HEADER)
    for label, rate, r in runs:
        print(summary_line(label, rate, r))


if __name__ == "__main__":
    main()
