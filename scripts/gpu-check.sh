#!/usr/bin/env bash
# The one script run on the GPU host: builds with the "gpu-host" preset, runs the GPU and CPU
# test labels, runs compute-sanitizer (memcheck, racecheck) on the GPU test binary, records
# nvidia-smi and the device query. Every stage runs even when an earlier one failed; all logs
# go to "${OUT:-out}/", a summary is printed at the end, and the exit status is non-zero when
# any stage failed.
#
# Environment: OUT (log folder, default out/), HS_JOBS (build jobs, default 16),
# HS_SANITIZER_TIMEOUT (seconds per sanitizer run, default 150).
#
# It writes exactly these 8 files (the device runner returns at most 8): environment.txt
# (versions, nvidia-smi, device query), build.log (configure + build), ctest.log (ctest -L gpu,
# then -L "cpu|cli"), cli-gpu.log (histoscope-cli on the bundled 4K photo: every GPU engine
# against cpu), sanitizer.log (memcheck and racecheck, every engine on a small and a 4K input,
# the frame pipeline), bench.json (scripts/gpu-bench.sh), stream.json (scripts/gpu-stream.sh:
# the frame pipeline on the bundled 4K clip), summary.txt.
# HS_SKIP_BENCH=1 leaves the kernel benchmark out, HS_SKIP_STREAM=1 the stream benchmark;
# HS_COMMIT names the commit in environment.txt.
#
# The summary starts with the fingerprint of the GPU code (scripts/gpu-fingerprint.sh) and ends
# with the line for docs/perf/gpu-verified.md: fingerprint, date, commit, device and the stage
# counts. Only a full pass (every stage PASS, none skipped, benchmark and stream included) may
# be recorded there.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"

out="${OUT:-out}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
for f in environment.txt build.log ctest.log cli-gpu.log sanitizer.log bench.json \
    stream.json summary.txt; do
    rm -f "${out:?}/$f"
done
jobs="${HS_JOBS:-16}"
san_timeout="${HS_SANITIZER_TIMEOUT:-150}"
build="$root/build-gpu"
cuda_bin="${CUDA_HOME:-/usr/local/cuda}/bin"
export PATH="$PATH:$cuda_bin"

# Small and larger inputs: odd shapes (1x1, 1xN, Nx1, 1023x77, all layouts) and a 1920x1080
# image with several bin counts, plus interleaved 3/4-channel images for memcheck.
# Every engine of the matrix test on a small (640x480) and a 4K input.
memcheck_filter="GpuEngines/GpuEngineMatrix.ServesThePlainCase/*:GpuEngines/GpuEngineMatrix.FourK/*"
# The frame pipeline: odd shapes, 16-bit and 4-channel frames, equalization alone.
memcheck_filter+=":GpuPipeline.OddShapesSixteenBitAndFourChannels:GpuPipeline.EqualizationAloneAndStrengthZero"
# lane-private's 16-bit, tiny shapes and repeated launches; packed's one-value warps.
memcheck_filter+=":LanePrivateGpu.CountsCross65535PerBinAndTinyShapes:PackedGpu.Small"
# Every engine at the most bins and channels it claims (the most shared memory per block).
memcheck_filter+=":GpuEngines/GpuEngineMatrix.LargestConfigurationItClaims/*"
racecheck_filter="$memcheck_filter"

declare -a summary=()
failed=0

# stage <name> <log file> <command...>: runs the command (output appended to the log), never
# stops the script.
stage() {
    local name="$1" log="$out/$2"
    shift 2
    local start=$SECONDS rc=0
    echo "== $name: $*" | tee -a "$log"
    "$@" >>"$log" 2>&1 || rc=$?
    local took=$((SECONDS - start))
    if [ "$rc" -eq 0 ]; then
        summary+=("PASS  $name (${took}s, $(basename "$log"))")
    else
        summary+=("FAIL  $name (exit $rc, ${took}s, $(basename "$log"))")
        failed=1
        echo "-- $name failed (exit $rc); last lines of $log:"
        tail -n 25 "$log" || true
    fi
    return 0
}
# Fails (listing them) when ctest skipped any test.
# shellcheck disable=SC2317  # called through stage()
no_skips() {
    # Read into a variable first: the log may be the file stage() appends to.
    local skipped
    skipped="$(grep -E '\(Skipped\)' "$1" || true)"
    if [ -n "$skipped" ]; then
        echo "skipped GPU tests:"
        echo "$skipped"
        return 1
    fi
}
skip() {
    summary+=("SKIP  $1 ($2)")
    echo "== $1: skipped ($2)"
}

