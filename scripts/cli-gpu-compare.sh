#!/usr/bin/env bash
# histoscope-cli end to end on a GPU host without OpenCV C++: decodes a photo to raw RGB with
# Python's cv2, then runs `hist` with every available GPU engine and with `cpu` on the same
# raw frame and compares the counts bin for bin (8-bit 256 bins, r,g,b,luma,luma709, and
# 1024 bins of a 16-bit frame made from it). Prints MATCH/MISMATCH lines and the engines'
# own stage timings (single runs, including first-launch costs: not a benchmark). An engine
# that refuses a request (exit 2, "error: engine 'NAME' ...") is listed as REFUSED.
# Usage: cli-gpu-compare.sh CLI PHOTO
set -euo pipefail
cli="$1"
photo="$2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

read -r w h < <(python3 - "$photo" "$work" <<'PY'
import sys, cv2, numpy as np
img = cv2.imread(sys.argv[1], cv2.IMREAD_COLOR)
if img is None:
    sys.exit("cannot decode " + sys.argv[1])
rgb = np.ascontiguousarray(img[:, :, ::-1])
rgb.tofile(sys.argv[2] + "/frame8.raw")
# A 16-bit frame: value * 257 + column parity, so all 16 bits vary.
deep = rgb.astype(np.uint16) * 257 + (np.arange(rgb.shape[1], dtype=np.uint16) % 2)[None, :, None]
deep.astype("<u2").tofile(sys.argv[2] + "/frame16.raw")
print(rgb.shape[1], rgb.shape[0])
PY
)

gpu_engines=$("$cli" kernels --format json | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(" ".join(k["name"] for k in d["kernels"] if k["available"] and k["name"] not in ("cpu", "opencv")))')
[ -n "$gpu_engines" ] || { echo "MISMATCH: no GPU engine is available"; exit 1; }

status=0
run_case() {  # run_case LABEL RAWFMT FILE ARGS...
    local label="$1" fmt="$2" file="$3"
    shift 3
    "$cli" hist --raw "$fmt" "$file" "$@" --kernel cpu --format json >"$work/cpu.json"
    for e in $gpu_engines; do
        local rc=0
        "$cli" hist --raw "$fmt" "$file" "$@" --kernel "$e" --format json >"$work/$e.json" \
            2>"$work/$e.err" || rc=$?
        if [ "$rc" -eq 2 ] && grep -q "^error: engine '$e'" "$work/$e.err"; then
            # The engine cannot serve this request and said so (exit 2): not a mismatch.
            echo "REFUSED  $e $label: $(cat "$work/$e.err")"
            continue
        elif [ "$rc" -ne 0 ]; then
            echo "MISMATCH $e $label: exit $rc: $(cat "$work/$e.err")"
            status=1
            continue
        fi
        python3 - "$work/cpu.json" "$work/$e.json" "$e" "$label" <<'PY' || status=1
import json, sys
ref, got = (json.load(open(p)) for p in sys.argv[1:3])
same = [c["counts"] for c in ref["channels"]] == [c["counts"] for c in got["channels"]]
t = got["timing_ms"]
print(("MATCH   " if same else "MISMATCH"), sys.argv[3], sys.argv[4],
      "channels=" + ",".join(c["name"] for c in got["channels"]),
      "stages_ms=" + " ".join(f"{k}:{v:.3f}" for k, v in t.items()))
sys.exit(0 if same else 1)
PY
    done
}
run_case "8-bit 256 bins ${w}x${h}" "${w}x${h}x3:u8" "$work/frame8.raw" --channels r,g,b,luma,luma709
run_case "8-bit 7 bins [10,250)" "${w}x${h}x3:u8" "$work/frame8.raw" --bins 7 --range 10:250 --channels g
run_case "16-bit 1024 bins" "${w}x${h}x3:u16" "$work/frame16.raw" --bins 1024 --channels r,luma
run_case "8-bit 256 bins saturating at 65535" "${w}x${h}x3:u8" "$work/frame8.raw" --saturate 65535 --channels r,g,b,luma
run_case "16-bit edges" "${w}x${h}x3:u16" "$work/frame16.raw" --edges 0,100.5,1000,30000,65535 --channels b
exit $status
