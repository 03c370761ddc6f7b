#!/usr/bin/env bash
# Installs the heavier tools only the test suite needs (not the build):
# chromium (renders the load tool's HTML report headless), nghttp2-client
# (h2load, the cross-check of the load tool) and clang's libFuzzer runtime.
# Idempotent. Run as root (or sudo).
set -euo pipefail
source "$(dirname "$0")/lib/apt.sh"
apt_ensure install-test-extras chromium nghttp2-client clang libclang-rt-14-dev
