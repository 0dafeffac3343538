#pragma once
// hs::Image -> QImage for display (8 bits per channel), and the pictures derived from an image
// for viewing only: a smaller proxy of a large photo, the display range of deep data, the
// clipping overlay. None of them feeds a histogram or a saved file.

#include <QImage>
#include <cstdint>

#include "histoscope/core/image.hpp"

namespace hs::ui {

// The sample values shown black (lo) and white (hi); values between are spread linearly over
// 0..255 with rounding, values outside are clipped.
struct DisplayRange {
    std::uint32_t lo = 0;
    std::uint32_t hi = 255;
    friend bool operator==(const DisplayRange&, const DisplayRange&) = default;
};

// 0 .. the largest code value of the image's declared depth.
DisplayRange full_display_range(const hs::ImageView& image);
// For viewing deep data that uses a small part of its range (ImageJ's auto contrast): from the
// value 0.1% of the colour samples (alpha aside) lie below to the value 0.1% lie above, at
// least 256 code values wide; the full range for 8-bit images.
DisplayRange stretched_display_range(const hs::ImageView& image);

// 8 bits per channel (Grayscale8, RGB888 or RGBA8888), 16-bit samples scaled from `range`.
QImage to_qimage(const hs::ImageView& image, DisplayRange range);
QImage to_qimage(const hs::ImageView& image);  // with the full range

// `image` reduced by `factor` in both directions, each output sample the rounded mean of the
// factor x factor block it covers (blocks at the right and bottom edges may be smaller).
hs::Image downscale(const hs::ImageView& image, int factor);

// Clipping overlay, reduced by `factor` like downscale(): opaque red where a pixel of the block
// has a counted channel at the largest code value of its depth, else opaque blue where one is
// at 0, else transparent. `channels`: bit c counts channel c (0 = R or gray, 1 = G, 2 = B);
// alpha never counts.
QImage clipping_overlay(const hs::ImageView& image, int factor, unsigned channels = 0b111);

}  // namespace hs::ui
