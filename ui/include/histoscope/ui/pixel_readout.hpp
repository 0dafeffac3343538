#pragma once
// The pixel picker's text: the samples of each channel at a pixel, its luma, and for deep
// images the 8-bit values they are shown as.

#include <QString>
#include <optional>

#include "histoscope/core/display.hpp"
#include "histoscope/core/image.hpp"

namespace hs::ui {

// "R 51234  G 1234  B 4567  luma 23456  (8-bit 199 5 18 91)" (alpha as "A"; a gray image's
// sample as "gray"); luma is Rec.601 as the histograms compute it. A deep image's 8-bit values
// are those its picture shows over `shown` (the stretched range while Stretch Deep Images is
// on; luma mapped as a colour sample, alpha over the full range); without it, the full range.
// Empty outside the image. `cfa`: the image is a camera raw file's CFA mosaic, whose pixel is a
// quad: "R 2048  G1 1900  G2 1910  B 1024" (no luma: the photosites are no colour).
// A float image's samples are values of linear light: "R 0.1804  G 2.25  B 1.5e-05  Y 1.633
// (+0.71 EV)  (8-bit 118 255 0)", Y its Rec.709 luminance and its stops, the 8-bit values those
// its picture shows at `exposure` EV; NaN and infinities as such.
QString pixel_readout(const hs::ImageView& image, int x, int y,
                      std::optional<hs::DisplayRange> shown = std::nullopt, bool cfa = false,
                      double exposure = 0.0);

}  // namespace hs::ui