fingerprint="$("$root/scripts/gpu-fingerprint.sh")"
commit="${HS_COMMIT:-$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)}"
{
    echo "fingerprint: $fingerprint"
    echo "date: $(date -u +%FT%TZ)"
    echo "host: $(hostname)"
    # The device copy of the tree may carry stale git metadata: the caller can name the commit.
    echo "commit: $commit"
    cmake --version | head -n 1 || true
    "$cuda_bin/nvcc" --version | tail -n 2 || true
} >"$out/environment.txt" 2>&1

if command -v nvidia-smi >/dev/null 2>&1; then
    stage "nvidia-smi" environment.txt nvidia-smi
else
    skip "nvidia-smi" "not installed"
fi

stage "configure (gpu-host)" build.log cmake --preset gpu-host
if [ -f "$build/build.ninja" ]; then
    stage "build (all)" build.log cmake --build --preset gpu-host -j "$jobs"
    if [ ! -x "$build/tests/cuda/test_cuda" ]; then
        # Other parts of the tree may not build yet: still build the GPU library and tests.
        stage "build (test_cuda only)" build.log \
            cmake --build --preset gpu-host -j "$jobs" --target test_cuda
    fi
else
    skip "build" "not configured"
fi

gpu_tests="$build/tests/cuda/test_cuda"
cli="$(find "$build" -type f -name histoscope-cli -perm -u+x 2>/dev/null | head -n 1 || true)"

if [ -n "$cli" ]; then
    stage "device query (histoscope-cli kernels)" environment.txt "$cli" kernels
elif [ -x "$gpu_tests" ]; then
    stage "device query (test_cuda)" environment.txt "$gpu_tests" \
        --gtest_filter='CudaHost.QueryDevicesNeverThrows:CudaHost.AvailabilityFollowsTheDevice'
else
    skip "device query" "neither histoscope-cli nor test_cuda was built"
fi

# The bundled photos and every frame of the bundled clips as raw frames for the GPU tests and
# the stream benchmark (no OpenCV C++ here; Python cv2).
raw_photos="$(mktemp -d)"
raw_clips="$(mktemp -d)"
export HS_RAW_PHOTOS="$raw_photos" HS_RAW_CLIPS="$raw_clips"
python3 - "$root/resources/samples" "$raw_photos" "$raw_clips" <<'PY' >>"$out/environment.txt" 2>&1 || true
import os, sys, cv2
src, photos, clips = sys.argv[1:4]
for name in sorted(os.listdir(src)):
    path = os.path.join(src, name)
    if name.lower().endswith((".avi", ".mp4")):
        cap = cv2.VideoCapture(path)
        frames = 0
        with open(os.path.join(clips, "partial"), "wb") as f:
            while True:
                ok, bgr = cap.read()
                if not ok:
                    break
                h, w = bgr.shape[:2]
                cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB).tofile(f)
                frames += 1
        if frames == 0:
            os.remove(os.path.join(clips, "partial"))
            print("raw clip:", name, "has no decodable frame")
            continue
        os.rename(os.path.join(clips, "partial"), os.path.join(clips, f"{name}.{w}x{h}x3.u8.raw"))
        print("raw clip:", name, frames, "frames", w, "x", h)
        continue
    if not name.lower().endswith((".jpg", ".png", ".tif")):
        continue
    img = cv2.imread(path, cv2.IMREAD_UNCHANGED)
    if img is None:
        continue
    if img.ndim == 3:
        img = cv2.cvtColor(img, cv2.COLOR_BGR2RGB if img.shape[2] == 3 else cv2.COLOR_BGRA2RGBA)
    c = 1 if img.ndim == 2 else img.shape[2]
    t = "u8" if img.dtype.name == "uint8" else "u16"
    img.astype("<" + ("u1" if t == "u8" else "u2")).tofile(
        os.path.join(photos, f"{name}.{img.shape[1]}x{img.shape[0]}x{c}.{t}.raw"))
    print("raw photo:", name, img.shape, t)
PY

