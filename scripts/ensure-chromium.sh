#!/bin/sh
# Make sure Debian's Chromium (for Playwright, via executable_path) and poppler-utils
# (pdftoppm) are installed.  Idempotent: installs only what is missing, with apt-get
# (Debian's registry; no browser download).  Prints the Chromium executable's path.
# Usage: scripts/ensure-chromium.sh            (root, or sudo available)
set -eu

need=""
command -v chromium >/dev/null 2>&1 || need="$need chromium"
command -v pdftoppm >/dev/null 2>&1 || need="$need poppler-utils"
fc-list 2>/dev/null | grep -qi dejavu || need="$need fonts-dejavu-core"

if [ -n "$need" ]; then
    SUDO=""
    if [ "$(id -u)" -ne 0 ]; then
        if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
            echo "ensure-chromium: need root (or sudo) to install:$need" >&2; exit 1
        fi
    fi
    export DEBIAN_FRONTEND=noninteractive
    # another apt run may hold the lock: wait for it rather than fail
    $SUDO apt-get -o DPkg::Lock::Timeout=600 update -qq >&2
    # shellcheck disable=SC2086
    $SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends $need >&2
fi

command -v chromium
