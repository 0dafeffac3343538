#!/usr/bin/env bash
# export-base.sh COMMIT [DIR]: the sources of COMMIT that the gpu-host preset builds the CLI
# from, in DIR (default .ab-base, git-ignored), for `scripts/gpu.sh bench-ab DIR`: name DIR in
# the device call's carry.
set -euo pipefail
cd "$(dirname "$0")/../.."
commit="${1:?usage: export-base.sh COMMIT [DIR]}"
dir="${2:-.ab-base}"
rm -rf "$dir" && mkdir -p "$dir"
git archive "$commit" CMakeLists.txt CMakePresets.json cmake core cuda app resources/packaging | tar -x -C "$dir"
echo "$dir: $(git rev-parse --short "$commit") ($(du -sh "$dir" | cut -f1))"
