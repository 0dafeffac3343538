#include "histoscope/core/display.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <mutex>

#include "histoscope/core/error.hpp"
#include "histoscope/core/stats.hpp"
#include "parallel.hpp"

namespace hs {

namespace {

// Output rows per thread: at least about 256 K input pixels each.
std::int64_t rows_per_part(const ImageView& image, int factor) {
    const std::int64_t per_row = std::int64_t{image.width} * factor;
    return std::max<std::int64_t>(1, (std::int64_t{1} << 18) / std::max<std::int64_t>(per_row, 1));
}

int out_size(int n, int factor) {
    return (n + factor - 1) / factor;
}

// x / d rounded down for x < 2^31, as a multiply and a shift (Granlund and Montgomery: with
// l = ceil(log2 d) and m = floor(2^(31+l) / d) + 1, floor(x * m / 2^(31+l)) = floor(x / d)),
// so that the mean of every block costs no division.
class Divide {
  public:
    explicit Divide(std::uint32_t d) {
        int l = 0;
        while ((std::uint64_t{1} << l) < d) ++l;
        shift_ = 31 + l;
        m_ = (std::uint64_t{1} << shift_) / d + 1;
    }
    std::uint32_t operator()(std::uint64_t x) const {
        return static_cast<std::uint32_t>((x * m_) >> shift_);
    }

