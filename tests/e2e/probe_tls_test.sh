#!/usr/bin/env bash
# The health of a TLS server, probed two ways with the shipped binaries:
# collision_probe speaking TLS to the main port, and plaintext to the
# server's health-only port (--health_address), which serves health and
# nothing else and follows the drain to NOT_SERVING.
set -euo pipefail
server=$1
probe=$2
certs=$3
work=$(mktemp -d)
trap 'kill -9 "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; cat "$work/server.log"; exit 1; }
bash "$certs" "$work/certs" >/dev/null

"$server" --address=127.0.0.1:0 --port_file="$work/port" --drain_grace=5s \
  --tls_cert="$work/certs/server.pem" --tls_key="$work/certs/server.key" \
  --health_address=127.0.0.1:0 2>"$work/server.log" &
pid=$!
# Bounded: 100 x 0.1 s for the port file (written once serving).
for _ in $(seq 100); do
  [ -s "$work/port" ] && break
  kill -0 "$pid" 2>/dev/null || fail "the server exited"
  sleep 0.1
done
port=$(cat "$work/port")
health_port=$(grep -o 'health_only=127.0.0.1:[0-9]*' "$work/server.log" |
  cut -d: -f2)
[ -n "$health_port" ] || fail "the start line names no health-only port"
main="--target=127.0.0.1:$port"
service=--service=collision.v1.CollisionService

# exit status of one probe, its output kept for the failure message
run() { "$probe" --timeout=3s "$@" >"$work/probe.out" 2>&1 && echo 0 || echo $?; }
expect() {  # status, what, probe args...
  local want=$1 what=$2
  shift 2
  local got
  got=$(run "$@")
  [ "$got" = "$want" ] || { cat "$work/probe.out"; fail "$what: exit $got, want $want"; }
  echo "ok: $what (exit $got: $(head -c 200 "$work/probe.out"))"
}

expect 1 "plaintext to the TLS port fails" "$main"
expect 0 "TLS with the CA" "$main" "$service" --tls_ca="$work/certs/ca.pem" \
  --tls_server_name=localhost
expect 1 "TLS with a CA that did not sign the server" "$main" \
  --tls_ca="$work/certs/rogue-ca.pem" --tls_server_name=localhost
expect 2 "a client certificate without its key is bad usage" "$main" \
  --tls_cert="$work/certs/client.pem"
expect 2 "an unreadable CA file is bad usage" "$main" --tls_ca="$work/missing.pem"
expect 0 "plaintext to the health-only port" --target=127.0.0.1:$health_port "$service"
expect 0 "the whole server's health there too" --target=127.0.0.1:$health_port

# The health-only port serves nothing else: a collision.v1 call there is
# UNIMPLEMENTED (nghttp2's client speaks h2c; the status is in the trailer).
printf '\0\0\0\0\0' >"$work/empty.msg"
nghttp --no-verify -v -H ':method: POST' -H 'content-type: application/grpc' \
  -H 'te: trailers' -d "$work/empty.msg" \
  "http://127.0.0.1:$health_port/collision.v1.CollisionService/Intersect" \
  >"$work/h2.out" 2>&1 || true
grep -q 'grpc-status: 12' "$work/h2.out" ||
  { cat "$work/h2.out"; fail "a collision.v1 call on the health-only port was not UNIMPLEMENTED"; }
echo "ok: collision.v1 is not served on the health-only port (UNIMPLEMENTED)"

# SIGTERM: both ports say NOT_SERVING during the drain grace. Bounded poll.
kill -TERM "$pid"
for _ in $(seq 40); do
  [ "$(run --target=127.0.0.1:$health_port "$service")" = 1 ] && break
  sleep 0.1
done
expect 1 "the health-only port follows the drain" --target=127.0.0.1:$health_port "$service"
grep -q NOT_SERVING "$work/probe.out" || fail "no NOT_SERVING during the drain"
expect 1 "the TLS port follows the drain" "$main" "$service" \
  --tls_ca="$work/certs/ca.pem" --tls_server_name=localhost
grep -q NOT_SERVING "$work/probe.out" || fail "no NOT_SERVING on the TLS port"
timeout 20 tail --pid="$pid" -f /dev/null || fail "the server did not stop"
wait "$pid" && rc=0 || rc=$?
[ "$rc" -eq 0 ] || fail "the server exited $rc"
echo PASS
