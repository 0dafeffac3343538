#!/usr/bin/env bash
# The scripted run of the desktop application (histoscope --screenshot), as scripts/gpu.sh gui
# runs it, checked from the outside: exit codes, the summary lines, the PNGs and their sizes
# (app/gui/scripted_run.hpp). Plain bash, so that it runs wherever the build is taken (the GPU
# host has no cmake where this machine's is).
#
#   screenshot_run.sh HISTOSCOPE OUT_DIR file INPUT
#       the window once INPUT's first histogram is drawn, then Compare Kernels with every engine
#       of the build, each verified exact
#   screenshot_run.sh HISTOSCOPE OUT_DIR stream
#       a stream of 50 raw frames written here: played to its last frame by the clock at 50 fps
#       (every frame after the first shown or dropped, the drops by stage), then unpaced (every
#       frame shown, frames per second given), then live on standard input (every frame comes,
#       the count is learned at the end); a single raw frame is refused by --screenshot-play, and
#       raw frames without --raw (the Open Raw dialog would ask for their format) by --screenshot
set -euo pipefail
histoscope="$1"
out_dir="$2"
mode="$3"
rm -rf "$out_dir"
mkdir -p "$out_dir"

fail() {
    echo "screenshot_run: $*" >&2
    exit 1
}

