#pragma once
// Strategy "cub": cub::DeviceHistogram from the CCCL that ships with the CUDA toolkit.
//
// Plain channels of an interleaved image are counted by one MultiHistogramEven<C, C> (or
// MultiHistogramRange<C, C> for explicit edges) call over all C channels; the histograms of
// channels nobody asked for are dropped. Luma and the joint colour are not CUB features: a
// small transform kernel first writes a plane of the derived values (luma in the sample type,
// joint colours as uint32) and CUB histograms that plane as one channel.
//
// Exactness:
//  - Even bins call HistogramEven with 64-bit integer levels (LevelT = long long). For integer
//    samples CUB then counts lower <= v < upper and computes the bin as
//    (uint64)(v - lower) * bins / (uint64)(upper - lower), which is hs::bin_of's rule exactly
//    (no floating point; the product stays below 2^57). 8-bit samples go through CUB's 256
//    privatized bins and the same rule maps those to the output bins.
//  - Explicit edges call HistogramRange with the spec's integer thresholds (int64): CUB's
//    upper-bound search finds the last i with t_i <= v and drops v >= t_bins, which is the
//    rule of hs::bin_of for integer samples (empty bins where thresholds repeat included).
//  - CUB's counters are 32-bit: the image is histogrammed in chunks of at most
//    kCubChunkBytes bytes (so no counter can pass 2^32 and CUB's offsets stay 32-bit), each
//    chunk into 32-bit scratch histograms that a kernel then adds to the 64-bit counts.
//
// Memory: for more than 256 bins of 16-bit or derived samples CUB keeps one privatized
// histogram per thread block in global memory (its temporary storage); the engine asks CUB
// for that size up front and refuses requests whose working set does not fit.

#include <cuda_runtime_api.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "gpu_engine.hpp"
#include "kernels/common/samples.cuh"

namespace hs::cuda::detail {

// Largest part of the image (bytes of its samples, or of a derived plane) one CUB call sees.
inline constexpr std::uint64_t kCubChunkBytes = std::uint64_t{1} << 30;

// Derived values, each histogrammed from a plane of its own: luma (Rec.601, Rec.709) and the
// joint colour.
inline constexpr int kCubDerivedKinds = 3;

// How one request maps onto CUB calls; describe() prints it.
struct CubPlan {
    SampleType type = SampleType::U8;
    int channels = 1;
    std::uint64_t pixels = 0;
    std::uint64_t chunk_pixels = 0;  // pixels per chunk (CUB call)
    int bins = 1;
    bool even = true;
    long long lower = 0, upper = 0;
    bool plain = false;  // one Multi* call over all interleaved channels
    std::array<int, kCubDerivedKinds> derived_slot{-1, -1, -1};
    int slots = 0;                       // scratch histograms
    std::vector<int> slot_of;            // per requested channel
    std::size_t plane_bytes_per_px = 0;  // 0: no derived plane
    std::size_t temp_bytes = 0;          // the most CUB's calls need

    std::uint64_t first_chunk() const { return std::min(chunk_pixels, pixels); }
    // Device bytes of a run besides the image and the 64-bit counters: CUB's temporary storage,
    // the 32-bit scratch histograms, a derived-value plane and the levels.
    std::size_t workspace_bytes() const;
    std::string describe() const;
};

// The plan of `request` (CUB's temporary storage size included). Throws hs::UnsupportedError
// when CUB refuses the parameters, hs::DeviceError on CUDA failures. The device must be current.
CubPlan plan_cub(const HistogramRequest& request);

struct CubBuffers {
    void* temp = nullptr;               // plan.temp_bytes
    unsigned* scratch = nullptr;        // plan.slots * plan.bins
    void* plane = nullptr;              // plan.first_chunk() * plan.plane_bytes_per_px
    const long long* levels = nullptr;  // explicit edges: the bins + 1 thresholds
};

// Adds the histograms of the plan's channels of `image` (of the planned shape: KernelRun::launch()
// checks it) to `counts`.
void launch_cub(const CubPlan& plan, const CubBuffers& buffers, const DeviceImage& image,
                unsigned long long* counts, const DeviceLimits& limits, cudaStream_t stream);

std::string cub_probe();

}  // namespace hs::cuda::detail
