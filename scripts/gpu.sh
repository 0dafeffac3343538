#!/usr/bin/env bash
# Everything run on the GPU host, one command per job (the device runner allows 10 minutes a
# call: each job fits in one):
#
#   scripts/gpu.sh check          build (gpu-host preset), GPU and CPU tests, every GPU engine
#                                 against cpu through the CLI, compute-sanitizer memcheck and
#                                 racecheck, then the stream and kernel benchmarks; the summary
#                                 starts with the GPU code's fingerprint and ends with the line
#                                 for docs/perf/gpu-verified.md after a full pass (about 9
#                                 minutes on the H100 when already built: build in a call before)
#   scripts/gpu.sh bench [RUNS]   the "bench" cases of scripts/gpu/cases.tsv with every engine
#   scripts/gpu.sh bench-ab BASE [RUNS]
#                                 the "bench" cases with every engine, built from two trees in
#                                 the same run: BASE (a source tree, as scripts/gpu/export-base.sh
#                                 writes it from a commit and the call carries it) and this one,
#                                 in turn twice; a table of both medians and their ratio per case
#                                 and engine (before and after a change that must not slow
#                                 anything)
#   scripts/gpu.sh stream         the frame pipeline on the bundled 4K clip (10,032 frames, and
#                                 2 and 4 frames in flight)
#   scripts/gpu.sh learn-auto [RUNS]
#                                 the "learn" cases with every engine; writes auto's selection
#                                 map (cuda/src/auto/selection_map.inc), rebuilds, runs auto
#                                 alone on every case and reports it against the best engine
#   scripts/gpu.sh auto [RUNS]    the "learn" cases with every engine and the committed map:
#                                 auto against the best engine in the same runs (no learning)
#   scripts/gpu.sh compare        every GPU engine against cpu through histoscope-cli hist
#   scripts/gpu.sh equalize [RUNS]
#                                 the GPU equalizer against the cpu engine and Python OpenCV
#   scripts/gpu.sh gui [INPUT...] the desktop application with the GPU engines, headless: the
#                                 gui-host build and its Qt runtime arrive as .ui-runtime.tar.xz
#                                 (scripts/bundle-ui-runtime.sh build-gui-host, made on the
#                                 development machine: there is no Qt here); runs ctest -L ui,
#                                 then the scripted run (histoscope --screenshot) on the 4K
#                                 photo decoded to a raw frame (or INPUT: histoscope's arguments)
#                                 with its re-renders and Compare Kernels of every engine, on the
#                                 4K clip decoded to a raw stream with --screenshot-play, and on
#                                 synthetic 4K60, 8K30 and 16-bit 4K60 streams (600 frames by the
#                                 clock and unpaced) and an 8K photo's re-renders; PNGs of the
#                                 windows and of Compare Kernels to the output folder
#
# Logs and JSON go to ${OUT:-out}/ (at most 8 files: the runner returns no more). Environment:
# HS_JOBS (build jobs, default 16), HS_TEST_JOBS (GPU tests at once, default 8),
# HS_SANITIZER_TIMEOUT (seconds per sanitizer run, default 300), HS_COMMIT (the commit named in
# the summary when the tree on the host has no git metadata), HS_SKIP_BENCH=1 / HS_SKIP_STREAM=1
# (check without the benchmarks: not a full pass).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
tools="$root/scripts/gpu/tools.py"
build="$root/build-gpu"
cli="$build/app/histoscope-cli"
cuda_bin="${CUDA_HOME:-/usr/local/cuda}/bin"
export PATH="$PATH:$cuda_bin"
out="${OUT:-out}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
jobs="${HS_JOBS:-16}"

build_cli() {  # configures and builds the gpu-host preset (only what is missing)
    if [ ! -d /usr/include/CLI ] && [ ! -d "$root/.deps/include/CLI" ]; then
        echo "error: CLI11 and nlohmann JSON are missing: run scripts/vendor-header-deps.sh" \
            "on the development machine and carry .deps" >&2
        return 1
    fi
    cmake --preset gpu-host >/dev/null && cmake --build --preset gpu-host -j "$jobs"
}

# Decodes the bundled media once into $raw (photos and clips; with --tiled, the 256 MiB gray
# tilings of the cases too).
raw=""
decode() {
    [ -n "$raw" ] || raw="$(mktemp -d)"
    python3 "$tools" decode "$root/resources/samples" "$raw" "$@"
}

