#pragma once
// Opening a file the user picked: a photo (hs::media, or Qt for what only Qt decodes) or a video
// with its first frame, described for the views.

#include <QString>
#include <memory>

#include "histoscope/core/image.hpp"
#include "histoscope/media/media.hpp"
#include "histoscope/ui/types.hpp"

namespace hs::ui {

struct OpenedMedia {
    MediaInfo info;
    hs::Image first;                                // the photo, or the video's first frame
    std::unique_ptr<hs::media::VideoReader> video;  // null for a photo
};

// Throws hs::InputError (unreadable, corrupt, too large) and std::bad_alloc.
OpenedMedia open_media(const QString& path);

}  // namespace hs::ui
