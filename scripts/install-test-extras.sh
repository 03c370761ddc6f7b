#!/usr/bin/env bash
# Installs the heavier tools only the test suite needs (not the build):
# chromium (renders the load tool's HTML report headless), nghttp2-client
# (h2load, the cross-check of the load tool), clang's libFuzzer runtime and
# numpy (the Python package's numpy paths; its list paths run without it).
# Idempotent. Run as root (or sudo).
set -euo pipefail
source "$(dirname "$0")/lib/apt.sh"
apt_ensure install-test-extras chromium nghttp2-client clang libclang-rt-14-dev \
  python3-numpy
