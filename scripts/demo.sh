#!/usr/bin/env bash
# The service's main job, end to end: installs, builds (release), starts
# collision_server on a free loopback port, sends a demo batch with the C++
# client and prints the answers, then stops the server with SIGTERM.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release --target collision_server collision_demo

work=$(mktemp -d)
build/release/server/collision_server --address=127.0.0.1:0 \
  --port_file="$work/port" --drain_grace=100ms &
pid=$!
trap 'kill -TERM "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 100); do
  [ -s "$work/port" ] && break
  kill -0 "$pid" 2>/dev/null || { echo "server failed to start" >&2; exit 1; }
  sleep 0.1
done
[ -s "$work/port" ] || { echo "server did not report its port" >&2; exit 1; }
echo "== collision_server on 127.0.0.1:$(cat "$work/port")"
build/release/client/collision_demo --target="127.0.0.1:$(cat "$work/port")"
