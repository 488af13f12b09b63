#!/usr/bin/env python3
"""Failover rounds of a replicated PostgreSQL under load through two `mnemo serve` nodes.

  /usr/bin/python3 bench/failover.py MNEMO_BINARY [--rounds 10] [--before 3] [--promote-after 1]
      [--after 2] [--writers 4] [--readers 2] [--max-refused-s 10] [--without-read-urls]
      [--embedder none|hash] [--out failover.json]
      [--log debug] [--keep-slow DIR [--keep-slow-over-s 5]] [--stacks-after-s 3]

Each round starts a fresh cluster (scripts/pg-cluster.sh start-replicated: a primary, standby1
synchronous, standby2 asynchronous, on loopback ports) and two daemons on schema `failover`
with postgres.url = the cluster's multi-host url (target_session_attrs=read-write) and
postgres.read_urls = the two standbys (none with --without-read-urls: every read on the
primary, as before read_urls existed). --writers threads (writer w through node w % 2) send a
mixed load: memory.store of a new key, or memory.turn_complete with a new turn_id; a refused
write is retried with the same key or turn_id (both make a retry safe) until it is
acknowledged. --readers threads (reader r through node r % 2) read keys acknowledged through
their own node: memory.get (and every fourth read a memory.search); a key that is not found is
a read-your-writes violation ("stale"), any error a read error.

After --before seconds the primary is killed with SIGKILL; --promote-after seconds later
standby1 is promoted (pg_ctl promote: what an operator or a failover manager does); the load
goes on until every writer has had a write acknowledged after the promotion, plus --after
seconds. Then, on the promoted server: every acknowledged store is there exactly once with its
value, every acknowledged turn's user message is there exactly once ("lost" and "doubled").

Per round it prints: the writes acknowledged, how long writes were refused (first refusal to
the last acknowledgement of a refused write), lost, doubled, reads served, read errors, stale
reads, and the longest time a reader went without a served read. --check (the CTest test):
exit status 1 unless every round lost and doubled nothing, refused writes for at most
--max-refused-s, missed no node's own write (no stale read), failed at most one read per reader
(a read whose connection dies under it runs again once on a standby; this bounds the rest) and never
left a reader without a served read for longer than --max-read-gap-s, and (with read_urls) had the standbys
serve reads while the primary was up. A measurement otherwise, not a test.

To find out why a round was slow: --keep-slow keeps, for each round that refused writes for
longer than --keep-slow-over-s, the full logs of both nodes (--log debug adds a line per
request with its time by stage) and every refused or slow write call (its writer, start
relative to the kill, duration and error); --stacks-after-s adds, once a round, the thread
stacks (gdb), sockets and the servers' sessions (pg_stat_activity) of a node whose write call
has been under way that long (gdb stops the node for a moment: a diagnosis, not a
measurement).
"""
import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from scaleout import Client, Daemon, RpcError  # noqa: E402  (one HTTP client for the benches)

REPO = Path(__file__).resolve().parent.parent
PG_CLUSTER = REPO / "scripts" / "pg-cluster.sh"
SCHEMA = "failover"
GIVE_UP_S = 60.0


def cluster(cmd, folder, *extra):
    subprocess.run([str(PG_CLUSTER), cmd, str(folder), *extra], check=True,
                   stdout=subprocess.DEVNULL)


def psql_rows(url, sql):
    out = subprocess.run(["psql", "-X", "-At", "-F", "\t", url, "-c", sql], check=True,
                         capture_output=True, text=True).stdout
    return [line.split("\t") for line in out.splitlines() if line]


class Load:
    """The writers' and readers' shared record of one round."""

    def __init__(self):
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.aborted = threading.Event()  # interrupted: writers stop retrying
        self.stores = {}  # key -> value, acknowledged
        self.turns = []  # user messages of acknowledged turns
        self.acked_by_node = {0: [], 1: []}  # (key, value) acknowledged through each node
        self.refusals = []  # (first refusal, acknowledgement) of each refused write
        self.last_ack = {}  # writer -> time of its latest acknowledgement
        self.gave_up = 0
        self.other_errors = []
        self.reads = 0
        self.read_errors = []
        self.stale = 0
        self.read_gap = 0.0
        self.in_flight = {}  # writer -> (node, start) of its write call under way
        self.attempts = []  # (writer, start, seconds, outcome) of each refused or slow call
        self.stacks = []  # what a stuck node was doing (--stacks-after-s)


