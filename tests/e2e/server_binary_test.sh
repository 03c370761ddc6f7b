#!/usr/bin/env bash
# Starts collision_server on 127.0.0.1:0, runs collision_demo against it,
# checks real answers, then SIGTERMs the server and checks it drains and exits 0.
set -euo pipefail
server=$1
demo=$2
work=$(mktemp -d)
trap 'kill -9 "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT

"$server" --address=127.0.0.1:0 --port_file="$work/port" --drain_grace=200ms \
  2>"$work/server.log" &
pid=$!
# The port file appears once the server is bound and serving; the demo then
# waits on the health service itself. Bounded: 100 x 0.1 s.
for _ in $(seq 100); do
  [ -s "$work/port" ] && break
  kill -0 "$pid" 2>/dev/null || { cat "$work/server.log"; exit 1; }
  sleep 0.1
done
port=$(cat "$work/port")
timeout 30 "$demo" --target="127.0.0.1:$port" >"$work/demo.out"
cat "$work/demo.out"

fail() { echo "FAIL: $*"; exit 1; }
grep -q "RELATION_TOUCHING" "$work/demo.out" || fail "no touching relation"
grep -q "hit=true" "$work/demo.out" || fail "no hit"
grep -q "Invalid request -> INVALID_ARGUMENT: pairs\[0\].a.circle.radius must be >= 0" \
  "$work/demo.out" || fail "no field path in the error"
grep -q "  field pairs\[0\].a.circle.radius: must be >= 0, got -1" \
  "$work/demo.out" || fail "no field violation in the error's details"
grep -q "listening on 127.0.0.1:$port" "$work/server.log" || fail "no start log"

kill -TERM "$pid"
timeout 20 tail --pid="$pid" -f /dev/null || fail "server did not stop"
wait "$pid" && rc=0 || rc=$?
[ "$rc" -eq 0 ] || fail "server exited $rc"
grep -q "draining" "$work/server.log" || fail "no drain log"
grep -q "grace over: GOAWAY to every connection; 0 requests in flight" \
  "$work/server.log" || fail "no log line for the drain's shutdown step"
grep -q "every call finished, in" "$work/server.log" || fail "no drain end line"
grep -q "stopped" "$work/server.log" || fail "no stop log"
echo "server_binary_test: OK"
