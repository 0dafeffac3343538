#pragma once
// Synthetic test images: every generator is deterministic (fixed seeds) so failures repeat.

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "histoscope/core/image.hpp"

namespace hs::test {

inline std::filesystem::path sample_dir() {
    return HS_SAMPLES_DIR;
}
inline std::string sample(const std::string& name) {
    return (sample_dir() / name).string();
}

// Photos bundled in resources/samples.
inline const std::vector<std::string> kPhotos8{"fruits.jpg",    "baboon.jpg",   "starry_night.jpg",
                                               "HappyFish.jpg", "camera.png",   "moon.png",
                                               "chelsea.png",   "fruits_4k.jpg"};
inline const std::vector<std::string> kPhotos16{"chessboard_GRAY_U16.tif", "moon_4k_16bit.png"};

// Names parameterized tests after their file parameter ("fruits.jpg" -> "fruits_jpg").
struct ParamName {
    template <typename Info>
    std::string operator()(const Info& i) const {
        std::string n = i.param;
        for (auto& ch : n)
            if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
        return n;
    }
};

template <typename F>
Image make_image(int w, int h, int channels, SampleType type, int depth, F&& value,
                 std::size_t padding = 0) {
    Image img(w, h, channels, type, depth, padding);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            for (int c = 0; c < channels; ++c) img.set_sample(x, y, c, value(x, y, c));
    return img;
}

inline Image uniform(int w, int h, int channels, SampleType type, int depth, unsigned seed = 1,
                     std::size_t padding = 0) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<std::uint32_t> dist(0, (1u << depth) - 1);
    return make_image(
        w, h, channels, type, depth, [&](int, int, int) { return dist(rng); }, padding);
}

inline Image constant(int w, int h, int channels, SampleType type, int depth, std::uint32_t v) {
    return make_image(w, h, channels, type, depth, [&](int, int, int) { return v; });
}

inline Image gaussian(int w, int h, int channels, SampleType type, int depth, double sigma,
                      unsigned seed = 2) {
    std::mt19937 rng(seed);
    const double max = static_cast<double>((1u << depth) - 1);
    std::normal_distribution<double> dist(max / 2, sigma);
    return make_image(w, h, channels, type, depth, [&](int, int, int) {
        return static_cast<std::uint32_t>(std::clamp(std::round(dist(rng)), 0.0, max));
    });
}

inline Image ramp(int w, int h, int channels, SampleType type, int depth) {
    const std::uint64_t levels = 1u << depth;
    return make_image(w, h, channels, type, depth, [&](int x, int y, int c) {
        return static_cast<std::uint32_t>(
            (static_cast<std::uint64_t>(y) * static_cast<std::uint64_t>(w) +
             static_cast<std::uint64_t>(x) + static_cast<std::uint64_t>(c)) %
            levels);
    });
}

}  // namespace hs::test
