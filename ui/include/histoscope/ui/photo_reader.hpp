#pragma once
// Photos for the desktop application: hs::media (OpenCV) reads them; what it cannot decode but
// Qt's image reader can (GIF: OpenCV 4.6 has no GIF decoder) is read by Qt, here in the UI
// layer, so that hs::media stays free of Qt. Qt-read images are 8-bit: gray, RGB, or RGBA when
// the image has transparency (transparent pixels as Qt gives them: 0, 0, 0, 0); an animation
// gives its first frame, with a note.

#include <QString>

#include "histoscope/media/media.hpp"

namespace hs::ui {

// Throws hs::InputError as hs::media::read_image() does.
hs::media::LoadedImage read_photo(const hs::media::Source& source);
hs::media::LoadedImage read_photo(const QString& path);

}  // namespace hs::ui
