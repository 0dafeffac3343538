#!/usr/bin/env bash
# Installs the Debian 12 packages Histoscope builds with, when any is missing. The CUDA
# toolkit is expected in /usr/local/cuda (without it the CUDA engines are left out).
set -euo pipefail

packages=(cmake ninja-build g++ pkg-config libopencv-dev libgtest-dev)
# The CLI's argument parsing and JSON (header-only).
packages+=(libcli11-dev nlohmann-json3-dev)
# Decoders driven directly by core/media (OpenCV uses the same libraries but prints their
# warnings instead of reporting them).
packages+=(libjpeg-dev libpng-dev libavformat-dev libavcodec-dev libavutil-dev libswscale-dev)
# Float (HDR) images: OpenEXR by its own library, float TIFF by libtiff (core/media).
packages+=(libopenexr-dev libtiff-dev)
# The tests' video clips of known code values are encoded, and ProRes decoded for reference, by
# the ffmpeg tool (x265, FFV1, ProRes: tests/support/coded_video.hpp).
packages+=(ffmpeg)
# The desktop application (Qt 6 Widgets and Charts, the SVG icon plugin, the offscreen and xcb
# platforms), its headless tests, and the screenshot taken under Xvfb (with fonts to draw).
# Qt6Charts' CMake package needs Qt6OpenGL's, which qt6-base-dev only recommends.
packages+=(qt6-base-dev qt6-charts-dev libqt6opengl6-dev libqt6svg6 qt6-qpa-plugins libgl-dev
           xvfb xauth fonts-dejavu-core)
# Camera raw files (DNG, CR2, NEF, ...) are read by LibRaw; the tests write their DNGs with numpy
# and tifffile (tests/support/make_dng.py).
packages+=(libraw-dev python3-numpy python3-tifffile)
# The Debian package and its checks: the man page, dependencies, desktop and AppStream files.
packages+=(help2man dpkg-dev desktop-file-utils appstream)
# README's screenshots of the application driven as a user would (scripts/readme-screenshots.sh).
packages+=(xdotool imagemagick)

missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
    echo "install-deps: all packages present"
    exit 0
fi
echo "install-deps: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
