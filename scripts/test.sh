#!/usr/bin/env bash
# One command from a fresh Debian 12 machine to the full test suite: installs what is
# missing, builds everything and runs every test (GPU tests skip without a device).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh default
# The desktop application's tests (label ui, headless on the offscreen platform) are part of
# the run; refuse a build that silently left them out.
if ! ctest --preset default -N -L ui | grep -q "Total Tests: [1-9]"; then
    echo "test: no ui tests registered (is Qt 6 with Charts installed?)" >&2
    exit 1
fi
ctest --preset default -j "${HS_JOBS:-$(nproc)}"
