#!/usr/bin/env bash
# Make a headless browser available for the HTML page tests (idempotent; needs root): Debian's
# chromium package, installed when missing. The tests drive it over the DevTools pipe with the
# network pointed nowhere; nothing is downloaded by the browser or the tests.
set -euo pipefail
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
if command -v chromium >/dev/null 2>&1; then
  echo "chromium-setup: $(chromium --version 2>/dev/null | head -n 1)"
  exit 0
fi
echo "chromium-setup: installing chromium"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends chromium \
  fonts-dejavu-core >/dev/null
echo "chromium-setup: $(chromium --version 2>/dev/null | head -n 1)"
