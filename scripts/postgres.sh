#!/usr/bin/env bash
# A throwaway PostgreSQL server for the test suite (idempotent).
#
#   scripts/postgres.sh start   install Debian's postgresql if missing, start a cluster in a
#                               temporary folder (as the postgres user when run as root,
#                               since PostgreSQL refuses to run as root), print its URL
#   scripts/postgres.sh stop    stop it and remove the folder
#   scripts/postgres.sh url     print the URL
#
# The cluster listens on a Unix socket only (no TCP), in a folder and on a port derived
# from this checkout's path, so checkouts side by side do not collide.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
KEY="$(printf '%s' "$ROOT" | sha256sum | cut -c1-8)"
DIR="${SIDEBET_PG_DIR:-${TMPDIR:-/tmp}/sidebet-pg-$KEY}"
PORT="${SIDEBET_PG_PORT:-$((54000 + 0x${KEY:0:4} % 1000))}"
URL="postgresql+psycopg://postgres@/postgres?host=$DIR&port=$PORT"

pg_bin() {
    local bin
    bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
    if [ -z "$bin" ] || [ ! -x "$bin/pg_ctl" ]; then
        echo "postgres.sh: installing Debian's postgresql" >&2
        if [ "$(id -u)" -ne 0 ]; then
            echo "postgres.sh: PostgreSQL is missing; run as root or install postgresql" >&2
            exit 1
        fi
        apt-get update -qq >&2
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >&2
        bin="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)"
    fi
    printf '%s' "$bin"
}

as_pg() {  # run a command as the cluster's owner
    if [ "$(id -u)" -eq 0 ]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

case "${1:-}" in
start)
    BIN="$(pg_bin)"
    if [ -f "$DIR/data/postmaster.pid" ] && as_pg "$BIN/pg_ctl" -D "$DIR/data" status >/dev/null 2>&1; then
        echo "$URL"
        exit 0
    fi
    mkdir -p "$DIR"
    [ "$(id -u)" -eq 0 ] && chown postgres: "$DIR"
    if [ ! -f "$DIR/data/PG_VERSION" ]; then
        as_pg "$BIN/initdb" -D "$DIR/data" -U postgres --auth=trust -E UTF8 --no-instructions >/dev/null
    fi
    as_pg "$BIN/pg_ctl" -D "$DIR/data" -l "$DIR/server.log" -w -t 60 \
        -o "-p $PORT -k $DIR -c listen_addresses= -c max_connections=300" start >/dev/null
    echo "$URL"
    ;;
stop)
    if [ -d "$DIR/data" ]; then
        BIN="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
        if [ -n "$BIN" ]; then
            as_pg "$BIN/pg_ctl" -D "$DIR/data" -m fast -w stop >/dev/null 2>&1 || true
        fi
    fi
    rm -rf "$DIR"
    ;;
url)
    echo "$URL"
    ;;
*)
    echo "usage: $0 start|stop|url" >&2
    exit 2
    ;;
esac
