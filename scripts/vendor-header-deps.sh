#!/usr/bin/env bash
# Copies the header-only libraries the CLI builds with (CLI11, nlohmann JSON: Debian packages
# here) into .deps/ (git-ignored), with their CMake package files, for machines that lack them:
# the GPU host gets the folder with the tree (the device runner's `carry: [".deps"]`) and the
# gpu-host preset searches it (CMAKE_PREFIX_PATH).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh >/dev/null
rm -rf .deps
mkdir -p .deps/include .deps/share/cmake
for pkg in libcli11-dev nlohmann-json3-dev; do
    # Every file of the package under /usr/include and /usr/share/cmake, at the same place
    # below .deps (the packages' CMake files find their headers relative to themselves).
    dpkg -L "$pkg" | while read -r f; do
        case "$f" in
            /usr/include/* | /usr/share/cmake/*)
                [ -f "$f" ] || continue
                dest=".deps/${f#/usr/}"
                mkdir -p "$(dirname "$dest")"
                cp "$f" "$dest"
                ;;
        esac
    done
done
echo "vendor-header-deps: .deps/ holds $(find .deps -type f | wc -l) files, $(du -sh .deps | cut -f1)"
