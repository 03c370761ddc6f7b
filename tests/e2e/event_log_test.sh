#!/usr/bin/env bash
# Runs collision_server with --log_format=json and floods it with refusals
# (wrong tokens, then more calls than --max_in_flight admits): every log
# line is a JSON object with time, level, event and message; refusals are
# logged as bursts (far fewer lines than refusals) whose counts add up to
# exactly what the load tool was refused; peers are named, tokens never.
set -euo pipefail
server=$1
load=$2
source "$(dirname "$0")/../../scripts/lib/server.sh"
right="right-$RANDOM-$RANDOM-secret"
wrong="wrong-$RANDOM-$RANDOM-secret"
tokens=$(mktemp -d)
printf '%s\n' "$right" >"$tokens/right"
printf '%s\n' "$wrong" >"$tokens/wrong"
start_server "$server" --token_file="$tokens/right" \
  --max_in_flight=1 --drain_grace=0s --log_format=json
trap 'stop_server; rm -rf "$tokens"' EXIT
work=$SERVER_WORK  # server.log is the server's stderr
target=$SERVER_TARGET
pid=$SERVER_PID
fail() { echo "FAIL: $*"; cat "$work/server.log"; exit 1; }

# 400 calls with a wrong token, fast (no retries, no back-off on this code).
"$load" --target="$target" --engine=http2 --token_file="$tokens/wrong" --batch=1 \
  --requests=400 --concurrency=8 --warmup=0s --progress=off --format=json \
  --max_error_rate=1 >"$work/wrong.json"
# More calls at once than one slot admits: UNAVAILABLE, counted by the tool.
"$load" --target="$target" --engine=http2 --token_file="$tokens/right" \
  --rpc=intersect_pairs --batch=2000 --duration=2s --warmup=0s --concurrency=16 \
  --connections=4 --progress=off --format=json --max_error_rate=1 >"$work/busy.json"
kill -TERM "$pid"
wait "$pid"

python3 - "$work" <<'PY' || fail "log check"
import json, sys
work = sys.argv[1]
lines = open(f"{work}/server.log").read().splitlines()
events = []
for line in lines:
    e = json.loads(line)  # every line is one JSON object
    for key in ("time", "level", "event", "message"):
        assert key in e, f"no {key} in {line}"
    events.append(e)
wrong = json.load(open(f"{work}/wrong.json"))
busy = json.load(open(f"{work}/busy.json"))
refused_auth = wrong["status_counts"].get("UNAUTHENTICATED", 0)
refused_busy = busy["status_counts"].get("UNAVAILABLE", 0)
assert refused_auth == 400, wrong["status_counts"]
assert refused_busy >= 2, busy["status_counts"]
auth = [e for e in events if e["event"] == "authentication"]
over = [e for e in events if e["event"] == "overload"]
assert sum(e["count"] for e in auth) == refused_auth, (auth, refused_auth)
assert sum(e["count"] for e in over) == refused_busy, (over, refused_busy)
assert len(auth) < refused_auth / 10, f"{len(auth)} lines for {refused_auth} refusals"
assert len(over) < max(2, refused_busy / 10), f"{len(over)} lines for {refused_busy} refusals"
assert all(e["level"] == "warn" and "127.0.0.1" in e["peers"] for e in auth + over)
assert all("invalid_token" in e["reasons"] for e in auth)
assert any(e["event"] == "lifecycle" and "listening on" in e["message"] for e in events)
print(f"event_log_test: OK ({len(lines)} lines for {refused_auth} + {refused_busy} refusals)")
PY
if grep -qF -e "$right" -e "$wrong" "$work/server.log"; then
  fail "a token appears in the log"
fi
