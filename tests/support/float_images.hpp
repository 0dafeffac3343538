#pragma once
// Float images (SampleType::F32) for the tests: from a function of (x, y, c), and a mix of every
// kind of float a scene-referred file can hold (ordinary values over many stops, zeros of both
// signs, negatives, subnormals, the largest floats, infinities and NaN), deterministic for a
// seed.

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "histoscope/core/image.hpp"

namespace hs::test {

template <typename F>
Image float_image(int w, int h, int channels, F&& value, std::size_t row_padding_floats = 0) {
    Image img(w, h, channels, SampleType::F32, 32, row_padding_floats * sizeof(float));
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            for (int c = 0; c < channels; ++c) img.set_sample_f32(x, y, c, value(x, y, c));
    return img;
}

// SplitMix64, as core's synthetic inputs use.
inline std::uint64_t mix64(std::uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

// A float from `seed`: mostly 2^u for u uniform over [-20, 20) (every bin of the default stops
// and below and above them), with one in 16 a special: +-0, a negative, a subnormal, +-FLT_MAX,
// +-infinity, NaN, 1 exactly, or a float with random bits (any of the 2^32).
inline float hostile_float(std::uint64_t seed) {
    const std::uint64_t r = mix64(seed);
    const double u = static_cast<double>(r >> 11) * 0x1.0p-53;
    if ((r & 15u) != 0) return static_cast<float>(std::exp2(-20.0 + 40.0 * u));
    switch ((r >> 4) % 11) {
        case 0:
            return 0.0f;
        case 1:
            return -0.0f;
        case 2:
            return -static_cast<float>(std::exp2(-10.0 + 20.0 * u));
        case 3:
            return std::bit_cast<float>(static_cast<std::uint32_t>(r >> 40) & 0x7FFFFFu);
        case 4:
            return std::numeric_limits<float>::max();
        case 5:
            return -std::numeric_limits<float>::max();
        case 6:
            return std::numeric_limits<float>::infinity();
        case 7:
            return -std::numeric_limits<float>::infinity();
        case 8:
            return std::numeric_limits<float>::quiet_NaN();
        case 9:
            return 1.0f;
        default:
            return std::bit_cast<float>(static_cast<std::uint32_t>(r >> 32));
    }
}

inline Image hostile_float_image(int w, int h, int channels, std::uint64_t seed = 1,
                                 std::size_t row_padding_floats = 0) {
    return float_image(
        w, h, channels,
        [&](int x, int y, int c) {
            return hostile_float(seed * 1000003u +
                                 (static_cast<std::uint64_t>(y) * static_cast<std::uint64_t>(w) +
                                  static_cast<std::uint64_t>(x)) *
                                     4u +
                                 static_cast<std::uint64_t>(c));
        },
        row_padding_floats);
}

}  // namespace hs::test
