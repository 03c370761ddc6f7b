#!/usr/bin/env bash
# End-to-end throughput and latency on loopback, client included, plus the
# in-process rate of the same work, in one run (ratios are what to compare;
# the machine is shared and noisy); then collision_load's engines beside
# h2load on the same server, body, connections and streams, with the CPU
# each side used, so a row says whether the client or the server was the
# limit. Bounded: ~3 minutes.
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
    --duration=5s --format=json --max_rate_shortfall=1 --max_error_rate=1 \
    "$@" >"$work/report.json"
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
run "1k pairs, per pair, saturation"   --rpc=intersect_pairs --batch=1024 --concurrency=8 --engine=http2
run "1k pairs, per pair, gRPC engine"  --rpc=intersect_pairs --batch=1024 --concurrency=8
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
run "1k pairs, per pair, parsed messages" --rpc=intersect_pairs --batch=1024 --concurrency=8 --engine=http2
stop_server

# Client beside server. With at least 2 CPUs the server is pinned to CPU 0
# and every client to CPU 1 (as one would put them on separate machines):
# whichever side's CPU is near 1.00 core is the limit.
start_server "$bin/server/collision_server" \
  --max_batch=1000000 --max_in_flight=256 --drain_grace=0s
target=$SERVER_TARGET
work=$SERVER_WORK
server_cpu() { awk '{print $14 + $15}' "/proc/$SERVER_PID/stat"; }
client_pin=()
if [ "$(nproc)" -ge 2 ] && command -v taskset >/dev/null; then
  taskset -a -pc 0 "$SERVER_PID" >/dev/null
  client_pin=(taskset -c 1)
fi
tick=$(getconf CLK_TCK)
row() {  # name, requests/s, pairs per request, client cpu s, server ticks, seconds
  python3 - "$@" <<'PY'
import sys
name, rps, batch, ccpu, sticks, secs, tick = sys.argv[1:8]
rps, secs = float(rps), float(secs)
c = float(ccpu) / secs
s = float(sticks) / float(tick) / secs
limit = "client" if c > s else "server"
print(f"| {name:<34} | {rps:>9.0f} | {rps * int(batch) / 1e6:>9.2f} | {c:>5.2f} | {s:>5.2f} | {limit:<6} |")
PY
}
side() {  # name, rpc, batch, then collision_load flags ("h2load" for h2load)
  local name=$1 rpc=$2 batch=$3 engine=$4 before after
  before=$(server_cpu)
  if [ "$engine" = h2load ]; then
    local path
    path=$("$bin/tools/collision_load" --rpc="$rpc" --batch="$batch" \
      --dump_request="$work/body")
    /usr/bin/time -f "%U %S" -o "$work/time" "${client_pin[@]}" h2load -D 5 \
      -c 4 -m 16 -H 'content-type: application/grpc' -H 'te: trailers' \
      -d "$work/body" "http://$target$path" >"$work/h2load" 2>&1
    after=$(server_cpu)
    local rps cpu
    rps=$(awk '/^finished in/ {print $4}' "$work/h2load")
    cpu=$(awk '{print $1 + $2}' "$work/time")
    grep -q " 0 failed, 0 errored" "$work/h2load" || rps=0
    row "$name" "$rps" "$batch" "$cpu" $((after - before)) 5 "$tick"
  else
    "${client_pin[@]}" "$bin/tools/collision_load" --target="$target" \
      --progress=off --warmup=0s --duration=5s --format=json --rpc="$rpc" \
      --batch="$batch" --connections=4 --concurrency=64 --engine="$engine" \
      >"$work/side.json"
    after=$(server_cpu)
    python3 - "$work/side.json" >"$work/side.txt" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print(r["requests_per_second"], r["cpu"]["user_s"] + r["cpu"]["system_s"], r["seconds"])
PY
    read -r rps cpu secs <"$work/side.txt"
    row "$name" "$rps" "$batch" "$cpu" $((after - before)) "$secs" "$tick"
  fi
}
echo
echo "collision_load beside h2load: same server, body, 4 connections x 16 streams, 5 s each"
echo "(CPU in cores: client pinned to CPU 1, server to CPU 0 when there are 2)"
echo
echo "| request, client                    |     req/s | M pairs/s | client | server | limit  |"
echo "| --- | --- | --- | --- | --- | --- |"
for shape in "intersect_columns 64 64-pair columns" \
  "intersect_pairs 1024 1k-pair per-pair"; do
  set -- $shape
  for client in h2load http2 grpc grpc_typed; do
    side "$3 $4, $client" "$1" "$2" "$client"
  done
done
stop_server

echo
echo "In-process (no network, one thread): parse + validate + kernels + encode"
"$bin/server/bench/collision_wire_bench" --benchmark_filter='BM_ServeColumns/(1024|16384|65536)|BM_ServePairs/1024|BM_ServePairsFromBytes/1024' \
  --benchmark_min_time=0.5 2>/dev/null | grep BM_
