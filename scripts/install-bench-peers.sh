#!/usr/bin/env bash
# Installs the OPTIONAL peer libraries for the comparison benchmark
# (core/bench/peers_bench.cc, target collision_peers_bench): FCL, Box2D and
# GEOS from Debian bookworm. Nothing else in the build needs them; the peer
# target is skipped when they are absent. Run as root (or with sudo).
set -euo pipefail
source "$(dirname "$0")/lib/apt.sh"
apt_ensure install-bench-peers libfcl-dev libbox2d-dev libgeos-dev
