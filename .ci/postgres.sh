#!/usr/bin/env bash
# Starts or stops a throwaway PostgreSQL (Debian's packages, no systemd) on a loopback port in a
# temporary directory, for the storage tests and the durability script.
#   eval "$(bash .ci/postgres.sh start)"   exports SWITCHYARD_TEST_POSTGRES=postgres://…, PG_STATE_DIR and
#                                          SWITCHYARD_TEST_POSTGRES_CA (the authority of the server's TLS certificate)
#   bash .ci/postgres.sh halt|resume "$PG_STATE_DIR"   stops it keeping its data, starts it again
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
  # TLS with a certificate authority made here, for the sslmode tests: the server's certificate
  # names localhost only (not 127.0.0.1), so verify-full passes by name and fails by address.
  openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=Switchyard test CA" \
    -keyout "$STATE/ca.key" -out "$STATE/ca.pem" >/dev/null 2>&1
  openssl req -newkey rsa:2048 -nodes -subj "/CN=localhost" -keyout "$STATE/server.key" -out "$STATE/server.csr" >/dev/null 2>&1
  printf 'subjectAltName=DNS:localhost\n' > "$STATE/san.ext"
  openssl x509 -req -in "$STATE/server.csr" -CA "$STATE/ca.pem" -CAkey "$STATE/ca.key" -CAcreateserial -days 2 \
    -extfile "$STATE/san.ext" -out "$STATE/server.pem" >/dev/null 2>&1
  chown -R postgres:postgres "$STATE"; chmod 700 "$PGDATA"; chmod 600 "$STATE/server.key"; chmod 644 "$STATE/ca.pem"; chmod 711 "$STATE"
  RUN=(); if [[ $(id -u) -eq 0 ]]; then RUN=(runuser -u postgres --); else RUN=(sudo -u postgres); fi
  "${RUN[@]}" "$PGBIN/initdb" -D "$PGDATA" -U postgres -E UTF8 --locale=C.UTF-8 --auth-local=trust \
    --auth-host=scram-sha-256 --pwfile="$STATE/pw" --no-sync >"$STATE/initdb.log" 2>&1 \
    || { cat "$STATE/initdb.log" >&2; exit 1; }
  echo "-c listen_addresses=127.0.0.1 -p $PORT -k $STATE -c fsync=on -c max_connections=300 -c ssl=on -c ssl_cert_file=$STATE/server.pem -c ssl_key_file=$STATE/server.key" > "$STATE/options"
  "${RUN[@]}" "$PGBIN/pg_ctl" -D "$PGDATA" -l "$STATE/server.log" -w -t 30 -o "$(cat "$STATE/options")" start >/dev/null \
    || { cat "$STATE/server.log" >&2; exit 1; }
  echo "export PG_STATE_DIR=$STATE"
  echo "export SWITCHYARD_TEST_POSTGRES=postgres://postgres:$PASSWORD@127.0.0.1:$PORT/postgres?sslmode=disable"
  echo "export SWITCHYARD_TEST_POSTGRES_CA=$STATE/ca.pem"
  ;;
halt|resume)
  # Stops the server and keeps its data (halt), or starts it again on the same port (resume):
  # for the tests of what the service does while its database is down.
  STATE=${2:?usage: postgres.sh halt|resume STATE_DIR}
  RUN=(); if [[ $(id -u) -eq 0 ]]; then RUN=(runuser -u postgres --); else RUN=(sudo -u postgres); fi
  if [[ "$1" == halt ]]; then
    "${RUN[@]}" "$PGBIN/pg_ctl" -D "$STATE/data" -m immediate -w stop >/dev/null
  else
    "${RUN[@]}" "$PGBIN/pg_ctl" -D "$STATE/data" -l "$STATE/server.log" -w -t 30 -o "$(cat "$STATE/options")" start >/dev/null
  fi
  ;;
stop)
  STATE=${2:?usage: postgres.sh stop STATE_DIR}
  RUN=(); if [[ $(id -u) -eq 0 ]]; then RUN=(runuser -u postgres --); else RUN=(sudo -u postgres); fi
  "${RUN[@]}" "$PGBIN/pg_ctl" -D "$STATE/data" -m fast -w stop >/dev/null 2>&1 || true
  rm -rf "$STATE"
  ;;
*) echo "usage: postgres.sh start | halt STATE_DIR | resume STATE_DIR | stop STATE_DIR" >&2; exit 2 ;;
esac
