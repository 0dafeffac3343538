#pragma once
// The pixel picker's text: the samples of each channel at a pixel, its luma, and for deep
// images the 8-bit values they are shown as.

#include <QString>

#include "histoscope/core/image.hpp"

namespace hs::ui {

// "R 51234  G 1234  B 4567  luma 23456  (8-bit 199 5 18 91)" (alpha as "A"; a gray image's
// sample as "gray"); luma is Rec.601 as the histograms compute it. Empty outside the image.
QString pixel_readout(const hs::ImageView& image, int x, int y);

}  // namespace hs::ui