if [ -f "$build/CTestTestfile.cmake" ]; then
    stage "ctest -L gpu" ctest.log \
        ctest --preset gpu-host -L gpu --output-on-failure
    # On the GPU host a skipped GPU test means the device was not usable: that is a failure.
    if [ -f "$out/ctest.log" ]; then
        stage "GPU tests ran (none skipped)" ctest.log no_skips "$out/ctest.log"
    fi
    stage "ctest -L cpu|cli" ctest.log \
        ctest --preset gpu-host -L "cpu|cli" --output-on-failure -j 8
else
    skip "ctest" "not configured"
fi

if [ -n "$cli" ]; then
    stage "histoscope-cli: GPU engines equal cpu on the 4K photo" cli-gpu.log \
        "$root/scripts/cli-gpu-compare.sh" "$cli" "$root/resources/samples/fruits_4k.jpg"
else
    skip "histoscope-cli end to end" "histoscope-cli was not built"
fi

sanitizer=""
for candidate in "$cuda_bin/compute-sanitizer" "$cuda_bin/../compute-sanitizer/compute-sanitizer" \
    "$(command -v compute-sanitizer || true)"; do
    if [ -n "$candidate" ] && [ -x "$candidate" ]; then
        sanitizer="$candidate"
        break
    fi
done
if [ -x "$gpu_tests" ] && [ -n "$sanitizer" ]; then
    stage "compute-sanitizer memcheck" sanitizer.log \
        timeout "$san_timeout" "$sanitizer" --tool memcheck --leak-check full --error-exitcode 86 \
        "$gpu_tests" --gtest_filter="$memcheck_filter"
    stage "compute-sanitizer racecheck" sanitizer.log \
        timeout "$san_timeout" "$sanitizer" --tool racecheck --racecheck-report all \
        --error-exitcode 86 "$gpu_tests" --gtest_filter="$racecheck_filter"
else
    skip "compute-sanitizer" "no test binary, or compute-sanitizer not found"
fi

if [ "${HS_SKIP_STREAM:-0}" != 1 ] && [ -n "$cli" ]; then
    stage "stream benchmark (scripts/gpu-stream.sh)" summary.txt \
        "$root/scripts/gpu-stream.sh" "$cli" "$raw_clips" "$out/stream.json"
fi
if [ "${HS_SKIP_BENCH:-0}" != 1 ] && [ -n "$cli" ]; then
    stage "benchmark (scripts/gpu-bench.sh)" summary.txt "$root/scripts/gpu-bench.sh" "$cli" "$out/bench.json"
fi

echo
echo "================ gpu-check summary ================"
echo "fingerprint: $fingerprint (scripts/gpu-fingerprint.sh: cuda/ and tests/cuda/)"
grep -E "^# GPU|^block-shared" "$out/environment.txt" | head -n 8 || true
for log in ctest.log cli-gpu.log; do
    if [ -f "$out/$log" ]; then
        grep -E "tests passed|tests failed|^(MATCH|MISMATCH|REFUSED)" "$out/$log" | sed "s/^/$log: /" || true
    fi
done
for log in sanitizer.log; do
    if [ -f "$out/$log" ]; then
        grep -E "ERROR SUMMARY|RACECHECK SUMMARY|  PASSED  |  FAILED  " "$out/$log" |
            sed "s/^/$log: /" || true
    fi
done
printf '%s\n' "${summary[@]}" | tee -a "$out/summary.txt"
passes=$(printf '%s\n' "${summary[@]}" | grep -c '^PASS' || true)
fails=$(printf '%s\n' "${summary[@]}" | grep -c '^FAIL' || true)
skips=$(printf '%s\n' "${summary[@]}" | grep -c '^SKIP' || true)
ran_all=0
printf '%s\n' "${summary[@]}" | grep -q '^PASS  benchmark' &&
    printf '%s\n' "${summary[@]}" | grep -q '^PASS  stream benchmark' && ran_all=1
device="$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1 || true)"
line="| $fingerprint | $(date -u +%F) | $commit | ${device:-no GPU} | $passes PASS, $fails FAIL, $skips SKIP |"
if [ "$fails" -eq 0 ] && [ "$skips" -eq 0 ] && [ "$ran_all" -eq 1 ]; then
    echo "gpu-verified.md: $line" | tee -a "$out/summary.txt"
else
    echo "not a full pass (a stage failed or was skipped, or the benchmarks did not run):" \
        "do not record $fingerprint in docs/perf/gpu-verified.md" | tee -a "$out/summary.txt"
fi
echo "logs: $out"
exit "$failed"
