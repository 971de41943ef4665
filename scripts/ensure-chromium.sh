#!/usr/bin/env bash
# Install Debian's Chromium for the browser tests when it is missing (idempotent).
# Playwright drives it through executable_path; no browser is ever downloaded by Playwright.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
    exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    SUDO="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update
$SUDO apt-get install -y chromium
test -x /usr/bin/chromium
