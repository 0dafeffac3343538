#!/usr/bin/env bash
# The equalization benchmark of docs/PERFORMANCE.md ("Equalization (issue 4)"), run on the GPU
# host (CUDA, Python cv2, no OpenCV C++). The bundled 4K photos are decoded with Python cv2 into
# raw frames: fruits_4k.jpg (3840x2160 RGB, 8-bit) and moon_4k_16bit.png (3840x2160 gray,
# 16-bit). For each case it runs
#   histoscope-cli equalize --raw FMT FRAME -o OUT.raw --kernel gpu --repeat N --timing --format json
# (the engine's CUDA-event stages, medians of N runs in one process; the first run, which loads
# the kernels, is one of them), the same with --kernel cpu (our single-threaded reference,
# fewer runs), and times the OpenCV functions on the same frames in the same run (median of N
# calls after one warm-up, cv2's default threads): cv2.equalizeHist / CLAHE.apply on the Y
# plane (and the whole RGB -> YCrCb -> Y -> RGB pipeline) for the 8-bit frame, and
# CLAHE.apply on the 16-bit frame (cv2.equalizeHist has no 16-bit version: that row has no
# OpenCV time). Every GPU output is compared with OpenCV's result of the same pipeline
# (16-bit global: with the cpu engine's output), and the comparison is part of the result.
#
# Usage: gpu-equalize-bench.sh CLI OUT.json [RUNS]      (RUNS default 21; HS_EQ_KERNEL=NAME
#                                                        benchmarks another equalizer than gpu)
#        gpu-equalize-bench.sh --photos DIR             (only dump every bundled photo as
#                                                        DIR/NAME.WxHxC.TYPE.raw for the tests'
#                                                        HS_RAW_PHOTOS, then exit)
# Prints a table; the JSON holds the date, device, versions, every CLI report and the numbers.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

if [ "${1:-}" = "--photos" ]; then
    dir="${2:?usage: gpu-equalize-bench.sh --photos DIR}"
    mkdir -p "$dir"
    python3 - "$root/resources/samples" "$dir" <<'PY'
import os, sys, cv2
src, dst = sys.argv[1:3]
for name in sorted(os.listdir(src)):
    if not name.lower().endswith((".jpg", ".png", ".tif")):
        continue
    img = cv2.imread(os.path.join(src, name), cv2.IMREAD_UNCHANGED)
    if img is None:
        continue
    if img.ndim == 3:
        img = cv2.cvtColor(img, cv2.COLOR_BGR2RGB if img.shape[2] == 3 else cv2.COLOR_BGRA2RGBA)
    c = 1 if img.ndim == 2 else img.shape[2]
    t = "u8" if img.dtype.name == "uint8" else "u16"
    img.astype("<" + ("u1" if t == "u8" else "u2")).tofile(
        os.path.join(dst, f"{name}.{img.shape[1]}x{img.shape[0]}x{c}.{t}.raw"))
    print("raw photo:", name, img.shape, t)
PY
    exit 0
fi

cli="${1:?usage: gpu-equalize-bench.sh CLI OUT.json [RUNS]}"
out_json="${2:?usage: gpu-equalize-bench.sh CLI OUT.json [RUNS]}"
runs="${3:-21}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

python3 - "$cli" "$out_json" "$runs" "$root" "$work" "${HS_EQ_KERNEL:-gpu}" <<'PY'
import datetime, json, os, platform, statistics, subprocess, sys, time
import cv2
import numpy as np

cli, out_json, runs, root, work, kernel = sys.argv[1:3] + [int(sys.argv[3])] + sys.argv[4:7]
samples = os.path.join(root, "resources", "samples")
cpu_runs = 3


