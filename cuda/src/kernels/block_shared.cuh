#pragma once
// Strategy "block-shared": one shared-memory sub-histogram per block.
//
// Every block zeroes `bins` 32-bit counters in shared memory, walks its share of the pixels
// with a grid-stride loop (each thread reads one group of 16 / sizeof(sample) pixels at a
// time as `channels` aligned 16-byte vectors), counts with shared-memory atomics and finally
// adds its non-zero counters to the 64-bit global histogram with atomicAdd. A block never
// handles more than kMaxPixelsPerBlock pixels, so its 32-bit counters cannot overflow.
//
// Launch and tuning live here; the engine (block_shared_engine.cpp) builds the arguments and
// calls launch_block_shared() once per channel.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "gpu_engine.hpp"
#include "histoscope/core/channels.hpp"

namespace hs::cuda::detail {

// How a sample value becomes a bin.
enum class BinMode : std::uint8_t {
    Table,   // 8-bit samples: 256-entry table value -> bin (-1 = outside), in shared memory
    Even32,  // even bins; (v - lower) * bins and upper - lower fit in 32 bits (host-checked)
    Even64,  // even bins in 64-bit integers
    Edges,   // explicit edges: binary search over int32 thresholds in shared memory
};

struct BlockSharedArgs {
    // Packed pixels (rows back to back), the allocation padded to whole groups of
    // block_shared_group_bytes(channels) bytes and aligned to 16 bytes.
    const void* samples = nullptr;
    std::uint64_t pixels = 0;
    int channels = 1;   // 1, 3 or 4 interleaved samples per pixel
    bool u16 = false;   // 16-bit samples (else 8-bit)
    bool luma = false;  // luma of samples 0, 1, 2 (channels >= 3) instead of sample `offset`
    LumaWeights weights{};
    int offset = 0;  // sample of the pixel that is counted when !luma
    BinMode mode = BinMode::Table;
    int bins = 256;
    // Even32 / Even64: values lo <= v < hi are counted (the spec's [lower, upper) clipped to
    // the sample range), bin = (v - lower) * bins / width with width = upper - lower.
    std::uint32_t lo = 0, hi = 0;
    std::int64_t lower = 0;
    std::uint64_t width = 1;
    // Table: 256 bins; Edges: bins + 1 nondecreasing thresholds (v in bin i when
    // t_i <= v < t_{i+1}), clamped to [-1, 65536]. Device memory.
    const std::int32_t* aux = nullptr;
    unsigned long long* counts = nullptr;  // `bins` 64-bit counters, zeroed by the caller
};

// Tuning data.
// Candidate block sizes; the one with the most resident threads per SM wins (ties: smaller).
inline constexpr int kBlockSharedThreadCandidates[] = {256, 512, 1024};
// Upper bound of pixels one block counts, keeping its 32-bit shared counters exact.
inline constexpr std::uint64_t kMaxPixelsPerBlock = std::uint64_t{1} << 30;

constexpr std::size_t block_shared_group_bytes(int channels) {
    return 16u * static_cast<std::size_t>(channels);
}
constexpr int block_shared_aux_entries(BinMode mode, int bins) {
    return mode == BinMode::Table ? 256 : mode == BinMode::Edges ? bins + 1 : 0;
}
// Dynamic shared memory per block: 4-byte counters plus the 4-byte table or thresholds.
constexpr std::size_t block_shared_smem_bytes(BinMode mode, int bins) {
    return 4u * (static_cast<std::size_t>(bins) +
                 static_cast<std::size_t>(block_shared_aux_entries(mode, bins)));
}

struct BlockSharedPlan {
    int threads = 0;
    int blocks = 0;
    int blocks_per_sm = 0;
    std::size_t smem_bytes = 0;
};

// The most dynamic shared memory per block of the kernel that `args` select (sample type,
// channels, luma, bin mode) on a device with opt-in limit `optin` (dynamic_smem_limit()).
std::size_t block_shared_smem_limit(const BlockSharedArgs& args, std::size_t optin);
// Block size and grid size for `args` on `limits` (raises the kernel's dynamic shared memory
// limit). Throws hs::UnsupportedError when the counters do not fit, hs::DeviceError on CUDA
// failures.
BlockSharedPlan plan_block_shared(const BlockSharedArgs& args, const DeviceLimits& limits);
void launch_block_shared(const BlockSharedArgs& args, const DeviceLimits& limits,
                         cudaStream_t stream);

// Empty when the kernels of this build can run on the current device, otherwise why not.
std::string block_shared_probe();

}  // namespace hs::cuda::detail
