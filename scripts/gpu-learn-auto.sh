#!/usr/bin/env bash
# Learns the "auto" engine's selection map on the GPU host: runs every benchmark case of
# issue 7 with every GPU engine (histoscope-cli bench --format json) and "auto" (whose
# HS_AUTO_TRACE gives each case's feature key: sample type, channels, bins, size, race factor),
# ranks the verified engines of each key by median time and writes
# cuda/src/auto/selection_map.inc. Rebuild afterwards.
#
# Usage: gpu-learn-auto.sh CLI WORKDIR [RUNS]       run the cases, then learn
#        gpu-learn-auto.sh --learn WORKDIR          learn from WORKDIR/*.json and *.trace
#        gpu-learn-auto.sh --cases CLI WORKDIR KERNELS [RUNS]
#                                                   only run the cases with KERNELS
# WORKDIR keeps CASE.json and CASE.trace per case.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
map="$root/cuda/src/auto/selection_map.inc"
# Engines that lead some case (global-atomic, sort-search and packed-sat trail every case but
# the joint colours in docs/PERFORMANCE.md; they are measured where they can win).
fast=lane-private,block-shared,warp-private,thread-private,packed,cub,npp,auto
joint=packed,warp-private,global-atomic,sort-search,cub,auto

run_cases() {  # run_cases CLI WORKDIR KERNELS RUNS
    local cli="$1" work="$2" kernels="$3" runs="$4"
    mkdir -p "$work"
    if [[ ! -f "$work/fruits_4k.raw" ]]; then
        # The 4K photo as RGB; real photos as gray (8-bit) and the 16-bit moon, their samples
        # repeated to 256 MiB (rows of 4096 samples: the layout does not change a histogram).
        python3 - "$root/resources/samples" "$work" <<'PY'
import sys, cv2, numpy as np
src, work = sys.argv[1:3]
img = cv2.imread(f"{src}/fruits_4k.jpg", cv2.IMREAD_COLOR)
assert img.shape == (2160, 3840, 3), img.shape
np.ascontiguousarray(img[:, :, ::-1]).tofile(f"{work}/fruits_4k.raw")
for name in ("fruits_4k.jpg", "starry_night.jpg", "moon.png"):
    gray = cv2.imread(f"{src}/{name}", cv2.IMREAD_GRAYSCALE)
    np.resize(gray.ravel(), 1 << 28).tofile(f"{work}/{name.split('.')[0]}_gray_256MiB.raw")
deep = cv2.imread(f"{src}/moon_4k_16bit.png", cv2.IMREAD_UNCHANGED)
if deep.ndim == 3:
    deep = deep[:, :, 0]
assert deep.dtype == np.uint16, deep.dtype
np.resize(deep.ravel(), 1 << 27).tofile(f"{work}/moon16_256MiB.raw")
PY
    fi
    local photo=(--raw 3840x2160x3:u8 "$work/fruits_4k.raw")
    local tiled=(--raw 4096x65536x1:u8)
    one() {  # one NAME KERNELS ARGS...
        local name="$1" ks="$2"
        shift 2
        [[ "$kernels" != "$fast" ]] && ks="$kernels"
        echo "learn: $name: histoscope-cli bench $* --kernels $ks" >&2
        rm -f "$work/$name.trace"
        HS_AUTO_TRACE="$work/$name.trace" "$cli" bench "$@" --kernels "$ks" --runs "$runs" \
            --warmup 2 --format json -o "$work/$name${suffix:-}.json" || true
    }
    one u8_uniform_256MiB "$fast" --synthetic uniform --pixels 256M --depth 8 --bins 256
    one u8_degenerate_256MiB "$fast" --synthetic degenerate --pixels 256M --depth 8 --bins 256
    one u8_gauss20_256MiB "$fast" --synthetic gauss:20 --pixels 256M --depth 8 --bins 256
    one u8_rgba_rgb_256MiB "$fast" --synthetic uniform --pixels 64M --depth 8 --channels 4 \
        --select r,g,b --bins 256
    one u8_4k_gray "$fast" --synthetic gauss:20 --pixels 8294400 --depth 8 --bins 256
    one photo_4k_rgb_256 "$fast" "${photo[@]}" --bins 256
    one photo_4k_joint "$joint" "${photo[@]}" --select rgb --bins 16777216 --range 0:16777216
    one photo_4k_r_256 "$fast" "${photo[@]}" --select r --bins 256
    for p in fruits_4k starry_night moon; do
        one "photo_${p}_gray_256MiB" "$fast" "${tiled[@]}" "$work/${p}_gray_256MiB.raw" --bins 256
    done
    one photo_moon16_65536_256MiB "$fast" --raw 4096x32768x1:u16 "$work/moon16_256MiB.raw" \
        --bins 65536
    one u16_uniform_65536 "$fast" --synthetic uniform --pixels 128M --depth 16 --bins 65536
    one u16_gauss1000_65536 "$fast" --synthetic gauss:1000 --pixels 128M --depth 16 --bins 65536
    one u16_degenerate_65536 "$fast" --synthetic degenerate --pixels 128M --depth 16 --bins 65536
    one u16_uniform_4096 "$fast" --synthetic uniform --pixels 128M --depth 16 --bins 4096
    one u16_uniform_1024 "$fast" --synthetic uniform --pixels 128M --depth 16 --bins 1024
}

