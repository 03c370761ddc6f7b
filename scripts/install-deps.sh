#!/usr/bin/env bash
# Installs everything the build and the test suite need from Debian bookworm packages.
# Idempotent: packages already present are left alone. Run as root (or with sudo).
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache pkg-config git
  libgrpc++-dev libgrpc-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
  libabsl-dev libhwy-dev libgtest-dev libgmock-dev libbenchmark-dev
  prometheus-cpp-dev libssl-dev openssl curl
  python3 python3-grpcio python3-protobuf
  nlohmann-json3-dev
  python3-yaml
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
else
  echo "install-deps: all ${#packages[@]} packages already installed"
fi

# The Node client's tests need node and npm (the test suite installs the npm
# packages itself from clients/node/package-lock.json). Machine images may
# ship their own node; Debian's is installed only when there is none.
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends nodejs npm
fi
