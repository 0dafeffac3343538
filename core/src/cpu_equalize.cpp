// The "cpu" equalizer. Global equalization and matching run as two passes over the interleaved
// image on every hardware thread: the value histograms of the processed planes (Y computed on
// the fly in Luma space), then every pixel through its plane's LUT (Y through the LUT and back
// from YCrCb). Nothing is converted to planes and back, yet every value is the one
// equalize_reference() computes: the same LUTs (equalize_lut, match_lut, blend_lut) applied
// to the same Y, Cr, Cb. CLAHE, whose tiles interpolate between neighbours, runs the
// reference's plane pipeline.

#include "cpu_equalize.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <limits>
#include <mutex>
#include <string>

#include "histoscope/core/error.hpp"
#include "histoscope/core/timing.hpp"
#include "parallel.hpp"

namespace hs::detail {

namespace {

constexpr std::int64_t kRowsPixels = std::int64_t{1} << 17;

std::int64_t rows_per_part(const ImageView& image) {
    return std::max<std::int64_t>(1, kRowsPixels / image.width);
}

// The first row (in row order) holding a sample above the declared depth, with its largest
// sample: what split_planes() reports.
struct BadRow {
    int row = std::numeric_limits<int>::max();
    std::uint32_t top = 0;
};

template <typename T>
void histogram_rows(const ImageView& image, bool luma, int planes, std::int64_t y0, std::int64_t y1,
                    std::vector<std::uint64_t>& counts, BadRow& bad) {
    const std::size_t levels = std::size_t{1} << image.bit_depth;
    const std::uint32_t max = image.max_value();
    const auto ch = static_cast<std::size_t>(image.channels);
    const bool check = sizeof(T) == 2 && image.bit_depth < 16;
    const auto n = static_cast<std::size_t>(image.width) * ch;
    for (auto y = static_cast<int>(y0); y < y1; ++y) {
        const auto* row = reinterpret_cast<const T*>(image.row(y));
        if (check) {
            const std::uint32_t top = *std::max_element(row, row + n);
            if (top > max) {
                bad = {y, top};
                return;  // rows below it cannot come first
            }
        }
        if (ch == 1) {
            for (int x = 0; x < image.width; ++x) ++counts[row[x]];
        } else if (luma) {
            for (int x = 0; x < image.width; ++x) {
                const T* px = row + static_cast<std::size_t>(x) * ch;
                ++counts[rgb_to_ycrcb(px[0], px[1], px[2], image.bit_depth).a];  // Y alone
            }
        } else {
            for (int x = 0; x < image.width; ++x) {
                const T* px = row + static_cast<std::size_t>(x) * ch;
                for (int k = 0; k < planes; ++k)
                    ++counts[static_cast<std::size_t>(k) * levels + px[k]];
            }
        }
    }
}

template <typename T>
void apply_rows(const ImageView& image, bool luma, const std::vector<Lut>& luts, Image& out,
                std::int64_t y0, std::int64_t y1) {
    const auto ch = static_cast<std::size_t>(image.channels);
    const int depth = image.bit_depth;
    for (auto y = static_cast<int>(y0); y < y1; ++y) {
        const auto* row = reinterpret_cast<const T*>(image.row(y));
        T* dst = out.row_as<T>(y);
        if (ch == 1) {
            const std::uint16_t* lut = luts[0].data();
            for (int x = 0; x < image.width; ++x) dst[x] = static_cast<T>(lut[row[x]]);
            continue;
        }
        for (int x = 0; x < image.width; ++x) {
            const T* px = row + static_cast<std::size_t>(x) * ch;
            T* o = dst + static_cast<std::size_t>(x) * ch;
            if (luma) {
                const Triple ycc = rgb_to_ycrcb(px[0], px[1], px[2], depth);
                const Triple rgb = ycrcb_to_rgb(luts[0][ycc.a], ycc.b, ycc.c, depth);
                o[0] = static_cast<T>(rgb.a);
                o[1] = static_cast<T>(rgb.b);
                o[2] = static_cast<T>(rgb.c);
            } else {
                for (std::size_t k = 0; k < 3; ++k) o[k] = static_cast<T>(luts[k][px[k]]);
            }
            if (ch == 4) o[3] = px[3];
        }
    }
}

template <typename T>
EqualizeResult equalize_interleaved(const EqualizeRequest& r) {
    EqualizeResult result;
    const ImageView& image = r.image;
    const bool luma = image.channels >= 3 && r.space == EqualizeSpace::Luma;
    const int planes = r.processed_planes();
    const std::size_t levels = std::size_t{1} << image.bit_depth;

    // 1. Value histograms, one set per thread, and the first row above the declared depth.
    auto start = std::chrono::steady_clock::now();
    std::vector<std::uint64_t> counts(static_cast<std::size_t>(planes) * levels, 0);
    BadRow bad;
    std::mutex mutex;
    parallel_ranges(image.height, rows_per_part(image), [&](std::int64_t a, std::int64_t b) {
        std::vector<std::uint64_t> part(counts.size(), 0);
        BadRow part_bad;
        histogram_rows<T>(image, luma, planes, a, b, part, part_bad);
        const std::lock_guard lock(mutex);
        for (std::size_t i = 0; i < counts.size(); ++i) counts[i] += part[i];
        if (part_bad.row < bad.row) bad = part_bad;
    });
    if (bad.row != std::numeric_limits<int>::max())
        throw_sample_above_depth(image, bad.row, bad.top);
    result.stages.push_back({"histogram", ms_since(start)});

    // 2. The LUT of each processed plane.
    start = std::chrono::steady_clock::now();
    const std::vector<ValueHistogram> references = match_references(r);
    std::vector<Lut> luts;
    for (int k = 0; k < planes; ++k) {
        const auto first =
            counts.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(k) * levels);
        const ValueHistogram h(first, first + static_cast<std::ptrdiff_t>(levels));
        const Lut target = r.mode == EqualizeMode::Match
                               ? match_lut(h, references[static_cast<std::size_t>(k)])
                               : equalize_lut(h);
        luts.push_back(blend_lut(target, r.strength));
    }
    result.stages.push_back({"lut", ms_since(start)});

