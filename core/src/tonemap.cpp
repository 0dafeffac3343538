// Tone mapping by histogram adjustment (tonemap.hpp, where every step is written down).

#include "histoscope/core/tonemap.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <mutex>

#include "histoscope/core/channels.hpp"
#include "histoscope/core/error.hpp"
#include "histoscope/core/timing.hpp"
#include "parallel.hpp"

namespace hs {

namespace {

constexpr double kTolerance = 0.025;  // the paper's 2.5%
constexpr std::int64_t kRowsPerPart = 64;

// Lw of pixel x of a float row (1).
float world_luminance(const float* p, int channels) {
    return channels >= 3 ? luminance709(p[0], p[1], p[2]) : p[0];
}

bool has_log(float lw) {
    return std::isfinite(lw) && lw > 0.0f;
}

std::uint32_t quantize(double v, std::uint32_t max) {
    return static_cast<std::uint32_t>(std::lround(std::clamp(v, 0.0, 1.0) * max));
}

}  // namespace

void ToneMapSpec::validate() const {
    if (bins < 2 || bins > 65536)
        throw UsageError("tone mapping needs 2 to 65536 histogram bins, not " +
                         std::to_string(bins));
    if (!(display_contrast > 1.0 && display_contrast <= 1e6))
        throw UsageError("the display's contrast (Ldmax / Ldmin) must lie in (1, 1e6]");
    if (output_depth != 8 && output_depth != 16)
        throw UsageError("tone mapping writes 8-bit or 16-bit samples, not " +
                         std::to_string(output_depth) + "-bit");
}

double srgb_encode(double c) {
    return c <= 0.0031308 ? 12.92 * c : 1.055 * std::pow(c, 1.0 / 2.4) - 0.055;
}

CeilingResult histogram_ceiling(const std::vector<std::uint64_t>& counts, double bin_width,
                                double display_contrast) {
    CeilingResult r;
    r.counts.assign(counts.begin(), counts.end());
    double counted = 0.0;
    for (double f : r.counts) counted += f;
    const double tolerance = kTolerance * counted;
    const double display_range = std::log10(display_contrast);
    const double scene_range = bin_width * static_cast<double>(counts.size());
    if (!(bin_width > 0.0) || counted == 0.0 || scene_range <= display_range) {
        r.linear = true;
        return r;
    }
    for (;;) {
        ++r.iterations;
        double total = 0.0;
        for (double f : r.counts) total += f;
        if (total < tolerance) {
            r.linear = true;
            r.counts.assign(counts.begin(), counts.end());
            return r;
        }
        const double ceiling = total * bin_width / display_range;
        double trimmings = 0.0;
        for (double& f : r.counts)
            if (f > ceiling) {
                trimmings += f - ceiling;
                f = ceiling;
            }
        if (trimmings <= tolerance) return r;
    }
}

ToneMapResult tone_map(const ImageView& image, const ToneMapSpec& spec) {
    validate(image);
    if (!is_float(image.type))
        throw UsageError("tone mapping takes float samples, not " + to_string(image.type) +
                         " ones (equalize 8-bit and 16-bit images instead)");
    spec.validate();
    ToneMapResult out;
    const int channels = image.channels;
    const auto w = static_cast<std::size_t>(image.width);
    const auto n = static_cast<std::size_t>(channels);

    // 1, 2: the range of log luminance, then its histogram.
    auto start = std::chrono::steady_clock::now();
    double lo = HUGE_VAL, hi = -HUGE_VAL;
    std::uint64_t black = 0;
    std::mutex mutex;
    detail::parallel_ranges(image.height, kRowsPerPart, [&](std::int64_t a, std::int64_t b) {
        double plo = HUGE_VAL, phi = -HUGE_VAL;
        std::uint64_t pblack = 0;
        for (auto y = static_cast<int>(a); y < b; ++y) {
            const auto* p = reinterpret_cast<const float*>(image.row(y));
            for (std::size_t x = 0; x < w; ++x, p += n) {
                const float lw = world_luminance(p, channels);
                if (!has_log(lw)) {
                    ++pblack;
                    continue;
                }
                const double bw = std::log10(static_cast<double>(lw));
                plo = std::min(plo, bw);
                phi = std::max(phi, bw);
            }
        }
        const std::lock_guard lock(mutex);
        lo = std::min(lo, plo);
        hi = std::max(hi, phi);
        black += pblack;
    });
    out.black_pixels = black;
    const bool any = lo <= hi;
    out.log_min = any ? lo : 0.0;
    out.log_max = any ? hi : 0.0;
    const auto bins = static_cast<std::size_t>(spec.bins);
    const double width = any ? (hi - lo) / static_cast<double>(bins) : 0.0;
    std::vector<std::uint64_t> counts(bins, 0);
    const auto bin_of = [&](double bw) {
        const double t = (bw - lo) / width;
        return std::min(bins - 1, static_cast<std::size_t>(std::max(0.0, std::floor(t))));
    };
    if (any && width > 0.0)
        detail::parallel_ranges(image.height, kRowsPerPart, [&](std::int64_t a, std::int64_t b) {
            std::vector<std::uint64_t> part(bins, 0);
            for (auto y = static_cast<int>(a); y < b; ++y) {
                const auto* p = reinterpret_cast<const float*>(image.row(y));
                for (std::size_t x = 0; x < w; ++x, p += n) {
                    const float lw = world_luminance(p, channels);
                    if (has_log(lw)) ++part[bin_of(std::log10(static_cast<double>(lw)))];
                }
            }
            const std::lock_guard lock(mutex);
            for (std::size_t i = 0; i < bins; ++i) counts[i] += part[i];
        });
    out.stages.push_back({"histogram", ms_since(start)});

    // 3: the ceiling.
    start = std::chrono::steady_clock::now();
    const CeilingResult ceiling = histogram_ceiling(counts, width, spec.display_contrast);
    out.linear = ceiling.linear;
    out.iterations = ceiling.iterations;
    out.histogram = ceiling.counts;
    std::vector<double> below(bins + 1, 0.0);  // f_0 + ... + f_(i-1)
    for (std::size_t i = 0; i < bins; ++i) below[i + 1] = below[i] + ceiling.counts[i];
    const double total = below[bins];
    out.stages.push_back({"ceiling", ms_since(start)});

    // 4, 5, 6: every pixel.
    start = std::chrono::steady_clock::now();
    const double log_dmin = -std::log10(spec.display_contrast);  // Ldmax = 1: shares of it
    const double lw_max = any ? std::pow(10.0, hi) : 1.0;
    const std::uint32_t max = (1u << spec.output_depth) - 1u;
    out.image = Image(image.width, image.height, channels,
                      spec.output_depth == 8 ? SampleType::U8 : SampleType::U16, spec.output_depth);
    std::atomic<std::uint64_t> clipped{0};
    Image& dst = out.image;
    detail::parallel_ranges(image.height, kRowsPerPart, [&](std::int64_t a, std::int64_t b) {
        std::uint64_t pclipped = 0;
        std::vector<std::uint32_t> row(w * n);
        for (auto y = static_cast<int>(a); y < b; ++y) {
            const auto* p = reinterpret_cast<const float*>(image.row(y));
            for (std::size_t x = 0; x < w; ++x, p += n) {
                std::uint32_t* o = &row[x * n];
                const float lw = world_luminance(p, channels);
                const int colours = channels >= 3 ? 3 : 1;
                if (!has_log(lw)) {
                    for (int c = 0; c < colours; ++c) o[c] = 0;
                } else {
                    double ld;  // a share of Ldmax
                    if (ceiling.linear) {
                        ld = static_cast<double>(lw) / lw_max;
                    } else {
                        const double bw = std::log10(static_cast<double>(lw));
                        const double t = (bw - lo) / width;
                        const std::size_t i = bin_of(bw);
                        const double share =
                            (below[i] + (t - static_cast<double>(i)) * ceiling.counts[i]) / total;
                        ld = std::pow(10.0, log_dmin * (1.0 - std::clamp(share, 0.0, 1.0)));
                    }
                    const double scale = ld / static_cast<double>(lw);
                    for (int c = 0; c < colours; ++c) {
                        const double cd = static_cast<double>(p[c]) * scale;
                        if (!(cd >= 0.0 && cd <= 1.0)) ++pclipped;
                        o[c] = quantize(
                            srgb_encode(std::clamp(std::isnan(cd) ? 0.0 : cd, 0.0, 1.0)), max);
                    }
                }
                if (channels == 4) o[3] = quantize(std::isnan(p[3]) ? 0.0 : p[3], max);
            }
            if (spec.output_depth == 8) {
                auto* d = dst.row_as<std::uint8_t>(y);
                for (std::size_t i = 0; i < row.size(); ++i)
                    d[i] = static_cast<std::uint8_t>(row[i]);
            } else {
                auto* d = dst.row_as<std::uint16_t>(y);
                for (std::size_t i = 0; i < row.size(); ++i)
                    d[i] = static_cast<std::uint16_t>(row[i]);
            }
        }
        clipped += pclipped;
    });
    out.clipped_samples = clipped.load();
    out.stages.push_back({"apply", ms_since(start)});
    return out;
}

}  // namespace hs
