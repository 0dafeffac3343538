#!/usr/bin/env bash
# The Debian package as a user gets it: builds it with CPack from the build folder, checks its
# control fields, unpacks it into a scratch root (dpkg -x, no root needed) and runs the
# unpacked histoscope-cli; validates the desktop file and the AppStream metainfo it installs.
# Usage: check_deb.sh BUILD_DIR VERSION MAN_PAGE (yes: the build made the man page, help2man)
set -euo pipefail
build="$1"
version="$2"
man_page="${3:-yes}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

(cd "$build" && cpack -G DEB -B "$work/out" >"$work/cpack.log" 2>&1) ||
    { cat "$work/cpack.log"; exit 1; }
deb="$(find "$work/out" -maxdepth 1 -name 'histoscope_*.deb' | head -n 1)"
[ -n "$deb" ] || { echo "no .deb in $work/out"; cat "$work/cpack.log"; exit 1; }
echo "package: $(basename "$deb")"

field() { dpkg-deb -f "$deb" "$1"; }
[ "$(field Package)" = histoscope ] || { echo "Package: $(field Package)"; exit 1; }
[ "$(field Version)" = "$version" ] || { echo "Version $(field Version), expected $version"; exit 1; }
depends="$(field Depends)"
echo "Depends: $depends"
# dpkg-shlibdeps found the C++ runtime, where the program needs it as a shared library (a
# toolchain that links it statically, as the GPU host's does, leaves nothing to depend on).
if readelf -d "$build/app/histoscope-cli" | grep -q 'NEEDED.*libstdc++'; then
    grep -q 'libstdc++6' <<<"$depends" || { echo "no libstdc++6 among the dependencies"; exit 1; }
fi
grep -q 'libc6' <<<"$depends" || { echo "no libc6 among the dependencies"; exit 1; }

root="$work/root"
dpkg -x "$deb" "$root"
cli="$root/usr/bin/histoscope-cli"
[ -x "$cli" ] || { echo "no usr/bin/histoscope-cli in the package"; dpkg -c "$deb"; exit 1; }
[ "$("$cli" --version)" = "histoscope-cli $version" ] ||
    { echo "--version printed '$("$cli" --version)'"; exit 1; }
"$cli" kernels >/dev/null
files=(usr/share/bash-completion/completions/histoscope-cli)
[ "$man_page" = yes ] && files+=(usr/share/man/man1/histoscope-cli.1.gz)
for f in "${files[@]}"; do
    [ -f "$root/$f" ] || [ -f "$root/${f%.gz}" ] || { echo "missing $f"; exit 1; }
done
if [ -x "$root/usr/bin/histoscope" ]; then
    desktop-file-validate "$root/usr/share/applications/histoscope.desktop"
    appstreamcli validate --no-net "$root/usr/share/metainfo/io.github.histoscope.metainfo.xml"
    [ -f "$root/usr/share/icons/hicolor/scalable/apps/histoscope.svg" ] || { echo "no icon"; exit 1; }
fi
echo "ok: $(basename "$deb") installs and runs histoscope-cli $version"
