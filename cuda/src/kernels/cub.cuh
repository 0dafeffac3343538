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

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "gpu_engine.hpp"
#include "histoscope/core/engine.hpp"

namespace hs::cuda::detail {

// Largest part of the image (bytes of its samples, or of a derived plane) one CUB call sees.
inline constexpr std::uint64_t kCubChunkBytes = std::uint64_t{1} << 30;

// Device bytes a run of `request` needs besides the image and the 64-bit counters: CUB's
// temporary storage, the 32-bit scratch histograms, a derived-value plane and the levels.
// Throws hs::UnsupportedError when CUB refuses the parameters, hs::DeviceError on CUDA
// failures. The request's device must be current.
std::size_t cub_workspace_bytes(const HistogramRequest& request);

// The prepared run (temporary storage, scratch, levels uploaded on `stream`).
std::unique_ptr<KernelRun> make_cub_run(const HistogramRequest& request, const DeviceLimits& limits,
                                        cudaStream_t stream);

// Empty when the kernels of this build can run on the current device, otherwise why not.
std::string cub_probe();

}  // namespace hs::cuda::detail
