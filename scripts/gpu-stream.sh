#!/usr/bin/env bash
# The frame pipeline on the GPU host: the bundled 4K clip (starry_pan_4k.mp4, 48 frames of
# 3840x2160 RGB, decoded by scripts/gpu-check.sh into RAW_CLIPS) streamed through
# `histoscope-cli bench --stream`: histograms of R, G, B and global equalization of the
# luminance of every frame, with the result downloaded. One run loops the clip 209 times
# (10,032 frames: host and device memory at the start, after the first pass and at the end),
# two short runs vary the frames in flight (ring depth 2 and 4). Every run verifies one pass of
# frames against the CPU reference. Writes one JSON document {"runs": [...]} and prints a summary.
# Usage: gpu-stream.sh CLI RAW_CLIPS OUT.json
set -euo pipefail
cli="$1"
clips="$2"
out_json="$3"
clip="$(find "$clips" -name 'starry_pan_4k.mp4.*.u8.raw' | head -n 1)"
if [ -z "$clip" ]; then
    echo "gpu-stream: no raw dump of starry_pan_4k.mp4 in $clips" >&2
    exit 1
fi
# NAME.WxHx3.u8.raw -> WxHx3:u8
fmt="$(basename "$clip" .raw)"
fmt="${fmt#starry_pan_4k.mp4.}"
fmt="${fmt%.u8}:u8"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

run() {  # run NAME ARGS...
    local name="$1"
    shift
    echo "stream: $name: histoscope-cli bench --raw $fmt $clip --stream $*" >&2
    "$cli" bench --raw "$fmt" "$clip" --stream "$@" --format json -o "$work/$name.json"
}
rc=0
run loop_10032_depth3 --loop 209 --verify-frames 48 || rc=$?
run depth2 --depth-in-flight 2 --loop 2 --verify-frames 48 || rc=$?
run depth4 --depth-in-flight 4 --loop 2 --verify-frames 48 || rc=$?

python3 - "$work" "$out_json" <<'PY'
import json, os, sys
work, out = sys.argv[1:3]
runs = []
for f in sorted(os.listdir(work)):
    if f.endswith(".json"):
        doc = json.load(open(os.path.join(work, f)))
        doc["run"] = f[:-5]
        runs.append(doc)
json.dump({"runs": runs}, open(out, "w"), indent=1)
mib = lambda b: "n/a" if b is None else f"{b / 1048576:.1f}"
for r in runs:
    m = r["memory"]
    st = r["stage_median_ms"]
    print(f"== {r['run']}: {r['device']}, {r['width']}x{r['height']}x{r['image_channels']}, "
          f"{r['frames']} frames ({r['ok']} ok, {r['failed']} failed), stream '{r['stream_engine']}', "
          f"histograms '{r['histogram_engine']}' ({r['channels']}), equalizer '{r['equalizer']}'")
    print("   stage medians ms: " + ", ".join(f"{k} {v:.4f}" for k, v in st.items()))
    up = r["upload_alone_ms"]
    print(f"   steady state {r['steady_state_ms_per_frame']:.4f} ms/frame, upload alone "
          + ("n/a" if up is None else f"{up:.4f} ms, ratio {r['steady_state_over_upload']:.3f}")
          + f"; decode {r['decode_fps']:.1f} fps, end to end {r['end_to_end_fps']:.1f} fps")
    print("   host RSS MiB start/after pass 1/end: " + " / ".join(
        mib(m[k]["host_rss_bytes"]) if m[k] else "n/a" for k in ("start", "after_first_pass", "end")))
    print("   device used MiB start/after pass 1/end: " + " / ".join(
        mib(m[k]["device_used_bytes"]) if m[k] else "n/a" for k in ("start", "after_first_pass", "end")))
    print(f"   verified: {r['verified']} ({r['verified_frames']} frames)")
PY
exit "$rc"
