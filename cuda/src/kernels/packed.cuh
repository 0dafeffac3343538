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
// Tiling: when the tile of all bins does not fit into the shared memory of a block, the bins
// are split into `tiles` tiles of tile_bins bins (up to 2^24 bins, e.g. the joint RGB
// histogram); blockIdx.y is the tile and a block counts only the values whose bin falls into
// its tile. 8-bit values of plain channels and luma map to bins through a 256-entry table in
// shared memory (built per block for its tile, holding the slot word << 5 | shift); other
// values use exact integer formulas (see PackedBins), explicit edges a binary search over the
// tile's thresholds, copied to shared memory.
//
// Tuning (plan_packed): counter width (for "packed" the width with fewer tiles, then more
// resident threads per SM, then 16 bits; for "packed-sat" the narrowest width holding the cap),
// tile size from the device's opt-in shared memory per block, threads from the occupancy API,
// blocks per tile from the resident blocks of the device and the image size. PackedTuning
// (packed_tuning.hpp) can force each choice (tests).

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gpu_engine.hpp"
#include "histoscope/core/channels.hpp"
#include "kernels/packed_tuning.hpp"

#if defined(__CUDACC__)
#define HS_PACKED_HD __host__ __device__ __forceinline__
#else
#define HS_PACKED_HD inline
#endif

