#!/usr/bin/env bash
# Installs everything the build and the test suite need from Debian bookworm
# packages. Idempotent: packages already present are left alone. Run as root
# (or with sudo).
set -euo pipefail
source "$(dirname "$0")/lib/apt.sh"

apt_ensure install-deps \
  build-essential cmake ninja-build ccache pkg-config git \
  libgrpc++-dev libgrpc-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler \
  libabsl-dev libhwy-dev libgtest-dev libgmock-dev libbenchmark-dev \
  prometheus-cpp-dev libssl-dev openssl curl \
  python3 python3-grpcio python3-protobuf python3-yaml \
  python3-pip python3-setuptools python3-wheel python3-venv \
  nlohmann-json3-dev zlib1g-dev libnghttp2-dev nghttp2-client

# The Node client's tests need node and npm (the test suite installs the npm
# packages itself from clients/node/package-lock.json). Machine images may
# ship their own node; Debian's is installed only when there is none.
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  apt_ensure install-deps nodejs npm
fi
