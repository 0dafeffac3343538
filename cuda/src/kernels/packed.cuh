#pragma once
// Strategies "packed" and "packed-sat": shared-memory sub-histograms of packed counters.
//
// Every block keeps its tile of the histogram in shared memory with F = 32 / W counters of
// W = 8 or 16 bits in each 32-bit word (4 x 8 or 2 x 16), so a block holds F times as many
// bins as with 32-bit counters. The counter of local bin b lives in word b mod n, field
// b / n (n = words of the tile): neighbouring bins, which images hit together, lie in
// neighbouring words (different banks, different addresses), not in the same word.
//
// "packed" (Ross's packed atomics): a thread counts n samples of bin b (1 <= n <= 2^W - 1;
// n = 1 but for a warp whose 32 lanes all hold one value, see below) with one
//     old = atomicAdd(&word, n << (W * field))
// and reads from `old` everything this addition did to the word: field `field` wrapped when
// its old value plus n passed 2^W - 1, and then carried one into the next field, which wrapped
// in turn when it was all ones in `old`, and so on (the last carry of the word leaves it). For
// every wrapped field j the thread adds 2^W to the global 64-bit count of j's bin and, when j
// is not the top field, 2^64 - 1 (i.e. -1 modulo 2^64) to the count of field j + 1's bin,
// whose value received the carry. At the end every block adds its fields to the global counts.
// No per-block pixel bound is needed.
//
// Exactness of "packed" (any interleaving of the threads). Shared-memory atomics on one word
// are linearizable: the word undergoes a sequence of additions of n << (W k), each by exactly
// one thread that receives the value before it. Such an addition adds n to field k and one to
// the field above every field it wraps; every field grows by less than 2^W per addition. So
// field j, starting at zero, receives n_j = r_j + w_(j-1) in steps below 2^W: r_j, the samples
// of its own bin, and one carry for each wrap of field j - 1 (w_-1 = 0). Its final value is
// f_j = n_j mod 2^W and it wrapped w_j = floor(n_j / 2^W) times; a step below 2^W wraps a
// field at most once, and only the thread of that addition sees the wrap (field k: its old
// value plus n above 2^W - 1; field j > k: all ones, with fields k + 1..j - 1 all ones and
// field k wrapping), so every wrap is accounted for exactly once. The block's contributions
// to the bin of field j are f_j + 2^W w_j - w_(j-1) = r_j, the number of its samples in that
// bin. Contributions are added to 64-bit counters modulo 2^64 in any order (addition
// commutes); the total over all blocks is the true count, which is below 2^64, so the final
// counter equals it even though partial sums may pass through "negative" values. A field
// beyond the tile's last bin (the top fields of the last words) only ever receives carries;
// its value and its corrections are ignored, which is right because it belongs to no bin.
// Wraps are rare (one per 2^W counts of a bin in a block), so the global atomics they cost do
// not matter.
//
// One-value warps: in one-channel images, when the 32 lanes of a warp load groups whose
// samples all hold one value, lane 0 counts the warp's 32 * P samples (P per group) with
// additions of at most 2^W - 1 instead of 32 * P atomics on one word, which the hardware
// would serialize (a one-value image, flat regions of a photo). The test is two warp votes per
// group; warps that fail it count sample by sample.
//
// "packed-sat" (Parboil-style saturating counters), only for a cap C <= 2^W - 1: a thread
// tries atomicCAS(word, v, v + (1 << shift)) while the field of its latest view v of the word
// is below C (the first view is a guess, 0; every later one is the value a failed CAS
// returned); a field at C stays there (the count is dropped). No addition ever takes a field
// past C <= 2^W - 1, so nothing carries. Exactness: a field's value never decreases and never
// exceeds C; a CAS adds exactly one count to the field and only succeeds on the word's current
// value; a count is dropped only when a value the word really held shows the field at C,
// which it then keeps for good; so the block's field ends at min(c_b, C) for c_b samples of
// the bin in block b. The global counter gets
// S = sum_b min(c_b, C), and the engine base clamps to C: min(S, C) = min(sum_b c_b, C),
// because if some c_b >= C both sides are C (S >= min(c_b, C) = C), and otherwise S is the
// true count. Requests without a cap, or with a cap above 65535 (or above the forced counter
// width), are refused.
//
// The direct path of "packed": 16-bit samples counted by a shift over a whole power-of-two
// range [0, span) (bin = v >> shift, span >> shift >= 2 bins; the 65536 bins of 16-bit deep
// colour, 4096 bins of 12-bit data) fit into one tile of 16-bit counters (at most 128 KiB), and
// then a kernel of its own counts them with the same layout and the same accounting, at a few
// instructions per sample (the generic kernel spends most of its time on the arithmetic of
// arbitrary bins, tiles and widths, not on the atomics):
//  - word and field come from the value by shifts and a mask (packed_direct_slot); with
//    65536 bins they are constants (word v mod 32768, field v / 32768);
//  - a value outside [0, span) adds 0 to a word of the tile, which changes nothing and never
//    wraps, instead of branching around the atomic;
//  - the eight samples of a group are added first and their old values checked after, so that
//    the eight atomics are in flight together (wraps, rare, are accounted for after the group);
//  - a group whose eight samples hold one value is counted with one addition of 8, and a warp
//    whose 32 groups all hold one value with one addition of 256 by one lane (n < 2^16: the
//    proof holds unchanged). A flat region of a photo or a one-value image thus costs one
//    atomic per 8 or 256 samples instead of 256 atomics serialized on one word; in noise one
//    comparison of words (the last word with the first sample) rules a group out, and the warp
//    vote runs only where every lane of the warp found its group flat.
// Measured on the H100 over 256 MiB (lab probes docs/perf/lab/2026-11-26-hist16-direct.cu and
// -prefetch.cu): checking each wrap right after its atomic instead of after all eight, or word
// and field by runtime shifts instead of constants, each cost 5-10 %; more loads in flight
// (registers or a cp.async pipeline in the free shared memory) gained at most 3 %.
//   Where the device launches thread-block clusters (Hopper), the direct kernel runs in
// clusters of two blocks that fold their tiles together: after a cluster barrier each block
// sums its half of the words over both tiles (distributed shared memory) and adds the sums, so
// the end of the kernel, when every block finishes at once, makes half as many global atomics
// (65536 bins of uniform data: 4.3M instead of 8.6M, a fifth of the kernel's time at 256 MiB;
// lab probe docs/perf/lab/2026-11-27-hist16-cluster.cu). The fields' values are summed, not the
// wraps: each wrap was already added to the global counts by the thread that saw it, so the sum
// over blocks of f_j + 2^W w_j - w_(j-1) is unchanged.
//
// Tiling: when the tile of all bins does not fit into the shared memory of a block, the bins
// are split into `tiles` tiles of tile_bins bins (up to 2^24 bins, e.g. the joint RGB
// histogram); blockIdx.y is the tile and a block counts only the values whose bin falls into
// its tile. 8-bit values of plain channels and luma map to bins through a 256-entry table in
// shared memory (built per block for its tile, holding the slot word << 5 | shift); other
// values use the exact integer rules of common/bins.cuh, explicit edges a binary search over the
// tile's thresholds, copied to shared memory.
//
// Tuning (plan_packed): counter width (for "packed" the width with fewer tiles, then more
// resident threads per SM, then 16 bits; for "packed-sat" the narrowest width holding the cap),
// tile size from the device's opt-in shared memory per block, threads from the occupancy API,
// blocks per tile from the resident blocks of the device and the image size. PackedTuning can
// force each choice (tests).
//
// Files: this header (arguments, the per-sample logic the host tests run too, tiling and
// planning), packed_kernel.cuh (the kernel template), packed.cu and packed_sat.cu (the two
// kernel families, instantiated apart so that they compile in parallel, and the launch),
// packed_engine.cpp (both engines).

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gpu_engine.hpp"
#include "kernels/common/bins.cuh"

