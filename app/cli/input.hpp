#pragma once
// What the CLI commands read: a photo, one frame of a video, or one frame of raw data.

#include <cstdint>
#include <string>
#include <vector>

#include "args.hpp"
#include "histoscope/core/image.hpp"

namespace hs::cli {

struct Input {
    std::string name;    // path, or "-" for standard input
    std::string kind;    // "image", "video" or "raw"
    std::string format;  // "JPEG", "PNG", codec FourCC for video, the raw format string
    Image image;         // the selected frame
    std::int64_t frame = 0;
    std::int64_t frames = 1;
    double fps = 0.0;
    std::vector<std::string> notes;
};

// Options it reads: the positional path, --raw FMT, --frame N.
Input load_input(const Args& args);

}  // namespace hs::cli