# run_cases SET DIR RUNS [ARGS...]: `histoscope-cli bench` on every case of SET, one JSON (and
# auto's trace) per case in DIR. Every case runs; fails when any failed (naming them).
run_cases() {
    local set="$1" dir="$2" runs="$3" name args rc=0 failed=()
    shift 3
    mkdir -p "$dir"
    while IFS=$'\t' read -r name args; do
        echo "case: $name: histoscope-cli bench $args $*" >&2
        # shellcheck disable=SC2086  # the case's arguments are words
        HS_AUTO_TRACE="$dir/$name.trace" "$cli" bench $args "$@" --runs "$runs" --warmup 2 \
            --format json -o "$dir/$name${suffix:-}.json" || { rc=$?; failed+=("$name (exit $rc)"); }
    done < <(python3 "$tools" cases "$set" "$raw")
    if [ "${#failed[@]}" -gt 0 ]; then
        echo "error: benchmark cases failed: ${failed[*]}" >&2
        return 1
    fi
}

cmd_bench() {
    local runs="${1:-20}" dir rc=0
    dir="$(mktemp -d)"
    [ -n "$raw" ] || decode
    run_cases bench "$dir" "$runs" || rc=$?
    python3 "$tools" bench-report "$dir" "$out/bench.json" || rc=$?
    return "$rc"
}

cmd_bench_ab() {
    local base="${1:?gpu.sh bench-ab: BASE, a source tree}" runs="${2:-20}" dir rc=0 new_cli="$cli"
    [ -f "$base/CMakePresets.json" ] || { echo "gpu.sh bench-ab: $base is not a source tree" >&2; return 2; }
    base="$(cd "$base" && pwd)"
    [ -e "$base/.deps" ] || ln -s "$root/.deps" "$base/.deps"
    (cd "$base" && cmake --preset gpu-host -DHS_BUILD_TESTS=OFF >/dev/null &&
        cmake --build --preset gpu-host -j "$jobs" --target histoscope-cli) >>"$out/build.log" 2>&1
    dir="$(mktemp -d)"
    [ -n "$raw" ] || decode
    for round in 1 2; do
        cli="$base/build-gpu/app/histoscope-cli" suffix=".base.$round" run_cases bench "$dir" "$runs" || rc=$?
        cli="$new_cli" suffix=".new.$round" run_cases bench "$dir" "$runs" || rc=$?
    done
    python3 "$tools" ab-report "$dir" "$out/bench-ab.json" || rc=$?
    return "$rc"
}

cmd_stream() {
    [ -n "$raw" ] || decode
    local clip fmt dir rc=0
    clip="$(find "$raw" -name 'starry_pan_4k.mp4.*.u8.raw' | head -n 1)"
    [ -n "$clip" ] || { echo "gpu.sh stream: no raw dump of starry_pan_4k.mp4" >&2; return 1; }
    fmt="$(basename "$clip" .raw)"  # starry_pan_4k.mp4.WxHx3.u8 -> WxHx3:u8
    fmt="${fmt#starry_pan_4k.mp4.}"
    fmt="${fmt%.u8}:u8"
    dir="$(mktemp -d)"
    # Histograms of R, G, B and global equalization of the luminance of every frame, the result
    # downloaded; one run loops the 48 frames 209 times (memory at the start, after the first
    # pass and at the end), two vary the frames in flight, and three rounds compare the same
    # work without scopes (scopes_base) and with the RGB parade and the vectorscope (512 columns
    # as the desktop panel asks, and one column per image column). Each verifies one pass.
    local runs=("loop_10032_depth3 --loop 209" "depth2 --depth-in-flight 2 --loop 2"
        "depth4 --depth-in-flight 4 --loop 2")
    for round in 1 2 3; do
        runs+=("scopes_base_$round --loop 2"
            "scopes_512_$round --loop 2 --scope parade,vectorscope --columns 512"
            "scopes_full_$round --loop 2 --scope parade,vectorscope")
    done
    for run in "${runs[@]}"; do
        # shellcheck disable=SC2086  # a run is its name and its arguments
        set -- $run
        local name="$1"
        shift
        echo "stream: $name: histoscope-cli bench --raw $fmt $clip --stream $* --verify-frames 48" >&2
        "$cli" bench --raw "$fmt" "$clip" --stream "$@" --verify-frames 48 --format json \
            -o "$dir/$name.json" || rc=$?
    done
    python3 "$tools" stream-report "$dir" "$out/stream.json" || rc=$?
    return "$rc"
}

