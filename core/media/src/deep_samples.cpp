// Deep samples in 16-bit files: bit replication on the way out, its inverse on the way in
// (codecs.hpp).

#include <algorithm>
#include <cstring>
#include <vector>

#include "codecs.hpp"
#include "histoscope/core/equalize.hpp"

namespace hs::media::detail {

namespace {

bool replicable(const ImageView& image, int depth) {
    return image.type == SampleType::U16 && depth >= 8 && depth <= 15;
}

}  // namespace

Image replicated_to_16_bits(const ImageView& image) {
    if (!replicable(image, image.bit_depth))
        throw std::logic_error("replicated_to_16_bits: not 16-bit samples of depth 8..15");
    Image out(image.width, image.height, image.channels, SampleType::U16, 16);
    const std::size_t n =
        static_cast<std::size_t>(image.width) * static_cast<std::size_t>(image.channels);
    const std::uint32_t max = image.max_value();
    std::vector<std::uint16_t> row(n);
    for (int y = 0; y < image.height; ++y) {
        std::memcpy(row.data(), image.row(y), n * sizeof(std::uint16_t));
        if (const std::uint16_t top = *std::max_element(row.begin(), row.end()); top > max)
            throw_sample_above_depth(image, y, top);
        auto* dst = out.row_as<std::uint16_t>(y);
        for (std::size_t i = 0; i < n; ++i) dst[i] = replicate_to_16(row[i], image.bit_depth);
    }
    return out;
}

std::optional<Image> unreplicated(const ImageView& image, int depth) {
    if (!replicable(image, depth) || image.bit_depth != 16) return std::nullopt;
    Image out(image.width, image.height, image.channels, SampleType::U16, depth);
    const std::size_t n =
        static_cast<std::size_t>(image.width) * static_cast<std::size_t>(image.channels);
    const int shift = 16 - depth;
    std::vector<std::uint16_t> row(n);
    for (int y = 0; y < image.height; ++y) {
        std::memcpy(row.data(), image.row(y), n * sizeof(std::uint16_t));
        auto* dst = out.row_as<std::uint16_t>(y);
        for (std::size_t i = 0; i < n; ++i) {
            const auto v = static_cast<std::uint16_t>(row[i] >> shift);
            if (replicate_to_16(v, depth) != row[i]) return std::nullopt;
            dst[i] = v;
        }
    }
    return out;
}

}  // namespace hs::media::detail
