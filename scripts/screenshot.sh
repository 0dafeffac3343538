#!/usr/bin/env bash
# Takes the README screenshot: the desktop application under Xvfb on a bundled photo, first
# start settings (global equalization on), the timing panel showing. Writes
# docs/screenshots/histoscope.png (or $1). Builds with the default preset first unless
# HS_BUILD_DIR names an existing build.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-docs/screenshots/histoscope.png}"
# No file: histoscope opens its bundled sample, as on a first start.
photo=(${HS_SCREENSHOT_INPUT:+"$HS_SCREENSHOT_INPUT"})
build="${HS_BUILD_DIR:-build}"
if [ ! -x "$build/app/histoscope" ]; then
    scripts/install-deps.sh
    scripts/build.sh default
    build=build
fi
mkdir -p "$(dirname "$out")"
# A fresh settings directory: the window looks as on first start, whatever this user saved.
config="$(mktemp -d)"
runtime="$(mktemp -d)"  # mktemp -d makes it 0700, as Qt wants
trap 'rm -rf "$config" "$runtime"' EXIT
XDG_CONFIG_HOME="$config" XDG_RUNTIME_DIR="$runtime" QT_QPA_PLATFORM=xcb \
    xvfb-run -a -s "-screen 0 1920x1200x24 -dpi 96" \
    "$build/app/histoscope" --screenshot "$out" "${photo[@]}"
echo "screenshot: $out"
