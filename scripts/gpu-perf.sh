#!/usr/bin/env bash
# Issue 7 in one call on the GPU host: build, the engine matrix for the engines named in
# HS_PERF_TEST_ENGINES (default lane_private and auto), every case of gpu-learn-auto.sh with
# every GPU engine (learning auto's selection map), a rebuild with the learned map, auto alone
# on every case, and a summary: per case the best engine, auto's choice and its ratio to the
# best, and the issue's targets. Logs and JSON go to OUTDIR (default $OUT).
# Usage: gpu-perf.sh [OUTDIR] [RUNS]
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-${OUT:-/tmp/gpu-perf}}"
runs="${2:-20}"
mkdir -p "$out"
work="$(mktemp -d)"
cd "$root"
log() { echo "== $*" | tee -a "$out/summary.txt"; }

t0=$(date +%s)
cmake --preset gpu-host >"$out/build.log" 2>&1 &&
    cmake --build build-gpu -j16 --target histoscope-cli test_cuda >>"$out/build.log" 2>&1
log "build rc=$? $(($(date +%s) - t0)) s"
cli=build-gpu/app/histoscope-cli
engines="${HS_PERF_TEST_ENGINES:-lane_private:auto}"
filter=$(echo "$engines" | tr ':' '\n' | sed 's|^|GpuEngines/GpuEngineMatrix.*/|' | paste -sd: -)
timeout 60 build-gpu/tests/cuda/test_cuda --gtest_filter="$filter" >"$out/tests.log" 2>&1
log "tests rc=$? ($filter): $(grep -E '^\[  (PASSED|FAILED)' "$out/tests.log" | tr '\n' ' ')"

scripts/gpu-learn-auto.sh "$cli" "$work" "$runs" 2>"$out/learn.log"
log "learn rc=$? $(($(date +%s) - t0)) s"
cp cuda/src/auto/selection_map.inc "$out/selection_map.inc"
cmake --build build-gpu -j16 --target histoscope-cli >>"$out/build.log" 2>&1
log "rebuild rc=$?"
suffix=.auto scripts/gpu-learn-auto.sh --cases "$cli" "$work" auto "$runs" 2>>"$out/learn.log"
log "auto pass rc=$? $(($(date +%s) - t0)) s"

python3 - "$work" "$out/perf.json" <<'PY' | tee -a "$out/summary.txt"
import json, os, sys
work, out = sys.argv[1:3]
cases = {}
for f in sorted(os.listdir(work)):
    if f.endswith(".json"):
        cases[f[:-5]] = json.load(open(os.path.join(work, f)))
traces = {f[:-6]: open(os.path.join(work, f)).read().strip().splitlines()
          for f in os.listdir(work) if f.endswith(".trace")}
json.dump({"cases": cases, "auto_traces": traces}, open(out, "w"), indent=1)
print(f"{'case':<24}{'bw':>6} {'best':<14}{'ms':>9}{'GB/s':>8}  {'auto->':<14}{'ms':>9}{'ratio':>7}  all verified")
for name in sorted(c for c in cases if "." not in c):
    doc = cases[name]
    rs = [r for r in doc["results"] if r["status"] == "ok"]
    ok = [r for r in rs if r["verified"] and r["kernel"] != "auto"]
    if not ok:
        print(f"{name:<24} no verified result"); continue
    best = min(ok, key=lambda r: r["median_ms"])
    auto = [r for r in cases.get(name + ".auto", {"results": []})["results"] if r["status"] == "ok"]
    chosen = traces.get(name, ["?\t?"])[-1].split("\t")[1]
    a = auto[0] if auto else None
    allv = all(r["verified"] for r in rs) and (a is None or a["verified"])
    print(f"{name:<24}{doc['read_bandwidth_gbs']:>6.0f} {best['kernel']:<14}{best['median_ms']:>9.4f}"
          f"{best['gb_s']:>8.0f}  {chosen:<14}{(a['median_ms'] if a else float('nan')):>9.4f}"
          f"{(a['median_ms'] / best['median_ms'] if a else float('nan')):>7.3f}  {allv}")
print()
for name in sorted(c for c in cases if "." not in c):
    print(f"-- {name}: " + ", ".join(
        f"{r['kernel']} {r['median_ms']:.4f}ms {r['gb_s']:.0f}GB/s{'' if r['verified'] else ' UNVERIFIED'}"
        for r in cases[name]["results"] if r["status"] == "ok"))
PY
rm -rf "$work"
