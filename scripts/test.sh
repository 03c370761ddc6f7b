#!/usr/bin/env bash
# Installs what is needed, builds with warnings as errors and assertions on,
# and runs the whole test suite (ctest). What CI runs, on a fresh machine.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/install-test-extras.sh
cmake --preset ci
cmake --build --preset ci
ctest --preset ci
