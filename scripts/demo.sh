#!/usr/bin/env bash
# The service's main job, end to end: installs, builds (release) everything
# `cmake --install build/release` installs, starts collision_server on a free
# loopback port, sends a demo batch with the C++ client and prints the
# answers, then stops the server with SIGTERM.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/server.sh
bash scripts/install-deps.sh
cmake --preset release >/dev/null
# The installable targets too, so that `cmake --install build/release` works
# after the demo.
cmake --build --preset release --target collision_server collision_demo \
  collision_client collision_load collision_probe collision_replay

start_server build/release/server/collision_server --drain_grace=100ms
echo "== collision_server on $SERVER_TARGET"
build/release/client/examples/collision_demo --target="$SERVER_TARGET"