# check_png FILE WIDTH HEIGHT: a PNG signature and an IHDR of that size.
check_png() {
    local path="$1" head
    [ -s "$path" ] || fail "$path was not written"
    [ "$(stat -c %s "$path")" -ge 1000 ] || fail "$path has $(stat -c %s "$path") bytes"
    head="$(od -An -tx1 -N24 "$path" | tr -d ' \n')"
    [ "${head:0:16}" = 89504e470d0a1a0a ] && [ "${head:24:8}" = 49484452 ] ||
        fail "$path is not a PNG (starts $head)"
    [ $((16#${head:32:8})) -eq "$2" ] && [ $((16#${head:40:8})) -eq "$3" ] ||
        fail "$path is $((16#${head:32:8}))x$((16#${head:40:8})), not $2x$3"
    echo "$path: $2x$3"
}

# run NAME ARGS...: histoscope with ARGS (standard input from $stdin_file when set), its
# output in $out and its exit code in $rc.
stdin_file=/dev/null
run() {
    local name="$1"
    shift
    rc=0
    "$histoscope" "$@" <"$stdin_file" >"$out_dir/$name.out" 2>"$out_dir/$name.err" || rc=$?
    out="$(cat "$out_dir/$name.out")"
    echo "== histoscope $* (exit $rc)"
    cat "$out_dir/$name.out" "$out_dir/$name.err"
}

# The played line: "played: P frames in S s (input: N frames, ...): K shown, D dropped (read a,
# stream b, paint c), F failed, engine E, frame stream P, PACING, R frames/s shown", then the
# stages lines.
played_re='played: ([0-9]+) frames in [0-9.]+ s \(input: ([0-9]+) frames[^)]*\): ([0-9]+) shown, ([0-9]+) dropped \(read ([0-9]+), stream ([0-9]+), paint ([0-9]+)\), ([0-9]+) failed, engine [a-z0-9_-]+, frame stream [a-z]+, (paced at [0-9.]+ fps|unpaced), [0-9.]+ frames/s shown'
check_played() {  # NAME: sets played frames shown dropped failed pacing from the run's line
    [[ "$out" =~ $played_re ]] || fail "$1: no summary line of the playback"
    played="${BASH_REMATCH[1]}" frames="${BASH_REMATCH[2]}" shown="${BASH_REMATCH[3]}"
    dropped="${BASH_REMATCH[4]}" failed="${BASH_REMATCH[8]}" pacing="${BASH_REMATCH[9]}"
    [ $((BASH_REMATCH[5] + BASH_REMATCH[6] + BASH_REMATCH[7])) -eq "$dropped" ] ||
        fail "$1: the drops by stage do not add up to $dropped"
    [ $((shown + dropped + failed)) -eq "$played" ] ||
        fail "$1: $shown shown, $dropped dropped and $failed failed are not the $played played"
    grep -qE '^stages \(ms, median / 99th percentile of the [0-9]+ frames shown\): read [0-9.]+ / [0-9.]+ upload [0-9.]+ / [0-9.]+ stream [0-9.]+ / [0-9.]+ results [0-9.]+ / [0-9.]+ paint [0-9.]+ / [0-9.]+$' \
        <<<"$out" || fail "$1: no stages line"
    [ "$failed" -eq 0 ] || fail "$1: $failed frames failed"
}

case "$mode" in
    file)
        run window --screenshot "$out_dir/window.png" --screenshot-compare "$out_dir/compare.png" \
            --screenshot-timeout 240 "$4"
        [ "$rc" -eq 0 ] || fail "histoscope exited with $rc"
        grep -q "compare: cpu: ok, exact" <<<"$out" || fail "no verified cpu row in Compare Kernels"
        check_png "$out_dir/window.png" 1600 1000
        check_png "$out_dir/compare.png" 1200 800
        ;;
    stream)
        frames_in=50
        stream="$out_dir/stream.raw"
        head -c $((frames_in * 16 * 8)) /dev/urandom >"$stream"
        last=$((frames_in - 1))

        run paced --screenshot "$out_dir/window.png" --screenshot-play \
            --screenshot-compare "$out_dir/compare.png" --screenshot-timeout 240 \
            --raw 16x8x1:u8 --fps 50 "$stream"
        [ "$rc" -eq 0 ] || fail "paced: histoscope exited with $rc"
        grep -q "compare: cpu: ok, exact" <<<"$out" || fail "no verified cpu row in Compare Kernels"
        check_played paced
        [ "$frames" -eq "$frames_in" ] || fail "paced: played $frames frames of $frames_in"
        [ "$pacing" = "paced at 50 fps" ] || fail "paced: $pacing, not at the 50 fps asked"
        # Frame 0 is shown before playback starts; every later one is shown or dropped.
        [ "$shown" -ge 1 ] && [ "$played" -eq "$last" ] ||
            fail "paced: $played frames played ($shown shown): not the $last after the first"
        check_png "$out_dir/window.png" 1600 1000
        check_png "$out_dir/compare.png" 1200 800

        run unpaced --screenshot "$out_dir/unpaced.png" --screenshot-play --screenshot-unpaced \
            --screenshot-timeout 240 --raw 16x8x1:u8 "$stream"
        [ "$rc" -eq 0 ] || fail "unpaced: histoscope exited with $rc"
        check_played unpaced
        [ "$pacing" = unpaced ] || fail "unpaced: $pacing"
        [ "$shown" -eq "$last" ] && [ "$dropped" -eq 0 ] ||
            fail "unpaced: $shown shown, $dropped dropped: every frame is shown unpaced"

        stdin_file="$stream"
        run live --screenshot "$out_dir/live.png" --screenshot-play --screenshot-timeout 240 \
            --raw 16x8x1:u8 -
        stdin_file=/dev/null
        [ "$rc" -eq 0 ] || fail "live: histoscope exited with $rc"
        check_played live
        [ "$frames" -eq "$frames_in" ] && [ "$played" -eq "$frames_in" ] ||
            fail "live: $played frames played, $frames came, of $frames_in"
        check_png "$out_dir/live.png" 1600 1000

        # Exactly the frames asked for, looping, even unpaced (the pause takes effect late).
        run frames --screenshot "$out_dir/frames.png" --screenshot-play --screenshot-unpaced \
            --screenshot-frames 120 --screenshot-timeout 240 --raw 16x8x1:u8 "$stream"
        [ "$rc" -eq 0 ] || fail "frames: histoscope exited with $rc"
        check_played frames
        [ "$played" -eq 120 ] && [ "$shown" -eq 120 ] ||
            fail "frames: $played played, $shown shown, not the 120 asked for"

        # One frame is a photo: nothing to play, which is an error of the run.
        head -c 128 "$stream" >"$out_dir/one.raw"
        run one --screenshot "$out_dir/one.png" --screenshot-play --screenshot-timeout 120 \
            --raw 16x8x1:u8 "$out_dir/one.raw"
        [ "$rc" -eq 3 ] && grep -q "error: --screenshot-play: .*one.raw is not a video or a stream of raw frames" \
            "$out_dir/one.err" || fail "--screenshot-play of one raw frame: exit $rc, not 3 with its error"
        [ ! -e "$out_dir/one.png" ] || fail "--screenshot-play of one raw frame wrote its window"

        # Raw frames without --raw and no format remembered for them would wait on the Open Raw
        # dialog: refused at once, nothing written.
        cp "$stream" "$out_dir/unknown.raw"
        run dialog --screenshot "$out_dir/dialog.png" --screenshot-timeout 120 "$out_dir/unknown.raw"
        [ "$rc" -eq 2 ] && grep -q "^error: --screenshot: '.*unknown.raw' holds raw frames, which carry no header: give their format with --raw .* (a scripted run opens no dialog)$" \
            "$out_dir/dialog.err" || fail "--screenshot of raw frames without --raw: exit $rc, not 2 with its error"
        [ ! -e "$out_dir/dialog.png" ] || fail "--screenshot of raw frames without --raw wrote a window"
        ;;
    *)
        fail "unknown mode '$mode'"
        ;;
esac
echo "screenshot_run: $mode: ok"
