#pragma once
// hs::Image -> QImage for display: 8 bits per channel, 16-bit samples scaled from their
// declared depth with rounding.

#include <QImage>

#include "histoscope/core/image.hpp"

namespace hs::ui {

QImage to_qimage(const hs::ImageView& image);

}  // namespace hs::ui
