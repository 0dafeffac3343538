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
#include "kernels/common/bins.cuh"

namespace hs::cuda::detail {

// Bins: kTableModes for 8-bit plain values and luma, kWideModes for the others.
struct ThreadPrivateArgs : ImageArgs {
    ValueRule value;
    BinRule bins;
    const std::int32_t* aux = nullptr;   // Table or Edges: device memory
    std::uint64_t groups_per_block = 0;  // contiguous groups of pixels each block counts
    unsigned long long* counts = nullptr;
};

inline constexpr std::uint64_t kThreadPrivateMaxPixelsPerBlock = std::uint64_t{1} << 30;

// Groups a thread counts between two flushes: at most 255 samples per 8-bit counter.
constexpr int thread_private_round(bool u16) {
    return 255 / (u16 ? 8 : 16);
}
static_assert(thread_private_round(false) * 16 <= 255 && thread_private_round(true) * 8 <= 255);

// Dynamic shared memory of a block of `threads` threads.
constexpr std::size_t thread_private_smem_bytes(BinMode mode, int bins, int threads) {
    const auto rows = static_cast<std::size_t>((bins + 3) / 4);
    return 4u * (rows * static_cast<std::size_t>(threads) + static_cast<std::size_t>(bins) +
                 static_cast<std::size_t>(bin_aux_entries(mode, bins)));
}

struct ThreadPrivateTuning {
    int threads = 0;
    int blocks = 0;
    int blocks_per_sm = 0;
    std::size_t smem_bytes = 0;
    std::uint64_t groups_per_block = 0;
    std::string describe() const;
};

// The most dynamic shared memory per block of the kernel that `args` select (sample type,
// channels, value kind, bin mode) on a device with opt-in limit `optin` (dynamic_smem_limit()).
// Throws hs::UnsupportedError when no kernel serves `args`.
std::size_t thread_private_smem_limit(const ThreadPrivateArgs& args, std::size_t optin);
// Block size (the multiple of 32 whose blocks keep the most threads resident, ties: larger)
// and grid for `args` on `limits`; raises the kernel's dynamic shared memory limit. Throws
// hs::UnsupportedError when not even 32 threads fit, hs::DeviceError on CUDA failures.
ThreadPrivateTuning plan_thread_private(const ThreadPrivateArgs& args, const DeviceLimits& limits);
// Grid of `plan` (threads and blocks_per_sm set): plan.blocks and plan.groups_per_block.
void thread_private_grid(std::uint64_t pixels, bool u16, int sm_count, ThreadPrivateTuning& plan);
void launch_thread_private(const ThreadPrivateArgs& args, const ThreadPrivateTuning& plan,
                           cudaStream_t stream);

std::string thread_private_probe();

}  // namespace hs::cuda::detail
