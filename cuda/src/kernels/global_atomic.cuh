#pragma once
// Strategy "global-atomic": 64-bit atomicAdds on the counts in global memory, no
// privatization; one atomic per run of equal bins among a thread's pixels.
//
// A grid-stride loop walks the packed, zero-padded image one group at a time
// (common/samples.cuh). For every requested channel the thread forms the value of each pixel
// of the group (a plain sample, the luma of samples 0..2 or the 8-bit joint colour) and bins
// it (even bins in 64-bit integers, or a binary search over the integer thresholds of explicit
// edges: common/bins.cuh); neighbouring pixels with the same bin make one atomicAdd of their
// number (a real 4K photo's joint colours: 1.9 pixels per atomic, so half the atomics that
// bound this strategy), and a group ending in the bin every lane of the warp ends in makes one
// atomic for the warp. Up to kGlobalAtomicMaxOutputs channels are counted in one pass.
//
// Exactness: the bin rules are core's; counters are 64-bit and never overflow.

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>

#include "gpu_engine.hpp"
#include "kernels/common/bins.cuh"

namespace hs::cuda::detail {

// Channels counted in one pass over the image.
inline constexpr int kGlobalAtomicMaxOutputs = 8;
inline constexpr int kGlobalAtomicThreads = 256;
// Every value, 8-bit ones included, is binned by 64-bit arithmetic or by the edges.
inline constexpr BinModes kGlobalAtomicBinModes =
    bin_mode_bit(BinMode::Even64) | bin_mode_bit(BinMode::Edges);

struct GlobalAtomicOutput {
    ValueRule value;
    unsigned long long* counts = nullptr;  // `bins` 64-bit counters
};

struct GlobalAtomicArgs : ImageArgs {
    int outputs = 0;  // 1..kGlobalAtomicMaxOutputs
    GlobalAtomicOutput out[kGlobalAtomicMaxOutputs];
    BinRule bins;
    const std::int32_t* thresholds = nullptr;  // Edges: device memory
};

struct GlobalAtomicTuning {
    int threads = kGlobalAtomicThreads;
    int blocks_per_sm = 0;
    int blocks = 0;
    std::string describe() const;
};

// The grid for `args` (mode, layout, pixels) on `limits`. Throws hs::UnsupportedError for what
// no kernel serves, hs::DeviceError on CUDA failures.
GlobalAtomicTuning plan_global_atomic(const GlobalAtomicArgs& args, const DeviceLimits& limits);
void launch_global_atomic(const GlobalAtomicArgs& args, const GlobalAtomicTuning& tuning,
                          cudaStream_t stream);
std::string global_atomic_probe();

}  // namespace hs::cuda::detail