learn() {  # learn WORKDIR
    python3 - "$1" "$map" <<'PY'
import json, os, sys
work, out = sys.argv[1:3]
kinds = {"plain": "Plain", "luma": "Luma", "joint": "Joint", "edges": "Edges"}
entries = {}  # key text -> (key dict, {kernel: [ratio to best]}, [case names], best ms)
for f in sorted(os.listdir(work)):
    if not f.endswith(".json") or "." in f[:-5]:
        continue
    name = f[:-5]
    trace = os.path.join(work, name + ".trace")
    if not os.path.exists(trace):
        print(f"learn: {name}: no trace of auto's key, skipped", file=sys.stderr)
        continue
    key_text = open(trace).readline().split("\t")[0].strip()
    key = dict(kv.split("=") for kv in key_text.split())
    doc = json.load(open(os.path.join(work, f)))
    times = {r["kernel"]: r["median_ms"] for r in doc["results"]
             if r["status"] == "ok" and r["verified"] and r["kernel"] not in ("auto", "cpu")}
    if not times:
        continue
    best = min(times.values())
    e = entries.setdefault(key_text, (key, {}, [], []))
    for k, t in times.items():
        e[1].setdefault(k, []).append(t / best)
    e[2].append(name)
    e[3].append(best)
lines = ["// Generated by scripts/gpu-learn-auto.sh from benchmarks on the GPU; do not edit by hand.",
         "// Key: {u16, kind, channels, image_channels, ceil(log2 bins), floor(log2 bytes), race},",
         "// then the verified engines, fastest first (mean ratio to the fastest over the cases).",
         "// Device: " + ", ".join(sorted({json.load(open(os.path.join(work, f)))["device"]
                                           for f in os.listdir(work) if f.endswith(".json")}))]
for key_text, (k, ratios, names, bests) in entries.items():
    ranked = sorted(ratios, key=lambda n: (sum(ratios[n]) / len(ratios[n]), n))
    detail = ", ".join(f"{n} {sum(ratios[n]) / len(ratios[n]):.2f}" for n in ranked)
    lines.append(f"// {'+'.join(names)}: best {min(bests):.4f} ms; {detail}")
    lines.append("{{%s, AutoKind::%s, %s, %s, %s, %s, %s}, \"%s\", \"%s\"}," % (
        k["u16"], kinds[k["kind"]], k["channels"], k["image_channels"], k["bins"], k["size"],
        k["race"], ",".join(ranked), "+".join(names)))
open(out, "w").write("\n".join(lines) + "\n")
print(f"learn: wrote {len(entries)} entries to {out}", file=sys.stderr)
PY
}

case "${1:-}" in
    --learn) learn "$2" ;;
    --cases) run_cases "$2" "$3" "$4" "${5:-20}" ;;
    *)
        run_cases "$1" "$2" "$fast" "${3:-20}"
        learn "$2"
        ;;
esac
