#!/usr/bin/env bash
# A client-only configure (-DCOLLISION_CLIENT_ONLY=ON) builds the generated
# code, the client library and its examples and nothing of the server, and
# installs as the `client` component.
# Usage: client_only_test.sh <source dir> <scratch dir>
set -euo pipefail
src=$1 scratch=$2
rm -rf "$scratch"
mkdir -p "$scratch"
launcher=()
command -v ccache > /dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S "$src" -B "$scratch/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCOLLISION_CLIENT_ONLY=ON "${launcher[@]}" > "$scratch/configure.log" ||
  { cat "$scratch/configure.log"; exit 1; }
# Neither the server's dependencies nor its targets were looked at.
if grep -q "^hwy_DIR\|^prometheus-cpp_DIR" "$scratch/build/CMakeCache.txt"; then
  echo "the client-only configure looked for the server's dependencies"; exit 1
fi
for t in collision_server collision_load collision_core; do
  if grep -q "build $t:\|build $t " "$scratch/build/build.ninja"; then
    echo "the client-only build has target $t"; exit 1
  fi
done
cmake --build "$scratch/build" -j 2 > "$scratch/build.log" || { tail -30 "$scratch/build.log"; exit 1; }
cmake --install "$scratch/build" --prefix "$scratch/prefix" --component client \
  > "$scratch/install.log"
[ -f "$scratch/prefix/include/collision-client/collision/client/client.h" ] &&
  [ -f "$scratch/prefix/lib/libcollision_client.a" ] ||
  { echo "the client-only build did not install the client"; exit 1; }
[ -x "$scratch/build/client/examples/collision_demo" ] || { echo "no examples"; exit 1; }
echo "client-only build: OK"
