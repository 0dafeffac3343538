#!/usr/bin/env bash
# The cpu and cli suites again, built with AddressSanitizer and UndefinedBehaviorSanitizer
# (CMake preset "asan": no CUDA, no UI). A sanitizer report makes the program exit with 86
# (ASan) or 87 (UBSan), which fails the test that ran it, also when the CLI run by a test
# reports. CI runs this after scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh asan
ctest --preset asan -j "${HS_JOBS:-$(nproc)}"
