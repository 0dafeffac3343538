// The display kernels (display_kernels.cuh): one block scans the colour histograms for the two
// percentiles of the stretched range; one thread per output pixel sums its block of input
// pixels, rounds the means, maps them through the range and marks clipping.

#include <cub/block/block_scan.cuh>

#include "cuda_check.hpp"
#include "display/display_kernels.cuh"
#include "kernels/common/launch.hpp"

namespace hs::cuda::detail::display {

namespace {

constexpr int kRangeThreads = 1024;
using Scan = cub::BlockScan<unsigned long long, kRangeThreads>;

// Nearest rank: the smallest v with at least max(1, ceil(q * N)) samples <= v.
__device__ std::uint64_t rank_of(double q, unsigned long long total) {
    const double r = ceil(__dmul_rn(q, static_cast<double>(total)));
    return r < 1.0 ? 1ull : static_cast<unsigned long long>(r);
}

// Thread t owns the consecutive values [t * chunk, (t + 1) * chunk), summed over the planes.
__global__ void __launch_bounds__(kRangeThreads)
    stretched_range_kernel(const unsigned long long* counts, int planes, std::uint32_t levels,
                           double q_lo, double q_hi, std::uint32_t* range) {
    __shared__ typename Scan::TempStorage scan_tmp;
    __shared__ unsigned long long total_shared;
    __shared__ std::uint32_t found[2];
    const std::uint32_t chunk = (levels + kRangeThreads - 1) / kRangeThreads;
    const std::uint32_t begin = min(threadIdx.x * chunk, levels);
    const std::uint32_t end = min(begin + chunk, levels);
    const auto at = [&](std::uint32_t v) {
        unsigned long long n = 0;
        for (int p = 0; p < planes; ++p) n += counts[static_cast<std::size_t>(p) * levels + v];
        return n;
    };
    unsigned long long local = 0;
    for (std::uint32_t v = begin; v < end; ++v) local += at(v);
    unsigned long long before = 0, total = 0;
    Scan(scan_tmp).ExclusiveSum(local, before, total);
    if (threadIdx.x == 0) {
        total_shared = total;
        found[0] = found[1] = levels - 1;
    }
    __syncthreads();
    total = total_shared;
    const std::uint32_t max_value = levels - 1;
    if (total == 0) {
        if (threadIdx.x == 0) {
            range[0] = 0;
            range[1] = max_value;
        }
        return;
    }
    const unsigned long long ranks[2] = {rank_of(q_lo, total), rank_of(q_hi, total)};
    for (int k = 0; k < 2; ++k) {
        // The one thread whose values reach the rank first finds the value.
        if (before < ranks[k] && before + local >= ranks[k]) {
            unsigned long long seen = before;
            for (std::uint32_t v = begin; v < end; ++v) {
                seen += at(v);
                if (seen >= ranks[k]) {
                    found[k] = v;
                    break;
                }
            }
        }
    }
    __syncthreads();
    if (threadIdx.x != 0) return;
    std::uint32_t lo = found[0], hi = found[1];
    if (hi - lo < 255) {
        hi = min(max_value, lo + 255);
        lo = hi >= 255 ? hi - 255 : 0;
    }
    range[0] = lo;
    range[1] = hi;
}

struct PictureArgs {
    const void* samples = nullptr;
    int width = 0, height = 0, channels = 1;
    std::uint32_t max_value = 255;
    int factor = 1;
    int out_width = 0, out_height = 0;
    const std::uint32_t* range = nullptr;
    std::uint8_t* picture = nullptr;
    std::uint8_t* mask = nullptr;
    unsigned clipping = 0;
};

constexpr int kPictureThreads = 256;

template <typename T, int C>
__global__ void __launch_bounds__(kPictureThreads) picture_kernel(const PictureArgs a) {
    const std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * kPictureThreads + threadIdx.x;
    if (i >= static_cast<std::uint64_t>(a.out_width) * static_cast<std::uint64_t>(a.out_height))
        return;
    const int ox = static_cast<int>(i % static_cast<std::uint64_t>(a.out_width));
    const int oy = static_cast<int>(i / static_cast<std::uint64_t>(a.out_width));
    const int x0 = ox * a.factor, x1 = min(a.width, x0 + a.factor);
    const int y0 = oy * a.factor, y1 = min(a.height, y0 + a.factor);
    const auto* samples = static_cast<const T*>(a.samples);
    constexpr int kColour = C < 3 ? C : 3;
    unsigned long long sum[C] = {};
    bool high = false, low = false;
    for (int y = y0; y < y1; ++y) {
        const T* row = samples + static_cast<std::size_t>(y) * a.width * C;
        for (int x = x0; x < x1; ++x) {
#pragma unroll
            for (int c = 0; c < C; ++c) {
                const std::uint32_t v = row[static_cast<std::size_t>(x) * C + c];
                sum[c] += v;
                if (c < kColour && (a.clipping & (1u << c)) != 0) {
                    high |= v == a.max_value;
                    low |= v == 0;
                }
            }
        }
    }
    const std::uint32_t lo = a.range != nullptr ? a.range[0] : 0;
    const std::uint32_t hi = a.range != nullptr ? a.range[1] : a.max_value;
    const std::uint32_t span = max(hi - lo, 1u);
    const auto n =
        static_cast<unsigned long long>(x1 - x0) * static_cast<unsigned long long>(y1 - y0);
    std::uint8_t* out = a.picture + i * C;
#pragma unroll
    for (int c = 0; c < C; ++c) {
        const auto mean = static_cast<std::uint32_t>((sum[c] + n / 2) / n);
        const std::uint32_t v = min(mean, a.max_value);
        if (c == 3) {
            out[c] = static_cast<std::uint8_t>((v * 255u + a.max_value / 2u) / a.max_value);
        } else {
            const std::uint32_t k = min(max(v, lo), hi) - lo;
            out[c] = static_cast<std::uint8_t>((k * 255u + span / 2u) / span);
        }
    }
    if (a.mask != nullptr) a.mask[i] = high ? 2 : (low ? 1 : 0);
}

template <typename T>
auto picture_kernel_for(int channels) {
    switch (channels) {
        case 1:
            return &picture_kernel<T, 1>;
        case 3:
            return &picture_kernel<T, 3>;
        default:
            return &picture_kernel<T, 4>;
    }
}

}  // namespace

std::string probe() {
    return probe_kernel(&picture_kernel<std::uint8_t, 1>, "the display kernels");
}

void launch_stretched_range(const unsigned long long* counts, int planes, int levels, double q_lo,
                            double q_hi, std::uint32_t* range, cudaStream_t stream) {
    stretched_range_kernel<<<1, kRangeThreads, 0, stream>>>(
        counts, planes, static_cast<std::uint32_t>(levels), q_lo, q_hi, range);
    check(cudaGetLastError(), "display range kernel launch");
}

void launch_picture(const DeviceImage& frame, int factor, const std::uint32_t* range,
                    std::uint8_t* picture, std::uint8_t* mask, unsigned clipping,
                    cudaStream_t stream) {
    PictureArgs a;
    a.samples = frame.data;
    a.width = frame.width;
    a.height = frame.height;
    a.channels = frame.channels;
    a.max_value = (1u << frame.bit_depth) - 1u;
    a.factor = factor;
    a.out_width = (frame.width + factor - 1) / factor;
    a.out_height = (frame.height + factor - 1) / factor;
    a.range = range;
    a.picture = picture;
    a.mask = mask;
    // As core: gray frames count their one channel; alpha never counts.
    a.clipping = (frame.channels == 1 ? clipping & 1u : clipping) & 7u;
    const std::uint64_t pixels =
        static_cast<std::uint64_t>(a.out_width) * static_cast<std::uint64_t>(a.out_height);
    const auto blocks = static_cast<unsigned int>((pixels + kPictureThreads - 1) / kPictureThreads);
    const auto kernel = frame.type == SampleType::U16
                            ? picture_kernel_for<std::uint16_t>(frame.channels)
                            : picture_kernel_for<std::uint8_t>(frame.channels);
    kernel<<<blocks, kPictureThreads, 0, stream>>>(a);
    check(cudaGetLastError(), "picture kernel launch");
}

}  // namespace hs::cuda::detail::display
