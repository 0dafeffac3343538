#!/usr/bin/env bash
# One command from a fresh Debian 12 machine to the desktop application: installs what is
# missing, builds, and starts histoscope (on a bundled photo unless a file is given; later
# starts reopen the last file). Arguments go to histoscope: scripts/run.sh photo.png
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh default
if [ ! -x build/app/histoscope ]; then
    echo "run: build/app/histoscope was not built (Qt 6 Widgets and Charts not found?)" >&2
    exit 1
fi
exec build/app/histoscope "$@"