    // 3. Every pixel through its LUT.
    start = std::chrono::steady_clock::now();
    result.image = Image(FrameFormat::of(image), nullptr, /*zeroed=*/false);  // every row written
    parallel_ranges(image.height, rows_per_part(image), [&](std::int64_t a, std::int64_t b) {
        apply_rows<T>(image, luma, luts, result.image, a, b);
    });
    result.stages.push_back({"apply", ms_since(start)});
    return result;
}

}  // namespace

EqualizeResult cpu_equalize(const EqualizeRequest& r) {
    if (r.strength == 0.0) {
        const auto start = std::chrono::steady_clock::now();
        EqualizeResult result;
        result.image = copy_image(r.image);
        result.stages.push_back({"copy", ms_since(start)});
        return result;
    }
    if (r.mode != EqualizeMode::Clahe)
        return r.image.type == SampleType::U8 ? equalize_interleaved<std::uint8_t>(r)
                                              : equalize_interleaved<std::uint16_t>(r);
    EqualizeResult result;
    auto start = std::chrono::steady_clock::now();
    WorkingPlanes work = split_planes(r.image, r.space);
    result.stages.push_back({"to_planes", ms_since(start)});
    start = std::chrono::steady_clock::now();
    equalize_planes(work, r, {});
    result.stages.push_back({"equalize", ms_since(start)});
    start = std::chrono::steady_clock::now();
    result.image = compose_image(r.image, work, r.space);
    result.stages.push_back({"to_image", ms_since(start)});
    return result;
}

}  // namespace hs::detail
