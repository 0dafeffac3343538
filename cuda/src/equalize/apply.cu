// The apply stage of the "gpu" equalizer: every processed plane through its LUT, or through the
// CLAHE interpolation of its four nearest tile LUTs, 16-byte groups in and out (see
// equalize_kernels.cuh). The probe of the equalizer's kernels lives here too.

#include <string>

#include "cuda_check.hpp"
#include "equalize/equalize_device.cuh"
#include "kernels/common/launch.hpp"

namespace hs::cuda::detail::eq {

namespace {

struct ApplyArgs {
    DeviceImage frame;
    int planes = 1;
    const std::uint16_t* luts = nullptr;
    void* out = nullptr;
    unsigned long long* bad = nullptr;
    // CLAHE
    TileGrid grid;
    AxisTables x_axis, y_axis;
    std::int64_t weight = 0;
};

constexpr int kApplyThreads = 256;

// Pixel `p` of a group, each processed plane through `f(plane, value)`: the sample itself (one
// channel), Y of YCrCb and back to RGB (luma), or R, G and B (alpha kept).
template <typename T, int C, bool Luma, typename F>
__device__ __forceinline__ void apply_pixel(std::uint32_t (&w)[4 * C], int p, int depth, F&& f) {
    if constexpr (C == 1) {
        insert<T>(w, p, f(0, group_sample<T>(w, p)));
    } else if constexpr (Luma) {
        const Triple ycc =
            hs::rgb_to_ycrcb(group_sample<T>(w, p * C), group_sample<T>(w, p * C + 1),
                             group_sample<T>(w, p * C + 2), depth);
        const Triple rgb = hs::ycrcb_to_rgb(f(0, ycc.a), ycc.b, ycc.c, depth);
        insert<T>(w, p * C, rgb.a);
        insert<T>(w, p * C + 1, rgb.b);
        insert<T>(w, p * C + 2, rgb.c);
    } else {
#pragma unroll
        for (int k = 0; k < 3; ++k) insert<T>(w, p * C + k, f(k, group_sample<T>(w, p * C + k)));
    }
}

// One group per thread. 8-bit LUTs are staged in shared memory.
template <typename T, int C, bool Luma>
__global__ void __launch_bounds__(kApplyThreads) apply_lut_kernel(const ApplyArgs a) {
    constexpr int kP = kPixelsPerGroup<T>;
    constexpr bool kShared = sizeof(T) == 1;
    __shared__ std::uint16_t shared_lut[kShared ? 3 * 256 : 1];
    const std::uint32_t levels = 1u << a.frame.bit_depth;
    const std::uint32_t max_value = levels - 1;
    const std::uint16_t* lut = a.luts;
    if constexpr (kShared) {
        for (int i = static_cast<int>(threadIdx.x); i < a.planes * 256; i += kApplyThreads)
            shared_lut[i] = a.luts[i];
        __syncthreads();
        lut = shared_lut;
    }
    const std::uint64_t groups = group_count(a.frame.pixels, sizeof(T) == 2);
    const std::uint64_t g = static_cast<std::uint64_t>(blockIdx.x) * kApplyThreads + threadIdx.x;
    if (g >= groups) return;
    std::uint32_t w[4 * C];
    load_group<C>(reinterpret_cast<const uint4*>(a.frame.data), g, w);
    const int valid = group_pixels<T>(a.frame.pixels, g);
    const auto look = [&](int plane, std::uint32_t v) -> std::uint32_t {
        if constexpr (kShared)
            return lut[plane * 256 + static_cast<int>(min(v, max_value))];
        else
            return __ldg(lut + static_cast<std::size_t>(plane) * levels + min(v, max_value));
    };
#pragma unroll
    for (int p = 0; p < kP; ++p) {
        if (a.bad != nullptr && p < valid) check_pixel<T, C>(a.bad, w, p, g * kP + p, max_value);
        apply_pixel<T, C, Luma>(w, p, a.frame.bit_depth, look);
    }
    store_group<C>(a.out, g, w);
}

// 4d for one plane at pixel (x, y) with value v (below L).
__device__ __forceinline__ std::uint32_t clahe_value(const ApplyArgs& a, int plane, int x, int y,
                                                     std::uint32_t v, std::uint32_t levels) {
    const int tiles = a.grid.tiles_x * a.grid.tiles_y;
    const std::uint16_t* base =
        a.luts + static_cast<std::size_t>(plane) * static_cast<std::size_t>(tiles) * levels;
    const auto at = [&](int tx, int ty) {
        return static_cast<float>(
            __ldg(base +
                  (static_cast<std::size_t>(ty) * static_cast<std::size_t>(a.grid.tiles_x) +
                   static_cast<std::size_t>(tx)) *
                      levels +
                  v));
    };
    const int x1 = a.x_axis.tile1[x], x2 = a.x_axis.tile2[x];
    const int y1 = a.y_axis.tile1[y], y2 = a.y_axis.tile2[y];
    const float xa = a.x_axis.weight2[x], xa1 = a.x_axis.weight1[x];
    const float ya = a.y_axis.weight2[y], ya1 = a.y_axis.weight1[y];
    const float top = __fadd_rn(__fmul_rn(at(x1, y1), xa1), __fmul_rn(at(x2, y1), xa));
    const float bottom = __fadd_rn(__fmul_rn(at(x1, y2), xa1), __fmul_rn(at(x2, y2), xa));
    const float r = __fadd_rn(__fmul_rn(top, ya1), __fmul_rn(bottom, ya));
    return round_even_clamp(r, levels - 1);
}

template <typename T, int C, bool Luma>
__global__ void __launch_bounds__(kApplyThreads) apply_clahe_kernel(const ApplyArgs a) {
    constexpr int kP = kPixelsPerGroup<T>;
    const std::uint32_t levels = 1u << a.frame.bit_depth;
    const std::uint32_t max_value = levels - 1;
    const std::uint64_t groups = group_count(a.frame.pixels, sizeof(T) == 2);
    const std::uint64_t g = static_cast<std::uint64_t>(blockIdx.x) * kApplyThreads + threadIdx.x;
    if (g >= groups) return;
    std::uint32_t w[4 * C];
    load_group<C>(reinterpret_cast<const uint4*>(a.frame.data), g, w);
    const auto width = static_cast<std::uint64_t>(a.frame.width);
    int x = static_cast<int>((g * kP) % width);
    int y = static_cast<int>((g * kP) / width);
    const auto processed = [&](int plane, std::uint32_t v) {
        const std::uint32_t t = clahe_value(a, plane, x, y, min(v, max_value), levels);
        return hs::blend(v, t, a.weight);
    };
#pragma unroll
    for (int p = 0; p < kP; ++p) {
        if (g * kP + p >= a.frame.pixels) break;
        if (a.bad != nullptr) check_pixel<T, C>(a.bad, w, p, g * kP + p, max_value);
        apply_pixel<T, C, Luma>(w, p, a.frame.bit_depth, processed);
        if (++x == a.frame.width) {
            x = 0;
            ++y;
        }
    }
    store_group<C>(a.out, g, w);
}

unsigned int group_blocks(const DeviceImage& f) {
    const std::uint64_t groups = group_count(f.pixels, f.type == SampleType::U16);
    return static_cast<unsigned int>((groups + kApplyThreads - 1) / kApplyThreads);
}

}  // namespace

std::string probe() {
    return probe_kernel(&apply_lut_kernel<std::uint8_t, 1, false>, "the equalization kernels");
}

namespace {

// The arguments every apply launch shares.
ApplyArgs apply_args(const DeviceImage& frame, int planes, const std::uint16_t* luts, void* out,
                     unsigned long long* bad) {
    ApplyArgs a;
    a.frame = frame;
    a.planes = planes;
    a.luts = luts;
    a.out = out;
    a.bad = bad;
    return a;
}

}  // namespace

void launch_apply_lut(const DeviceImage& frame, bool luma, int planes, const std::uint16_t* luts,
                      void* out, unsigned long long* bad, cudaStream_t stream) {
    const auto kernel = dispatch(frame, luma, [](auto layout) {
        using L = decltype(layout);
        return &apply_lut_kernel<typename L::Sample, L::kChannels, L::kValue == ValueKind::Luma>;
    });
    kernel<<<group_blocks(frame), kApplyThreads, 0, stream>>>(
        apply_args(frame, planes, luts, out, bad));
    check(cudaGetLastError(), "LUT apply kernel launch");
}

void launch_apply_clahe(const DeviceImage& frame, bool luma, int planes, const TileGrid& grid,
                        const AxisTables& x_axis, const AxisTables& y_axis,
                        const std::uint16_t* luts, std::int64_t weight, void* out,
                        unsigned long long* bad, cudaStream_t stream) {
    ApplyArgs a = apply_args(frame, planes, luts, out, bad);
    a.grid = grid;
    a.x_axis = x_axis;
    a.y_axis = y_axis;
    a.weight = weight;
    const auto kernel = dispatch(frame, luma, [](auto layout) {
        using L = decltype(layout);
        return &apply_clahe_kernel<typename L::Sample, L::kChannels, L::kValue == ValueKind::Luma>;
    });
    kernel<<<group_blocks(frame), kApplyThreads, 0, stream>>>(a);
    check(cudaGetLastError(), "CLAHE apply kernel launch");
}

}  // namespace hs::cuda::detail::eq
