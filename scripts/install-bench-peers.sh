#!/usr/bin/env bash
# Installs the OPTIONAL peers for the comparison benchmarks, from Debian
# bookworm: FCL, Box2D and GEOS for core/bench/peers_bench.cc (target
# collision_peers_bench); FCL and Bullet for core/bench/hitbox_peers_bench.cc
# (target collision_hitbox_peers_bench); PostgreSQL 15 + PostGIS 3.3 and
# libpq for scripts/bench-postgis.sh (target collision_postgis_bench).
# Nothing else in the build needs them; each peer target is skipped when its
# libraries are absent. Run as root (or with sudo).
set -euo pipefail
source "$(dirname "$0")/lib/apt.sh"
apt_ensure install-bench-peers libfcl-dev libbox2d-dev libgeos-dev libbullet-dev \
  postgresql-15 postgresql-15-postgis-3 libpq-dev
