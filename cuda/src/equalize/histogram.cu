// The histogram stage of the "gpu" equalizer: value histograms of the processed planes, and the
// CLAHE tile histograms over the reflect101-padded image (see equalize_kernels.cuh).

#include <algorithm>
#include <string>

#include "cuda_check.hpp"
#include "equalize/equalize_device.cuh"
#include "kernels/common/agent.cuh"
#include "kernels/common/launch.hpp"
#include "shared_memory.hpp"

namespace hs::cuda::detail::eq {

namespace {

extern __shared__ unsigned int eq_smem[];

struct ValueHistArgs {
    DeviceImage frame;
    PlaneSelect select;
    std::uint32_t levels = 256;
    std::uint32_t seg_bins = 256;  // bins per block (one segment of the levels: gridDim.y)
    unsigned long long* counts = nullptr;
    unsigned long long* bad = nullptr;
};

// blockIdx.z = plane, blockIdx.y = segment; a grid-stride loop over the groups.
template <typename T, int C, bool Luma>
__global__ void __launch_bounds__(1024) value_histogram_kernel(const ValueHistArgs a) {
    unsigned int* hist = eq_smem;
    const int plane = static_cast<int>(blockIdx.z);
    const int channel = a.select.channel[plane];
    const std::uint32_t lo = blockIdx.y * a.seg_bins;
    const std::uint32_t max_value = a.levels - 1;
    const bool check = a.bad != nullptr && blockIdx.y == 0 && blockIdx.z == 0;
    zero_private_counters(hist, a.seg_bins);
    __syncthreads();

    const std::uint64_t first = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    const std::uint64_t step = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
    const std::uint64_t groups = group_count(a.frame.pixels, sizeof(T) == 2);
    for (std::uint64_t g = first; g < groups; g += step) {
        std::uint32_t w[4 * C];
        load_group<C>(reinterpret_cast<const uint4*>(a.frame.data), g, w);
        const int valid = group_pixels<T>(a.frame.pixels, g);
#pragma unroll
        for (int p = 0; p < kPixelsPerGroup<T>; ++p) {
            if (p >= valid) break;
            if (check) check_pixel<T, C>(a.bad, w, p, g * kPixelsPerGroup<T> + p, max_value);
            std::uint32_t v;
            if constexpr (Luma)
                v = luma_y(group_sample<T>(w, p * C), group_sample<T>(w, p * C + 1),
                           group_sample<T>(w, p * C + 2), a.frame.bit_depth);
            else
                v = group_value<T, C, ValueKind::Plain>(w, p,
                                                        ValueRule{ValueKind::Plain, {}, channel});
            if (v <= max_value && v - lo < a.seg_bins) atomicAdd(&hist[v - lo], 1u);
        }
    }
    __syncthreads();
    merge_private_counters(hist, a.seg_bins,
                           a.counts + static_cast<std::size_t>(plane) * a.levels + lo);
}

struct TileHistArgs {
    DeviceImage frame;
    PlaneSelect select;
    TileGrid grid;
    std::uint32_t levels = 256;
    std::uint32_t seg_bins = 256;
    int segments = 1;
    int slice_rows = 1;  // tile rows per block (gridDim.y slices of a tile)
    unsigned int* counts = nullptr;
};

__device__ __forceinline__ int reflect101(int p, int n) {
    if (n == 1) return 0;
    while (p < 0 || p >= n) p = p < 0 ? -p : 2 * n - 2 - p;
    return p;
}

// blockIdx.x = tile * segments + segment, blockIdx.y = slice of the tile's rows,
// blockIdx.z = plane. Coordinates of the padded image map to the original by reflect101.
template <typename T, int C, bool Luma>
__global__ void __launch_bounds__(1024) tile_histogram_kernel(const TileHistArgs a) {
    unsigned int* hist = eq_smem;
    const int plane = static_cast<int>(blockIdx.z);
    const int channel = a.select.channel[plane];
    const int tile = static_cast<int>(blockIdx.x) / a.segments;
    const auto segment = static_cast<std::uint32_t>(static_cast<int>(blockIdx.x) % a.segments);
    const std::uint32_t lo = segment * a.seg_bins;
    const std::uint32_t max_value = a.levels - 1;
    const int tx = tile % a.grid.tiles_x, ty = tile / a.grid.tiles_x;
    const int tw = a.grid.tile_width;
    const int row0 = static_cast<int>(blockIdx.y) * a.slice_rows;
    const int rows = min(a.slice_rows, a.grid.tile_height - row0);
    zero_private_counters(hist, a.seg_bins);
    __syncthreads();

    const auto* samples = reinterpret_cast<const T*>(a.frame.data);
    const std::int64_t n = rows > 0 ? static_cast<std::int64_t>(rows) * tw : 0;
    for (std::int64_t i = threadIdx.x; i < n; i += blockDim.x) {
        const int r = static_cast<int>(i / tw), col = static_cast<int>(i % tw);
        const int sy = reflect101(ty * a.grid.tile_height + row0 + r, a.frame.height);
        const int sx = reflect101(tx * tw + col, a.frame.width);
        const T* px =
            samples + (static_cast<std::size_t>(sy) * static_cast<std::size_t>(a.frame.width) +
                       static_cast<std::size_t>(sx)) *
                          C;
        std::uint32_t v;
        if constexpr (Luma)
            v = luma_y(px[0], px[1], px[2], a.frame.bit_depth);
        else
            v = px[channel];
        if (v <= max_value && v - lo < a.seg_bins) atomicAdd(&hist[v - lo], 1u);
    }
    __syncthreads();
    const int tiles = a.grid.tiles_x * a.grid.tiles_y;
    unsigned int* out = a.counts +
                        (static_cast<std::size_t>(plane) * static_cast<std::size_t>(tiles) +
                         static_cast<std::size_t>(tile)) *
                            a.levels +
                        lo;
    merge_private_counters(hist, a.seg_bins, out);
}

// Bins per shared-memory histogram of `kernel`: all levels, or the largest power of two that
// fits.
std::uint32_t segment_bins(std::uint32_t levels, const void* kernel, const DeviceLimits& limits) {
    const std::size_t limit = dynamic_smem_limit(kernel, limits.shared_per_block_optin);
    std::uint32_t bins = levels;
    while (bins > 256 && std::size_t{bins} * 4 > limit) bins >>= 1;
    return bins;
}

// Lets the kernel launch with `smem` bytes of dynamic shared memory and returns its resident
// blocks per SM at `threads` threads.
int prepare_smem(const void* kernel, std::size_t smem, int threads, const DeviceLimits& limits,
                 const char* what) {
    reserve_dynamic_smem(kernel, smem, limits.shared_per_block_optin, what);
    const BlockShape shape = most_resident(kernel, {threads}, smem, false, what);
    if (shape.threads == 0)
        throw DeviceError(std::string(what) + ": no block of " + std::to_string(threads) +
                          " threads and " + std::to_string(smem) +
                          " bytes of shared memory fits on an SM");
    return shape.blocks_per_sm;
}

}  // namespace

void launch_value_histogram(const DeviceImage& frame, const PlaneSelect& select, int planes,
                            unsigned long long* counts, unsigned long long* bad,
                            const DeviceLimits& limits, cudaStream_t stream) {
    ValueHistArgs a;
    a.frame = frame;
    a.select = select;
    a.levels = levels_of(frame);
    a.counts = counts;
    a.bad = bad;
    const auto kernel = dispatch(frame, select.luma, [](auto layout) {
        using L = decltype(layout);
        return &value_histogram_kernel<typename L::Sample, L::kChannels,
                                       L::kValue == ValueKind::Luma>;
    });
    a.seg_bins = segment_bins(a.levels, reinterpret_cast<const void*>(kernel), limits);
    const int threads = a.seg_bins > 4096 ? 1024 : 512;
    const std::size_t smem = std::size_t{a.seg_bins} * 4;
    const int per_sm = prepare_smem(reinterpret_cast<const void*>(kernel), smem, threads, limits,
                                    "value histogram kernel setup");
    const unsigned int segments = a.levels / a.seg_bins;
    const std::uint64_t resident = static_cast<std::uint64_t>(limits.sm_count) *
                                   static_cast<std::uint64_t>(per_sm) /
                                   (segments * static_cast<unsigned int>(planes));
    // No block counts more than 2^30 samples, so its 32-bit shared counters stay exact.
    const std::uint64_t blocks =
        grid_blocks(group_count(frame.pixels, frame.type == SampleType::U16),
                    static_cast<std::uint64_t>(threads), std::max<std::uint64_t>(resident, 1),
                    (frame.pixels >> 30) + 1);
    const dim3 grid(static_cast<unsigned int>(blocks), segments, static_cast<unsigned int>(planes));
    kernel<<<grid, threads, smem, stream>>>(a);
    check(cudaGetLastError(), "value histogram kernel launch");
}

void launch_tile_histogram(const DeviceImage& frame, const PlaneSelect& select, int planes,
                           const TileGrid& grid, unsigned int* counts, const DeviceLimits& limits,
                           cudaStream_t stream) {
    TileHistArgs a;
    a.frame = frame;
    a.select = select;
    a.grid = grid;
    a.levels = levels_of(frame);
    a.counts = counts;
    const auto kernel = dispatch(frame, select.luma, [](auto layout) {
        using L = decltype(layout);
        return &tile_histogram_kernel<typename L::Sample, L::kChannels,
                                      L::kValue == ValueKind::Luma>;
    });
    a.seg_bins = segment_bins(a.levels, reinterpret_cast<const void*>(kernel), limits);
    a.segments = static_cast<int>(a.levels / a.seg_bins);
    const int threads = a.seg_bins > 4096 ? 1024 : 256;
    const std::size_t smem = std::size_t{a.seg_bins} * 4;
    const int per_sm = prepare_smem(reinterpret_cast<const void*>(kernel), smem, threads, limits,
                                    "tile histogram kernel setup");
    // Enough slices of every tile to fill the device twice over.
    const std::int64_t tiles = std::int64_t{grid.tiles_x} * grid.tiles_y;
    const std::int64_t wanted = 2 * std::int64_t{limits.sm_count} * per_sm;
    const std::int64_t per_slice_blocks = tiles * a.segments * planes;
    const std::int64_t slices = std::clamp<std::int64_t>(
        (wanted + per_slice_blocks - 1) / per_slice_blocks, 1, grid.tile_height);
    a.slice_rows = static_cast<int>((grid.tile_height + slices - 1) / slices);
    const auto used_slices =
        static_cast<unsigned int>((grid.tile_height + a.slice_rows - 1) / a.slice_rows);
    const dim3 blocks(static_cast<unsigned int>(tiles * a.segments), used_slices,
                      static_cast<unsigned int>(planes));
    kernel<<<blocks, threads, smem, stream>>>(a);
    check(cudaGetLastError(), "tile histogram kernel launch");
}

}  // namespace hs::cuda::detail::eq
