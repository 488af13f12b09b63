#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the tests (issue 9): Debian's
# postgresql-15 binaries, a data folder of its own under /tmp (readable by
# the server's user wherever the checkout is), a free local port, trust
# authentication on 127.0.0.1 only, fsync off, and a database `mnemo`.
#   scripts/pg-cluster.sh start DIR   writes DIR/url (and prints it)
#   scripts/pg-cluster.sh stop DIR    stops it and removes its data
#   scripts/pg-cluster.sh pause DIR   stops the server at once, keeps its data
#   scripts/pg-cluster.sh resume DIR  starts it again on the same port
#   scripts/pg-cluster.sh start-replicated DIR
#       a primary and two hot standbys by streaming replication, each on a
#       free loopback port; standby1 is synchronous (synchronous_commit = on:
#       a commit returns once standby1 has the WAL), standby2 asynchronous.
#       Writes DIR/url (the primary), DIR/standby_urls (one a line) and
#       DIR/failover_url (all three hosts, target_session_attrs=read-write).
#       stop, pause and resume act on the primary; stop stops all three.
#       hot_standby_feedback is on: a read on a standby is not cancelled
#       because the primary vacuumed rows it still sees.
#   scripts/pg-cluster.sh promote DIR N  promotes standby N (1 or 2) and
#       re-points the other standby to it (asynchronous)
# DIR only records where the cluster is. As root the server runs as the
# `postgres` user (PostgreSQL refuses to run as root). CTest starts and stops
# one around the tests that need it (tests/CMakeLists.txt).
set -euo pipefail
usage="usage: pg-cluster.sh start|start-replicated|stop|pause|resume DIR, or promote DIR N"
cmd=${1:?$usage}
dir=$(realpath -m "${2:?$usage}")
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
if [ -z "$bin" ]; then
  echo "pg-cluster: no PostgreSQL server binaries (install the postgresql package)" >&2
  exit 1
fi

as_owner() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

stop_cluster() {
  if [ -f "$dir/data_path" ]; then
    data=$(cat "$dir/data_path")
    for d in "$data/data" "$data/standby1/data" "$data/standby2/data"; do
      if [ -d "$d" ]; then
        as_owner "$bin/pg_ctl" -D "$d" -m immediate -w stop > /dev/null 2>&1 || true
      fi
    done
    rm -rf "$data"
    rm -f "$dir/data_path" "$dir/url" "$dir/standby_urls" "$dir/failover_url"
  fi
}

# shared_buffers 512MB: a 100k-entry store is about 250 MB of tables and
# indexes; at the 128 MB default the benchmark's searches read many of
# their pages back from the kernel's cache. A production server is sized
# the same way (docs/scaling.md); the memory is taken only as it is used.
start_server() {  # data folder, port
  as_owner "$bin/pg_ctl" -D "$1/data" -l "$1/server.log" -w -t 60 \
    -o "-p $2 -c listen_addresses=127.0.0.1 -c unix_socket_directories=$1 -c fsync=off -c max_connections=300 -c hot_standby_feedback=on -c shared_buffers=512MB" \
    start > /dev/null
}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

new_data_folder() {
  data=$(mktemp -d /tmp/mnemo-pg.XXXXXX)
  echo "$data" > "$dir/data_path"
  chmod 755 "$data"
  if [ "$(id -u)" -eq 0 ]; then chown postgres: "$data"; fi
}

init_primary() {  # writes $port, starts the server, creates the database
  port=$(free_port)
  as_owner "$bin/initdb" -D "$data/data" -U mnemo -A trust -E UTF8 --locale=C.UTF-8 > "$data/initdb.log"
  echo "$port" > "$data/port"
  start_server "$data" "$port"
  as_owner "$bin/createdb" -h 127.0.0.1 -p "$port" -U mnemo mnemo
}

sql() {  # port, statement
  as_owner "$bin/psql" -X -At -h 127.0.0.1 -p "$1" -U mnemo -d mnemo -c "$2"
}

