// What the readers say of a float image's samples (media.hpp): needs no OpenCV, so that raw
// float frames get it too.

#include <cmath>
#include <cstdint>
#include <string>

#include "histoscope/media/media.hpp"

namespace hs::media {

namespace {

std::string count_text(std::uint64_t n, const char* one, const char* many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

}  // namespace

std::string non_finite_note(const ImageView& v) {
    if (!is_float(v.type)) return {};
    std::uint64_t nan = 0, inf = 0;
    const auto n = static_cast<std::size_t>(v.width) * static_cast<std::size_t>(v.channels);
    for (int y = 0; y < v.height; ++y) {
        const auto* row = reinterpret_cast<const float*>(v.row(y));
        for (std::size_t i = 0; i < n; ++i) {
            if (std::isnan(row[i])) ++nan;
            if (std::isinf(row[i])) ++inf;
        }
    }
    if (nan + inf == 0) return {};
    std::string what;
    if (nan != 0) what = count_text(nan, "sample is NaN", "samples are NaN");
    if (inf != 0)
        what += (what.empty() ? "" : " and ") +
                count_text(inf, "sample is infinite", "samples are infinite");
    return what + ": the histograms count them apart, as non-finite";
}

}  // namespace hs::media
