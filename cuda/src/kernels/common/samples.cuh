#pragma once
// How every strategy reads the image and turns a pixel into the value it counts.
//
// The device copy of an image is packed and padded to whole groups of 16 bytes per channel
// (DeviceImage): a thread reads one group of 16 / sizeof(T) pixels as C aligned 16-byte
// vectors, keeps them as 4 * C 32-bit little-endian words in registers and extracts the
// samples with shifts and masks (every word index is a compile-time constant after unrolling).
// A channel's value is a plain sample, the luma of samples 0..2 (core's hs::luma) or the 8-bit
// joint colour (core's hs::joint_value), so the device computes exactly what the CPU reference
// does. The host tests run the same functions (HS_HD).

#include <algorithm>
#include <cstdint>

#include "histoscope/core/channels.hpp"

#if defined(__CUDACC__)
#include <cuda_runtime.h>
#define HS_HD __host__ __device__ __forceinline__
#else
#define HS_HD inline
#endif

namespace hs::cuda::detail {

// What a thread turns a pixel into.
enum class ValueKind : std::uint8_t {
    Plain,  // sample `offset` of the pixel
    Luma,   // hs::luma(weights, samples 0, 1, 2)
    Joint,  // (R << 16) | (G << 8) | B of 8-bit samples 0, 1, 2
};

struct ValueRule {
    ValueKind kind = ValueKind::Plain;
    LumaWeights weights{};
    int offset = 0;  // Plain: the sample of the pixel that is counted
};

// The rule of `channel` on an image of `image_channels` samples per pixel: luma of a
// one-channel image is its gray sample, as in the CPU reference.
inline ValueRule value_rule(Channel channel, int image_channels) {
    ValueRule r;
    if (channel == Channel::Joint) {
        r.kind = ValueKind::Joint;
    } else if (is_luma(channel) && image_channels > 1) {
        r.kind = ValueKind::Luma;
        r.weights = channel == Channel::Luma709 ? kLuma709 : kLuma601;
    } else {
        r.offset = std::max(0, channel_offset(channel, image_channels));
    }
    return r;
}

// The image a kernel reads: the arguments every strategy's kernel starts with.
struct ImageArgs {
    const void* samples = nullptr;  // DeviceImage::data (packed, padded to whole groups)
    std::uint64_t pixels = 0;
    int channels = 1;  // 1, 3 or 4 interleaved samples per pixel
    bool u16 = false;  // 16-bit samples (else 8-bit)
};

// Pixels in a group of 16 bytes per channel.
template <typename T>
inline constexpr int kPixelsPerGroup = 16 / static_cast<int>(sizeof(T));

// Groups of an image of `pixels` pixels of 8-bit or 16-bit samples (the last may be partial).
constexpr std::uint64_t group_count(std::uint64_t pixels, bool u16) {
    const std::uint64_t per = u16 ? 8 : 16;
    return (pixels + per - 1) / per;
}

// Sample `j` of a group held as 32-bit little-endian words.
template <typename T>
HS_HD std::uint32_t group_sample(const std::uint32_t* words, int j) {
    if constexpr (sizeof(T) == 1)
        return (words[j >> 2] >> ((j & 3) * 8)) & 0xFFu;
    else
        return (words[j >> 1] >> ((j & 1) * 16)) & 0xFFFFu;
}

// The value of pixel `p` of a group of C-sample pixels, for a value kind fixed at compile time.
template <typename T, int C, ValueKind V>
HS_HD std::uint32_t group_value(const std::uint32_t* w, int p, const ValueRule& r) {
    if constexpr (V == ValueKind::Luma) {
        return hs::luma(r.weights, group_sample<T>(w, p * C), group_sample<T>(w, p * C + 1),
                        group_sample<T>(w, p * C + 2));
    } else if constexpr (V == ValueKind::Joint) {
        return hs::joint_value(group_sample<T>(w, p * C), group_sample<T>(w, p * C + 1),
                               group_sample<T>(w, p * C + 2));
    } else {
        // Written out so that every word index is a compile-time constant (no local memory).
        std::uint32_t v = group_sample<T>(w, p * C);
        if constexpr (C >= 2)
            if (r.offset == 1) v = group_sample<T>(w, p * C + 1);
        if constexpr (C >= 3)
            if (r.offset == 2) v = group_sample<T>(w, p * C + 2);
        if constexpr (C >= 4)
            if (r.offset == 3) v = group_sample<T>(w, p * C + 3);
        return v;
    }
}

// The same with the kind chosen at run time (several channels counted in one pass).
template <typename T, int C>
HS_HD std::uint32_t group_value(const std::uint32_t* w, int p, const ValueRule& r) {
    if constexpr (C >= 3) {
        if (r.kind == ValueKind::Luma) return group_value<T, C, ValueKind::Luma>(w, p, r);
        if (r.kind == ValueKind::Joint) return group_value<T, C, ValueKind::Joint>(w, p, r);
    }
    return group_value<T, C, ValueKind::Plain>(w, p, r);
}

// The value of the pixel whose C samples start at `px` (an unpadded plane of pixels).
template <typename T, int C>
HS_HD std::uint32_t pixel_value(const T* px, const ValueRule& r) {
    if constexpr (C >= 3) {
        if (r.kind == ValueKind::Luma) return hs::luma(r.weights, px[0], px[1], px[2]);
        if (r.kind == ValueKind::Joint) return hs::joint_value(px[0], px[1], px[2]);
    }
    return px[r.offset];
}

#if defined(__CUDACC__)
// Group `g` of an image of C samples per pixel into `w` (C aligned 16-byte loads).
template <int C>
__device__ __forceinline__ void load_group(const uint4* in, std::uint64_t g,
                                           std::uint32_t (&w)[4 * C]) {
#pragma unroll
    for (int k = 0; k < C; ++k) {
        const uint4 v = __ldg(in + g * C + k);
        w[4 * k + 0] = v.x;
        w[4 * k + 1] = v.y;
        w[4 * k + 2] = v.z;
        w[4 * k + 3] = v.w;
    }
}

// Pixels of group `g` that exist (the last group may be partial; the rest is padding).
template <typename T>
__device__ __forceinline__ int group_pixels(std::uint64_t pixels, std::uint64_t g) {
    const std::uint64_t left = pixels - g * kPixelsPerGroup<T>;
    return left < static_cast<std::uint64_t>(kPixelsPerGroup<T>) ? static_cast<int>(left)
                                                                 : kPixelsPerGroup<T>;
}

// The grid-stride loop over groups: calls f(w, valid) for the groups first, first + step, ...
// of the image, w holding the group's words and `valid` its pixels (the last group may be
// partial). kInFlight groups are loaded before any is counted (a strategy with little work per
// pixel otherwise waits for every group's loads).
template <typename T, int C, int kInFlight = 1, typename F>
__device__ __forceinline__ void for_each_group(const void* samples, std::uint64_t pixels,
                                               std::uint64_t first, std::uint64_t step, F&& f) {
    const auto* in = static_cast<const uint4*>(samples);
    const std::uint64_t groups = (pixels + kPixelsPerGroup<T> - 1) / kPixelsPerGroup<T>;
    std::uint64_t g = first;
    for (; g + (kInFlight - 1) * step < groups; g += kInFlight * step) {
        std::uint32_t w[kInFlight][4 * C];
#pragma unroll
        for (int k = 0; k < kInFlight; ++k) load_group<C>(in, g + k * step, w[k]);
#pragma unroll
        for (int k = 0; k < kInFlight; ++k) f(w[k], group_pixels<T>(pixels, g + k * step));
    }
    for (; g < groups; g += step) {
        std::uint32_t w[4 * C];
        load_group<C>(in, g, w);
        f(w, group_pixels<T>(pixels, g));
    }
}

// The same for the strategies that count pixel by pixel: calls f(w, p) for every pixel p.
template <typename T, int C, int kInFlight = 1, typename F>
__device__ __forceinline__ void for_each_pixel(const void* samples, std::uint64_t pixels,
                                               std::uint64_t first, std::uint64_t step, F&& f) {
    for_each_group<T, C, kInFlight>(samples, pixels, first, step,
                                    [&](const std::uint32_t* w, int valid) {
#pragma unroll
                                        for (int p = 0; p < kPixelsPerGroup<T>; ++p) {
                                            if (p >= valid) break;
                                            f(w, p);
                                        }
                                    });
}
#endif

}  // namespace hs::cuda::detail