case "$cmd" in
  start)
    mkdir -p "$dir"
    stop_cluster  # a cluster left by an interrupted run
    new_data_folder
    init_primary
    url="postgresql://mnemo@127.0.0.1:$port/mnemo"
    echo "$url" > "$dir/url"
    echo "$url"
    ;;
  start-replicated)
    mkdir -p "$dir"
    stop_cluster
    new_data_folder
    init_primary
    hosts="127.0.0.1:$port"
    : > "$dir/standby_urls.tmp"
    for n in 1 2; do
      sport=$(free_port)
      mkdir -p "$data/standby$n"
      if [ "$(id -u)" -eq 0 ]; then chown postgres: "$data/standby$n"; fi
      # initdb's pg_hba.conf already trusts replication from 127.0.0.1.
      as_owner "$bin/pg_basebackup" -h 127.0.0.1 -p "$port" -U mnemo -D "$data/standby$n/data" \
        -R -X stream -c fast > "$data/standby$n/basebackup.log" 2>&1
      echo "primary_conninfo = 'host=127.0.0.1 port=$port user=mnemo application_name=standby$n'" |
        as_owner tee -a "$data/standby$n/data/postgresql.auto.conf" > /dev/null
      echo "$sport" > "$data/standby$n/port"
      start_server "$data/standby$n" "$sport"
      hosts="$hosts,127.0.0.1:$sport"
      echo "postgresql://mnemo@127.0.0.1:$sport/mnemo" >> "$dir/standby_urls.tmp"
    done
    for _ in $(seq 1 100); do
      [ "$(sql "$port" "SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'")" = 2 ] && break
      sleep 0.1
    done
    # Synchronous only now: with no standby yet, createdb above would wait forever.
    sql "$port" "ALTER SYSTEM SET synchronous_standby_names = 'FIRST 1 (standby1)'" > /dev/null
    sql "$port" "SELECT pg_reload_conf()" > /dev/null
    for _ in $(seq 1 100); do
      [ "$(sql "$port" "SELECT sync_state FROM pg_stat_replication WHERE application_name = 'standby1'")" = sync ] && break
      sleep 0.1
    done
    mv "$dir/standby_urls.tmp" "$dir/standby_urls"
    echo "postgresql://mnemo@$hosts/mnemo?target_session_attrs=read-write" > "$dir/failover_url"
    url="postgresql://mnemo@127.0.0.1:$port/mnemo"
    echo "$url" > "$dir/url"
    echo "$url"
    ;;
  promote)
    data=$(cat "$dir/data_path")
    n=${3:?usage: pg-cluster.sh promote DIR 1|2}
    case "$n" in 1 | 2) ;; *) echo "pg-cluster: promote takes standby 1 or 2, not $n" >&2; exit 2 ;; esac
    as_owner "$bin/pg_ctl" -D "$data/standby$n/data" -w promote > /dev/null
    # The other standby now follows the promoted one: its primary_conninfo
    # (the last line of postgresql.auto.conf wins) is re-read on reload and
    # restarts its WAL receiver, which takes the new timeline (the default
    # recovery_target_timeline is 'latest'). It stays asynchronous: the new
    # primary has no synchronous standby until synchronous_standby_names is
    # set on it. Returns at once; the standby catches up on its own.
    m=$((3 - n))
    if [ -d "$data/standby$m/data" ]; then
      echo "primary_conninfo = 'host=127.0.0.1 port=$(cat "$data/standby$n/port") user=mnemo application_name=standby$m'" |
        as_owner tee -a "$data/standby$m/data/postgresql.auto.conf" > /dev/null
      as_owner "$bin/pg_ctl" -D "$data/standby$m/data" reload > /dev/null
    fi
    ;;
  stop)
    stop_cluster
    ;;
  pause)
    data=$(cat "$dir/data_path")
    as_owner "$bin/pg_ctl" -D "$data/data" -m immediate -w stop > /dev/null
    ;;
  resume)
    data=$(cat "$dir/data_path")
    start_server "$data" "$(cat "$data/port")"
    ;;
  *)
    echo "pg-cluster: unknown command $cmd (start, start-replicated, stop, pause, resume or promote)" >&2
    exit 2
    ;;
esac
