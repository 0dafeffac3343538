#!/usr/bin/env bash
# The benchmark cases of docs/PERFORMANCE.md, on the GPU host: every kernel on the bundled 4K
# photo (decoded to raw RGB with Python cv2) and on 256 MiB synthetic inputs at 8-bit/256 bins
# and 16-bit/65536 bins, and packed-sat against its rivals with a cap of 65535. Writes all
# results as one JSON document and prints a table.
# Usage: gpu-bench.sh CLI OUT.json [RUNS]
set -euo pipefail
cli="$1"
out_json="$2"
runs="${3:-20}"
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

read -r w h < <(python3 - "$root/resources/samples/fruits_4k.jpg" "$work/fruits_4k.raw" <<'PY'
import sys, cv2, numpy as np
img = cv2.imread(sys.argv[1], cv2.IMREAD_COLOR)
np.ascontiguousarray(img[:, :, ::-1]).tofile(sys.argv[2])
print(img.shape[1], img.shape[0])
PY
)

run() {  # run NAME ARGS...
    local name="$1"
    shift
    echo "bench: $name: histoscope-cli bench $*" >&2
    "$cli" bench "$@" --runs "$runs" --format json -o "$work/$name.json" || true
}
run photo_4k_rgb8_256 --raw "${w}x${h}x3:u8" "$work/fruits_4k.raw" --bins 256
run uniform_256MiB_u8_256 --synthetic uniform --pixels 256M --depth 8 --bins 256
run degenerate_256MiB_u8_256 --synthetic degenerate --pixels 256M --depth 8 --bins 256
run uniform_256MiB_u16_65536 --synthetic uniform --pixels 128M --depth 16 --bins 65536
run gauss_256MiB_u16_65536 --synthetic gauss:1000 --pixels 128M --depth 16 --bins 65536
# packed-sat serves only capped requests: the same inputs with 16-bit saturating counters, next
# to the exact engines it competes with (their counts capped after the fact).
sat_kernels=packed-sat,packed,block-shared,warp-private,lane-private
run photo_4k_rgb8_256_sat65535 --raw "${w}x${h}x3:u8" "$work/fruits_4k.raw" --bins 256 \
    --saturate 65535 --kernels "$sat_kernels"
run uniform_256MiB_u8_256_sat65535 --synthetic uniform --pixels 256M --depth 8 --bins 256 \
    --saturate 65535 --kernels "$sat_kernels"
run uniform_256MiB_u16_65536_sat65535 --synthetic uniform --pixels 128M --depth 16 \
    --bins 65536 --saturate 65535 --kernels "$sat_kernels"

python3 - "$work" "$out_json" <<'PY'
import json, os, sys
work, out = sys.argv[1:3]
cases = {}
for f in sorted(os.listdir(work)):
    if f.endswith(".json"):
        cases[f[:-5]] = json.load(open(os.path.join(work, f)))
json.dump(cases, open(out, "w"), indent=1)
for name, doc in cases.items():
    print(f"## {name}  device={doc['device']}  read_bw={doc['read_bandwidth_gbs']:.0f} GB/s")
    print(f"{'kernel':<16}{'median_ms':>11}{'Gpix/s':>9}{'GB/s':>9}{'%bw':>7}{'e2e_ms':>10}  verified")
    for r in doc["results"]:
        if r["status"] != "ok":
            print(f"{r['kernel']:<16}{r['status']}: {r.get('reason', '')[:90]}")
            continue
        print(f"{r['kernel']:<16}{r['median_ms']:>11.4f}{r['gpix_s']:>9.2f}{r['gb_s']:>9.1f}"
              f"{r['pct_read_bw']:>7.1f}{r['end_to_end_median_ms']:>10.3f}  {r['verified']}")
PY
