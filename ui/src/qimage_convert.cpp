#include "histoscope/ui/qimage_convert.hpp"

#include <algorithm>
#include <cstdint>

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

}  // namespace

QImage to_qimage(const hs::ImageView& image) {
    if (image.data == nullptr || image.width <= 0 || image.height <= 0) return {};
    QImage out(image.width, image.height, format_for(image.channels));
    const std::uint32_t max = image.max_value();
    const auto samples_per_row =
        static_cast<std::size_t>(image.width) * static_cast<std::size_t>(image.channels);
    for (int y = 0; y < image.height; ++y) {
        auto* dst = out.scanLine(y);
        if (image.type == hs::SampleType::U8) {
            const auto* src = reinterpret_cast<const std::uint8_t*>(image.row(y));
            std::copy(src, src + samples_per_row, dst);
            continue;
        }
        const auto* src = reinterpret_cast<const std::uint16_t*>(image.row(y));
        for (std::size_t i = 0; i < samples_per_row; ++i) {
            const std::uint32_t v = src[i] > max ? max : src[i];
            dst[i] = static_cast<uchar>((v * 255u + max / 2u) / max);
        }
    }
    return out;
}

}  // namespace hs::ui
