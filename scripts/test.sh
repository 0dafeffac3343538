#!/usr/bin/env bash
# One command from a fresh Debian 12 machine to the full test suite: installs what is
# missing, builds everything and runs every test (GPU tests skip without a device).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh default
ctest --preset default -j "${HS_JOBS:-$(nproc)}"