def sh(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.strip()
    except Exception as e:  # noqa: BLE001 - a missing tool only leaves a field empty
        return f"unavailable ({e})"


def median_ms(f, n):
    f()  # warm-up
    times = []
    for _ in range(n):
        start = time.perf_counter()
        f()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


# Frames: RGB order, 16-bit little-endian, rows packed (what --raw reads).
fruits = np.ascontiguousarray(
    cv2.cvtColor(cv2.imread(os.path.join(samples, "fruits_4k.jpg"), cv2.IMREAD_COLOR),
                 cv2.COLOR_BGR2RGB))
moon = cv2.imread(os.path.join(samples, "moon_4k_16bit.png"), cv2.IMREAD_UNCHANGED)
assert fruits.dtype == np.uint8 and fruits.ndim == 3 and fruits.shape[2] == 3, fruits.shape
assert moon.dtype == np.uint16 and moon.ndim == 2, (moon.dtype, moon.shape)
frames = {
    "fruits_4k": (fruits, f"{fruits.shape[1]}x{fruits.shape[0]}x3:u8"),
    "moon_4k_16bit": (moon, f"{moon.shape[1]}x{moon.shape[0]}x1:u16"),
}
for name, (img, _) in frames.items():
    img.astype("<" + ("u1" if img.dtype == np.uint8 else "u2")).tofile(os.path.join(work, name + ".raw"))


def run_cli(frame, kernel, args, n, out):
    img, fmt = frames[frame]
    cmd = [cli, "equalize", "--raw", fmt, os.path.join(work, frame + ".raw"), "-o", out,
           "--kernel", kernel, "--repeat", str(n), "--timing", "--format", "json"] + args
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        return {"command": " ".join(cmd), "exit_code": p.returncode, "error": p.stderr.strip()}, None
    report = json.loads(p.stdout)
    report["command"] = " ".join(cmd)
    result = np.fromfile(out, dtype=img.dtype).reshape(img.shape)
    return report, result


def luma_pipeline(rgb, f):
    ycc = cv2.cvtColor(rgb, cv2.COLOR_RGB2YCrCb)
    ycc[:, :, 0] = f(ycc[:, :, 0])
    return cv2.cvtColor(ycc, cv2.COLOR_YCrCb2RGB)


fruits_y = np.ascontiguousarray(cv2.cvtColor(fruits, cv2.COLOR_RGB2YCrCb)[:, :, 0])
clahe = cv2.createCLAHE(clipLimit=2.0, tileGridSize=(8, 8))
cases = [
    {"case": "fruits_4k RGB 8-bit, luma, global HE", "frame": "fruits_4k", "args": [],
     "opencv": {
         "equalizeHist_on_Y": lambda: cv2.equalizeHist(fruits_y),
         "pipeline_RGB2YCrCb_equalizeHist_YCrCb2RGB": lambda: luma_pipeline(fruits, cv2.equalizeHist)},
     "expected": lambda: luma_pipeline(fruits, cv2.equalizeHist)},
    {"case": "fruits_4k RGB 8-bit, luma, CLAHE clip 2 tiles 8x8", "frame": "fruits_4k",
     "args": ["--mode", "clahe", "--clip", "2", "--tiles", "8x8"],
     "opencv": {
         "clahe_apply_on_Y": lambda: clahe.apply(fruits_y),
         "pipeline_RGB2YCrCb_clahe_YCrCb2RGB": lambda: luma_pipeline(fruits, clahe.apply)},
     "expected": lambda: luma_pipeline(fruits, clahe.apply)},
    {"case": "moon_4k 16-bit gray, global HE", "frame": "moon_4k_16bit", "args": [],
     "opencv": {}, "expected": None,
     "note": "cv2.equalizeHist accepts 8-bit images only: compared with the cpu engine"},
    {"case": "moon_4k 16-bit gray, CLAHE clip 2 tiles 8x8", "frame": "moon_4k_16bit",
     "args": ["--mode", "clahe", "--clip", "2", "--tiles", "8x8"],
     "opencv": {"clahe_apply_16bit": lambda: clahe.apply(moon)},
     "expected": lambda: clahe.apply(moon)},
]

results = []
for c in cases:
    gpu, gpu_out = run_cli(c["frame"], kernel, c["args"], runs, os.path.join(work, "gpu.raw"))
    cpu, cpu_out = run_cli(c["frame"], "cpu", c["args"], cpu_runs, os.path.join(work, "cpu.raw"))
    opencv_ms = {k: median_ms(f, runs) for k, f in c["opencv"].items()}
    expected = c["expected"]() if c["expected"] else cpu_out
    against = "opencv" if c["expected"] else "cpu engine"
    r = {"case": c["case"], "gpu": gpu, "cpu_reference": cpu, "opencv_median_ms": opencv_ms,
         "compared_with": against}
    if "note" in c:
        r["note"] = c["note"]
    if gpu_out is not None and expected is not None:
        diff = np.abs(gpu_out.astype(np.int64) - expected.astype(np.int64))
        r["gpu_equal"] = bool((diff == 0).all())
        r["max_abs_diff"] = int(diff.max())
        r["samples_differing"] = int((diff != 0).sum())
    results.append(r)

doc = {
    "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
    "device": sh(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"]),
    "commit": sh(["git", "-C", root, "rev-parse", "--short", "HEAD"]),
    "host_cpu": platform.processor() or sh(["sh", "-c", "grep -m1 'model name' /proc/cpuinfo"]),
    "host_cores": os.cpu_count(),
    "opencv_version": cv2.__version__,
    "opencv_threads": cv2.getNumThreads(),
    "kernel": kernel, "gpu_runs": runs, "cpu_runs": cpu_runs, "opencv_runs": runs,
    "results": results,
}
with open(out_json, "w") as f:
    json.dump(doc, f, indent=2)

print(f"# {doc['date']} {doc['device']}; OpenCV {doc['opencv_version']} "
      f"({doc['opencv_threads']} threads); medians: gpu {runs} runs, cpu {cpu_runs}, opencv {runs}")
print("case | gpu upload/histogram/lut/apply/download (engine total) ms | cpu engine ms | "
      "opencv ms | gpu output")
for r in results:
    t = r["gpu"].get("timing_ms", {})
    stages = "/".join(f"{t.get(s, float('nan')):.3f}" for s in
                      ("upload", "histogram", "lut", "apply", "download"))
    cpu_t = r["cpu_reference"].get("timing_ms", {}).get("engine_total", float("nan"))
    ocv = ", ".join(f"{k} {v:.3f}" for k, v in r["opencv_median_ms"].items()) or "n/a"
    same = ("equal to " + r["compared_with"]) if r.get("gpu_equal") else \
        f"DIFFERS from {r['compared_with']} (max {r.get('max_abs_diff')}, " \
        f"{r.get('samples_differing')} samples)" if "gpu_equal" in r else \
        "error: " + r["gpu"].get("error", "?")
    print(f"{r['case']} | {stages} ({t.get('engine_total', float('nan')):.3f}) | {cpu_t:.1f} | "
          f"{ocv} | {same}")
ok = all(r.get("gpu_equal") for r in results)
sys.exit(0 if ok else 1)
PY
