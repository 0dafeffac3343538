#pragma once
// Opening a file the user picked: a photo (hs::media, or Qt for what only Qt decodes), a video
// with its first frame, or raw frames of a format the user gave (the CLI's --raw format:
// hs::media parses and checks it), described for the views.

#include <QString>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "frame_work.hpp"
#include "histoscope/core/image.hpp"
#include "histoscope/media/frame_source.hpp"
#include "histoscope/ui/types.hpp"

namespace hs::ui {

struct OpenedMedia {
    MediaInfo info;
    hs::Image first;  // the photo, or the first frame (empty for live input: none came yet)
    // The first frame's coded Y' outside a limited range's span (ReadFrame::excursions).
    std::optional<hs::media::LumaExcursions> first_excursions;
    // The frames after the first (every frame of live input), for playback; null for a photo
    // and a raw file of one frame.
    std::unique_ptr<hs::media::FrameSource> frames;
    // A camera raw file opened as its CFA mosaic: what its results name and mark.
    CfaInfo cfa = nullptr;
    // A video: the index of `first`, the first of its frames that decodes, and why each frame
    // before it could not be read (in order; their reasons name them).
    std::int64_t first_index = 0;
    std::vector<std::string> failed_before;
};

// The rate raw frames play at when none is given: PAL video's.
inline constexpr double kRawFps = 25.0;

// `raw_format` empty: a photo, a camera raw file (its CFA mosaic, or with `camera_raw_view` Rgb
// its demosaiced image; the demosaiced image, with a note, for a sensor without a 2x2 Bayer
// mosaic) or a video, told by the file's content; else the raw frames of that format
// ("WxHxC:u8|u16[:DEPTH]|f32") from the file, or as they arrive on standard input for path "-"
// (live), playing at `fps` frames per second (0: kRawFps for a file, as they come on standard
// input; video plays at its container's rate). Throws hs::InputError (unreadable, corrupt, too
// large, a raw size that is not a whole number of frames), hs::UsageError (a malformed raw format)
// and std::bad_alloc.
OpenedMedia open_media(const QString& path, const QString& raw_format = {}, double fps = 0.0,
                       hs::media::CameraRawView camera_raw_view = hs::media::CameraRawView::Cfa);

}  // namespace hs::ui