namespace hs::cuda::detail {

// Tuning overrides: the registered engines use the defaults (everything chosen from the
// device and the request); the tests build engines with forced choices, so that 16-bit wraps,
// tiny tiles and single-block grids are exercised on any device.
struct PackedTuning {
    // Bits per packed counter, 8 or 16; 0 = chosen from the device's shared memory and the
    // bin count ("packed") or from the saturation cap ("packed-sat").
    int counter_bits = 0;
    // At most this many bins per tile (0 = as many as fit into the shared memory of a block).
    int max_tile_bins = 0;
    // Blocks per tile (0 = from the occupancy API and the image size).
    int blocks_per_tile = 0;
    // Threads per block, a multiple of 32 up to 1024 (0 = from the occupancy API).
    int threads = 0;
    // The direct path where a request allows it (see above); false: the generic kernel always.
    bool direct = true;
    // Blocks of the direct kernel that fold their tiles together (a thread-block cluster): 0 =
    // two where the device launches clusters, else one; 1 = each block folds its own; 2 = two
    // (refused where the device cannot).
    int cluster_blocks = 0;
};

std::unique_ptr<HistogramEngine> make_packed_engine(const PackedTuning& tuning);
std::unique_ptr<HistogramEngine> make_packed_sat_engine(const PackedTuning& tuning);

// Bins: kTableModes for 8-bit plain values and luma (a table of slots, see above), kWideModes for
// the others.
struct PackedArgs : ImageArgs {
    ValueRule value;
    BinRule bins;
    // Table: core's 256-entry bin table; Edges: the bins + 1 thresholds. Device memory.
    const std::int32_t* aux = nullptr;
    bool saturating = false;
    std::uint32_t cap = 0;  // saturating: the cap, at most 2^W - 1
    // Filled by launch_packed() from the plan.
    int counter_bits = 16;
    int tile_bins = 0;
    int tile_words = 0;
    int cluster_blocks = 1;  // the direct kernel: blocks of a cluster, folding their tiles
    unsigned long long* counts = nullptr;  // `bins` 64-bit counters, zeroed by the caller
};

// ---------------------------------------------------------------------------------------------
// The per-sample logic, shared by the kernels and the host tests of the logic. `Ops` supplies
// the memory operations: add (atomic add returning the old value) and cas (atomic compare and
// swap returning the old value) on 32-bit shared words, add_global on 64-bit counters.

template <int W>
struct PackedLayout {
    static_assert(W == 8 || W == 16, "packed counters are 8 or 16 bits wide");
    static constexpr int kFields = 32 / W;
    static constexpr std::uint32_t kMax = (1u << W) - 1u;
};

// Word and bit shift of local bin `lb` (< kFields * words): word lb mod words, field lb / words.
template <int W>
HS_HD void packed_slot(std::uint32_t lb, std::uint32_t words, std::uint32_t& word,
                       std::uint32_t& shift) {
    std::uint32_t field = 0;
    for (int f = 1; f < PackedLayout<W>::kFields; ++f)
        field += lb >= static_cast<std::uint32_t>(f) * words ? 1u : 0u;
    word = lb - field * words;
    shift = field * static_cast<std::uint32_t>(W);
}

// Word and field shift of value `v` < 2^span_bits on the direct path: bin v >> shift of
// 2^(span_bits - shift) bins, so words = 2^(span_bits - shift - 1), word = bin mod words and
// field = bin / words = v / 2^(span_bits - 1) (what packed_slot<16> gives for that bin).
HS_HD void packed_direct_slot(std::uint32_t v, int span_bits, int shift, std::uint32_t& word,
                              std::uint32_t& field_shift) {
    word = (v >> shift) & ((1u << (span_bits - 1 - shift)) - 1u);
    field_shift = ((v >> (span_bits - 1)) & 1u) << 4;
}

// The table entry of a slot: word << 5 | shift (words < 2^26).
HS_HD std::int32_t packed_encode(std::uint32_t word, std::uint32_t shift) {
    return static_cast<std::int32_t>((word << 5) | shift);
}

// Accounts for the wraps of one addition to field `field` of word `word` that returned `old`
// and wrapped that field (see the proof in the header comment): the field's bin gets 2^W and
// the bin of the next field, which received the carry, gets -1; the carry wraps the next field
// too when it was all ones in `old`, and so on up the word.
template <int W, typename Ops>
HS_HD void packed_account_wraps(std::uint32_t old, std::uint32_t field, std::uint32_t word,
                                std::uint32_t words, std::uint32_t tile_bins,
                                unsigned long long* tile_counts) {
    using L = PackedLayout<W>;
    for (std::uint32_t j = field; j < static_cast<std::uint32_t>(L::kFields);) {
        const std::uint32_t lb = j * words + word;
        if (lb < tile_bins) Ops::add_global(tile_counts + lb, 1ull << W);
        if (++j == static_cast<std::uint32_t>(L::kFields)) break;
        if (lb + words < tile_bins) Ops::add_global(tile_counts + lb + words, ~0ull);  // -1
        if (((old >> (j * W)) & L::kMax) != L::kMax) break;  // the carry stops here
    }
}

// Whether adding n (1 <= n <= 2^W - 1) to the field at `shift` of a word that held `old` wrapped
// that field.
template <int W>
HS_HD bool packed_wrapped(std::uint32_t old, std::uint32_t shift, std::uint32_t n) {
    return ((old >> shift) & PackedLayout<W>::kMax) + n > PackedLayout<W>::kMax;
}

// "packed": n counts (1 <= n <= 2^W - 1) of the bin at (word, shift) in one addition. The
// field wraps when its old value plus n passes 2^W - 1; n < 2^W makes that at most one wrap,
// so the proof's accounting holds unchanged (r_j is now a sum of such n).
template <int W, typename Ops>
HS_HD void packed_count(std::uint32_t* hist, std::uint32_t word, std::uint32_t shift,
                        std::uint32_t words, std::uint32_t tile_bins,
                        unsigned long long* tile_counts, std::uint32_t n = 1) {
    const std::uint32_t old = Ops::add(hist + word, n << shift);
    if (packed_wrapped<W>(old, shift, n))
        packed_account_wraps<W, Ops>(old, shift / W, word, words, tile_bins, tile_counts);
}

// "packed-sat": one count of the bin at (word, shift), dropped once the field holds `cap`
// (cap <= 2^W - 1, so no addition carries). Every access is atomic: the first CAS guesses the
// word is zero and, when it is not, returns its value, so no plain read races with the CAS of
// another thread.
template <int W, typename Ops>
HS_HD void packed_saturating_count(std::uint32_t* hist, std::uint32_t word, std::uint32_t shift,
                                   std::uint32_t cap) {
    using L = PackedLayout<W>;
    std::uint32_t cur = 0;
    while (((cur >> shift) & L::kMax) < cap) {
        const std::uint32_t prev = Ops::cas(hist + word, cur, cur + (1u << shift));
        if (prev == cur) return;
        cur = prev;
    }
}

// The end of a block: adds the fields of word `word`, f[j] the value of field j (summed over
// the tiles of the blocks that fold together), to their bins.
template <int W, typename Ops>
HS_HD void packed_fold_fields(const std::uint64_t (&f)[PackedLayout<W>::kFields],
                              std::uint32_t word, std::uint32_t words, std::uint32_t tile_bins,
                              unsigned long long* tile_counts) {
    for (int j = 0; j < PackedLayout<W>::kFields; ++j) {
        const std::uint32_t lb = static_cast<std::uint32_t>(j) * words + word;
        if (lb < tile_bins && f[j] != 0) Ops::add_global(tile_counts + lb, f[j]);
    }
}

// The same for one block's word of final value `value`.
template <int W, typename Ops>
HS_HD void packed_fold_word(std::uint32_t value, std::uint32_t word, std::uint32_t words,
                            std::uint32_t tile_bins, unsigned long long* tile_counts) {
    using L = PackedLayout<W>;
    std::uint64_t f[L::kFields];
    for (int j = 0; j < L::kFields; ++j) f[j] = (value >> (j * W)) & L::kMax;
    packed_fold_fields<W, Ops>(f, word, words, tile_bins, tile_counts);
}

// ---------------------------------------------------------------------------------------------
// Tiling and tuning.

// Dynamic shared memory of a block with `tile_bins` bins: the packed words plus the 8-bit
// table or the tile's thresholds.
inline std::size_t packed_smem_bytes(BinMode mode, int counter_bits, std::int64_t tile_bins) {
    const std::int64_t fields = 32 / counter_bits;
    const std::int64_t words = (tile_bins + fields - 1) / fields;
    const std::int64_t aux = mode == BinMode::Table   ? 256
                             : mode == BinMode::Edges ? tile_bins + 1
                                                      : 0;
    return static_cast<std::size_t>(4 * (words + aux));
}

struct PackedTiles {
    int tiles = 0;  // 0: not even one bin fits
    int tile_bins = 0;
    int tile_words = 0;
    std::size_t smem_bytes = 0;
};

// The fewest tiles of (nearly) equal size that fit into `smem_budget` bytes per block, with
// at most `max_tile_bins` bins each (0: no limit).
inline PackedTiles packed_tiles(BinMode mode, int bins, int counter_bits, std::size_t smem_budget,
                                int max_tile_bins) {
    PackedTiles t;
    if (bins < 1 || (counter_bits != 8 && counter_bits != 16)) return t;
    if (packed_smem_bytes(mode, counter_bits, 1) > smem_budget) return t;
    int lo = 1, hi = max_tile_bins > 0 && max_tile_bins < bins ? max_tile_bins : bins;
    while (lo < hi) {  // the largest size that fits: smem grows with the size
        const int mid = lo + (hi - lo + 1) / 2;
        if (packed_smem_bytes(mode, counter_bits, mid) <= smem_budget)
            lo = mid;
        else
            hi = mid - 1;
    }
    t.tiles = (bins + lo - 1) / lo;
    // Balanced, still fits (<= lo); every tile starts below `bins`: (tiles - 1) * tile_bins
    // <= (tiles - 1) * lo < bins.
    t.tile_bins = (bins + t.tiles - 1) / t.tiles;
    const int fields = 32 / counter_bits;
    t.tile_words = (t.tile_bins + fields - 1) / fields;
    t.smem_bytes = packed_smem_bytes(mode, counter_bits, t.tile_bins);
    return t;
}

// Counter widths an engine may use: forced by the tuning, or for saturating counters the
// narrowest that holds the cap, or both. Empty when none can serve the request.
inline std::vector<int> packed_counter_widths(const PackedTuning& tuning, bool saturating,
                                              std::uint64_t cap) {
    std::vector<int> widths;
    for (const int w : {8, 16}) {
        if (tuning.counter_bits != 0 && tuning.counter_bits != w) continue;
        if (saturating && (cap == 0 || cap > (std::uint64_t{1} << w) - 1)) continue;
        widths.push_back(w);
        if (saturating && tuning.counter_bits == 0) break;  // the narrowest that holds the cap
    }
    return widths;
}

// Largest grid.y.
inline constexpr int kPackedMaxTiles = 65535;

// Whether the direct path serves `a` (with the tuning's consent, see plan_packed()): plain
// 16-bit samples, wrapping counters, bins by a shift over [0, span), span a power of two
// (lower bound 0, upper bound span) and at least 2 bins.
inline bool packed_direct_serves(const PackedArgs& a) {
    const BinRule& b = a.bins;
    return !a.saturating && a.u16 && a.value.kind == ValueKind::Plain &&
           b.mode == BinMode::EvenShift && b.lo == 0 && b.base == 0 && b.span >= 2 &&
           (b.span & (b.span - 1)) == 0 && b.bins >= 2 &&
           (b.span >> b.shift) == static_cast<std::uint32_t>(b.bins);
}

struct PackedPlan {
    bool direct = false;     // the direct kernel (16-bit counters, one tile)
    int cluster_blocks = 1;  // blocks of a thread-block cluster (direct kernel only)
    int counter_bits = 0;
    PackedTiles tiles;
    int threads = 0;
    int blocks_per_sm = 0;
    int blocks_per_tile = 0;
    std::string describe() const;
};

// The most dynamic shared memory per block of the kernel that `args` select (sample type,
// channels, value kind, bin mode, counter width, saturation) on a device with opt-in limit
// `optin` (dynamic_smem_limit()); 0 when no kernel serves `args`.
std::size_t packed_smem_limit(const PackedArgs& args, std::size_t optin);
// Counter width, tiles, block and grid size for `args` on `limits` (raises the kernel's dynamic
// shared memory limit). Throws hs::UnsupportedError when nothing fits, hs::DeviceError on CUDA
// failures.
PackedPlan plan_packed(const PackedArgs& args, const DeviceLimits& limits,
                       const PackedTuning& tuning);
// One launch of the kernel for `args` (its device pointers set) with a plan made for them.
void launch_packed(PackedArgs args, const PackedPlan& plan, cudaStream_t stream);

// Empty when the kernels of this build can run on the current device, otherwise why not.
std::string packed_probe();

}  // namespace hs::cuda::detail
