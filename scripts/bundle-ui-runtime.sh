#!/usr/bin/env bash
# Packs what the desktop application and its ui tests need to run on a machine without Qt (the
# GPU host: Ubuntu 24.04, CUDA, no Qt, no OpenCV; README.md, "The desktop application on the GPU host"):
#
#   scripts/bundle-ui-runtime.sh BUILD_DIR [OUT_DIR]     (OUT_DIR default: .ui-runtime)
#
# OUT_DIR/lib       the libraries ldd lists for BUILD_DIR's GUI, its ui test programs and the Qt
#                   plugins below, but for the C/C++ runtime, the CUDA driver and the base
#                   libraries every Ubuntu 24.04 has in a newer compatible version (EXCLUDED)
# OUT_DIR/plugins   platforms (offscreen, minimal), image formats (gif, jpeg, svg), svg icons
# OUT_DIR/fonts     DejaVu Sans (regular, bold) and a fonts.conf naming them
# OUT_DIR/build     the build's ui programs, stripped, and every CTestTestfile.cmake: enough for
#                   `ctest -L ui` (scripts/gpu.sh gui points the build's own paths at it)
# OUT_DIR/env.sh    source it: LD_LIBRARY_PATH, QT_PLUGIN_PATH, QT_QPA_PLATFORM=offscreen,
#                   FONTCONFIG_FILE, QT_QPA_FONTDIR
# OUT_DIR.tar.xz    all of it in one archive, the one to carry (scripts/gpu.sh gui unpacks it)
#
# Ends by checking that ldd resolves every library of the bundled programs and plugins either
# into OUT_DIR/lib or to an excluded one, with nothing else on the library path.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
[ $# -ge 1 ] || { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2; exit 2; }
build="$(cd "$1" && pwd)"
out="${2:-$root/.ui-runtime}"
gui="$build/app/histoscope"
[ -x "$gui" ] || { echo "bundle-ui-runtime: $gui not built (a build with HS_WITH_UI=ON?)" >&2; exit 1; }
qt_plugins="$(dirname "$(dirname "$(readlink -f "$(ldd "$gui" | awk '/libQt6Core/ {print $3}')")")")/qt6/plugins"
[ -d "$qt_plugins" ] || qt_plugins=/usr/lib/x86_64-linux-gnu/qt6/plugins
fonts=/usr/share/fonts/truetype/dejavu

# Not carried: the C and C++ runtime and the CUDA driver (the host's serve), and base libraries
# that Ubuntu 24.04's own apt, systemd and cmake need, so that every install has them in a newer,
# backward-compatible version (an older copy here would replace the host's for its own programs
# started under env.sh, such as ctest).
EXCLUDED='^(linux-vdso|ld-linux|libc|libm|libdl|libpthread|librt|libresolv|libstdc\+\+|libgcc_s'
EXCLUDED+='|libcuda|libnvidia-.*|libz|libzstd|liblzma|liblz4|libsystemd|libcap|libgcrypt'
EXCLUDED+='|libgpg-error|libmd|libpcre2-8|libexpat)\.so'

# OUT_DIR is replaced: only an earlier bundle or an empty folder.
if [ -e "$out" ] && [ ! -f "$out/env.sh" ] && [ -n "$(ls -A "$out")" ]; then
    echo "bundle-ui-runtime: $out exists and is not a bundle: not replacing it" >&2
    exit 1
fi
rm -rf "$out" "$out.tar.xz"
mkdir -p "$out/lib" "$out/plugins" "$out/fonts" "$out/build"

# The build's ui programs: the GUI and whatever tests/ui built (tests, benchmark).
programs=("$gui")
while IFS= read -r -d '' f; do programs+=("$f"); done < <(
    find "$build/tests/ui" -maxdepth 1 -type f -perm -u+x -print0 2>/dev/null)
plugins=(platforms/libqoffscreen.so platforms/libqminimal.so imageformats/libqgif.so
         imageformats/libqjpeg.so imageformats/libqsvg.so iconengines/libqsvgicon.so)
for p in "${plugins[@]}"; do
    mkdir -p "$out/plugins/$(dirname "$p")"
    cp "$qt_plugins/$p" "$out/plugins/$p"
done

# Every library ldd lists for the programs and plugins, but the excluded ones.
for f in "${programs[@]}" "${plugins[@]/#/$qt_plugins/}"; do
    ldd "$f" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}'
