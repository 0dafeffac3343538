#include "histoscope/ui/qimage_convert.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "histoscope/core/stats.hpp"

namespace hs::ui {

namespace {

QImage::Format format_for(int channels) {
    switch (channels) {
        case 1:
            return QImage::Format_Grayscale8;
        case 3:
            return QImage::Format_RGB888;
        default:
            return QImage::Format_RGBA8888;
    }
}

// Calls f(x, y, c, value) for every sample of the colour channels (alpha aside).
template <typename F>
void for_each_colour_sample(const hs::ImageView& image, F f) {
    const int colour = std::min(image.channels, 3);
    for (int y = 0; y < image.height; ++y) {
        if (image.type == hs::SampleType::U8) {
            const auto* row = reinterpret_cast<const std::uint8_t*>(image.row(y));
            for (int x = 0; x < image.width; ++x)
                for (int c = 0; c < colour; ++c) f(x, y, c, row[x * image.channels + c]);
        } else {
            const auto* row = reinterpret_cast<const std::uint16_t*>(image.row(y));
            for (int x = 0; x < image.width; ++x)
                for (int c = 0; c < colour; ++c) f(x, y, c, row[x * image.channels + c]);
        }
    }
}

}  // namespace

DisplayRange full_display_range(const hs::ImageView& image) {
    return {0, image.max_value()};
}

DisplayRange stretched_display_range(const hs::ImageView& image) {
    const std::uint32_t max = image.max_value();
    if (image.type == hs::SampleType::U8 || image.data == nullptr) return {0, max};
    std::vector<std::uint64_t> counts(std::size_t{max} + 1, 0);
    std::uint64_t total = 0;
    for_each_colour_sample(image, [&](int, int, int, std::uint32_t v) {
        ++counts[std::min(v, max)];
        ++total;
    });
    if (total == 0) return {0, max};
    DisplayRange r{hs::percentile(counts, total, 0.1), hs::percentile(counts, total, 99.9)};
    if (r.hi - r.lo < 255) {
        r.hi = std::min(max, r.lo + 255);
        r.lo = r.hi >= 255 ? r.hi - 255 : 0;
    }
    return r;
}

QImage to_qimage(const hs::ImageView& image) {
    return to_qimage(image, full_display_range(image));
}

QImage to_qimage(const hs::ImageView& image, DisplayRange range) {
    if (image.data == nullptr || image.width <= 0 || image.height <= 0) return {};
    QImage out(image.width, image.height, format_for(image.channels));
    const auto samples_per_row =
        static_cast<std::size_t>(image.width) * static_cast<std::size_t>(image.channels);
    const bool identity = image.type == hs::SampleType::U8 && range.lo == 0 && range.hi == 255;
    const std::uint32_t span = std::max<std::uint32_t>(range.hi - range.lo, 1);
    // One entry per code value: the 8-bit value shown, rounded.
    std::vector<uchar> lut;
    if (!identity) {
        lut.resize(std::size_t{image.max_value()} + 1);
        for (std::uint32_t v = 0; v < lut.size(); ++v) {
            const std::uint32_t c = std::clamp(v, range.lo, range.hi) - range.lo;
            lut[v] = static_cast<uchar>((std::uint64_t{c} * 255u + span / 2u) / span);
        }
    }
    for (int y = 0; y < image.height; ++y) {
        auto* dst = out.scanLine(y);
        if (image.type == hs::SampleType::U8) {
            const auto* src = reinterpret_cast<const std::uint8_t*>(image.row(y));
            if (identity)
                std::copy(src, src + samples_per_row, dst);
            else
                for (std::size_t i = 0; i < samples_per_row; ++i) dst[i] = lut[src[i]];
            continue;
        }
        const auto* src = reinterpret_cast<const std::uint16_t*>(image.row(y));
        const auto top = static_cast<std::uint16_t>(lut.size() - 1);
        for (std::size_t i = 0; i < samples_per_row; ++i) dst[i] = lut[std::min(src[i], top)];
    }
    // Alpha is shown as it is, whatever the colour range.
    if (image.channels == 4 && !identity)
        for (int y = 0; y < image.height; ++y) {
            auto* dst = out.scanLine(y);
            for (int x = 0; x < image.width; ++x) {
                const std::uint32_t a = image.sample(x, y, 3);
                dst[x * 4 + 3] =
                    static_cast<uchar>((a * 255u + image.max_value() / 2u) / image.max_value());
            }
        }
    return out;
}

namespace {

template <typename T>
void downscale_into(const hs::ImageView& image, int factor, hs::Image& out) {
    const int w = out.width(), h = out.height(), ch = image.channels;
    std::vector<std::uint64_t> sums(static_cast<std::size_t>(w) * static_cast<std::size_t>(ch));
    for (int oy = 0; oy < h; ++oy) {
        std::fill(sums.begin(), sums.end(), 0);
        const int y0 = oy * factor, y1 = std::min(image.height, y0 + factor);
        for (int y = y0; y < y1; ++y) {
            const auto* row = reinterpret_cast<const T*>(image.row(y));
            for (int x = 0; x < image.width; ++x) {
                std::uint64_t* sum = &sums[static_cast<std::size_t>((x / factor) * ch)];
                for (int c = 0; c < ch; ++c) sum[c] += row[x * ch + c];
            }
        }
        auto* dst = out.row_as<T>(oy);
        for (int ox = 0; ox < w; ++ox) {
            const int x0 = ox * factor, x1 = std::min(image.width, x0 + factor);
            const auto n = static_cast<std::uint64_t>((x1 - x0) * (y1 - y0));
            for (int c = 0; c < ch; ++c)
                dst[ox * ch + c] =
                    static_cast<T>((sums[static_cast<std::size_t>(ox * ch + c)] + n / 2) / n);
        }
    }
}

}  // namespace

hs::Image downscale(const hs::ImageView& image, int factor) {
    factor = std::max(factor, 1);
    hs::Image out((image.width + factor - 1) / factor, (image.height + factor - 1) / factor,
                  image.channels, image.type, image.bit_depth);
    if (image.type == hs::SampleType::U8)
        downscale_into<std::uint8_t>(image, factor, out);
    else
        downscale_into<std::uint16_t>(image, factor, out);
    return out;
}

QImage clipping_overlay(const hs::ImageView& image, int factor, unsigned channels) {
    factor = std::max(factor, 1);
    const int w = (image.width + factor - 1) / factor, h = (image.height + factor - 1) / factor;
    QImage out(w, h, QImage::Format_ARGB32_Premultiplied);
    out.fill(Qt::transparent);
    if (image.channels == 1) channels &= 1u;
    const std::uint32_t max = image.max_value();
    const QRgb over = qRgb(255, 0, 0), under = qRgb(0, 90, 255);
    for_each_colour_sample(image, [&](int x, int y, int c, std::uint32_t v) {
        if (!(channels & (1u << c)) || (v != 0 && v != max)) return;
        auto* px = reinterpret_cast<QRgb*>(out.scanLine(y / factor)) + x / factor;
        if (v == max)
            *px = over;  // the highlights win where a block has both
        else if (*px != over)
            *px = under;
    });
    return out;
}

}  // namespace hs::ui