  private:
    std::uint64_t m_ = 1;
    int shift_ = 0;
};

// Calls f(oy, means) for output rows [oy0, oy1): `means` holds the rounded block means of row
// oy, out_w * C samples (the samples themselves when factor is 1). Sum is wide enough for a
// block's sum; Fast: every (sum + n/2) stays below 2^31, so Divide is exact.
template <typename T, std::size_t C, typename Sum, bool Fast, typename F>
void reduce_rows(const ImageView& image, int factor, std::int64_t oy0, std::int64_t oy1, F&& f) {
    const int w = out_size(image.width, factor);
    const int full = image.width / factor;         // blocks of `factor` columns
    const int edge = image.width - full * factor;  // columns of the last, narrower one
    const auto n = static_cast<std::size_t>(w) * C;
    std::vector<std::uint32_t> means(n);
    std::vector<Sum> sums(n);
    // A column's sum over one block's rows: at most factor * 65535, for factors up to 65536.
    std::vector<std::uint32_t> columns(static_cast<std::size_t>(image.width) * C);
    for (auto oy = static_cast<int>(oy0); oy < oy1; ++oy) {
        if (factor == 1) {
            const auto* row = reinterpret_cast<const T*>(image.row(oy));
            for (std::size_t i = 0; i < n; ++i) means[i] = row[i];
            f(oy, means.data());
            continue;
        }
        // The block's rows summed column by column first (one add per sample, which the
        // compiler vectorizes), then each block's columns: a row of sums per output row.
        std::fill(columns.begin(), columns.end(), std::uint32_t{0});
        const int y0 = oy * factor, y1 = std::min(image.height, y0 + factor);
        for (int y = y0; y < y1; ++y) {
            const auto* px = reinterpret_cast<const T*>(image.row(y));
            std::uint32_t* col = columns.data();
            for (std::size_t i = 0; i < columns.size(); ++i) col[i] += px[i];
        }
        const std::uint32_t* col = columns.data();
        Sum* block = sums.data();
        for (int ox = 0; ox < w; ++ox, block += C) {
            const int k1 = ox < full ? factor : edge;
            Sum acc[C] = {};
            for (int k = 0; k < k1; ++k, col += C)
                for (std::size_t c = 0; c < C; ++c) acc[c] += col[c];
            for (std::size_t c = 0; c < C; ++c) block[c] = acc[c];
        }
        const auto rows = static_cast<std::uint64_t>(y1 - y0);
        const std::uint64_t n_full = rows * static_cast<std::uint64_t>(factor);
        const std::uint64_t n_edge = rows * static_cast<std::uint64_t>(edge);
        const auto mean_of = [&](std::uint64_t sum, std::uint64_t count, const Divide& divide) {
            if constexpr (Fast)
                return divide(sum + count / 2);
            else
                return static_cast<std::uint32_t>((sum + count / 2) / count);
        };
        const Divide by_full(static_cast<std::uint32_t>(std::max<std::uint64_t>(n_full, 1)));
        for (std::size_t i = 0; i < static_cast<std::size_t>(full) * C; ++i)
            means[i] = mean_of(sums[i], n_full, by_full);
        if (edge > 0) {
            const Divide by_edge(static_cast<std::uint32_t>(n_edge));
            for (std::size_t i = static_cast<std::size_t>(full) * C; i < n; ++i)
                means[i] = mean_of(sums[i], n_edge, by_edge);
        }
        f(oy, means.data());
    }
}

// reduce_rows() with the channels, sums and division the image and factor allow.
template <typename T, typename F>
void for_each_reduced_row(const ImageView& image, int factor, std::int64_t oy0, std::int64_t oy1,
                          F&& f) {
    const std::uint64_t most = std::uint64_t{image.max_value()} *
                               static_cast<std::uint64_t>(factor) *
                               static_cast<std::uint64_t>(factor);
    const auto run = [&]<std::size_t C>() {
        if (2 * most < (std::uint64_t{1} << 31))
            reduce_rows<T, C, std::uint32_t, true>(image, factor, oy0, oy1, f);
        else
            reduce_rows<T, C, std::uint64_t, false>(image, factor, oy0, oy1, f);
    };
    switch (image.channels) {
        case 1:
            return run.template operator()<1>();
        case 3:
            return run.template operator()<3>();
        default:
            return run.template operator()<4>();
    }
}

template <typename F>
void reduced_rows(const ImageView& image, int factor, F&& f) {
    const int h = out_size(image.height, factor);
    detail::parallel_ranges(h, rows_per_part(image, factor), [&](std::int64_t a, std::int64_t b) {
        if (image.type == SampleType::U8)
            for_each_reduced_row<std::uint8_t>(image, factor, a, b, f);
        else
            for_each_reduced_row<std::uint16_t>(image, factor, a, b, f);
    });
}

// An image every row of which is about to be written.
Image unfilled(const FrameFormat& format) {
    return Image(format, nullptr, /*zeroed=*/false);
}

void check_factor(int factor) {
    if (factor < 1 || factor > 65536)
        throw UsageError("a display factor must be 1..65536, not " + std::to_string(factor));
}

}  // namespace

DisplayRange full_display_range(const ImageView& image) {
    require_integer_samples(image, "a display range");
    return {0, image.max_value()};
}

DisplayRange stretched_display_range(const std::vector<std::uint64_t>& colour_values,
                                     std::uint32_t max_value) {
    std::uint64_t total = 0;
    for (std::uint64_t c : colour_values) total += c;
    if (total == 0) return {0, max_value};
    DisplayRange r{percentile(colour_values, total, 0.1), percentile(colour_values, total, 99.9)};
    if (r.hi - r.lo < 255) {
        r.hi = std::min(max_value, r.lo + 255);
        r.lo = r.hi >= 255 ? r.hi - 255 : 0;
    }
    return r;
}

DisplayRange stretched_display_range(const ImageView& image) {
    require_integer_samples(image, "a display range");
    const std::uint32_t max = image.max_value();
    if (image.type == SampleType::U8 || image.data == nullptr) return {0, max};
    const auto ch = static_cast<std::size_t>(image.channels);
    const std::size_t colour = std::min<std::size_t>(ch, 3);
    // One histogram per thread over its rows, summed.
    std::vector<std::vector<std::uint64_t>> parts;
    std::mutex mutex;
    detail::parallel_ranges(
        image.height, rows_per_part(image, 1), [&](std::int64_t a, std::int64_t b) {
            std::vector<std::uint64_t> counts(std::size_t{max} + 1, 0);
            for (auto y = static_cast<int>(a); y < b; ++y) {
                const auto* row = reinterpret_cast<const std::uint16_t*>(image.row(y));
                for (std::size_t x = 0; x < static_cast<std::size_t>(image.width); ++x)
                    for (std::size_t c = 0; c < colour; ++c)
                        ++counts[std::min<std::uint32_t>(row[x * ch + c], max)];
            }
            const std::lock_guard lock(mutex);
            parts.push_back(std::move(counts));
        });
    std::vector<std::uint64_t> counts = std::move(parts.front());
    for (std::size_t p = 1; p < parts.size(); ++p)
        for (std::size_t v = 0; v < counts.size(); ++v) counts[v] += parts[p][v];
    return stretched_display_range(counts, max);
}

DisplayRange display_range(const ImageView& image, const DisplaySpec& spec) {
    return spec.stretch ? stretched_display_range(image) : full_display_range(image);
}

std::uint8_t displayed_colour(std::uint32_t v, DisplayRange range) {
    const std::uint32_t span = std::max<std::uint32_t>(range.hi - range.lo, 1);
    const std::uint32_t c = std::clamp(v, range.lo, range.hi) - range.lo;
    return static_cast<std::uint8_t>((c * 255u + span / 2u) / span);
}

std::uint8_t displayed_alpha(std::uint32_t a, std::uint32_t max_value) {
    const std::uint32_t m = std::max<std::uint32_t>(max_value, 1);
    return static_cast<std::uint8_t>((std::min(a, m) * 255u + m / 2u) / m);
}

namespace {

// Calls f(oy, means) with the block means (double) of every sample of output row oy, for
// output rows [oy0, oy1) of a float image.
template <typename F>
void float_means(const ImageView& image, int factor, std::int64_t oy0, std::int64_t oy1, F&& f) {
    const int w = out_size(image.width, factor);
    const auto ch = static_cast<std::size_t>(image.channels);
    std::vector<double> sums(static_cast<std::size_t>(w) * ch);
    std::vector<double> counts(static_cast<std::size_t>(w));
    for (auto oy = static_cast<int>(oy0); oy < oy1; ++oy) {
        std::fill(sums.begin(), sums.end(), 0.0);
        std::fill(counts.begin(), counts.end(), 0.0);
        const int y1 = std::min(image.height, (oy + 1) * factor);
        for (int y = oy * factor; y < y1; ++y) {
            const auto* row = reinterpret_cast<const float*>(image.row(y));
            for (int x = 0; x < image.width; ++x) {
                const auto ox = static_cast<std::size_t>(x / factor);
                counts[ox] += 1.0;
                for (std::size_t c = 0; c < ch; ++c)
                    sums[ox * ch + c] +=
                        static_cast<double>(row[static_cast<std::size_t>(x) * ch + c]);
            }
        }
        for (std::size_t i = 0; i < sums.size(); ++i) sums[i] /= counts[i / ch];
        f(oy, sums.data());
    }
}

// The 8-bit code of a linear value c in (0, 1): the sRGB encoding, rounded.
std::uint8_t srgb_code(double c) {
    const double e = c <= 0.0031308 ? 12.92 * c : 1.055 * std::pow(c, 1.0 / 2.4) - 0.055;
    return static_cast<std::uint8_t>(std::lround(e * 255.0));
}

// The same by comparisons: for each code k, the smallest double c with srgb_code(c) >= k, found
// once by bisection over the doubles in (0, 1) (the code never falls as c grows), so that a
// picture costs no pow() per sample and gives exactly srgb_code()'s codes.
class SrgbCodes {
  public:
    SrgbCodes() {
        const std::uint64_t lo_bits = std::bit_cast<std::uint64_t>(0x1p-1074);
        const std::uint64_t hi_bits = std::bit_cast<std::uint64_t>(1.0);
        for (int k = 1; k < 256; ++k) {
            std::uint64_t lo = lo_bits, hi = hi_bits;  // code(lo) < k <= code(hi) (1.0: 255)
            while (hi - lo > 1) {
                const std::uint64_t mid = lo + (hi - lo) / 2;
                (srgb_code(std::bit_cast<double>(mid)) >= k ? hi : lo) = mid;
            }
            first_[static_cast<std::size_t>(k - 1)] = std::bit_cast<double>(hi);
        }
    }
    std::uint8_t operator()(double c) const {
        if (!(c > 0.0)) return 0;  // NaN too
        if (c >= 1.0) return 255;
        return static_cast<std::uint8_t>(std::upper_bound(first_.begin(), first_.end(), c) -
                                         first_.begin());
    }

