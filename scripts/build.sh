#!/usr/bin/env bash
# Configures and builds with a CMake preset (default: "default").
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-default}"
jobs="${HS_JOBS:-$(nproc)}"
cmake --preset "$preset"
cmake --build --preset "$preset" -j "$jobs"
