#!/usr/bin/env bash
# Takes README's screenshots of the desktop application as a user sees it: the real application
# under Xvfb, driven with xdotool and captured with ImageMagick's import, each from a first-start
# settings file. Writes docs/screenshots/deep-16bit.png (a 16-bit photo with its 65536-bin
# histograms, the readout of a hovered column), deep-video-10bit.png (a 10-bit HEVC clip encoded
# here from the bundled 4K clip, at 1024 bins), compare-kernels.png (Tools > Compare Kernels
# after a run), clipping-overlay.png (View > Clipping Overlay), camera-raw-cfa.png (a camera
# raw DNG's CFA histograms, levels and clipped photosites: the DNG made from fruits_4k.jpg's
# pixels by tests/support/make_dng.py) and hdr-float.png (a float scene made by
# tests/support/float_reference.py: stops, float statistics, the exposure slider). Uses the build in $HS_BUILD_DIR (default build-cpu). Look
# at every picture before committing it.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
build="${HS_BUILD_DIR:-build-cpu}"
[ -x "$build/app/histoscope" ] || { echo "error: no $build/app/histoscope: build first" >&2; exit 2; }
for tool in xvfb-run xdotool import convert ffmpeg; do
    command -v "$tool" >/dev/null || { echo "error: $tool is missing (scripts/install-deps.sh)" >&2; exit 2; }
done
export HS_APP="$root/$build/app/histoscope" HS_SAMPLES="$root/resources/samples"
export HS_OUT="$root/docs/screenshots" HS_ROOT="$root"
# The Python that has numpy and tifffile (Debian's; one earlier on PATH may not).
export HS_PYTHON=/usr/bin/python3
"$HS_PYTHON" -c "import numpy, tifffile" ||
    { echo "error: python3-numpy and python3-tifffile are missing (scripts/install-deps.sh)" >&2; exit 2; }
mkdir -p "$HS_OUT"
xvfb-run -a -s "-screen 0 1920x1200x24 -dpi 96" bash -euo pipefail <<'DRIVE'
work="$(mktemp -d)"
trap 'kill $app 2>/dev/null || true; rm -rf "$work"' EXIT
# start NAME FILE SETTINGS: the application on FILE with these settings (INI lines), its window
# 1600x1000 at the origin, once its title names the file.
start() {
    rm -rf "$work/config" && mkdir -p "$work/config/Histoscope" "$work/runtime"
    chmod 700 "$work/runtime"
    printf '%b' "$3" > "$work/config/Histoscope/Histoscope.conf"
    XDG_CONFIG_HOME="$work/config" XDG_RUNTIME_DIR="$work/runtime" QT_QPA_PLATFORM=xcb \
        "$HS_APP" "$2" > "$work/$1.log" 2>&1 &
    app=$!
    window=$(xdotool search --sync --name "^$(basename "$2") - Histoscope$" | head -1)
    xdotool windowsize "$window" 1600 1000 windowmove "$window" 0 0
    sleep 4  # the first frame, and a large photo's full resolution
    xdotool mousemove 400 500 click 1  # focus (there is no window manager)
}
stop() { kill "$app"; wait "$app" 2>/dev/null || true; }

start deep "$HS_SAMPLES/moon_4k_16bit.png" '[histogram]\nbins=65536\n'
sleep 6
xdotool mousemove 1310 150  # a column of the original's histogram: its readout
sleep 0.3  # (before the plot's tooltip shows)
import -window "$window" "$HS_OUT/deep-16bit.png"
stop

# 24 frames of the 4K clip as 10-bit HEVC (Rec.709, limited range): its histograms at the coded
# depth, one bin a code value.
ffmpeg -nostdin -hide_banner -loglevel error -i "$HS_SAMPLES/starry_pan_4k.mp4" -frames:v 24 -c:v libx265 \
    -preset fast -pix_fmt yuv420p10le -x265-params log-level=error -color_primaries bt709 \
    -color_trc bt709 -colorspace bt709 "$work/starry_pan_4k_10bit.mkv"
start deep-video "$work/starry_pan_4k_10bit.mkv" '[histogram]\nbins=1024\n'
sleep 4
xdotool mousemove 200 400  # a pixel of the original: its 10-bit values in the status bar
sleep 0.3
import -window "$window" "$HS_OUT/deep-video-10bit.png"
stop

start compare "$HS_SAMPLES/fruits_4k.jpg" ''
xdotool key ctrl+k
dialog=$(xdotool search --sync --name '^Compare Kernels$' | head -1)
xdotool windowsize "$dialog" 1100 760 windowmove "$dialog" 100 60
sleep 1
xdotool mousemove --window "$dialog" 962 21 click 1  # Run
sleep 45
import -window "$dialog" "$HS_OUT/compare-kernels.png"
stop

start clipping "$HS_SAMPLES/chelsea.png" '[view]\nclipping=true\n'
xdotool mousemove 700 700  # a pixel of the equalized side: its values in the status bar
sleep 0.3
import -window "$window" "$HS_OUT/clipping-overlay.png"
stop

# A 14-bit RGGB DNG of the 4K photo's pixels as a sensor would record them: its CFA histograms at
# 1024 bins with the levels marked, and the statistics scrolled to the photosites at the levels.
convert "$HS_SAMPLES/fruits_4k.jpg" -depth 16 -endian LSB "rgb:$work/fruits_4k.rgb"
"$HS_PYTHON" "$HS_ROOT/tests/support/make_dng.py" "$work/fruits_4k.dng" \
    --from-rgb16 "$work/fruits_4k.rgb" --width 3840 --height 2160 --black 512 --white 16383 \
    --make Histoscope --model "Sample Sensor" --iso 200 --exposure 1/125 --fnumber 8 --focal 50
start raw "$work/fruits_4k.dng" '[histogram]\nbins=1024\n'
sleep 4  # LibRaw unpacks its 8.3 million photosites
xdotool mousemove 972 751 click 1  # the Statistics tab
sleep 0.5
xdotool mousemove 1250 900  # over the statistics: scrolled to their last rows
for _ in 1 2 3 4 5 6 7 8 9 10; do xdotool click 5; done
sleep 0.5
xdotool mousemove 1700 1100  # out of the window: no readout nor tooltip over the plot
sleep 0.3
import -window "$window" "$HS_OUT/camera-raw-cfa.png"
stop

# A high dynamic range scene (a PFM of float samples): its histograms in stops, the float
# statistics, the picture at -1.5 EV and the readout of a pixel of the sky.
"$HS_PYTHON" "$HS_ROOT/tests/support/float_reference.py" write-scene "$work/scene.pfm" 1280 800
start hdr "$work/scene.pfm" ''
xdotool mousemove 972 751 click 1  # the Statistics tab
sleep 0.5
xdotool mousemove 1236 592 click 1  # the exposure slider's handle
for _ in $(seq 15); do xdotool key Left; done  # -1.5 EV
sleep 3
xdotool mousemove 300 300  # a pixel of the sky: its float values in the status bar
sleep 0.3
import -window "$window" "$HS_OUT/hdr-float.png"
stop
DRIVE
echo "wrote $HS_OUT/deep-16bit.png $HS_OUT/deep-video-10bit.png $HS_OUT/compare-kernels.png" \
    "$HS_OUT/clipping-overlay.png $HS_OUT/camera-raw-cfa.png $HS_OUT/hdr-float.png"