def writer(load, w, port, round_no):
    client = Client(port)
    rng = random.Random(w * 7919 + round_no)
    i = 0
    while not load.stop.is_set():
        i += 1
        if rng.random() < 0.6:
            key = f"r{round_no}-w{w}-{i}"
            value = f"failover round {round_no} writer {w} write {i} {rng.randrange(10**9)}"
            method, params = "memory.store", {"key": key, "value": value}
        else:
            message = f"turn of round {round_no} writer {w} number {i} {rng.randrange(10**9)}"
            method, params = "memory.turn_complete", {
                "session_id": f"r{round_no}-w{w}", "turn_id": f"t{i}", "user_message": message,
                "assistant_response": f"noted {i}"}
        first_refusal = None
        deadline = time.monotonic() + GIVE_UP_S
        while True:
            start = time.monotonic()
            with load.lock:
                load.in_flight[w] = (w % 2, start)
            try:
                client.call(method, params)
                with load.lock:
                    load.in_flight.pop(w, None)
                    if first_refusal is not None or time.monotonic() - start > 1.0:
                        load.attempts.append((w, start, time.monotonic() - start, "acknowledged"))
                break
            except RpcError as e:
                now = time.monotonic()
                with load.lock:
                    load.in_flight.pop(w, None)
                    load.attempts.append((w, start, now - start, f"{e.kind} {e}"[:300]))
                # Unavailable (-32005) or the daemon's connection dropped: the safe retry.
                if e.kind not in ("rpc -32005", "transport"):
                    with load.lock:
                        load.other_errors.append(f"{method}: {e.kind} {e}")
                if first_refusal is None:
                    first_refusal = now
                if now > deadline or load.aborted.is_set():
                    with load.lock:
                        load.gave_up += 1
                    return
                time.sleep(0.02)
        now = time.monotonic()
        with load.lock:
            if first_refusal is not None:
                load.refusals.append((first_refusal, now))
            load.last_ack[w] = now
            if method == "memory.store":
                load.stores[key] = value
                load.acked_by_node[w % 2].append((key, value))
            else:
                load.turns.append(message)


def reader(load, r, port):
    client = Client(port)
    rng = random.Random(r)
    last_served = time.monotonic()
    n = 0
    while not load.stop.is_set():
        with load.lock:
            mine = load.acked_by_node[r % 2]
            pick = mine[rng.randrange(len(mine))] if mine else None
        if pick is None:  # nothing acknowledged through this node yet: no gap to count
            time.sleep(0.01)
            last_served = time.monotonic()
            continue
        key, value = pick
        n += 1
        try:
            if n % 4 == 0:
                client.call("memory.search", {"query": value.split()[-1], "max_results": 5})
            else:
                got = client.call("memory.get", {"key": key})
                if got.get("content") != value:
                    with load.lock:
                        load.stale += 1
            now = time.monotonic()
            with load.lock:
                load.reads += 1
                load.read_gap = max(load.read_gap, now - last_served)
            last_served = now
        except RpcError as e:
            with load.lock:
                if "not found" in str(e).lower() or e.kind == "rpc -32001":
                    load.stale += 1
                else:
                    load.read_errors.append(f"{e.kind} {e}"[:200])
        time.sleep(0.002)


def watch(load, args, nodes, urls):
    """Once a round, when a write's call has been under way for --stacks-after-s: what its node
    was doing (every thread's stack, its sockets) and what the servers' sessions were."""
    while not load.stop.wait(0.1):
        with load.lock:
            stuck = [(w, node, start) for w, (node, start) in load.in_flight.items()
                     if time.monotonic() - start > args.stacks_after_s]
        if not stuck:
            continue
        w, node, start = stuck[0]
        pid = nodes[node].pid
        at = time.monotonic()
        seen = {"writer": w, "node": node, "call_under_way_s": round(at - start, 3)}
        for name, cmd in (("stacks", ["gdb", "-p", str(pid), "-batch", "-ex",
                                      "thread apply all bt"]),
                          ("sockets", ["ss", "-tnpo", "state", "all"])):
            try:
                out = subprocess.run(cmd, capture_output=True, text=True, timeout=30).stdout
            except (OSError, subprocess.TimeoutExpired) as e:
                out = f"{name}: {e}"
            if name == "sockets":
                out = "\n".join(line for line in out.splitlines() if f"pid={pid}," in line)
            seen[name] = out
        for u in urls:
            try:
                seen["sessions " + u] = psql_rows(u, "SELECT pid, state, wait_event_type, "
                                                     "wait_event, backend_start, query "
                                                     "FROM pg_stat_activity")
            except subprocess.CalledProcessError as e:
                seen["sessions " + u] = str(e)
        with load.lock:
            load.stacks.append(seen)
        return


def standby_transactions(urls):
    """Transactions the standbys ran (pg_stat_database): the reads they served, with the
    router's position checks."""
    return sum(int(psql_rows(u, "SELECT xact_commit FROM pg_stat_database "
                                "WHERE datname = current_database()")[0][0]) for u in urls)


