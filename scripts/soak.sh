#!/usr/bin/env bash
# Soak and overload run on loopback, outside the test suite (bounded):
#   1. unloaded baseline: 64-pair calls, 4 in flight;
#   2. overload: 64 callers of 16k-pair batches against --max_in_flight=8
#      (excess is shed with
#      UNAVAILABLE + pushback; the load tool backs off and retries);
#   3. soak: a mixed workload for SOAK_DURATION (default 180s).
# Prints requests, errors (must be 0 in the soak), p99s and the server's RSS at
# start and end. Usage: SOAK_DURATION=180s ./scripts/soak.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/server.sh
duration=${SOAK_DURATION:-180s}
cmake --preset release >/dev/null
cmake --build --preset release --target collision_server collision_load collision_probe >/dev/null
bin=build/release
start_server "$bin/server/collision_server" \
  --max_in_flight=8 --metrics_address=127.0.0.1:0 --drain_grace=0s
work=$SERVER_WORK
pid=$SERVER_PID
target=$SERVER_TARGET
rss() { awk '/VmRSS/ {print $2 " kB"}' "/proc/$pid/status"; }
load() { "$bin/tools/collision_load" --target="$target" --progress=off --warmup=1s "$@"; }

echo "== server RSS at start: $(rss)"
echo "== 1. unloaded: 64 pairs, 4 in flight, 10 s"
load --rpc=intersect_columns --batch=64 --concurrency=4 --duration=10s | grep -E "requests|latency|status"
echo "== 2. overload: 64 callers of 16k-pair batches (computed on the pool), --max_in_flight=8, 15 s"
echo "   unloaded first, 1 in flight:"
load --rpc=intersect_columns --batch=16384 --concurrency=1 --duration=5s | grep -E "latency"
load --rpc=intersect_columns --batch=16384 --concurrency=64 --duration=15s --retries=1 --max_error_rate=1 \
  | grep -E "requests|latency|status|backoff"
echo "   health during/after overload: $(build/release/deploy/probe/collision_probe --target="$target" 2>&1 || true)"
echo "== 3. soak: mixed workload for $duration"
load --rpc=intersect_columns:2,intersect_pairs,closest_columns,intersect_stream \
  --kinds=circle_rect:3,circle_circle,circle_rotated_rect,sphere_box --batch=256 \
  --concurrency=8 --duration="$duration" --verify=0.01 --json_out="$work/soak.json" \
  | grep -E "requests|latency|status|verify"
python3 - "$work/soak.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print(f"   soak errors: {r['errors']}  verify mismatches: {r['verify']['mismatches']}")
sys.exit(1 if r['errors'] or r['verify']['mismatches'] else 0)
PY
echo "== server RSS at end: $(rss)"