done | sort -u | while read -r name path; do
    [[ "$name" =~ $EXCLUDED ]] && continue
    cp -L "$path" "$out/lib/$name"
done
strip --strip-unneeded "$out"/lib/*.so* "$out"/plugins/*/*.so

cp "$fonts/DejaVuSans.ttf" "$fonts/DejaVuSans-Bold.ttf" "$out/fonts/"
cat >"$out/fonts/fonts.conf" <<'EOF'
<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<!-- The bundle's own fonts only (relative to this file); the cache in the user's cache folder. -->
<fontconfig>
  <dir prefix="relative">.</dir>
  <cachedir prefix="xdg">fontconfig-histoscope</cachedir>
  <alias><family>sans-serif</family><prefer><family>DejaVu Sans</family></prefer></alias>
</fontconfig>
EOF

cat >"$out/env.sh" <<'EOF'
# Source this file: the bundled Qt runtime for histoscope and its ui tests, headless.
hs_ui_runtime="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export LD_LIBRARY_PATH="$hs_ui_runtime/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export QT_PLUGIN_PATH="$hs_ui_runtime/plugins"
export QT_QPA_PLATFORM=offscreen
export FONTCONFIG_FILE="$hs_ui_runtime/fonts/fonts.conf"
export QT_QPA_FONTDIR="$hs_ui_runtime/fonts"
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$(mktemp -d)}"
export XDG_CACHE_HOME="${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}"
EOF

# The runnable part of the build: the ui programs, stripped, and ctest's files (CTestTestfile,
# gtest's generated test lists), at their places in the build tree.
(
    cd "$build"
    find . \( -name CTestTestfile.cmake -o -name '*_include.cmake' -o -name '*_tests.cmake' \) \
        -print0 | xargs -0 cp --parents -t "$out/build"
    for f in "${programs[@]}"; do
        rel="${f#"$build"/}"
        cp --parents "$rel" "$out/build"
        strip --strip-unneeded "$out/build/$rel"
    done
)
printf '%s\n%s\n' "$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$build/CMakeCache.txt")" \
    "$build" >"$out/build/ORIGIN"  # the source and build folders the paths in the build name

# Check: with only the bundle on the library path, every library of every program and plugin
# resolves into the bundle or is an excluded one.
missing=0
for f in "$out"/build/app/histoscope "$out"/build/tests/ui/* "$out"/plugins/*/*.so; do
    [ -f "$f" ] || continue
    [ -x "$f" ] || [[ "$f" == *.so ]] || continue
    while read -r name path; do
        if [[ "$name" =~ $EXCLUDED ]]; then continue; fi
        if [[ "$path" != "$out/lib/"* ]]; then
            echo "bundle-ui-runtime: $(basename "$f"): $name resolves to $path, not the bundle" >&2
            missing=1
        fi
    done < <(env -i LD_LIBRARY_PATH="$out/lib" ldd "$f" | awk '$2 == "=>" {print $1, $3}')
done
[ "$missing" -eq 0 ] || exit 1

tar -C "$(dirname "$out")" -cJf "$out.tar.xz" "$(basename "$out")"
echo "bundle-ui-runtime: $out: $(find "$out/lib" -type f | wc -l) libraries," \
    "$(find "$out/plugins" -name '*.so' | wc -l) plugins, $(du -sh "$out" | cut -f1)" \
    "($(du -sh "$out/lib" | cut -f1) libraries, $(du -sh "$out/build" | cut -f1) build);" \
    "$out.tar.xz: $(du -h "$out.tar.xz" | cut -f1)"
