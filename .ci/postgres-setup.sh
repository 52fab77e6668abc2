#!/usr/bin/env bash
# Make a local PostgreSQL answer for the ladder store's tests (idempotent; needs root):
#  1. install Debian's `postgresql` when no server is installed;
#  2. pick the newest installed server version and its first cluster (creating `main` when there
#     is none), make it listen on localhost and the Unix socket only, start it when it is down;
#  3. wait (bounded) until it accepts connections on 127.0.0.1;
#  4. create the test role and database when missing (the role owns the database, so the tests
#     can create and drop a schema per test).
# Progress goes to stderr; stdout is exactly one line, the SQLAlchemy URL of the test database:
#   export ARENA_TEST_POSTGRES_URL="$(bash .ci/postgres-setup.sh)"
# Knobs: ARENA_PG_USER, ARENA_PG_PASSWORD, ARENA_PG_DB (default arena / arena / arena_test),
# ARENA_PG_WAIT_S (default 60).
set -euo pipefail

USER_NAME="${ARENA_PG_USER:-arena}"
PASSWORD="${ARENA_PG_PASSWORD:-arena}"
DB_NAME="${ARENA_PG_DB:-arena_test}"
WAIT_S="${ARENA_PG_WAIT_S:-60}"

say() { echo "postgres-setup: $*" >&2; }
die() { say "$*"; exit 1; }

[ "$(id -u)" -eq 0 ] || die "run me as root (apt-get, pg_ctlcluster)"
for name in "$USER_NAME" "$DB_NAME"; do
  [[ "$name" =~ ^[a-z_][a-z0-9_]*$ ]] || die "not a plain identifier: $name"
done
[[ "$PASSWORD" != *"'"* ]] || die "ARENA_PG_PASSWORD may not contain a single quote"

newest_server() {
  # the newest /usr/lib/postgresql/<version>/bin/postgres installed, or nothing
  local dir
  for dir in /usr/lib/postgresql/*/bin/postgres; do
    [ -x "$dir" ] && basename "$(dirname "$(dirname "$dir")")"
  done | sort -n | tail -n 1
}

version="$(newest_server)"
if [ -z "$version" ] || ! command -v pg_ctlcluster >/dev/null 2>&1; then
  say "installing Debian's postgresql"
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
  version="$(newest_server)"
  [ -n "$version" ] || die "postgresql installed, but no server binary under /usr/lib/postgresql"
fi

# the first cluster of that version (pg_lsclusters -h: "ver cluster port status owner ...")
cluster="$(pg_lsclusters -h | awk -v v="$version" '$1 == v { print $2; exit }')"
if [ -z "$cluster" ]; then
  say "creating cluster $version/main"
  pg_createcluster "$version" main >/dev/null
  cluster=main
fi
port="$(pg_lsclusters -h | awk -v v="$version" -v c="$cluster" '$1 == v && $2 == c { print $3 }')"

# loopback and the Unix socket only, whatever the cluster had
current="$(pg_conftool -s "$version" "$cluster" show listen_addresses 2>/dev/null || true)"
if [ "$current" != "localhost" ]; then
  say "setting listen_addresses = 'localhost' (was '${current:-unset}')"
  pg_conftool "$version" "$cluster" set listen_addresses localhost >&2
  if pg_lsclusters -h | awk -v v="$version" -v c="$cluster" '$1 == v && $2 == c { exit $4 != "online" }'; then
    pg_ctlcluster "$version" "$cluster" restart >&2
  fi
fi

# the socket directory lives on a tmpfs on some machines
install -d -o postgres -g postgres -m 2775 /var/run/postgresql

if ! pg_isready -q -h 127.0.0.1 -p "$port"; then
  if pg_lsclusters -h | awk -v v="$version" -v c="$cluster" '$1 == v && $2 == c { exit $4 == "online" }'; then
    say "starting cluster $version/$cluster on port $port"
    pg_ctlcluster "$version" "$cluster" start >&2 || say "pg_ctlcluster start failed; waiting anyway"
  fi
fi

ready=""
for _ in $(seq 1 "$WAIT_S"); do
  if pg_isready -q -h 127.0.0.1 -p "$port"; then ready=1; break; fi
  sleep 1
done
if [ -z "$ready" ]; then
  say "PostgreSQL $version/$cluster did not accept connections on 127.0.0.1:$port within ${WAIT_S}s"
  tail -n 20 "/var/log/postgresql/postgresql-$version-$cluster.log" >&2 || true
  exit 1
fi

psql_admin() {
  runuser -u postgres -- psql -X -q -v ON_ERROR_STOP=1 -p "$port" -d postgres "$@"
}

if [ "$(psql_admin -tA -c "SELECT 1 FROM pg_roles WHERE rolname = '$USER_NAME'")" != "1" ]; then
  say "creating role $USER_NAME"
  psql_admin -c "CREATE ROLE $USER_NAME LOGIN PASSWORD '$PASSWORD'"
else
  psql_admin -c "ALTER ROLE $USER_NAME LOGIN PASSWORD '$PASSWORD'"
fi
if [ "$(psql_admin -tA -c "SELECT 1 FROM pg_database WHERE datname = '$DB_NAME'")" != "1" ]; then
  say "creating database $DB_NAME owned by $USER_NAME"
  psql_admin -c "CREATE DATABASE $DB_NAME OWNER $USER_NAME"
fi

say "PostgreSQL $version/$cluster ready on 127.0.0.1:$port, database $DB_NAME"
echo "postgresql+psycopg://$USER_NAME:$PASSWORD@127.0.0.1:$port/$DB_NAME"
