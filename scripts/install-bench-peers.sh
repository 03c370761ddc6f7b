#!/usr/bin/env bash
# Installs the OPTIONAL peer libraries for the comparison benchmark
# (core/bench/peers_bench.cc, target collision_peers_bench): FCL, Box2D and
# GEOS from Debian bookworm. Nothing else in the build needs them; the peer
# target is skipped when they are absent. Run as root (or with sudo).
set -euo pipefail

packages=(libfcl-dev libbox2d-dev libgeos-dev)

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
  echo "install-bench-peers: all ${#packages[@]} packages already installed"
fi
