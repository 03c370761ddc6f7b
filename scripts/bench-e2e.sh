#!/usr/bin/env bash
# End-to-end throughput and latency on loopback, client included, plus the
# in-process rate of the same work, in one run (ratios are what to compare;
# the machine is shared and noisy). Bounded: ~1 minute.
#
#   ./scripts/bench-e2e.sh            # builds release, prints a table
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/server.sh
cmake --preset release >/dev/null
cmake --build --preset release --target collision_server collision_load \
  collision_wire_bench >/dev/null
bin=build/release
start_server "$bin/server/collision_server" \
  --max_batch=1000000 --max_in_flight=256 --drain_grace=0s
work=$SERVER_WORK
pid=$SERVER_PID
target=$SERVER_TARGET

run() {  # name, then collision_load flags
  local name=$1; shift
  "$bin/tools/collision_load" --target="$target" --progress=off --warmup=1s \
    --duration=5s --format=json "$@" >"$work/report.json"
  python3 - "$name" "$work/report.json" <<'PY'
import json, sys
name, path = sys.argv[1], sys.argv[2]
r = json.load(open(path))
lat = r["latency_us"]
print(f"| {name:<34} | {r['requests_per_second']:>10.0f} | {r['pair_tests_per_second']/1e6:>10.2f} | "
      f"{lat['p50']:>8.0f} | {lat['p99']:>8.0f} | {lat['p99_9']:>8.0f} | {r['errors']:>6} |")
PY
}

echo "| scenario                           |     req/s  | M pairs/s  | p50 us   | p99 us   | p99.9 us | errors |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
run "64 pairs, columns, 1k req/s open"  --rpc=intersect_columns --batch=64 --rate=1000 --concurrency=64
run "64 pairs, columns, 5k req/s open"  --rpc=intersect_columns --batch=64 --rate=5000 --concurrency=64
run "64 pairs, columns, 10k req/s open" --rpc=intersect_columns --batch=64 --rate=10000 --concurrency=64
run "64 pairs, per pair, 5k req/s open" --rpc=intersect_pairs --batch=64 --rate=5000 --concurrency=64
run "64 pairs, 1 in flight (blocking)"  --rpc=intersect_columns --batch=64 --concurrency=1 --blocking
run "16k pairs, columns, saturation"   --rpc=intersect_columns --batch=16384 --concurrency=4
run "64k pairs, columns, saturation"   --rpc=intersect_columns --batch=65536 --concurrency=4
run "1k pairs, per pair, saturation"   --rpc=intersect_pairs --batch=1024 --concurrency=8
run "1k pairs, columns, saturation"    --rpc=intersect_columns --batch=1024 --concurrency=8
run "1k pairs, columns, stream"        --rpc=intersect_stream --batch=1024 --concurrency=8
# The same per-pair requests with the decoder that skips the messages off
# (the server's path before it existed), for the ratio.
stop_server
start_server "$bin/server/collision_server" \
  --max_batch=1000000 --max_in_flight=256 --drain_grace=0s \
  --decode_pairs_from_bytes=false
target=$SERVER_TARGET
work=$SERVER_WORK
run "1k pairs, per pair, parsed messages" --rpc=intersect_pairs --batch=1024 --concurrency=8
echo
echo "In-process (no network, one thread): parse + validate + kernels + encode"
"$bin/server/bench/collision_wire_bench" --benchmark_filter='BM_ServeColumns/(1024|16384|65536)|BM_ServePairs/1024|BM_ServePairsFromBytes/1024' \
  --benchmark_min_time=0.5 2>/dev/null | grep BM_
