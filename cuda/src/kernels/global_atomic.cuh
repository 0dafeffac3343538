#pragma once
// Strategy "global-atomic": the naive baseline, one 64-bit global atomicAdd per counted
// sample.
//
// A grid-stride loop walks the packed, zero-padded image one group of 16 / sizeof(sample)
// pixels at a time (each group read as `channels` aligned 16-byte vectors). For every pixel of
// the group the thread forms the value of each requested channel (a plain sample, the luma of
// samples 0..2, or the 8-bit joint colour (R << 16) | (G << 8) | B), turns it into a bin with
// the exact integer rules of hs::HistogramSpec and adds one to that bin's 64-bit counter in
// global memory. Up to kGlobalAtomicMaxOutputs channels are counted in one pass over the image.
//
// Exactness: bins are computed in 64-bit integers (even bins) or by binary search over the
// integer thresholds (explicit edges); counters are 64-bit and never overflow.

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>

#include "gpu_engine.hpp"

namespace hs::cuda::detail {

// What a thread turns a pixel into.
enum class GaValue : std::uint8_t {
    Plain,    // sample `offset` of the pixel
    Luma601,  // hs::luma(kLuma601, samples 0, 1, 2)
    Luma709,  // hs::luma(kLuma709, samples 0, 1, 2)
    Joint,    // (R << 16) | (G << 8) | B of 8-bit samples 0, 1, 2
};

enum class GaBinMode : std::uint8_t {
    Even,   // even bins: lower <= v < upper, bin = (v - lower) * bins / (upper - lower), 64-bit
    Edges,  // explicit edges: binary search over int32 thresholds
};

// Channels counted in one pass over the image.
inline constexpr int kGlobalAtomicMaxOutputs = 8;

struct GlobalAtomicOutput {
    GaValue value = GaValue::Plain;
    int offset = 0;                        // Plain: sample of the pixel
    unsigned long long* counts = nullptr;  // `bins` 64-bit counters
};

struct GlobalAtomicArgs {
    // Packed pixels, the allocation padded to whole groups of 16 * channels bytes.
    const void* samples = nullptr;
    std::uint64_t pixels = 0;
    int channels = 1;  // 1, 3 or 4 interleaved samples per pixel
    bool u16 = false;  // 16-bit samples (else 8-bit)
    int outputs = 0;   // 1..kGlobalAtomicMaxOutputs
    GlobalAtomicOutput out[kGlobalAtomicMaxOutputs];
    GaBinMode mode = GaBinMode::Even;
    int bins = 256;
    std::int64_t lower = 0, upper = 256;  // Even
    // Edges: bins + 1 nondecreasing thresholds (v in bin i when t_i <= v < t_{i+1}), clamped
    // to [-1, 2^24] (values lie in [0, 2^24)). Device memory.
    const std::int32_t* thresholds = nullptr;
};

// Tuning data: the block size (the grid comes from the occupancy API and the SM count).
inline constexpr int kGlobalAtomicThreads = 256;

// Queues the kernel on `stream`. Throws hs::UnsupportedError for layouts it cannot serve,
// hs::DeviceError on CUDA failures.
void launch_global_atomic(const GlobalAtomicArgs& args, const DeviceLimits& limits,
                          cudaStream_t stream);

// Empty when the kernels of this build can run on the current device, otherwise why not.
std::string global_atomic_probe();

}  // namespace hs::cuda::detail