namespace hs::cuda::detail {

// What a thread turns a pixel into.
enum class PackedValue : std::uint8_t {
    Plain,  // sample `offset` of the pixel
    Luma,   // luma of samples 0, 1, 2
    Joint,  // (R << 16) | (G << 8) | B of 8-bit samples 0, 1, 2
};

// How a value becomes a bin.
enum class PackedBins : std::uint8_t {
    Table,      // 8-bit plain/luma values: 256-entry table value -> bin (-1 = outside)
    EvenDiv,    // even bins, bins divides upper - lower < 2^32: bin = (v - lower) / quot
    EvenShift,  // EvenDiv with quot = 2^shift: bin = (v - lower) >> shift (no division)
    Even32,     // even bins; (v - lower) * bins and upper - lower fit in 32 bits
    Even64,     // even bins in 64-bit integers
    Edges,      // explicit edges: binary search over int32 thresholds
};

struct PackedArgs {
    // Packed pixels, the allocation padded to whole groups of 16 * channels bytes.
    const void* samples = nullptr;
    std::uint64_t pixels = 0;
    int channels = 1;  // 1, 3 or 4 interleaved samples per pixel
    bool u16 = false;
    PackedValue value = PackedValue::Plain;
    LumaWeights weights{};
    int offset = 0;  // Plain: the sample of the pixel that is counted
    PackedBins mode = PackedBins::Table;
    int bins = 256;
    // Even modes: values lo <= v < hi are counted (the spec's range clipped to the values),
    // bin = (v - lower) * bins / width; EvenDiv: quot = width / bins.
    std::uint32_t lo = 0, hi = 0;
    std::int64_t lower = 0;
    std::uint64_t width = 1;
    std::uint32_t quot = 1;
    int shift = 0;  // EvenShift: log2(quot)
    // Table: 256 bins (-1 outside); Edges: bins + 1 nondecreasing thresholds clamped to
    // [-1, 2^24] (values lie in [0, 2^24)). Device memory.
    const std::int32_t* aux = nullptr;
    bool saturating = false;
    std::uint32_t cap = 0;  // saturating: the cap, at most 2^W - 1
    // Filled by launch_packed() from the plan.
    int counter_bits = 16;
    int tile_bins = 0;
    int tile_words = 0;
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
HS_PACKED_HD void packed_slot(std::uint32_t lb, std::uint32_t words, std::uint32_t& word,
                              std::uint32_t& shift) {
    std::uint32_t field = 0;
    for (int f = 1; f < PackedLayout<W>::kFields; ++f)
        field += lb >= static_cast<std::uint32_t>(f) * words ? 1u : 0u;
    word = lb - field * words;
    shift = field * static_cast<std::uint32_t>(W);
}

// The table entry of a slot: word << 5 | shift (words < 2^26).
HS_PACKED_HD std::int32_t packed_encode(std::uint32_t word, std::uint32_t shift) {
    return static_cast<std::int32_t>((word << 5) | shift);
}

// Accounts for the wraps of one addition to field `field` of word `word` that returned `old`
// and wrapped that field (see the proof in the header comment): the field's bin gets 2^W and
// the bin of the next field, which received the carry, gets -1; the carry wraps the next field
// too when it was all ones in `old`, and so on up the word.
template <int W, typename Ops>
HS_PACKED_HD void packed_account_wraps(std::uint32_t old, std::uint32_t field, std::uint32_t word,
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

// "packed": n counts (1 <= n <= 2^W - 1) of the bin at (word, shift) in one addition. The
// field wraps when its old value plus n passes 2^W - 1; n < 2^W makes that at most one wrap,
// so the proof's accounting holds unchanged (r_j is now a sum of such n).
template <int W, typename Ops>
HS_PACKED_HD void packed_count(std::uint32_t* hist, std::uint32_t word, std::uint32_t shift,
                               std::uint32_t words, std::uint32_t tile_bins,
                               unsigned long long* tile_counts, std::uint32_t n = 1) {
    using L = PackedLayout<W>;
    const std::uint32_t old = Ops::add(hist + word, n << shift);
    if (((old >> shift) & L::kMax) + n > L::kMax)
        packed_account_wraps<W, Ops>(old, shift / W, word, words, tile_bins, tile_counts);
}

// "packed-sat": one count of the bin at (word, shift), dropped once the field holds `cap`
// (cap <= 2^W - 1, so no addition carries). Every access is atomic: the first CAS guesses the
// word is zero and, when it is not, returns its value, so no plain read races with the CAS of
// another thread.
template <int W, typename Ops>
HS_PACKED_HD void packed_saturating_count(std::uint32_t* hist, std::uint32_t word,
                                          std::uint32_t shift, std::uint32_t cap) {
    using L = PackedLayout<W>;
    std::uint32_t cur = 0;
    while (((cur >> shift) & L::kMax) < cap) {
        const std::uint32_t prev = Ops::cas(hist + word, cur, cur + (1u << shift));
        if (prev == cur) return;
        cur = prev;
    }
}

// The end of a block: adds the fields of word `word` (final value `value`) to their bins.
template <int W, typename Ops>
HS_PACKED_HD void packed_fold_word(std::uint32_t value, std::uint32_t word, std::uint32_t words,
                                   std::uint32_t tile_bins, unsigned long long* tile_counts) {
    using L = PackedLayout<W>;
    for (int j = 0; j < L::kFields; ++j) {
        const std::uint32_t lb = static_cast<std::uint32_t>(j) * words + word;
        const std::uint32_t f = (value >> (j * W)) & L::kMax;
        if (lb < tile_bins && f != 0) Ops::add_global(tile_counts + lb, f);
    }
}

// ---------------------------------------------------------------------------------------------
// Tiling and tuning.

// Dynamic shared memory of a block with `tile_bins` bins: the packed words plus the 8-bit
// table or the tile's thresholds.
inline std::size_t packed_smem_bytes(PackedBins mode, int counter_bits, std::int64_t tile_bins) {
    const std::int64_t fields = 32 / counter_bits;
    const std::int64_t words = (tile_bins + fields - 1) / fields;
    const std::int64_t aux = mode == PackedBins::Table   ? 256
                             : mode == PackedBins::Edges ? tile_bins + 1
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
inline PackedTiles packed_tiles(PackedBins mode, int bins, int counter_bits,
                                std::size_t smem_budget, int max_tile_bins) {
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

struct PackedPlan {
    int counter_bits = 0;
    PackedTiles tiles;
    int threads = 0;
    int blocks_per_sm = 0;
    int blocks_per_tile = 0;
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

// The engines ("packed" in packed_engine.cpp, "packed-sat" in packed_sat_engine.cpp).
class PackedEngineBase : public GpuEngine {
  public:
    Capabilities capabilities() const override;

  protected:
    PackedEngineBase(const PackedTuning& tuning, bool saturating)
        : tuning_(tuning), saturating_(saturating) {}
    // Refuses what does not fit (tiles of the device's shared memory, counter widths).
    std::string extra_unsupported_reason(const HistogramRequest& r) const override;
    std::string probe() const override { return packed_probe(); }
    std::unique_ptr<KernelRun> prepare(const HistogramRequest& r,
                                       cudaStream_t stream) const override;

    PackedTuning tuning_;
    bool saturating_ = false;
};

// ---------------------------------------------------------------------------------------------
// The kernels (device code only: this part is seen by nvcc alone).
#if defined(__CUDACC__)

struct PackedSharedOps {
    __device__ static std::uint32_t add(std::uint32_t* p, std::uint32_t v) {
        return atomicAdd(p, v);
    }
    __device__ static std::uint32_t cas(std::uint32_t* p, std::uint32_t expected,
                                        std::uint32_t desired) {
        return atomicCAS(p, expected, desired);
    }
    __device__ static void add_global(unsigned long long* p, unsigned long long v) {
        atomicAdd(p, v);
    }
};

// Sample `j` of a group held as 32-bit little-endian words (`j` is a constant after unrolling).
template <typename T>
__device__ __forceinline__ std::uint32_t packed_extract(const std::uint32_t* words, int j) {
    if constexpr (sizeof(T) == 1)
        return (words[j >> 2] >> ((j & 3) * 8)) & 0xFFu;
    else
        return (words[j >> 1] >> ((j & 1) * 16)) & 0xFFFFu;
}

// Local bin of `v` in the tile [tile_base, tile_base + tile_bins), or false when v's bin lies
// outside the tile (or outside the histogram). Table: `lb` is the encoded slot.
template <PackedBins M>
__device__ __forceinline__ bool packed_local_bin(std::uint32_t v, const PackedArgs& a,
                                                 const std::int32_t* aux, std::uint32_t tile_base,
                                                 std::uint32_t tile_bins, std::uint32_t& lb) {
    if constexpr (M == PackedBins::Table) {
        const std::int32_t e = aux[v];
        lb = static_cast<std::uint32_t>(e);
        return e >= 0;
    } else if constexpr (M == PackedBins::Edges) {
        // The tile's thresholds t_0 <= ... <= t_tile_bins; find i with t_i <= v < t_(i+1).
        const auto x = static_cast<std::int32_t>(v);
        if (x < aux[0] || x >= aux[tile_bins]) return false;
        std::uint32_t lo = 0, hi = tile_bins;  // invariant: t_lo <= x < t_hi
        while (hi - lo > 1) {
            const std::uint32_t mid = (lo + hi) >> 1;
            if (aux[mid] <= x)
                lo = mid;
            else
                hi = mid;
        }
        lb = lo;
        return true;
    } else {
        if (v < a.lo || v >= a.hi) return false;
        std::uint32_t bin;
        if constexpr (M == PackedBins::EvenDiv || M == PackedBins::EvenShift) {
            // v - lower lies in [0, 2^32) (host-checked), so the 32-bit difference is exact;
            // width = quot * bins makes (v - lower) * bins / width = (v - lower) / quot.
            const std::uint32_t off = v - static_cast<std::uint32_t>(a.lower);
            bin = M == PackedBins::EvenShift ? off >> a.shift : off / a.quot;
        } else if constexpr (M == PackedBins::Even32) {
            bin = (v - static_cast<std::uint32_t>(a.lower)) * static_cast<std::uint32_t>(a.bins) /
                  static_cast<std::uint32_t>(a.width);
        } else {
            const auto off = static_cast<std::uint64_t>(static_cast<std::int64_t>(v) - a.lower);
            bin = static_cast<std::uint32_t>(off * static_cast<std::uint64_t>(a.bins) / a.width);
        }
        lb = bin - tile_base;  // wraps to a large value below the tile
        return lb < tile_bins;
    }
}

template <typename T, int C, PackedValue V, PackedBins M, int W, bool Sat>
__global__ void __launch_bounds__(1024) packed_kernel(const PackedArgs a) {
    extern __shared__ std::uint32_t packed_smem[];
    constexpr int kPixels = 16 / static_cast<int>(sizeof(T));  // pixels per group
    constexpr int kWords = 4 * C;                              // 32-bit words per group
    // Groups loaded per thread before counting: two for one-channel images whose bins need no
    // division (more loads in flight); the division modes run out of registers with two.
    constexpr int kInFlight =
        C == 1 && (M == PackedBins::Table || M == PackedBins::EvenShift) ? 2 : 1;
    // The one-value warp path (see the header comment) for one-channel plain values.
    constexpr bool kOneValueWarps = C == 1 && V == PackedValue::Plain && !Sat;

    const auto words = static_cast<std::uint32_t>(a.tile_words);
    const std::uint32_t tile_base = blockIdx.y * static_cast<std::uint32_t>(a.tile_bins);
    const std::uint32_t tile_bins = min(static_cast<std::uint32_t>(a.tile_bins),
                                        static_cast<std::uint32_t>(a.bins) - tile_base);
    unsigned long long* tile_counts = a.counts + tile_base;
    std::uint32_t* hist = packed_smem;
    auto* aux = reinterpret_cast<std::int32_t*>(packed_smem + words);

    for (std::uint32_t i = threadIdx.x; i < words; i += blockDim.x) hist[i] = 0;
    if constexpr (M == PackedBins::Table) {
        for (std::uint32_t v = threadIdx.x; v < 256; v += blockDim.x) {
            const std::int32_t g = a.aux[v];
            const std::uint32_t lb = static_cast<std::uint32_t>(g) - tile_base;
            std::int32_t e = -1;
            if (g >= 0 && lb < tile_bins) {
                std::uint32_t word, shift;
                packed_slot<W>(lb, words, word, shift);
                e = packed_encode(word, shift);
            }
            aux[v] = e;
        }
    } else if constexpr (M == PackedBins::Edges) {
        for (std::uint32_t i = threadIdx.x; i <= tile_bins; i += blockDim.x)
            aux[i] = a.aux[tile_base + i];
    }
    __syncthreads();

    // Counts n samples of value v (n > 1 only from the one-value warp path, n < 2^W there).
    const auto count = [&](std::uint32_t v, std::uint32_t n) {
        std::uint32_t lb;
        if (!packed_local_bin<M>(v, a, aux, tile_base, tile_bins, lb)) return;
        std::uint32_t word, shift;
        if constexpr (M == PackedBins::Table) {
            word = lb >> 5;
            shift = lb & 31u;
        } else {
            packed_slot<W>(lb, words, word, shift);
        }
        if constexpr (Sat)
            packed_saturating_count<W, PackedSharedOps>(hist, word, shift, a.cap);
        else
            packed_count<W, PackedSharedOps>(hist, word, shift, words, tile_bins, tile_counts, n);
    };

    // Counts the group held in w (valid: its pixels, 0 beyond the last group).
    const auto count_group = [&](const std::uint32_t(&w)[kWords], int valid) {
        if constexpr (kOneValueWarps) {
            // Every sample of this lane's group equal, and equal to lane 0's?
            const std::uint32_t v0 = packed_extract<T>(w, 0);
            const std::uint32_t splat = sizeof(T) == 1 ? v0 * 0x01010101u : v0 * 0x00010001u;
            bool same = valid == kPixels;
#pragma unroll
            for (int k = 0; k < kWords; ++k) same = same && w[k] == splat;
            const std::uint32_t v_lead = __shfl_sync(0xFFFFFFFFu, v0, 0);
            if (__all_sync(0xFFFFFFFFu, same && v0 == v_lead)) {
                if ((threadIdx.x & 31u) == 0)
                    for (std::uint32_t n = 32u * kPixels; n > 0;) {
                        const std::uint32_t part = min(n, PackedLayout<W>::kMax);
                        count(v_lead, part);
                        n -= part;
                    }
                return;
            }
        }
#pragma unroll
        for (int p = 0; p < kPixels; ++p) {
            if (p >= valid) break;
            std::uint32_t v;
            if constexpr (V == PackedValue::Luma) {
                v = hs::luma(a.weights, packed_extract<T>(w, p * C),
                             packed_extract<T>(w, p * C + 1), packed_extract<T>(w, p * C + 2));
            } else if constexpr (V == PackedValue::Joint) {
                v = hs::joint_value(packed_extract<T>(w, p * C), packed_extract<T>(w, p * C + 1),
                                    packed_extract<T>(w, p * C + 2));
            } else {
                v = packed_extract<T>(w, p * C);
#pragma unroll
                for (int c = 1; c < C; ++c)
                    if (a.offset == c) v = packed_extract<T>(w, p * C + c);
            }
            count(v, 1);
        }
    };

    // Grid-stride over groups, kInFlight loads in flight per thread. The loop condition is the
    // warp's (its first lane's group), so the lanes of a warp stay together for the votes of
    // the one-value path; lanes past the last group count nothing.
    const auto* in = static_cast<const uint4*>(a.samples);
    const std::uint64_t groups = (a.pixels + kPixels - 1) / kPixels;
    const std::uint64_t step = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
    const std::uint64_t first = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    for (std::uint64_t g0 = first, warp_g0 = first - (threadIdx.x & 31u); warp_g0 < groups;
         g0 += kInFlight * step, warp_g0 += kInFlight * step) {
        std::uint32_t w[kInFlight][kWords];
#pragma unroll
        for (int u = 0; u < kInFlight; ++u) {
            const std::uint64_t g = g0 + static_cast<std::uint64_t>(u) * step;
#pragma unroll
            for (int k = 0; k < C; ++k) {
                const uint4 q = g < groups ? __ldg(in + g * C + k) : make_uint4(0, 0, 0, 0);
                w[u][4 * k + 0] = q.x;
                w[u][4 * k + 1] = q.y;
                w[u][4 * k + 2] = q.z;
                w[u][4 * k + 3] = q.w;
            }
        }
#pragma unroll
        for (int u = 0; u < kInFlight; ++u) {
            const std::uint64_t g = g0 + static_cast<std::uint64_t>(u) * step;
            const std::uint64_t left = g < groups ? a.pixels - g * kPixels : 0;
            count_group(w[u], left < kPixels ? static_cast<int>(left) : kPixels);
        }
    }
    __syncthreads();

    for (std::uint32_t i = threadIdx.x; i < words; i += blockDim.x)
        packed_fold_word<W, PackedSharedOps>(hist[i], i, words, tile_bins, tile_counts);
}

using PackedKernel = void (*)(PackedArgs);

template <typename T, int C, PackedValue V, PackedBins M, bool Sat>
PackedKernel packed_pick_width(int counter_bits) {
    return counter_bits == 8 ? &packed_kernel<T, C, V, M, 8, Sat>
                             : &packed_kernel<T, C, V, M, 16, Sat>;
}

template <typename T, int C, PackedValue V, bool Sat>
PackedKernel packed_pick_mode(const PackedArgs& a) {
    if constexpr (sizeof(T) == 1 && V != PackedValue::Joint) {
        // 8-bit plain values and their luma always use the table.
        return packed_pick_width<T, C, V, PackedBins::Table, Sat>(a.counter_bits);
    } else {
        switch (a.mode) {
            case PackedBins::EvenDiv:
                return packed_pick_width<T, C, V, PackedBins::EvenDiv, Sat>(a.counter_bits);
            case PackedBins::EvenShift:
                return packed_pick_width<T, C, V, PackedBins::EvenShift, Sat>(a.counter_bits);
            case PackedBins::Even32:
                return packed_pick_width<T, C, V, PackedBins::Even32, Sat>(a.counter_bits);
            case PackedBins::Even64:
                return packed_pick_width<T, C, V, PackedBins::Even64, Sat>(a.counter_bits);
            case PackedBins::Edges:
                return packed_pick_width<T, C, V, PackedBins::Edges, Sat>(a.counter_bits);
            case PackedBins::Table:
                break;
        }
        return nullptr;  // a table serves only 8-bit plain values and luma
    }
}

template <typename T, bool Sat>
PackedKernel packed_pick_layout(const PackedArgs& a) {
    switch (a.value) {
        case PackedValue::Plain:
            if (a.channels == 1) return packed_pick_mode<T, 1, PackedValue::Plain, Sat>(a);
            if (a.channels == 3) return packed_pick_mode<T, 3, PackedValue::Plain, Sat>(a);
            if (a.channels == 4) return packed_pick_mode<T, 4, PackedValue::Plain, Sat>(a);
            return nullptr;
        case PackedValue::Luma:
            if (a.channels == 3) return packed_pick_mode<T, 3, PackedValue::Luma, Sat>(a);
            if (a.channels == 4) return packed_pick_mode<T, 4, PackedValue::Luma, Sat>(a);
            return nullptr;
        case PackedValue::Joint:
            if constexpr (sizeof(T) == 1) {
                if (a.channels == 3) return packed_pick_mode<T, 3, PackedValue::Joint, Sat>(a);
                if (a.channels == 4) return packed_pick_mode<T, 4, PackedValue::Joint, Sat>(a);
            }
            return nullptr;
    }
    return nullptr;
}

// The kernel for `a` (nullptr for a combination that no kernel serves).
template <bool Sat>
PackedKernel packed_pick(const PackedArgs& a) {
    if (a.counter_bits != 8 && a.counter_bits != 16) return nullptr;
    if ((a.mode == PackedBins::Table) != (!a.u16 && a.value != PackedValue::Joint)) return nullptr;
    return a.u16 ? packed_pick_layout<std::uint16_t, Sat>(a)
                 : packed_pick_layout<std::uint8_t, Sat>(a);
}

#endif  // __CUDACC__

// Defined in packed.cu and packed_sat.cu (one instantiation of the kernels each). Host-side
// declarations without CUDA types beyond the function pointer.
using PackedKernelPtr = void (*)(PackedArgs);
PackedKernelPtr packed_counting_kernel(const PackedArgs& a);
PackedKernelPtr packed_saturating_kernel(const PackedArgs& a);

}  // namespace hs::cuda::detail
