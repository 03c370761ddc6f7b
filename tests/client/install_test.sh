#!/usr/bin/env bash
# Installs the already-built tree into a scratch prefix and builds the client
# examples as another project would: find_package(collision CONFIG) and
# target_link_libraries(... collision::client), nothing from the build tree.
# Usage: install_test.sh <build dir> <source dir> <scratch dir>
set -euo pipefail
build=$1 src=$2 scratch=$3
rm -rf "$scratch"
mkdir -p "$scratch"
cmake --install "$build" --prefix "$scratch/prefix" > "$scratch/install.log"
for f in include/collision/client/client.h include/collision/client/columns.h \
         include/collision/client/session.h include/collision/client/shapes.h \
         include/collision/v1/collision.pb.h include/collision/v1/collision.grpc.pb.h \
         include/grpc/health/v1/health.grpc.pb.h \
         lib/libcollision_client.a lib/libcollision_proto.a \
         lib/cmake/collision/collisionConfig.cmake lib/cmake/collision/collisionTargets.cmake; do
  [ -f "$scratch/prefix/$f" ] || { echo "not installed: $f"; exit 1; }
done
launcher=()
command -v ccache > /dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S "$src/client/examples" -B "$scratch/build" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$scratch/prefix" "${launcher[@]}" \
  > "$scratch/configure.log"
cmake --build "$scratch/build" -j 2 > "$scratch/build.log" || { cat "$scratch/build.log"; exit 1; }
# The examples were compiled against the installed headers, not the source tree.
grep -q -- "-isystem $scratch/prefix/include\|-I$scratch/prefix/include" \
  "$scratch/build/compile_commands.json" 2>/dev/null ||
  grep -rq "$scratch/prefix/include" "$scratch/build/build.ninja" "$scratch/build/CMakeFiles" ||
  { echo "examples did not use the installed headers"; exit 1; }
if grep -rq "$src/client/include" "$scratch/build/build.ninja"; then
  echo "examples used the source tree's headers"; exit 1
fi
for e in collision_demo collision_async_columns collision_stream; do
  [ -x "$scratch/build/$e" ] || { echo "not built: $e"; exit 1; }
done
"$scratch/build/collision_demo" --helpshort > /dev/null 2>&1 || true
echo "install test: OK"
