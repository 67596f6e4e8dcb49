#!/usr/bin/env bash
# Starts or stops a throwaway PostgreSQL (Debian's packages, no systemd) on a loopback port in a
# temporary directory, for the storage tests and the durability script.
#   eval "$(bash .ci/postgres.sh start)"   exports SWITCHYARD_TEST_POSTGRES=postgres://…  and PG_STATE_DIR
#   bash .ci/postgres.sh stop "$PG_STATE_DIR"
set -euo pipefail
PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[[ -x "$PGBIN/initdb" ]] || { echo "postgres.sh: PostgreSQL server binaries not found (apt-get install postgresql)" >&2; exit 1; }

case "${1:-}" in
start)
  STATE=$(mktemp -d /tmp/switchyard-pg.XXXXXX)
  PGDATA="$STATE/data"; mkdir "$PGDATA"
  PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  PASSWORD=$(python3 -c 'import secrets; print(secrets.token_hex(12))')
  echo "$PASSWORD" > "$STATE/pw"
  chown -R postgres:postgres "$STATE"; chmod 700 "$PGDATA"
  RUN=(); if [[ $(id -u) -eq 0 ]]; then RUN=(runuser -u postgres --); else RUN=(sudo -u postgres); fi
  "${RUN[@]}" "$PGBIN/initdb" -D "$PGDATA" -U postgres -E UTF8 --locale=C.UTF-8 --auth-local=trust \
    --auth-host=scram-sha-256 --pwfile="$STATE/pw" --no-sync >"$STATE/initdb.log" 2>&1 \
    || { cat "$STATE/initdb.log" >&2; exit 1; }
  "${RUN[@]}" "$PGBIN/pg_ctl" -D "$PGDATA" -l "$STATE/server.log" -w -t 30 \
    -o "-c listen_addresses=127.0.0.1 -p $PORT -k $STATE -c fsync=on" start >/dev/null \
    || { cat "$STATE/server.log" >&2; exit 1; }
  echo "export PG_STATE_DIR=$STATE"
  echo "export SWITCHYARD_TEST_POSTGRES=postgres://postgres:$PASSWORD@127.0.0.1:$PORT/postgres?sslmode=disable"
  ;;
stop)
  STATE=${2:?usage: postgres.sh stop STATE_DIR}
  RUN=(); if [[ $(id -u) -eq 0 ]]; then RUN=(runuser -u postgres --); else RUN=(sudo -u postgres); fi
  "${RUN[@]}" "$PGBIN/pg_ctl" -D "$STATE/data" -m fast -w stop >/dev/null 2>&1 || true
  rm -rf "$STATE"
  ;;
*) echo "usage: postgres.sh start | stop STATE_DIR" >&2; exit 2 ;;
esac
