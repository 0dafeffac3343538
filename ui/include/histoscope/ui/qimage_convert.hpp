#pragma once
// The pictures a frame stream makes (histoscope/core/display.hpp: reduced, 8 bits per sample
// over a display range, clipping masks) as QImages ready to paint. None of them feeds a
// histogram or a saved file.

#include <QImage>

#include "histoscope/core/image.hpp"

namespace hs::ui {

// An 8-bit picture of 1, 3 or 4 channels as the window paints it: Grayscale8, RGB32, or
// ARGB32 premultiplied (the formats the raster paint engine draws without converting).
// `alpha` false: a 4-channel picture's fourth channel is not alpha (a camera raw mosaic's G2):
// its first three are painted opaque.
QImage picture_qimage(const hs::ImageView& picture, bool alpha = true);
// A clipping mask (one byte per pixel: 0, kClippedLow, kClippedHigh) as an overlay:
// transparent, blue where a counted channel is at 0, red where one is at the largest code value.
QImage clipping_qimage(const hs::ImageView& mask);
// `image` at full resolution over its depth's full range, as picture_qimage() paints it.
QImage to_qimage(const hs::ImageView& image);

}  // namespace hs::ui
