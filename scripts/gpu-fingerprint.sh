#!/usr/bin/env bash
# The fingerprint of the GPU code: the first 16 hex digits of the SHA-256 over the sorted
# list of SHA-256 sums of every source under cuda/ and tests/cuda/ and of every header outside
# them that device code compiles (the closure of the quoted includes of cuda/'s .cu and .cuh
# files: core's luma and colour-matrix formulas, bin rules and the like). The same tree gives
# the same digits here and on the GPU host. A change to any of these files lands on main only
# when `scripts/gpu.sh check` passed in full on the H100 for its fingerprint and the line is in
# docs/perf/gpu-verified.md (README, "Changing GPU code"). `--files` lists the files instead.
set -euo pipefail
cd "$(dirname "$0")/.."

# The quoted includes of `file` that exist: next to it, or under one of the include roots.
includes() {
    local file="$1" name root
    while IFS= read -r name; do
        for root in "$(dirname "$file")" core/include cuda/include cuda/src; do
            if [ -f "$root/$name" ]; then
                realpath --relative-to=. "$root/$name"
                break
            fi
        done
    done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$file")
}

declare -A seen=()
queue=()
while IFS= read -r -d '' f; do queue+=("$f"); done < <(find cuda -type f \( -name '*.cu' -o -name '*.cuh' \) -print0)
while [ "${#queue[@]}" -gt 0 ]; do
    f="${queue[0]}"
    queue=("${queue[@]:1}")
    [ -z "${seen[$f]:-}" ] || continue
    seen[$f]=1
    while IFS= read -r g; do [ -n "${seen[$g]:-}" ] || queue+=("$g"); done < <(includes "$f")
done

files() {
    find cuda tests/cuda -type f \( -name '*.cu' -o -name '*.cuh' -o -name '*.cpp' -o -name '*.hpp' \
        -o -name '*.inc' -o -name CMakeLists.txt \) -print0
    for f in "${!seen[@]}"; do
        case "$f" in cuda/* | tests/cuda/*) ;; *) printf '%s\0' "$f" ;; esac
    done
}

if [ "${1:-}" = "--files" ]; then
    files | LC_ALL=C sort -z | tr '\0' '\n'
    exit 0
fi
files | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -c1-16
