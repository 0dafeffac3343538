#pragma once
// Strategy "block-shared": one shared-memory sub-histogram per block.
//
// Every block zeroes `bins` 32-bit counters in shared memory (and copies the bin table or the
// edge thresholds next to them), walks its share of the pixels with a grid-stride loop over
// groups (common/samples.cuh), counts with shared-memory atomics and finally adds its non-zero
// counters to the 64-bit global histogram with atomicAdd. A block never handles more than
// kMaxPixelsPerBlock pixels, so its 32-bit counters cannot overflow.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gpu_engine.hpp"
#include "kernels/common/bins.cuh"

namespace hs::cuda::detail {

// Upper bound of pixels one block counts, keeping its 32-bit shared counters exact.
inline constexpr std::uint64_t kMaxPixelsPerBlock = std::uint64_t{1} << 30;

// Bins: kTableModes for 8-bit values, kWideModes for 16-bit ones.
struct BlockSharedArgs : ImageArgs {
    ValueRule value;  // plain or luma
    BinRule bins;
    const std::int32_t* aux = nullptr;     // Table or Edges: device memory
    unsigned long long* counts = nullptr;  // `bins` 64-bit counters, zeroed by the caller
};

// Dynamic shared memory per block: 4-byte counters plus the 4-byte table or thresholds.
constexpr std::size_t block_shared_smem_bytes(BinMode mode, int bins) {
    return 4u *
           (static_cast<std::size_t>(bins) + static_cast<std::size_t>(bin_aux_entries(mode, bins)));
}

// The launch shape of a block-shared row of the strategy table: the block sizes tried (the one
// keeping the most threads resident wins, ties to the earlier one).
struct BlockSharedPolicy {
    std::vector<int> threads{256, 512, 1024};
};

struct BlockSharedTuning {
    int threads = 0;
    int blocks = 0;
    int blocks_per_sm = 0;
    std::size_t smem_bytes = 0;
    std::string describe() const;
};

// The most dynamic shared memory per block of the kernel that `args` select (sample type,
// channels, value kind, bin mode) on a device with opt-in limit `optin` (dynamic_smem_limit()).
// Throws hs::UnsupportedError when no kernel serves `args`.
std::size_t block_shared_smem_limit(const BlockSharedArgs& args, std::size_t optin);
// Block size and grid for `args` on `limits` (raises the kernel's dynamic shared memory
// limit). Throws hs::UnsupportedError when the counters do not fit, hs::DeviceError on CUDA
// failures.
BlockSharedTuning plan_block_shared(const BlockSharedArgs& args, const DeviceLimits& limits,
                                    const BlockSharedPolicy& policy = {});
void launch_block_shared(const BlockSharedArgs& args, const BlockSharedTuning& tuning,
                         cudaStream_t stream);
std::string block_shared_probe();

// The row of a block-shared strategy launched with `policy` (the registered "block-shared" has
// the default one; block_shared_engine.cpp).
Strategy block_shared_row(std::string_view name, std::string_view summary,
                          BlockSharedPolicy policy);

}  // namespace hs::cuda::detail
