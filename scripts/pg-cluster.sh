#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the tests (issue 9): Debian's
# postgresql-15 binaries, a data folder of its own under /tmp (readable by
# the server's user wherever the checkout is), a free local port, trust
# authentication on 127.0.0.1 only, fsync off, and a database `mnemo`.
#   scripts/pg-cluster.sh start DIR   writes DIR/url (and prints it)
#   scripts/pg-cluster.sh stop DIR    stops it and removes its data
#   scripts/pg-cluster.sh pause DIR   stops the server at once, keeps its data
#   scripts/pg-cluster.sh resume DIR  starts it again on the same port
# DIR only records where the cluster is. As root the server runs as the
# `postgres` user (PostgreSQL refuses to run as root). CTest starts and stops
# one around the tests that need it (tests/CMakeLists.txt).
set -euo pipefail
cmd=${1:?usage: pg-cluster.sh start|stop|pause|resume DIR}
dir=$(realpath -m "${2:?usage: pg-cluster.sh start|stop|pause|resume DIR}")
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
    if [ -d "$data/data" ]; then
      as_owner "$bin/pg_ctl" -D "$data/data" -m immediate -w stop > /dev/null 2>&1 || true
    fi
    rm -rf "$data"
    rm -f "$dir/data_path" "$dir/url"
  fi
}

start_server() {  # data folder, port
  as_owner "$bin/pg_ctl" -D "$1/data" -l "$1/server.log" -w -t 60 \
    -o "-p $2 -c listen_addresses=127.0.0.1 -c unix_socket_directories=$1 -c fsync=off -c max_connections=300" \
    start > /dev/null
}

case "$cmd" in
  start)
    mkdir -p "$dir"
    stop_cluster  # a cluster left by an interrupted run
    data=$(mktemp -d /tmp/mnemo-pg.XXXXXX)
    echo "$data" > "$dir/data_path"
    chmod 755 "$data"
    if [ "$(id -u)" -eq 0 ]; then chown postgres: "$data"; fi
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    as_owner "$bin/initdb" -D "$data/data" -U mnemo -A trust -E UTF8 --locale=C.UTF-8 > "$data/initdb.log"
    echo "$port" > "$data/port"
    start_server "$data" "$port"
    as_owner "$bin/createdb" -h 127.0.0.1 -p "$port" -U mnemo mnemo
    url="postgresql://mnemo@127.0.0.1:$port/mnemo"
    echo "$url" > "$dir/url"
    echo "$url"
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
    echo "pg-cluster: unknown command $cmd (start, stop, pause or resume)" >&2
    exit 2
    ;;
esac
