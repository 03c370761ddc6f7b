#!/usr/bin/env bash
# Installs the heavier tools only the test suite needs (not the build):
# chromium (renders the load tool's HTML report headless) and nghttp2-client
# (h2load, the cross-check of the load tool). Idempotent. Run as root (or sudo).
set -euo pipefail

packages=(chromium nghttp2-client)

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
  echo "install-test-extras: all ${#packages[@]} packages already installed"
fi
