#!/usr/bin/env bash
# Takes the screenshots of README.md and docs/ again (docs/img/*.png): the browser tests
# of the web pages run with SIDEBET_SCREENSHOTS set, and each picture that README.md or a
# page of docs/ shows replaces its copy in docs/img. Debian's Chromium must be installed
# (scripts/ensure-chromium.sh). Extra arguments go to pytest (e.g. -k round_six).
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}" SIDEBET_SCREENSHOTS="$out" \
    .venv/bin/python -m pytest -q -p no:cacheprovider -m browser \
    tests/serve/test_web_table.py tests/serve/test_live_table.py \
    tests/serve/test_dealer_assist.py tests/serve/test_surveillance.py "$@"
missing=0
for png in $(grep -ohE 'img/[A-Za-z0-9_-]+\.png' README.md docs/*.md | sort -u); do
    if [ -f "$out/${png#img/}" ]; then
        cp "$out/${png#img/}" "docs/$png"
        echo "docs/$png"
    else
        echo "not taken: docs/$png" >&2
        missing=1
    fi
done
exit $missing
