#pragma once
// Strategy "thread-private": one private 8-bit counter per bin per thread in shared memory.
//
// The counters of thread t for bins 4j .. 4j+3 are the four bytes of word j * T + t (T
// threads per block, a multiple of 32): every word a thread touches sits in bank t % 32, so
// counting needs neither atomics nor ever causes a bank conflict, whatever the data. A thread
// counts at most kThreadPrivateRound groups (<= 255 samples) between two flushes, so no 8-bit
// counter can wrap. A flush is block-wide: each warp takes rows j (the T words of bins
// 4j .. 4j+3), sums the bytes of its 32-word slices with packed 16-bit adds, finishes with
// warp shuffles, adds the four sums to the block's 32-bit counters in shared memory (one warp
// owns each row, no atomics) and zeroes the row. At the end every block adds its non-zero
// 32-bit counters to the 64-bit global histogram.
//
// Exactness: 8-bit counters are flushed before they can wrap; a block never counts more than
// kThreadPrivateMaxPixelsPerBlock pixels, so its 32-bit counters cannot overflow.
// Shared memory: 4 * (ceil(bins / 4) * T + bins + table or thresholds) bytes, so the bins limit
// the block size; a bin count for which not even 32 threads fit is refused.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "gpu_engine.hpp"
#include "histoscope/core/channels.hpp"

