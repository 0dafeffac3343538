#pragma once
// A plane of derived values (luma, joint colours) for the libraries that histogram one channel
// but cannot compute those values themselves (cub, npp), and the grid of such small kernels.
// Device code: nvcc only.

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>

#include "cuda_check.hpp"
#include "histoscope/core/error.hpp"
#include "kernels/common/dispatch.cuh"
#include "kernels/common/launch.hpp"
#include "kernels/common/samples.cuh"

namespace hs::cuda::detail {

inline constexpr int kPlaneThreads = 256;

// Blocks of kPlaneThreads for `items` items: enough for them, at most 8 per SM.
inline unsigned plane_blocks(std::uint64_t items, int sm_count) {
    return static_cast<unsigned>(
        grid_blocks(items, kPlaneThreads, static_cast<std::uint64_t>(std::max(1, sm_count)) * 8));
}

// plane[i] = the value `rule` of pixel i of `samples` (C interleaved samples each), i < n.
template <typename T, int C, typename P>
__global__ void value_plane_kernel(const T* samples, std::uint64_t n, const ValueRule rule,
                                   P* plane) {
    const std::uint64_t step = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
    for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += step)
        plane[i] = static_cast<P>(pixel_value<T, C>(samples + i * C, rule));
}

// Pixels with colour samples to derive values from: 3 or 4 per pixel.
struct ColourLayouts {
    template <typename L>
    static constexpr bool serves() {
        return kIntegerSample<typename L::Sample> && L::kChannels >= 3;
    }
};

// The plane of `rule` over the first n pixels of an image of 3 or 4 channels.
template <typename T, typename P>
void launch_value_plane(const T* samples, int channels, std::uint64_t n, const ValueRule& rule,
                        P* plane, int sm_count, cudaStream_t stream) {
    const unsigned blocks = plane_blocks(n, sm_count);
    visit_samples_of<ColourLayouts>(
        "the luma/joint plane", kSampleTypeOf<T>, channels, [&](auto layout) {
            value_plane_kernel<T, decltype(layout)::kChannels>
                <<<blocks, kPlaneThreads, 0, stream>>>(samples, n, rule, plane);
        });
    check(cudaGetLastError(), "luma/joint plane kernel launch");
}

}  // namespace hs::cuda::detail