cmd_learn_auto() {
    local runs="${1:-20}" dir
    dir="$(mktemp -d)"
    decode --tiled >/dev/null
    run_cases learn "$dir" "$runs" || return
    python3 "$tools" learn "$dir" "$root/cuda/src/auto/selection_map.inc"
    cp "$root/cuda/src/auto/selection_map.inc" "$out/selection_map.inc"
    build_cli >>"$out/build.log" 2>&1
    local rc=0
    suffix=.auto run_cases learn "$dir" "$runs" --kernels auto || rc=$?
    python3 "$tools" auto-report "$dir" "$out/auto.json" || rc=$?
    return "$rc"
}

cmd_auto() {
    local runs="${1:-20}" dir rc=0
    dir="$(mktemp -d)"
    decode --tiled >/dev/null
    run_cases learn "$dir" "$runs" || rc=$?
    python3 "$tools" auto-report "$dir" "$out/auto.json" || rc=$?
    return "$rc"
}

cmd_compare() {
    python3 "$tools" compare "$cli" "$root/resources/samples/fruits_4k.jpg"
}

cmd_equalize() {
    python3 "$tools" equalize-bench "$cli" "$out/equalize.json" "${1:-21}" "${HS_EQ_KERNEL:-gpu}"
}

# --- gui ---------------------------------------------------------------------------------------
# LOG: Compare Kernels ran every engine of the build, GPU ones included (here an unavailable
# engine means an unusable GPU; one that does not support the input's shape only says so).
# shellcheck disable=SC2317  # called through stage()
all_engines_ran() {
    if grep -qE '^compare: [^:]+: (unavailable|error):' "$1"; then
        echo "engines that did not run:"
        grep -E '^compare: [^:]+: (unavailable|error):' "$1" | sed 's/^/  /'
        return 1
    fi
    grep -qE '^compare: [^:]+: ok, exact' "$1"
}

# raw_format FILE: the --raw format of a file tools.py decode wrote (NAME.WxHxC.TYPE.raw).
raw_format() {
    local f="${1%.raw}"
    echo "$(basename "${f%.*}" | sed 's/.*\.//'):${f##*.}"
}