namespace hs::cuda::detail {

enum class TpValue : std::uint8_t {
    Plain,  // sample `offset` of the pixel
    Luma,   // luma of samples 0, 1, 2
    Joint,  // (R << 16) | (G << 8) | B of 8-bit samples 0, 1, 2
};

enum class TpBinMode : std::uint8_t {
    Table,    // 8-bit plain/luma values: 256-entry table value -> bin (-1 = outside), shared
    EvenDiv,  // even bins with bins dividing upper - lower < 2^32: bin = (v - lower) / quot
    Even32,   // even bins; (v - lower) * bins and upper - lower fit in 32 bits
    Even64,   // even bins in 64-bit integers
    Edges,    // explicit edges: binary search over int32 thresholds in shared memory
};

struct ThreadPrivateArgs {
    const void* samples = nullptr;  // packed pixels, padded to whole 16 * channels byte groups
    std::uint64_t pixels = 0;
    int channels = 1;
    bool u16 = false;
    TpValue value = TpValue::Plain;
    LumaWeights weights{};
    int offset = 0;
    TpBinMode mode = TpBinMode::Table;
    int bins = 256;
    std::uint32_t lo = 0, hi = 0;  // even modes: values lo <= v < hi are counted
    std::int64_t lower = 0;
    std::uint64_t width = 1;
    std::uint32_t quot = 1;
    const std::int32_t* aux = nullptr;   // table (256) or thresholds (bins + 1), device memory
    std::uint64_t groups_per_block = 0;  // contiguous groups of pixels each block counts
    unsigned long long* counts = nullptr;
};

inline constexpr std::uint64_t kThreadPrivateMaxPixelsPerBlock = std::uint64_t{1} << 30;

constexpr int thread_private_pixels_per_group(bool u16) {
    return u16 ? 8 : 16;
}
// Groups a thread counts between two flushes: at most 255 samples per 8-bit counter.
constexpr int thread_private_round(bool u16) {
    return 255 / thread_private_pixels_per_group(u16);
}
static_assert(thread_private_round(false) * 16 <= 255 && thread_private_round(true) * 8 <= 255);

constexpr int thread_private_aux_entries(TpBinMode mode, int bins) {
    return mode == TpBinMode::Table ? 256 : mode == TpBinMode::Edges ? bins + 1 : 0;
}
// Dynamic shared memory of a block of `threads` threads.
constexpr std::size_t thread_private_smem_bytes(TpBinMode mode, int bins, int threads) {
    const auto rows = static_cast<std::size_t>((bins + 3) / 4);
    return 4u * (rows * static_cast<std::size_t>(threads) + static_cast<std::size_t>(bins) +
                 static_cast<std::size_t>(thread_private_aux_entries(mode, bins)));
}

struct ThreadPrivatePlan {
    int threads = 0;
    int blocks = 0;
    int blocks_per_sm = 0;
    std::size_t smem_bytes = 0;
    std::uint64_t groups_per_block = 0;
    std::string describe() const;
};

// The most dynamic shared memory per block of the kernel that `args` select (sample type,
// channels, value kind, bin mode) on a device with opt-in limit `optin` (dynamic_smem_limit()).
std::size_t thread_private_smem_limit(const ThreadPrivateArgs& args, std::size_t optin);
// Block size (the multiple of 32 whose blocks keep the most threads resident, ties: larger)
// and grid for `args` on `limits`; raises the kernel's dynamic shared memory limit. Throws
// hs::UnsupportedError when not even 32 threads fit, hs::DeviceError on CUDA failures.
ThreadPrivatePlan plan_thread_private(const ThreadPrivateArgs& args, const DeviceLimits& limits);
// Grid of `plan` (threads and blocks_per_sm set): plan.blocks and plan.groups_per_block.
void thread_private_grid(std::uint64_t pixels, bool u16, int sm_count, ThreadPrivatePlan& plan);
void launch_thread_private(const ThreadPrivateArgs& args, const ThreadPrivatePlan& plan,
                           cudaStream_t stream);

std::string thread_private_probe();

// Device and host: the pieces of the kernel that the host tests can run too.
namespace tp {

template <typename T>
__host__ __device__ __forceinline__ std::uint32_t extract(const std::uint32_t* words, int j) {
    if constexpr (sizeof(T) == 1)
        return (words[j >> 2] >> ((j & 3) * 8)) & 0xFFu;
    else
        return (words[j >> 1] >> ((j & 1) * 16)) & 0xFFFFu;
}

template <typename T, int C, TpValue V>
__host__ __device__ __forceinline__ std::uint32_t value(const std::uint32_t* w, int p,
                                                        const ThreadPrivateArgs& a) {
    if constexpr (V == TpValue::Luma) {
        return hs::luma(a.weights, extract<T>(w, p * C), extract<T>(w, p * C + 1),
                        extract<T>(w, p * C + 2));
    } else if constexpr (V == TpValue::Joint) {
        return hs::joint_value(extract<T>(w, p * C), extract<T>(w, p * C + 1),
                               extract<T>(w, p * C + 2));
    } else {
        // Written out so that every word index is a compile-time constant (no local memory).
        std::uint32_t v = extract<T>(w, p * C);
        if constexpr (C >= 2)
            if (a.offset == 1) v = extract<T>(w, p * C + 1);
        if constexpr (C >= 3)
            if (a.offset == 2) v = extract<T>(w, p * C + 2);
        if constexpr (C >= 4)
            if (a.offset == 3) v = extract<T>(w, p * C + 3);
        return v;
    }
}

template <TpBinMode B>
__host__ __device__ __forceinline__ int bin_of(std::uint32_t v, const ThreadPrivateArgs& a,
                                               const std::int32_t* aux) {
    if constexpr (B == TpBinMode::Table) {
        return aux[v];
    } else if constexpr (B == TpBinMode::EvenDiv) {
        if (v < a.lo || v >= a.hi) return -1;
        return static_cast<int>((v - static_cast<std::uint32_t>(a.lower)) / a.quot);
    } else if constexpr (B == TpBinMode::Even32) {
        if (v < a.lo || v >= a.hi) return -1;
        const std::uint32_t off = v - static_cast<std::uint32_t>(a.lower);
        return static_cast<int>(off * static_cast<std::uint32_t>(a.bins) /
                                static_cast<std::uint32_t>(a.width));
    } else if constexpr (B == TpBinMode::Even64) {
        if (v < a.lo || v >= a.hi) return -1;
        const auto off = static_cast<std::uint64_t>(static_cast<std::int64_t>(v) - a.lower);
        return static_cast<int>(off * static_cast<std::uint64_t>(a.bins) / a.width);
    } else {
        const auto x = static_cast<std::int32_t>(v);
        if (x < aux[0] || x >= aux[a.bins]) return -1;
        int lo = 0, hi = a.bins;  // invariant: t_lo <= x < t_hi
        while (hi - lo > 1) {
            const int mid = (lo + hi) >> 1;
            if (aux[mid] <= x)
                lo = mid;
            else
                hi = mid;
        }
        return lo;
    }
}

// Word of thread `t`'s counter for `bin` in a block of `threads` threads, and the increment
// that adds one to that counter's byte.
__host__ __device__ __forceinline__ int counter_word(int bin, int t, int threads) {
    return (bin >> 2) * threads + t;
}
__host__ __device__ __forceinline__ std::uint32_t counter_one(int bin) {
    return 1u << ((bin & 3) * 8);
}

}  // namespace tp

}  // namespace hs::cuda::detail
