#include "histoscope/ui/qimage_convert.hpp"

#include <QColor>
#include <algorithm>
#include <cstring>

#include "histoscope/core/display.hpp"

namespace hs::ui {

namespace {

// The first three samples of each pixel, opaque (a 3- or 4-channel picture whose fourth is no
// alpha).
QImage opaque_rgb(const hs::ImageView& picture) {
    const int w = picture.width, step = picture.channels;
    QImage out(w, picture.height, QImage::Format_RGB32);
    for (int y = 0; y < picture.height; ++y) {
        const auto* src = reinterpret_cast<const std::uint8_t*>(picture.row(y));
        auto* dst = reinterpret_cast<QRgb*>(out.scanLine(y));
        for (int x = 0; x < w; ++x, src += step) dst[x] = qRgb(src[0], src[1], src[2]);
    }
    return out;
}

}  // namespace

QImage picture_qimage(const hs::ImageView& picture, bool alpha) {
    if (picture.data == nullptr || picture.width <= 0 || picture.height <= 0) return {};
    const int w = picture.width;
    switch (picture.channels) {
        case 1: {
            QImage out(w, picture.height, QImage::Format_Grayscale8);
            for (int y = 0; y < picture.height; ++y)
                std::memcpy(out.scanLine(y), picture.row(y), static_cast<std::size_t>(w));
            return out;
        }
        case 3:
            return opaque_rgb(picture);
        case 4:
            if (!alpha) return opaque_rgb(picture);
            [[fallthrough]];
        default: {
            QImage out(w, picture.height, QImage::Format_ARGB32_Premultiplied);
            for (int y = 0; y < picture.height; ++y) {
                const auto* src = reinterpret_cast<const std::uint8_t*>(picture.row(y));
                auto* dst = reinterpret_cast<QRgb*>(out.scanLine(y));
                for (int x = 0; x < w; ++x, src += 4)
                    dst[x] = qPremultiply(qRgba(src[0], src[1], src[2], src[3]));
            }
            return out;
        }
    }
}

QImage clipping_qimage(const hs::ImageView& mask) {
    if (mask.data == nullptr || mask.width <= 0 || mask.height <= 0) return {};
    QImage out(mask.width, mask.height, QImage::Format_Indexed8);
    out.setColorTable({qRgba(0, 0, 0, 0), qRgb(0, 90, 255), qRgb(255, 0, 0)});
    for (int y = 0; y < mask.height; ++y)
        std::memcpy(out.scanLine(y), mask.row(y), static_cast<std::size_t>(mask.width));
    return out;
}

QImage to_qimage(const hs::ImageView& image) {
    if (image.data == nullptr) return {};
    return picture_qimage(hs::display_picture(image, 1, hs::full_display_range(image)).view());
}

}  // namespace hs::ui