cmd_gui() {
    local runtime="$root/.ui-runtime" src bld photo clip raw
    for f in gui-environment.txt gui-ctest.log gui-screenshot.log gui-window.png gui-compare.png \
        gui-play.png gui-summary.txt; do rm -f "${out:?}/$f"; done
    if [ ! -f "$runtime/env.sh" ]; then
        [ -f "$runtime.tar.xz" ] || {
            echo "gpu.sh gui: no .ui-runtime.tar.xz: make it with scripts/bundle-ui-runtime.sh" \
                "build-gui-host on the development machine and carry it" >&2
            return 1
        }
        tar -C "$root" -xJf "$runtime.tar.xz"
    fi
    # The build's tests and programs name the folders it was made in (sources, samples, the
    # programs): here those paths lead to this tree and to the bundled build.
    { read -r src && read -r bld; } <"$runtime/build/ORIGIN"
    if [ ! -e "$src" ]; then
        mkdir -p "$(dirname "$src")"
        ln -s "$root" "$src"
    fi
    if [ ! -e "$bld" ]; then
        mkdir -p "$(dirname "$bld")"
        ln -s "$runtime/build" "$bld"
    fi
    # shellcheck source=/dev/null
    source "$runtime/env.sh"
    XDG_CONFIG_HOME="$(mktemp -d)"  # first-start settings
    export XDG_CONFIG_HOME
    {
        echo "date: $(date -u +%FT%TZ)"
        echo "host: $(hostname)"
        echo "build: $bld (from $src)"
        nvidia-smi -L || true
    } >"$out/gui-environment.txt" 2>&1
    # The 4K photo and clip as raw frames (the gui-host build has no OpenCV to decode them).
    raw="$(mktemp -d)"
    stage "decode the 4K photo and clip to raw frames (Python cv2)" gui-environment.txt \
        python3 "$tools" decode "$root/resources/samples" "$raw" fruits_4k.jpg starry_pan_4k.mp4
    photo="$(find "$raw" -name 'fruits_4k.jpg.*.raw' | head -n 1)"
    clip="$(find "$raw" -name 'starry_pan_4k.mp4.*.raw' | head -n 1)"
    local input=("$@")
    [ ${#input[@]} -gt 0 ] || [ -z "$photo" ] || input=(--raw "$(raw_format "$photo")" "$photo")
    stage "ctest -L ui (gui-host build, bundled Qt, offscreen)" gui-ctest.log \
        ctest --test-dir "$bld" -L ui --output-on-failure
    if [ ${#input[@]} -gt 0 ]; then
        stage "histoscope --screenshot --screenshot-rerender --screenshot-compare ${input[*]}" \
            gui-screenshot.log "$bld/app/histoscope" --screenshot "$out/gui-window.png" \
            --screenshot-rerender --screenshot-compare "$out/gui-compare.png" \
            --screenshot-timeout 300 "${input[@]}"
        stage "Compare Kernels ran and verified every engine" gui-screenshot.log \
            all_engines_ran "$out/gui-screenshot.log"
    else
        record "the 4K photo as a raw frame: not decoded (see gui-environment.txt)" \
            gui-environment.txt 1 0
    fi
    if [ -n "$clip" ]; then
        stage "histoscope --screenshot --screenshot-play (the 4K clip as raw frames)" \
            gui-screenshot.log "$bld/app/histoscope" --screenshot "$out/gui-play.png" \
            --screenshot-play --screenshot-timeout 300 --raw "$(raw_format "$clip")" "$clip"
    else
        record "the 4K clip as raw frames: not decoded (see gui-environment.txt)" \
            gui-environment.txt 1 0
    fi
    # The playback targets: 600 frames of synthetic 4K at 60 fps, 8K at 30 fps and 16-bit 4K
    # at 60 fps, by the clock and unpaced; the 8K photo's re-renders (their PNGs stay here).
    local synth scratch name rate f
    synth="$(mktemp -d)" scratch="$(mktemp -d)"
    stage "write the synthetic streams and the 8K photo (Python numpy)" gui-environment.txt \
        python3 "$tools" synth-streams "$root/resources/samples" "$synth"
    for s in pan_4k:60 pan_8k:30 pan_4k_16bit:60; do
        name="${s%%:*}" rate="${s##*:}"
        f="$(find "$synth" -name "$name.*.raw" | head -n 1)"
        [ -n "$f" ] || continue
        stage "histoscope --screenshot-play 600 frames of $name at $rate fps, by the clock" \
            gui-screenshot.log "$bld/app/histoscope" --screenshot "$scratch/$name.png" \
            --screenshot-play --screenshot-frames 600 --screenshot-timeout 200 \
            --raw "$(raw_format "$f")" --fps "$rate" "$f"
        stage "histoscope --screenshot-play 600 frames of $name, unpaced" gui-screenshot.log \
            "$bld/app/histoscope" --screenshot "$scratch/$name-unpaced.png" --screenshot-play \
            --screenshot-unpaced --screenshot-frames 600 --screenshot-timeout 200 \
            --raw "$(raw_format "$f")" "$f"
    done
    f="$(find "$synth" -name 'photo_8k.*.raw' | head -n 1)"
    if [ -n "$f" ]; then
        stage "histoscope --screenshot-rerender (the 8K photo as a raw frame)" gui-screenshot.log \
            "$bld/app/histoscope" --screenshot "$scratch/photo_8k.png" --screenshot-rerender \
            --screenshot-timeout 200 --raw "$(raw_format "$f")" "$f"
    fi
    rm -rf "$raw" "$synth" "$scratch"
    echo
    echo "================ gpu.sh gui summary ================"
    grep -E "tests passed|tests failed|Disabled" "$out/gui-ctest.log" | sed "s/^/gui-ctest.log: /" || true
    grep -E "^compare: |^played: |^stages |^photo: |^rerender: |^wrote " "$out/gui-screenshot.log" |
        sed "s/^/gui-screenshot.log: /" || true
    printf '%s\n' "${summary[@]}" | tee "$out/gui-summary.txt"
    return "$failed"
}

# --- check -------------------------------------------------------------------------------------
declare -a summary=()
failed=0
# record NAME LOG RC SECONDS: the stage's summary line.
record() {
    if [ "$3" -eq 0 ]; then
        summary+=("PASS  $1 (${4}s, $2)")
    else
        summary+=("FAIL  $1 (exit $3, ${4}s, $2)")
        failed=1
        echo "-- $1 failed (exit $3); last lines of $2:"
        tail -n 25 "$out/$2" || true
    fi
}
# stage NAME LOG COMMAND...: runs the command (output appended to the log), never stops.
stage() {
    local name="$1" log="$2" start=$SECONDS rc=0
    shift 2
    echo "== $name: $*" | tee -a "$out/$log"
    "$@" >>"$out/$log" 2>&1 || rc=$?
    record "$name" "$log" "$rc" $((SECONDS - start))
}
# beside NAME LOG COMMAND...: the same in the background, with its own log until collected; the
# correctness stages time nothing, so they share the GPU. collect_beside waits for them.
declare -a beside_names=() beside_logs=() beside_parts=() beside_pids=() beside_starts=()
beside() {
    local name="$1" log="$2" part
    shift 2
    part="$(mktemp)"
    echo "== $name (beside the tests): $*" >"$part"
    echo "== $name: started beside the tests, its log follows when it ends"
    ("$@" >>"$part" 2>&1; echo $? >"$part.rc") &
    beside_names+=("$name") beside_logs+=("$log") beside_parts+=("$part")
    beside_pids+=($!) beside_starts+=("$SECONDS")
}
collect_beside() {
    local i rc
    for i in "${!beside_pids[@]}"; do
        wait "${beside_pids[$i]}" || true
        rc="$(cat "${beside_parts[$i]}.rc" 2>/dev/null || echo 1)"
        cat "${beside_parts[$i]}" >>"$out/${beside_logs[$i]}"
        record "${beside_names[$i]}" "${beside_logs[$i]}" "$rc" $((SECONDS - beside_starts[i]))
    done
}
# Fails (listing them) when ctest skipped a test: on the GPU host that means no usable device.
# shellcheck disable=SC2317  # called through stage()
no_skips() {
    local skipped
    skipped="$(grep -E '\(Skipped\)' "$1" || true)"
    [ -z "$skipped" ] || { echo "skipped tests:"; echo "$skipped"; return 1; }
}

cmd_check() {
    local files="environment.txt build.log ctest.log compare.log sanitizer.log bench.json"
    files+=" stream.json summary.txt"
    for f in $files; do rm -f "${out:?}/$f"; done
    local fingerprint commit
    fingerprint="$("$root/scripts/gpu-fingerprint.sh")"
    commit="${HS_COMMIT:-$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)}"
    {
        echo "fingerprint: $fingerprint"
        echo "date: $(date -u +%FT%TZ)"
        echo "host: $(hostname)"
        echo "commit: $commit"
        cmake --version | head -n 1 || true
        "$cuda_bin/nvcc" --version | tail -n 2 || true
    } >"$out/environment.txt" 2>&1
    stage "nvidia-smi" environment.txt nvidia-smi
    stage "build (gpu-host)" build.log build_cli
    stage "device query (histoscope-cli kernels)" environment.txt "$cli" kernels
    stage "decode the bundled media (Python cv2)" environment.txt decode
    export HS_RAW_PHOTOS="$raw" HS_RAW_CLIPS="$raw"

    # Every engine of the matrix on small and 4K inputs and at the most bins and channels it
    # claims; the frame pipeline's odd, 16-bit and 4-channel frames, its pictures (display
    # kernels) and its resubmitted frames; lane-private's tiny shapes and 16-bit counts; packed's
    # one-value warps; the benchmark's read-only floor.
    local filter="GpuEngines/GpuEngineMatrix.ServesThePlainCase/*:GpuEngines/GpuEngineMatrix.FourK/*"
    filter+=":GpuEngines/GpuEngineMatrix.LargestConfigurationItClaims/*"
    filter+=":GpuPipeline.OddShapesSixteenBitAndFourChannels:GpuPipeline.EqualizationAloneAndStrengthZero"
    filter+=":GpuPipeline.PicturesAndEqualizedHistogramsEqualTheReference"
    filter+=":GpuPipeline.ReconfigureAndResubmitTheFrameOnTheDevice:GpuPipeline.RegionsAndScopes"
    filter+=":LanePrivateGpu.CountsCross65535PerBinAndTinyShapes:PackedGpu.Small"
    filter+=":GpuScopes.OddShapesStridesAndDepths:GpuScopes.CountsPastSixteenBits"
    filter+=":ReadFloor.ReadsEveryByteOfEveryShape"
    local sanitizer="$cuda_bin/compute-sanitizer" timeout_s="${HS_SANITIZER_TIMEOUT:-300}"
    beside "compute-sanitizer memcheck" sanitizer.log timeout "$timeout_s" "$sanitizer" \
        --tool memcheck --leak-check full --error-exitcode 86 "$build/tests/cuda/test_cuda" \
        --gtest_filter="$filter"
    beside "compute-sanitizer racecheck" sanitizer.log timeout "$timeout_s" "$sanitizer" \
        --tool racecheck --racecheck-report all --error-exitcode 86 \
        "$build/tests/cuda/test_cuda" --gtest_filter="$filter"
    stage "ctest -L gpu (not alone)" ctest.log ctest --preset gpu-host -L gpu -LE alone \
        --output-on-failure -j "${HS_TEST_JOBS:-8}"
    stage "ctest -L cpu|cli" ctest.log ctest --preset gpu-host -L "cpu|cli" --output-on-failure \
        -j 8
    stage "GPU engines equal cpu through the CLI" compare.log cmd_compare
    collect_beside
    # Tests that read device-wide state, with the device to themselves.
    stage "ctest -L alone" ctest.log ctest --preset gpu-host -L alone --output-on-failure
    stage "no test skipped" ctest.log no_skips "$out/ctest.log"
    if [ "${HS_SKIP_STREAM:-0}" != 1 ]; then
        stage "stream benchmark" summary.txt cmd_stream
    fi
    if [ "${HS_SKIP_BENCH:-0}" != 1 ]; then
        stage "kernel benchmark" summary.txt cmd_bench
    fi

    echo
    echo "================ gpu.sh check summary ================"
    echo "fingerprint: $fingerprint (scripts/gpu-fingerprint.sh: cuda/, tests/cuda/ and the headers device code compiles)"
    grep -E "^# GPU" "$out/environment.txt" | head -n 4 || true
    grep -E "tests passed|tests failed" "$out/ctest.log" | sed "s/^/ctest.log: /" || true
    echo "compare.log: $(grep -c '^MATCH' "$out/compare.log") MATCH," \
        "$(grep -c '^MISMATCH' "$out/compare.log") MISMATCH, $(grep -c '^REFUSED' "$out/compare.log") REFUSED"
    grep -E "^MISMATCH" "$out/compare.log" | sed "s/^/compare.log: /" || true
    grep -E "ERROR SUMMARY|LEAK SUMMARY|RACECHECK SUMMARY|  PASSED  |  FAILED  " \
        "$out/sanitizer.log" | sed "s/^/sanitizer.log: /" || true
    printf '%s\n' "${summary[@]}" | tee -a "$out/summary.txt"
    local passes fails line device
    passes=$(printf '%s\n' "${summary[@]}" | grep -c '^PASS' || true)
    fails=$(printf '%s\n' "${summary[@]}" | grep -c '^FAIL' || true)
    device="$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1 || true)"
    line="| $fingerprint | $(date -u +%F) | $commit | ${device:-no GPU} | $passes PASS, $fails FAIL |"
    if [ "$fails" -eq 0 ] && printf '%s\n' "${summary[@]}" | grep -q '^PASS  kernel benchmark' &&
        printf '%s\n' "${summary[@]}" | grep -q '^PASS  stream benchmark'; then
        echo "gpu-verified.md: $line" | tee -a "$out/summary.txt"
    else
        echo "not a full pass (a stage failed, or the benchmarks did not run): do not record" \
            "$fingerprint in docs/perf/gpu-verified.md" | tee -a "$out/summary.txt"
    fi
    return "$failed"
}

job="${1:-}"
[ $# -gt 0 ] && shift
case "$job" in
    check) cmd_check ;;
    gui) cmd_gui "$@" ;;
    bench | bench-ab | stream | compare | equalize | auto | learn-auto)
        build_cli >>"$out/build.log" 2>&1
        "cmd_${job//-/_}" "$@"
        ;;
    *)
        sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2
        exit 2
        ;;
esac
