#!/usr/bin/env bash
# One command from a fresh Debian 12 machine to Histoscope running on a bundled sample:
# installs what is missing, builds, and prints the histogram of a bundled photo.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh default
sample="${1:-resources/samples/fruits.jpg}"
build/app/histoscope-cli info "$sample"
build/app/histoscope-cli hist "$sample" --bins 32 --stats
