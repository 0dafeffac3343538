#pragma once
// Device helpers shared by the stages of the "gpu" equalizer (histogram.cu, lut.cu, apply.cu):
// samples in and out of 16-byte groups, core's Y of YCrCb and rounding, and the dispatch over
// sample type, channels and luma. Device code: nvcc only.

#include <cstdint>
#include <string>

#include "equalize/equalize_kernels.cuh"
#include "histoscope/core/equalize.hpp"
#include "histoscope/core/error.hpp"
#include "kernels/common/dispatch.cuh"
#include "kernels/common/samples.cuh"

namespace hs::cuda::detail::eq {

// Writes sample `j` of a group held as 32-bit little-endian words.
template <typename T>
__device__ __forceinline__ void insert(std::uint32_t* words, int j, std::uint32_t v) {
    if constexpr (sizeof(T) == 1) {
        const int shift = (j & 3) * 8;
        words[j >> 2] = (words[j >> 2] & ~(0xFFu << shift)) | (v << shift);
    } else {
        const int shift = (j & 1) * 16;
        words[j >> 1] = (words[j >> 1] & ~(0xFFFFu << shift)) | (v << shift);
    }
}

template <int C>
__device__ __forceinline__ void store_group(void* base, std::uint64_t g,
                                            const std::uint32_t (&w)[4 * C]) {
    auto* out = static_cast<uint4*>(base) + g * C;
#pragma unroll
    for (int k = 0; k < C; ++k)
        out[k] = make_uint4(w[4 * k + 0], w[4 * k + 1], w[4 * k + 2], w[4 * k + 3]);
}

// Y of YCrCb (3 in equalize.hpp), core's own formula.
__device__ __forceinline__ std::uint32_t luma_y(std::uint32_t r, std::uint32_t g, std::uint32_t b,
                                                int depth) {
    return hs::rgb_to_ycrcb(r, g, b, depth).a;
}

// clamp(round_even(x)) to [0, max] (core's round_even_clamp).
__device__ __forceinline__ std::uint32_t round_even_clamp(float x, std::uint32_t max) {
    const float r = rintf(x);
    if (!(r > 0.0f)) return 0;
    if (r >= static_cast<float>(max)) return max;
    return static_cast<std::uint32_t>(r);
}

// A sample above the declared depth: the smallest such pixel index is kept.
__device__ __forceinline__ void report_bad(unsigned long long* bad, std::uint64_t pixel) {
    atomicMin(bad, static_cast<unsigned long long>(pixel));
}
template <typename T, int C>
__device__ __forceinline__ void check_pixel(unsigned long long* bad, const std::uint32_t* w, int p,
                                            std::uint64_t pixel, std::uint32_t max_value) {
    bool over = false;
#pragma unroll
    for (int c = 0; c < C; ++c) over |= group_sample<T>(w, p * C + c) > max_value;
    if (over) report_bad(bad, pixel);
}

inline std::uint32_t levels_of(const DeviceImage& f) {
    return 1u << f.bit_depth;
}

// --- dispatch over sample type, channel count and luma (kernels/common/dispatch.cuh): a plane of
// Y (L::kValue == ValueKind::Luma) from 3 or 4 channels, of samples from any.
struct EqualizeLayouts {
    template <typename L>
    static constexpr bool serves() {
        return kIntegerSample<typename L::Sample> &&
               (L::kValue == ValueKind::Plain ||
                (L::kValue == ValueKind::Luma && L::kChannels >= 3));
    }
};

// f(Layout<T, C, V>) for `frame` with `luma` (ignored for one channel, as Y is the gray sample
// then) and returns what f returns.
template <typename F>
auto dispatch(const DeviceImage& frame, bool luma, F&& f) {
    using R = decltype(f(Layout<std::uint8_t, 1>{}));
    R out{};
    const ValueKind value = luma && frame.channels > 1 ? ValueKind::Luma : ValueKind::Plain;
    if (!visit_values<EqualizeLayouts>(frame.type, frame.channels, value,
                                       [&](auto layout) { out = f(layout); }))
        throw no_kernel_for("gpu equalize", frame.type, frame.channels);
    return out;
}

}  // namespace hs::cuda::detail::eq
