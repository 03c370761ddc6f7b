#!/usr/bin/env bash
# Installs the already-built tree's `client` component into a scratch prefix
# and builds the client examples as another project would: with CMake
# (find_package(collision CONFIG), collision::client) and with pkg-config
# (collision-client.pc), nothing from the build tree.
# Usage: install_test.sh <build dir> <source dir> <scratch dir>
set -euo pipefail
build=$1 src=$2 scratch=$3
rm -rf "$scratch"
mkdir -p "$scratch"
prefix=$scratch/prefix
cmake --install "$build" --prefix "$prefix" --component client > "$scratch/install.log"
inc=include/collision-client
for f in $inc/collision/client/client.h $inc/collision/client/columns.h \
         $inc/collision/client/errors.h $inc/collision/client/session.h \
         $inc/collision/client/shapes.h \
         $inc/collision/v1/collision.pb.h $inc/collision/v1/collision.grpc.pb.h \
         $inc/grpc/health/v1/health.grpc.pb.h \
         lib/libcollision_client.a lib/libcollision_proto.a \
         lib/pkgconfig/collision-client.pc \
         lib/cmake/collision/collisionConfig.cmake lib/cmake/collision/collisionTargets.cmake; do
  [ -f "$prefix/$f" ] || { echo "not installed: $f"; exit 1; }
done
# Nothing in gRPC's include/grpc, no server programs in the client component.
[ ! -e "$prefix/include/grpc" ] || { echo "installed into include/grpc"; exit 1; }
[ ! -e "$prefix/bin" ] || { echo "the client component installed programs"; ls "$prefix/bin"; exit 1; }

launcher=()
command -v ccache > /dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S "$src/client/examples" -B "$scratch/build" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" "${launcher[@]}" \
  > "$scratch/configure.log"
cmake --build "$scratch/build" -j 2 > "$scratch/build.log" || { cat "$scratch/build.log"; exit 1; }
# The examples were compiled against the installed headers, not the source tree.
grep -rq "$prefix/$inc" "$scratch/build/build.ninja" "$scratch/build/CMakeFiles" ||
  { echo "examples did not use the installed headers"; exit 1; }
if grep -rq "$src/client/include" "$scratch/build/build.ninja"; then
  echo "examples used the source tree's headers"; exit 1
fi
for e in collision_demo collision_async_columns collision_stream; do
  [ -x "$scratch/build/$e" ] || { echo "not built: $e"; exit 1; }
done

# pkg-config, for builds without CMake: the demo from flags alone.
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
pkg-config --exists collision-client || { echo "pkg-config cannot find collision-client"; exit 1; }
[ "$(pkg-config --modversion collision-client)" = "$(sed -n 's/^project(collision VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")" ] ||
  { echo "pkg-config version differs from the project's"; exit 1; }
# shellcheck disable=SC2046 # word splitting of the flags is the point
c++ -std=c++17 -O0 -o "$scratch/demo_pkgconfig" "$src/client/examples/demo.cc" \
  $(pkg-config --cflags --libs collision-client absl_flags absl_flags_parse) \
  > "$scratch/pkgconfig.log" 2>&1 || { cat "$scratch/pkgconfig.log"; exit 1; }
"$scratch/demo_pkgconfig" --help > /dev/null 2>&1 || true
[ -x "$scratch/demo_pkgconfig" ] || { echo "the pkg-config build made no program"; exit 1; }
echo "install test: OK"
