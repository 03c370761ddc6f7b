#!/usr/bin/env bash
# Runs collision_server with --token_file, sends calls with a wrong and a
# right token (collision_load), stops it, and checks that no log line of
# either program contains a token.
set -euo pipefail
server=$1
load=$2
work=$(mktemp -d)
trap 'kill -9 "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT
right="right-$RANDOM-$RANDOM-secret"
wrong="wrong-$RANDOM-$RANDOM-secret"
printf '%s\n' "$right" >"$work/tokens"
printf '%s\n' "$wrong" >"$work/wrong"

"$server" --address=127.0.0.1:0 --port_file="$work/port" --token_file="$work/tokens" \
  --drain_grace=0s 2>"$work/server.log" &
pid=$!
for _ in $(seq 100); do
  [ -s "$work/port" ] && break
  kill -0 "$pid" 2>/dev/null || { cat "$work/server.log"; exit 1; }
  sleep 0.1
done
target="127.0.0.1:$(cat "$work/port")"
fail() { echo "FAIL: $*"; exit 1; }

"$load" --target="$target" --token_file="$work/wrong" --requests=20 --concurrency=2 \
  --warmup=0s --progress=off --retries=1 >"$work/wrong.out" 2>&1 || true
grep -q "UNAUTHENTICATED=20" "$work/wrong.out" || { cat "$work/wrong.out"; fail "wrong token accepted"; }
"$load" --target="$target" --token_file="$work/tokens" --requests=20 --concurrency=2 \
  --warmup=0s --progress=off >"$work/right.out" 2>&1 || { cat "$work/right.out"; fail "right token refused"; }
grep -q "OK=20" "$work/right.out" || { cat "$work/right.out"; fail "right token refused"; }

kill -TERM "$pid"
wait "$pid"
grep -q "auth=bearer tokens" "$work/server.log" || fail "auth not reported on start"
if grep -rqF -e "$right" -e "$wrong" "$work/server.log" "$work/wrong.out" "$work/right.out"; then
  fail "a token appears in a log"
fi
echo "token_log_test: OK (no token in $(cat "$work"/*.log "$work"/*.out | wc -l) log lines)"