def verify(url, load):
    rows = psql_rows(url, f"SELECT key, content, count(*) OVER (PARTITION BY key) "
                          f"FROM {SCHEMA}.entries")
    stored = {key: (content, int(n)) for key, content, n in rows}
    lost = doubled = 0
    for key, value in load.stores.items():
        got = stored.get(key)
        if got is None or got[0] != value:
            lost += 1
        elif got[1] != 1:
            doubled += 1
    counts = {}
    for (content,) in psql_rows(url, f"SELECT content FROM {SCHEMA}.turns WHERE role = 'user'"):
        counts[content] = counts.get(content, 0) + 1
    for message in load.turns:
        n = counts.get(message, 0)
        if n == 0:
            lost += 1
        elif n > 1:
            doubled += 1
    return lost, doubled


def run_round(args, round_no, workdir):
    folder = workdir / f"cluster{round_no}"
    cluster("start-replicated", folder)
    try:
        failover_url = (folder / "failover_url").read_text().strip()
        standbys = (folder / "standby_urls").read_text().split()
        env = {k: v for k, v in os.environ.items() if not k.startswith("MNEMO_")}
        env.update(MNEMO_MEMORY_BACKEND="postgres", MNEMO_POSTGRES_URL=failover_url,
                   MNEMO_POSTGRES_SCHEMA=SCHEMA, MNEMO_EMBEDDING_PROVIDER=args.embedder)
        if args.log:
            env["MNEMO_LOG"] = args.log
        if not args.without_read_urls:
            env["MNEMO_POSTGRES_READ_URLS"] = ",".join(standbys)
        nodes = [Daemon(args.binary, workdir / f"r{round_no}-node{n}", env) for n in range(2)]
        load = Load()
        try:
            threads = [threading.Thread(target=writer, args=(load, w, nodes[w % 2].port, round_no))
                       for w in range(args.writers)]
            threads += [threading.Thread(target=reader, args=(load, r, nodes[r % 2].port))
                        for r in range(args.readers)]
            if args.stacks_after_s:
                threads.append(threading.Thread(target=watch,
                                                args=(load, args, nodes, standbys)))
            for t in threads:
                t.start()
            before = standby_transactions(standbys)
            time.sleep(args.before)
            on_standbys = standby_transactions(standbys) - before
            data = Path((folder / "data_path").read_text().strip())
            postmaster = int((data / "data" / "postmaster.pid").read_text().split()[0])
            killed_at = time.monotonic()
            os.kill(postmaster, signal.SIGKILL)
            time.sleep(args.promote_after)
            cluster("promote", folder, "1")
            promoted_at = time.monotonic()
            deadline = promoted_at + GIVE_UP_S
            while time.monotonic() < deadline:
                with load.lock:
                    if all(load.last_ack.get(w, 0) > promoted_at for w in range(args.writers)):
                        break
                time.sleep(0.05)
            time.sleep(args.after)
            load.stop.set()
            for t in threads:
                t.join()
        except BaseException:
            load.aborted.set()
            raise
        finally:
            load.stop.set()
            logs = [n.log_text() for n in nodes]
            for n in nodes:
                n.stop()
        lost, doubled = verify(standbys[0], load)
        refused = (max(a for _, a in load.refusals) - min(f for f, _ in load.refusals)
                   if load.refusals else 0.0)
        if args.keep_slow and refused > args.keep_slow_over_s:
            keep = Path(args.keep_slow) / f"round{round_no}-{os.getpid()}"
            keep.mkdir(parents=True, exist_ok=True)
            for n, log in enumerate(logs):
                (keep / f"node{n}.log").write_text(log)
            with open(keep / "calls.json", "w") as f:
                json.dump({"killed_at": killed_at, "promoted_at": promoted_at,
                           "calls": [(w, round(s - killed_at, 3), round(d, 3), e)
                                     for w, s, d, e in sorted(load.attempts,
                                                              key=lambda a: a[1])],
                           "stuck": load.stacks}, f, indent=1)
        after_kill = [a for f, a in load.refusals if a > killed_at]
        return {
            "round": round_no, "stores": len(load.stores), "turns": len(load.turns),
            "writes_refused_s": round(refused, 3),
            "kill_to_promoted_s": round(promoted_at - killed_at, 3),
            "refused_writes": len(load.refusals), "lost": lost, "doubled": doubled,
            "gave_up": load.gave_up, "unexpected_write_errors": load.other_errors[:5],
            "reads": load.reads, "read_errors": len(load.read_errors),
            "standby_transactions_before_kill": on_standbys,
            "read_error_samples": load.read_errors[:5], "stale_reads": load.stale,
            "longest_read_gap_s": round(load.read_gap, 3),
            "first_write_after_kill_s": round(min(after_kill) - killed_at, 3)
            if after_kill else None,
            "node_log_tail": [log[-600:] for log in logs] if load.read_errors or lost else [],
        }
    finally:
        subprocess.run([str(PG_CLUSTER), "stop", str(folder)], check=False,
                       capture_output=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("binary")
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--before", type=float, default=3.0)
    ap.add_argument("--promote-after", type=float, default=1.0)
    ap.add_argument("--after", type=float, default=2.0)
    ap.add_argument("--writers", type=int, default=4)
    ap.add_argument("--readers", type=int, default=2)
    ap.add_argument("--max-refused-s", type=float, default=10.0)
    ap.add_argument("--max-read-gap-s", type=float, default=2.0)
    ap.add_argument("--without-read-urls", action="store_true")
    ap.add_argument("--embedder", default="none", help="none (keyword only) or hash: vectors "
                    "too, each node's index catching up from the change log on the standbys")
    ap.add_argument("--log", help="the nodes' MNEMO_LOG (debug: a line per request with its "
                    "time by stage)")
    ap.add_argument("--keep-slow", metavar="DIR", help="keep the full node logs and every "
                    "refused or slow write call of a round that refused writes for longer than "
                    "--keep-slow-over-s in DIR/roundN-PID")
    ap.add_argument("--keep-slow-over-s", type=float, default=5.0)
    ap.add_argument("--stacks-after-s", type=float, default=0.0, help="when a write's call has "
                    "been under way this long, record (once a round, with --keep-slow) its "
                    "node's thread stacks (gdb), sockets and the servers' sessions")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--out", default="failover.json")
    args = ap.parse_args()
    if subprocess.run(["sh", "-c", "ls -d /usr/lib/postgresql/*/bin"],
                      capture_output=True).returncode != 0:
        print("no PostgreSQL server binaries: skipped")
        return 77
    workdir = Path(tempfile.mkdtemp(prefix="mnemo-failover."))
    rounds = []
    failed = []
    try:
        print(f"{'round':>5} {'stores':>6} {'turns':>5} {'refused s':>9} {'lost':>4} "
              f"{'doubled':>7} {'reads':>6} {'read err':>8} {'stale':>5} {'read gap s':>10}",
              flush=True)
        for n in range(1, args.rounds + 1):
            r = run_round(args, n, workdir)
            rounds.append(r)
            print(f"{n:>5} {r['stores']:>6} {r['turns']:>5} {r['writes_refused_s']:>9.2f} "
                  f"{r['lost']:>4} {r['doubled']:>7} {r['reads']:>6} {r['read_errors']:>8} "
                  f"{r['stale_reads']:>5} {r['longest_read_gap_s']:>10.2f}", flush=True)
            problems = []
            if r["lost"] or r["doubled"] or r["gave_up"] or r["unexpected_write_errors"]:
                problems.append("acknowledged writes lost or doubled, or a write never went in")
            if r["writes_refused_s"] > args.max_refused_s:
                problems.append(f"writes refused for more than {args.max_refused_s} s")
            # At most one failed read per reader; its next read must be served (the gap).
            if r["read_errors"] > args.readers or r["stale_reads"]:
                problems.append("reads failed beyond the kill, or missed this node's own write")
            if not args.without_read_urls and r["standby_transactions_before_kill"] == 0:
                problems.append("no read went to a standby while the primary was up")
            if r["longest_read_gap_s"] > args.max_read_gap_s:
                problems.append(f"a reader went {r['longest_read_gap_s']} s without a read")
            if problems:
                failed.append((n, problems, r))
        refused = sorted(r["writes_refused_s"] for r in rounds)
        print(f"\n{len(rounds)} rounds: writes refused median {refused[len(refused) // 2]:.2f} s, "
              f"max {refused[-1]:.2f} s (promotion {args.promote_after} s after the kill); "
              f"lost {sum(r['lost'] for r in rounds)}, doubled {sum(r['doubled'] for r in rounds)}, "
              f"read errors {sum(r['read_errors'] for r in rounds)}, "
              f"stale reads {sum(r['stale_reads'] for r in rounds)} of "
              f"{sum(r['reads'] for r in rounds)} reads")
        with open(args.out, "w") as f:
            json.dump({"args": vars(args), "rounds": rounds}, f, indent=1)
        for n, problems, r in failed:
            print(f"round {n}: {'; '.join(problems)}\n{json.dumps(r, indent=1)}", file=sys.stderr)
    finally:
        subprocess.run(["rm", "-rf", str(workdir)], check=False)
    return 1 if args.check and failed else 0


if __name__ == "__main__":
    sys.exit(main())
