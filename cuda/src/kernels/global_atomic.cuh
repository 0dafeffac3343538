#pragma once
// Strategy "global-atomic": the naive baseline, one 64-bit global atomicAdd per counted
// sample.
//
// A grid-stride loop walks the packed, zero-padded image one group at a time
// (common/samples.cuh). For every pixel of the group the thread forms the value of each
// requested channel (a plain sample, the luma of samples 0..2 or the 8-bit joint colour), bins
// it (even bins in 64-bit integers, or a binary search over the integer thresholds of explicit
// edges: common/bins.cuh) and adds one to that bin's 64-bit counter in global memory. Up to
// kGlobalAtomicMaxOutputs channels are counted in one pass over the image.
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
