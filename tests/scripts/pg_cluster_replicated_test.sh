#!/usr/bin/env bash
# scripts/pg-cluster.sh start-replicated: a primary and two hot standbys by
# streaming replication on loopback, standby1 synchronous; a write on the
# primary is read on both standbys, the standbys refuse writes, the failover
# url reaches the promoted standby once the primary is gone, the other
# standby then follows the promoted one, and stop leaves nothing running. Bounded: about 15 s on a quiet 2-core machine.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=$(mktemp -d /tmp/mnemo-pg-cluster-test.XXXXXX)
trap '"$root/scripts/pg-cluster.sh" stop "$dir" > /dev/null 2>&1 || true; rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
if ! ls -d /usr/lib/postgresql/*/bin > /dev/null 2>&1; then
  echo "no PostgreSQL server binaries: skipped"
  exit 77
fi
q() { psql -X -At -v ON_ERROR_STOP=1 "$1" -c "$2"; }

"$root/scripts/pg-cluster.sh" start-replicated "$dir" > /dev/null
primary=$(cat "$dir/url")
mapfile -t standbys < "$dir/standby_urls"
[ "${#standbys[@]}" = 2 ] || fail "expected 2 standby urls, got ${#standbys[@]}"
[ "$(q "$primary" "SELECT application_name || ':' || sync_state FROM pg_stat_replication ORDER BY 1" | tr '\n' ' ')" = "standby1:sync standby2:async " ] ||
  fail "replication state: $(q "$primary" "SELECT application_name, state, sync_state FROM pg_stat_replication")"

q "$primary" "CREATE TABLE t (v int); INSERT INTO t VALUES (42)" > /dev/null
for s in "${standbys[@]}"; do
  [ "$(q "$s" "SELECT pg_is_in_recovery()")" = t ] || fail "$s is not a standby"
  seen=""
  for _ in $(seq 1 50); do
    seen=$(q "$s" "SELECT v FROM t" 2> /dev/null || true)
    [ "$seen" = 42 ] && break
    sleep 0.1
  done
  [ "$seen" = 42 ] || fail "$s did not replay the write"
  if q "$s" "INSERT INTO t VALUES (1)" > /dev/null 2>&1; then fail "$s accepted a write"; fi
done

"$root/scripts/pg-cluster.sh" pause "$dir"
"$root/scripts/pg-cluster.sh" promote "$dir" 1
q "$(cat "$dir/failover_url")" "INSERT INTO t VALUES (43)" > /dev/null ||
  fail "the failover url reached no writable server"
[ "$(q "${standbys[0]}" "SELECT count(*) FROM t")" = 2 ] || fail "the promoted standby lacks a row"
# standby2 now streams from the promoted standby1 and replays its writes.
seen=""
for _ in $(seq 1 100); do
  seen=$(q "${standbys[1]}" "SELECT count(*) FROM t" 2> /dev/null || true)
  [ "$seen" = 2 ] && break
  sleep 0.1
done
[ "$seen" = 2 ] || fail "standby2 did not follow the promoted standby1 (rows: $seen)"
[ "$(q "${standbys[0]}" "SELECT application_name || ':' || state FROM pg_stat_replication")" = standby2:streaming ] ||
  fail "standby2 does not stream from the promoted standby1"

data=$(cat "$dir/data_path")
"$root/scripts/pg-cluster.sh" stop "$dir"
[ ! -e "$data" ] || fail "stop left $data"
pgrep -f "$data" > /dev/null && fail "a server of $data is still running"
echo "pg-cluster start-replicated: ok"