  private:
    std::array<double, 255> first_{};
};

const SrgbCodes& srgb_codes() {
    static const SrgbCodes codes;
    return codes;
}

// displayed_float() with 2^exposure computed once.
std::uint8_t shown_float(double v, double gain) {
    return srgb_codes()(v * gain);
}

std::uint8_t shown_alpha(double a) {
    if (!(a > 0.0)) return 0;
    return static_cast<std::uint8_t>(std::lround(std::min(a, 1.0) * 255.0));
}

}  // namespace

std::uint8_t displayed_float(double v, double exposure) {
    return shown_float(v, std::exp2(exposure));
}

std::uint8_t displayed_float_alpha(double a) {
    return shown_alpha(a);
}

Image float_display_picture(const ImageView& image, int factor, double exposure) {
    validate(image);
    check_factor(factor);
    if (!is_float(image.type))
        throw UsageError("a picture at an exposure is made of float samples, not " +
                         to_string(image.type) + " ones");
    Image out = unfilled({out_size(image.width, factor), out_size(image.height, factor),
                          image.channels, SampleType::U8, 8});
    const double gain = std::exp2(exposure);
    const auto ch = static_cast<std::size_t>(image.channels);
    const auto n = static_cast<std::size_t>(out.width()) * ch;
    detail::parallel_ranges(
        out.height(), rows_per_part(image, factor), [&](std::int64_t a, std::int64_t b) {
            float_means(image, factor, a, b, [&](int oy, const double* means) {
                auto* dst = out.row_as<std::uint8_t>(oy);
                for (std::size_t i = 0; i < n; ++i)
                    dst[i] =
                        ch == 4 && i % 4 == 3 ? shown_alpha(means[i]) : shown_float(means[i], gain);
            });
        });
    return out;
}

Image float_clipping_mask(const ImageView& image, int factor, unsigned channels, double exposure) {
    validate(image);
    check_factor(factor);
    if (!is_float(image.type))
        throw UsageError("a float clipping mask is made of float samples, not " +
                         to_string(image.type) + " ones");
    const int w = out_size(image.width, factor), h = out_size(image.height, factor);
    Image out(w, h, 1, SampleType::U8);
    if (image.channels == 1) channels &= 1u;
    channels &= 7u;
    if (channels == 0) return out;
    const double gain = std::exp2(exposure);
    const auto ch = static_cast<std::size_t>(image.channels);
    detail::parallel_ranges(h, rows_per_part(image, factor), [&](std::int64_t a, std::int64_t b) {
        for (auto oy = static_cast<int>(a); oy < b; ++oy) {
            auto* dst = out.row_as<std::uint8_t>(oy);
            const int y1 = std::min(image.height, (oy + 1) * factor);
            for (int y = oy * factor; y < y1; ++y) {
                const auto* row = reinterpret_cast<const float*>(image.row(y));
                for (int x = 0; x < image.width; ++x) {
                    std::uint8_t& m = dst[x / factor];
                    for (std::size_t c = 0; c < 3 && c < ch; ++c) {
                        if ((channels & (1u << c)) == 0) continue;
                        const double v =
                            static_cast<double>(row[static_cast<std::size_t>(x) * ch + c]);
                        if (v * gain >= 1.0)
                            m = kClippedHigh;
                        else if (!(v > 0.0) && m != kClippedHigh)
                            m = kClippedLow;
                    }
                }
            }
        }
    });
    return out;
}

Image downscale(const ImageView& image, int factor) {
    validate(image);
    if (is_float(image.type)) {
        check_factor(factor);
        Image out = unfilled({out_size(image.width, factor), out_size(image.height, factor),
                              image.channels, image.type, image.bit_depth});
        const auto n =
            static_cast<std::size_t>(out.width()) * static_cast<std::size_t>(image.channels);
        detail::parallel_ranges(
            out.height(), rows_per_part(image, factor), [&](std::int64_t a, std::int64_t b) {
                float_means(image, factor, a, b, [&](int oy, const double* means) {
                    auto* dst = out.row_as<float>(oy);
                    for (std::size_t i = 0; i < n; ++i) dst[i] = static_cast<float>(means[i]);
                });
            });
        return out;
    }
    check_factor(factor);
    Image out = unfilled({out_size(image.width, factor), out_size(image.height, factor),
                          image.channels, image.type, image.bit_depth});
    const auto n = static_cast<std::size_t>(out.width()) * static_cast<std::size_t>(image.channels);
    reduced_rows(image, factor, [&](int oy, const std::uint32_t* means) {
        if (image.type == SampleType::U8) {
            auto* dst = out.row_as<std::uint8_t>(oy);
            for (std::size_t i = 0; i < n; ++i) dst[i] = static_cast<std::uint8_t>(means[i]);
        } else {
            auto* dst = out.row_as<std::uint16_t>(oy);
            for (std::size_t i = 0; i < n; ++i) dst[i] = static_cast<std::uint16_t>(means[i]);
        }
    });
    return out;
}

Image display_picture(const ImageView& image, int factor, DisplayRange range) {
    validate(image);
    require_integer_samples(image, "a picture over a display range");
    check_factor(factor);
    const std::uint32_t max = image.max_value();
    if (range.lo > range.hi || range.hi > max)
        throw UsageError("a display range must lie within 0.." + std::to_string(max));
    Image out = unfilled({out_size(image.width, factor), out_size(image.height, factor),
                          image.channels, SampleType::U8, 8});
    const auto ch = static_cast<std::size_t>(image.channels);
    const auto w = static_cast<std::size_t>(out.width());
    // One entry per code value: the 8-bit value shown, for colour samples and for alpha.
    std::vector<std::uint8_t> colour(std::size_t{max} + 1), alpha(std::size_t{max} + 1);
    for (std::uint32_t v = 0; v <= max; ++v) {
        colour[v] = displayed_colour(v, range);
        alpha[v] = displayed_alpha(v, max);
    }
    const bool identity = image.type == SampleType::U8 && range == full_display_range(image);
    if (identity && factor == 1) {  // the frame as it is
        detail::parallel_ranges(image.height, rows_per_part(image, 1),
                                [&](std::int64_t a, std::int64_t b) {
                                    for (auto y = static_cast<int>(a); y < b; ++y)
                                        std::memcpy(out.row(y), image.row(y), image.row_bytes());
                                });
        return out;
    }
    reduced_rows(image, factor, [&](int oy, const std::uint32_t* means) {
        auto* dst = out.row_as<std::uint8_t>(oy);
        if (identity) {
            for (std::size_t i = 0; i < w * ch; ++i) dst[i] = static_cast<std::uint8_t>(means[i]);
            return;
        }
        for (std::size_t x = 0; x < w; ++x)
            for (std::size_t c = 0; c < ch; ++c) {
                const std::size_t i = x * ch + c;
                const std::uint32_t v = std::min(means[i], max);
                dst[i] = c == 3 ? alpha[v] : colour[v];
            }
    });
    return out;
}

Image clipping_mask(const ImageView& image, int factor, unsigned channels) {
    validate(image);
    require_integer_samples(image, "a clipping mask");
    check_factor(factor);
    const int w = out_size(image.width, factor), h = out_size(image.height, factor);
    Image out(w, h, 1, SampleType::U8);
    if (image.channels == 1) channels &= 1u;
    channels &= 7u;
    if (channels == 0) return out;
    const std::uint32_t max = image.max_value();
    const auto ch = static_cast<std::size_t>(image.channels);
    std::size_t counted[3], n_counted = 0;  // the sample offsets of the counted channels
    for (std::size_t c = 0; c < 3; ++c)
        if (channels & (1u << c)) counted[n_counted++] = c;
    const auto mark = [&](auto sample) {
        using T = decltype(sample);
        detail::parallel_ranges(
            h, rows_per_part(image, factor), [&](std::int64_t a, std::int64_t b) {
                for (auto oy = static_cast<int>(a); oy < b; ++oy) {
                    auto* dst = out.row_as<std::uint8_t>(oy);
                    const int y1 = std::min(image.height, (oy + 1) * factor);
                    for (int y = oy * factor; y < y1; ++y) {
                        const auto* row = reinterpret_cast<const T*>(image.row(y));
                        for (int ox = 0; ox < w; ++ox) {
                            std::uint8_t m = dst[ox];
                            const int x1 = std::min(image.width, (ox + 1) * factor);
                            for (int x = ox * factor; x < x1 && m != kClippedHigh; ++x)
                                for (std::size_t k = 0; k < n_counted; ++k) {
                                    const std::uint32_t v =
                                        row[static_cast<std::size_t>(x) * ch + counted[k]];
                                    if (v == max)  // the highlights win where a block has both
                                        m = kClippedHigh;
                                    else if (v == 0 && m != kClippedHigh)
                                        m = kClippedLow;
                                }
                            dst[ox] = m;
                        }
                    }
                }
            });
    };
    if (image.type == SampleType::U8)
        mark(std::uint8_t{});
    else
        mark(std::uint16_t{});
    return out;
}

}  // namespace hs
