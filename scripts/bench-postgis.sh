#!/usr/bin/env bash
# PostgreSQL 15 + PostGIS 3.3 beside the service on the same random
# circle-rect pairs (tools/peers/postgis_bench.cc): pairs/s and server CPU
# per pair at 64, 1k and 16k pairs per call, in one table, then where the
# two disagree. Starts a private PostgreSQL (temp data directory, unix
# socket only, no TCP port) and the server on loopback port 0, and stops
# both on exit. Bounded: about 3 minutes after the build (--duration=2s x
# 7 rows x 3 batch sizes x 3 passes).
#
#   ./scripts/install-bench-peers.sh   # once: postgresql-15, postgis, libpq
#   ./scripts/bench-postgis.sh [collision_postgis_bench flags...]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/server.sh

pgbin=/usr/lib/postgresql/15/bin
if [ ! -x "$pgbin/initdb" ] ||
  [ ! -e /usr/share/postgresql/15/extension/postgis.control ]; then
  echo "bench-postgis: PostgreSQL 15 or PostGIS missing;" \
    "run scripts/install-bench-peers.sh" >&2
  exit 1
fi

bin=build/postgis
cmake --preset release -B "$bin" >/dev/null
cmake --build "$bin" --target collision_server collision_postgis_bench \
  >/dev/null
if [ ! -x "$bin/tools/peers/collision_postgis_bench" ]; then
  echo "bench-postgis: collision_postgis_bench was not built (libpq-dev?)" >&2
  exit 1
fi

start_server "$bin/server/collision_server" \
  --max_batch=1000000 --max_in_flight=256 --drain_grace=0s

# PostgreSQL refuses to run as root: as root, run it as `postgres` (or
# `nobody`) in a folder that user owns.
pgwork=$(mktemp -d)
pguser=$(id -un)
if [ "$(id -u)" -eq 0 ]; then
  pguser=postgres
  id postgres >/dev/null 2>&1 || pguser=nobody
  chown "$pguser" "$pgwork"
fi
as_pg() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u "$pguser" -- "$@"; else "$@"; fi
}
stop_postgres() {
  if [ -f "$pgwork/data/postmaster.pid" ]; then
    as_pg "$pgbin/pg_ctl" -D "$pgwork/data" -m fast -t 30 stop >/dev/null ||
      kill -KILL "$(head -1 "$pgwork/data/postmaster.pid")" 2>/dev/null || true
  fi
  rm -rf "$pgwork"
}
trap 'stop_postgres; stop_server' EXIT
trap 'exit 130' INT TERM

as_pg "$pgbin/initdb" -D "$pgwork/data" -U postgres --auth=trust --no-sync \
  -E UTF8 >"$pgwork/initdb.log" 2>&1 ||
  { cat "$pgwork/initdb.log" >&2; exit 1; }
# Unix socket in the private folder only (listen_addresses empty: no TCP
# port to collide with); the port number only names the socket file.
# PG_SETTINGS: what a DBA would set for many short queries: JIT off (with
# 16k-pair arrays as constants the planner's estimate passes jit_above_cost
# and EXPLAIN shows 9-15 ms of compiling) and generic plans (no planning
# per call). PG_SETTINGS= runs the defaults; on 2026-11-25 both measured
# the same within the noise.
pg_settings=${PG_SETTINGS--c jit=off -c plan_cache_mode=force_generic_plan}
if ! as_pg "$pgbin/pg_ctl" -D "$pgwork/data" -l "$pgwork/postgres.log" -w \
  -t 30 -o "-c listen_addresses= -c unix_socket_directories=$pgwork \
  -c port=5432 $pg_settings" start >/dev/null; then
  echo "bench-postgis: PostgreSQL did not start; its log:" >&2
  cat "$pgwork/postgres.log" >&2
  exit 1
fi
ready=0
for _ in $(seq 100); do
  if "$pgbin/pg_isready" -q -h "$pgwork" -p 5432; then ready=1; break; fi
  sleep 0.1
done
if [ "$ready" != 1 ]; then
  echo "bench-postgis: PostgreSQL not ready within 10 s" >&2
  exit 1
fi
"$pgbin/psql" -X -q -h "$pgwork" -p 5432 -U postgres -d postgres \
  -c 'CREATE EXTENSION postgis' >/dev/null
pgpid=$(head -1 "$pgwork/data/postmaster.pid")

echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores:" \
  "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')," \
  "load $(cut -d' ' -f1-3 /proc/loadavg); PostgreSQL: ${pg_settings:-defaults}"
timeout 900 "$bin/tools/peers/collision_postgis_bench" \
  --target="$SERVER_TARGET" --server_pid="$SERVER_PID" \
  --postgres="host=$pgwork port=5432 dbname=postgres user=postgres" \
  --postgres_pid="$pgpid" "$@"
