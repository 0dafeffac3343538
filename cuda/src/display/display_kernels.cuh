#pragma once
// The pictures of a device-resident frame (histoscope/core/display.hpp, whose integer formulas
// the kernels compute exactly): the stretched display range of a deep frame from the value
// histograms of its colour samples, and the reduced 8-bit picture with its clipping mask, so
// that only the pictures leave the device.

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>

#include "gpu_engine.hpp"

namespace hs::cuda::detail::display {

// Empty when the kernels load on the current device, else why not.
std::string probe();

// range[0] = lo, range[1] = hi: the stretched range of the value histograms `counts` (`planes`
// planes of `levels` 64-bit counters, summed), percentiles `q_lo` and `q_hi` given as the
// fractions p / 100.0 the host computed (stats.hpp's nearest rank).
void launch_stretched_range(const unsigned long long* counts, int planes, int levels, double q_lo,
                            double q_hi, std::uint32_t* range, cudaStream_t stream);

// The picture of `frame` reduced by `factor` (ceil(W/f) x ceil(H/f) pixels of frame.channels
// 8-bit samples, rows packed) over the display range at `range` (device memory: lo, hi; null:
// the full range), and, when `mask` is given, the clipping mask of the channels of `clipping`
// (one byte per output pixel).
void launch_picture(const DeviceImage& frame, int factor, const std::uint32_t* range,
                    std::uint8_t* picture, std::uint8_t* mask, unsigned clipping,
                    cudaStream_t stream);

}  // namespace hs::cuda::detail::display
