#!/usr/bin/env bash
# The fingerprint of the GPU code: the first 16 hex digits of the SHA-256 over the sorted
# list of SHA-256 sums of every source under cuda/ and tests/cuda/. The same tree gives the
# same digits here and on the GPU host. A change under cuda/ or tests/cuda/ lands on main only
# when `scripts/gpu.sh check` passed in full on the H100 for its fingerprint and the line is in
# docs/perf/gpu-verified.md (README, "Changing GPU code").
set -euo pipefail
cd "$(dirname "$0")/.."
find cuda tests/cuda -type f \( -name '*.cu' -o -name '*.cuh' -o -name '*.cpp' -o -name '*.hpp' \
    -o -name '*.inc' -o -name CMakeLists.txt \) -print0 | LC_ALL=C sort -z | xargs -0 sha256sum |
    sha256sum | cut -c1-16
