// The exact integer conversion of deep Y'CbCr code values to R', G', B' (media.hpp writes the
// formula down). It needs no FFmpeg, so the tests and builds without OpenCV have it too.

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "histoscope/core/error.hpp"
#include "histoscope/media/media.hpp"

namespace hs::media {

namespace {

constexpr int kFractionBits = 20;

struct Weights {
    double kr, kb;
};

// FFmpeg's names of the matrices this conversion knows (Rec. ITU-T H.273's
// MatrixCoefficients 1, 4, 5, 6, 7, 9).
std::optional<Weights> weights_of(const std::string& matrix) {
    if (matrix == "bt709") return Weights{0.2126, 0.0722};
    if (matrix == "bt470bg" || matrix == "smpte170m") return Weights{0.299, 0.114};
    if (matrix == "bt2020nc") return Weights{0.2627, 0.0593};
    if (matrix == "smpte240m") return Weights{0.212, 0.087};
    if (matrix == "fcc") return Weights{0.30, 0.11};
    return std::nullopt;
}

std::int64_t q(double x) {
    return std::llround(x * static_cast<double>(std::int64_t{1} << kFractionBits));
}

}  // namespace

YCbCrToRgb YCbCrToRgb::make(const std::string& matrix, bool full_range, int bit_depth) {
    const std::optional<Weights> w = weights_of(matrix);
    if (!w)
        throw InputError("no conversion to R, G, B for the Y'CbCr matrix '" + matrix +
                         "' (its y, cb, cr channels can be histogrammed)");
    if (bit_depth < 8 || bit_depth > 16)
        throw InputError("no conversion to R, G, B for " + std::to_string(bit_depth) +
                         "-bit Y'CbCr");
    const double kr = w->kr, kb = w->kb, kg = 1.0 - kr - kb;
    const double max = std::ldexp(1.0, bit_depth) - 1.0;
    const double unit = std::ldexp(1.0, bit_depth - 8);
    const double sy = full_range ? max : 219.0 * unit;
    const double sc = full_range ? max : 224.0 * unit;
    YCbCrToRgb t;
    t.y0 = full_range ? 0 : std::llround(16.0 * unit);
    t.c0 = std::int64_t{1} << (bit_depth - 1);
    t.max = (std::int64_t{1} << bit_depth) - 1;
    t.y = q(max / sy);
    t.cr_r = q(2.0 * (1.0 - kr) * max / sc);
    t.cb_b = q(2.0 * (1.0 - kb) * max / sc);
    t.cb_g = q(2.0 * (1.0 - kb) * kb / kg * max / sc);
    t.cr_g = q(2.0 * (1.0 - kr) * kr / kg * max / sc);
    return t;
}

void YCbCrToRgb::convert(std::uint32_t Y, std::uint32_t Cb, std::uint32_t Cr,
                         std::uint32_t rgb[3]) const {
    constexpr std::int64_t half = std::int64_t{1} << (kFractionBits - 1);
    const std::int64_t yy = y * (static_cast<std::int64_t>(Y) - y0);
    const std::int64_t cb = static_cast<std::int64_t>(Cb) - c0;
    const std::int64_t cr = static_cast<std::int64_t>(Cr) - c0;
    const auto out = [&](std::int64_t v) {
        return static_cast<std::uint32_t>(std::clamp<std::int64_t>(v >> kFractionBits, 0, max));
    };
    rgb[0] = out(yy + cr_r * cr + half);
    rgb[1] = out(yy - cb_g * cb - cr_g * cr + half);
    rgb[2] = out(yy + cb_b * cb + half);
}

LumaExcursions luma_excursions(const ImageView& y, int bit_depth) {
    LumaExcursions out;
    const int shift = std::clamp(bit_depth, 8, 16) - 8;
    out.black = 16u << shift;
    out.white = 235u << shift;
    // Row by row through the samples' own type (a 4K frame's 8 million of them, every frame).
    const auto count = [&](const auto* first) {
        for (int x = 0; x < y.width; x += 1) {
            const std::uint32_t v =
                first[static_cast<std::size_t>(x) * static_cast<std::size_t>(y.channels)];
            out.below += v < out.black ? 1u : 0u;
            out.above += v > out.white ? 1u : 0u;
        }
    };
    for (int row = 0; row < y.height; ++row) {
        if (y.type == SampleType::U8)
            count(reinterpret_cast<const std::uint8_t*>(y.row(row)));
        else
            count(reinterpret_cast<const std::uint16_t*>(y.row(row)));
    }
    out.samples = static_cast<std::uint64_t>(y.width) * static_cast<std::uint64_t>(y.height);
    return out;
}

}  // namespace hs::media
