"""What bench/scaleout.py measures beside its requests: CPU seconds of the daemons, the
PostgreSQL server, the generator and the machine (/proc); what the server runs
(pg_stat_activity samples, pg_stat_statements per kind of statement); the stages of each
request from the daemons' debug lines; latency percentiles."""

import os
import re
import resource
import subprocess
import threading
import time

CLK_TCK = os.sysconf("SC_CLK_TCK")


# ---------------------------------------------------------------------------------------------
# Processes and CPU accounting


def proc_stat(pid):
    """(ppid, utime+stime, cutime+cstime) in seconds, or None when the process is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            text = f.read()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2:].split()
    # fields[0] is field 3 (state) of proc(5): ppid = 4, utime = 14, stime = 15, cutime = 16,
    # cstime = 17.
    ppid = int(fields[1])
    own = (int(fields[11]) + int(fields[12])) / CLK_TCK
    children = (int(fields[13]) + int(fields[14])) / CLK_TCK
    return ppid, own, children


def process_cpu(pid):
    st = proc_stat(pid)
    return st[1] if st else 0.0


def postgres_cpu(postmaster_pid):
    """CPU seconds of the whole server: postmaster, live children, reaped children."""
    st = proc_stat(postmaster_pid)
    if st is None:
        return 0.0
    total = st[1] + st[2]
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        child = proc_stat(int(entry))
        if child and child[0] == postmaster_pid:
            total += child[1] + child[2]
    return total


def machine_cpu():
    """(busy seconds, total seconds) summed over every core since boot."""
    with open("/proc/stat") as f:
        parts = [int(x) for x in f.readline().split()[1:]]
    idle = parts[3] + parts[4]  # idle + iowait
    total = sum(parts[:8])  # guest time is already inside user
    return (total - idle) / CLK_TCK, total / CLK_TCK


def generator_cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


class PgActivitySampler(threading.Thread):
    """Samples pg_stat_activity every `interval` s through one long-lived psql process: which
    statements the server is running and what they wait for (Lock/advisory = a writer queued
    behind another process's write transaction). Its cost lands in the "other" CPU column."""

    QUERY = ("select coalesce(wait_event_type, 'CPU') || ':' || coalesce(wait_event, '-') "
             "|| ' | ' || left(q, 40) "
             "|| coalesce(' ...' || left(substring(q from ' FROM .*'), 90), '') "
             "from (select wait_event_type, wait_event, state, backend_type, pid, "
             "regexp_replace(query, '\\s+', ' ', 'g') q from pg_stat_activity) a "
             "where state = 'active' and backend_type = 'client backend' "
             "and pid <> pg_backend_pid();")

    def __init__(self, url, stop, interval=0.25):
        super().__init__(daemon=True)
        self.url = url
        self.stop_event = stop
        self.interval = interval
        self.samples = 0
        self.active_total = 0
        self.counts = {}
        self.error = None

    def run(self):
        try:
            psql = subprocess.Popen(["psql", self.url, "-At", "-q", "-f", "-"],
                                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        except OSError as e:
            self.error = str(e)
            return
        try:
            while not self.stop_event.wait(self.interval):
                psql.stdin.write(self.QUERY + "\n\\echo __end__\n")
                psql.stdin.flush()
                self.samples += 1
                for line in psql.stdout:
                    line = line.rstrip("\n")
                    if line == "__end__":
                        break
                    if line:
                        self.active_total += 1
                        self.counts[line] = self.counts.get(line, 0) + 1
        except OSError as e:
            self.error = str(e)
        finally:
            psql.stdin.close()
            psql.wait()

    def report(self, top=12):
        rows = sorted(self.counts.items(), key=lambda kv: -kv[1])[:top]
        return {"samples": self.samples, "interval_s": self.interval,
                "mean_active_backends": self.active_total / self.samples if self.samples else None,
                "top": [{"share_of_samples": c / self.samples, "what": w} for w, c in rows],
                "error": self.error}


# ---------------------------------------------------------------------------------------------
# Statistics


def percentile(sorted_values, p):
    if not sorted_values:
        return None
    k = max(0, min(len(sorted_values) - 1, int(round(p / 100.0 * len(sorted_values) + 0.5)) - 1))
    return sorted_values[k]


def latency_summary(values_ms):
    v = sorted(values_ms)
    return {
        "count": len(v),
        "p50_ms": percentile(v, 50),
        "p95_ms": percentile(v, 95),
        "p99_ms": percentile(v, 99),
        "max_ms": v[-1] if v else None,
        "mean_ms": sum(v) / len(v) if v else None,
    }


def snapshot(daemons, pg):
    return {
        "t": time.monotonic(),
        "mnemo": [process_cpu(d.pid) for d in daemons],
        "postgres": postgres_cpu(pg.postmaster_pid),
        "postgres_each": [postgres_cpu(pid) for pid in pg.postmaster_pids],
        "generator": generator_cpu(),
        "machine": machine_cpu(),
    }


def cpu_report(before, after):
    wall = after["t"] - before["t"]
    mnemo = [b - a for a, b in zip(before["mnemo"], after["mnemo"])]
    pg_each = [b - a for a, b in zip(before["postgres_each"], after["postgres_each"])]
    pg = sum(pg_each)
    gen = after["generator"] - before["generator"]
    busy = after["machine"][0] - before["machine"][0]
    total = after["machine"][1] - before["machine"][1]
    cores = os.cpu_count() or 1
    return {
        "wall_s": wall,
        "cores": cores,
        "mnemo_cpu_s": mnemo,
        "mnemo_cpu_s_total": sum(mnemo),
        "postgres_cpu_s": pg,
        "postgres_cpu_s_each": pg_each,  # primary, then standby1 and standby2 (--replicated)
        "generator_cpu_s": gen,
        "machine_busy_s": busy,
        "machine_total_s": total,
        "other_cpu_s": max(0.0, busy - sum(mnemo) - pg - gen),
        # In cores: 1.0 = one core fully busy over the window.
        "mnemo_cores": sum(mnemo) / wall,
        "postgres_cores": pg / wall,
        "generator_cores": gen / wall,
        "machine_busy_cores": busy / total * cores if total else None,
    }


# The kinds of statement --pg-statements counts, by a piece of their text (pg_entry_search.cc,
# pg_keyword_stats.cc, postgres_database.cc, postgres_vectors.cc).
STATEMENT_KINDS = [
    ("keyword search from the node's statistics", "SELECT g.ok, e.label, e.id"),
    ("keyword search from known statistics", "fresh AS MATERIALIZED"),
    ("keyword search reading its statistics", "go AS MATERIALIZED"),
    ("keyword search weighing everything", "plan AS (SELECT string_agg"),
    ("keyword statistics catch-up", "min(generation) FROM entry_terms_log), l.term"),
    ("keyword statistics load", "FROM entry_terms WHERE docs <> 0 OR tokens <> 0"),
    ("keyword statistics fold", "FROM entry_terms_delta GROUP BY term, bucket"),
    ("write lock", "pg_advisory_xact_lock"),
    # The vector side of a hybrid search (postgres_vectors.cc).
    ("candidates weighed by the node", "SELECT h.*, g.ok FROM ("),
    ("candidates weighed on the server", " CROSS JOIN k "),
    ("candidate vectors", "FROM entry_vectors WHERE signature = $1 AND label = ANY"),
    ("vector log watermark", "SELECT max(seq) FROM vector_changes"),
    ("vector log catch-up", "FROM vector_changes c LEFT JOIN entry_vectors v"),
]


def statement_counts(url, searches):
    """Calls, execution time and per-search rate of each kind of statement since the reset."""
    sql = ("select calls, total_exec_time, total_plan_time, rows, shared_blks_hit, "
           "shared_blks_read, regexp_replace(query, '\\s+', ' ', 'g') from pg_stat_statements")
    rows = subprocess.run(["psql", url, "-AtF", "\t", "-c", sql], capture_output=True,
                          text=True).stdout.splitlines()
    kinds = {name: {"calls": 0, "exec_ms": 0.0} for name, _ in STATEMENT_KINDS}
    total = {"calls": 0, "exec_ms": 0.0}
    top = []
    for line in rows:
        parts = line.split("\t", 6)
        if len(parts) < 7:
            continue
        calls, exec_ms, query = int(parts[0]), float(parts[1]) + float(parts[2]), parts[6]
        top.append({"calls": calls, "exec_ms": exec_ms, "plan_ms": float(parts[2]),
                    "rows": int(parts[3]), "blks_hit": int(parts[4]), "blks_read": int(parts[5]),
                    "query": query[:300]})
        total["calls"] += calls
        total["exec_ms"] += exec_ms
        for name, piece in STATEMENT_KINDS:
            if piece in query:
                kinds[name]["calls"] += calls
                kinds[name]["exec_ms"] += exec_ms
                break
    for k in list(kinds.values()) + [total]:
        k["per_search"] = k["calls"] / searches if searches else None
    searched = sum(v["calls"] for name, v in kinds.items() if name.startswith("keyword search"))
    top.sort(key=lambda t: -t["exec_ms"])
    return {"kinds": kinds, "all": total, "top": top[:120], "keyword_search_statements_per_search":
            searched / searches if searches else None}


# A request's debug line (src/transport/rpc/jsonrpc.cc, MNEMO_LOG=debug): its time and the time
# of each stage (base/request_trace.h). Stages nest: "pg" (every round trip to the server) is
# inside "keyword", "fetch" and "vector sync", which are inside "vector" or not.
REQUEST_LINE = re.compile(r"request (memory\.\w+) by [^:]*: ok in ([\d.]+) ms \((.*)\)")


def stage_report(daemons, offsets):
    """Per method and stage, over the requests the daemons logged in the measured window: how many
    requests had the stage, its mean and p50/p95 per request that had it, and the mean over all
    requests (the stage's share of a request)."""
    per = {}
    for d, offset in zip(daemons, offsets):
        with open(d.log_path, "rb") as f:
            f.seek(offset)
            text = f.read().decode("utf-8", errors="replace")
        for m in REQUEST_LINE.finditer(text):
            method, total, stages = m.group(1), float(m.group(2)), m.group(3)
            entry = per.setdefault(method, {"requests": 0, "total": [], "stages": {}})
            entry["requests"] += 1
            entry["total"].append(total)
            for part in stages.split(", "):
                name, _, rest = part.rpartition(" ms")[0].rpartition(" ")
                if not name:
                    continue
                entry["stages"].setdefault(name, []).append(float(rest))
    out = {}
    for method, entry in per.items():
        count = entry["requests"]
        stages = {"total": dict(latency_summary(sorted(entry["total"])), with_stage=count,
                                mean_over_all=sum(entry["total"]) / count)}
        for name, values in entry["stages"].items():
            stages[name] = dict(latency_summary(sorted(values)), with_stage=len(values),
                                mean_over_all=sum(values) / count)
        out[method] = {"requests": count, "stages": stages}
    return out


def print_stages(n, report):
    for method, entry in sorted(report.items()):
        print(f"[N={n}] {method}: {entry['requests']} requests; per stage: share of requests, "
              f"mean / p50 / p95 ms when present, mean ms over all requests", flush=True)
        for name, st in entry["stages"].items():
            print(f"[N={n}]   {name:<12} {st['with_stage'] / entry['requests']:6.1%}  "
                  f"{st['mean_ms']:7.2f} {st['p50_ms']:7.2f} {st['p95_ms']:7.2f}  "
                  f"{st['mean_over_all']:7.2f}", flush=True)
