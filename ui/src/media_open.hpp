#pragma once
// Opening a file the user picked: a photo (hs::media, or Qt for what only Qt decodes) or a video
// with its first frame, described for the views.

#include <QString>
#include <memory>

#include "frame_source.hpp"
#include "histoscope/core/image.hpp"
#include "histoscope/ui/types.hpp"

namespace hs::ui {

struct OpenedMedia {
    MediaInfo info;
    hs::Image first;  // the photo, or the first frame
    // The frames after the first, for playback; null for a photo.
    std::unique_ptr<FrameSource> frames;
};

// Throws hs::InputError (unreadable, corrupt, too large) and std::bad_alloc.
OpenedMedia open_media(const QString& path);

}  // namespace hs::ui
