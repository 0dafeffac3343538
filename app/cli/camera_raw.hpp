#pragma once
// Camera raw files in the CLI's output: the one place of their JSON fields and text lines
// (info, hist, bench), and the levels of the CFA mosaic's channels.

#include <string>

#include "histoscope/core/histogram.hpp"
#include "histoscope/core/image.hpp"
#include "histoscope/media/media.hpp"
#include "json.hpp"

namespace hs::cli {

// What a camera raw file's JSON says of it, under "camera_raw": {"view", "make", "model",
// "iso", "exposure_s", "exposure", "aperture", "focal_length_mm", "date" (each null when the
// file does not record it; a whole number as a JSON integer), "raw_size": [w, h], "visible": [x, y,
// w, h], "demosaiced_size": [w, h], "cfa_pattern" (null without a 2x2 Bayer mosaic),
// "mosaic_problem" (null with one), "sensor_depth", "black_levels": {"r", "g1", "g2", "b"},
// "white_level", "quads": [w, h], "photosites_left_out"}.
Json camera_raw_json(const media::CameraRawInfo& info, media::CameraRawView view);

// The lines `info` prints of it (each "  name: value\n").
std::string camera_raw_text(const media::CameraRawInfo& info, media::CameraRawView view);

// The levels of one channel of the CFA view counted over `view` (the image or its region):
// its black and white levels and the photosites at or below the one and at or above the other.
struct CfaLevels {
    std::string name;  // "r", "g1", "g2", "b"
    std::uint32_t black = 0, white = 0;
    media::LevelCounts counts;
};
CfaLevels cfa_levels(const media::CameraRawInfo& info, const ImageView& view, Channel channel);
// Adds "black", "white", "at_or_below_black", "at_or_above_white" to a channel's JSON entry.
void add_cfa_levels_json(Json& entry, const CfaLevels& levels);
// "r: black 256, white 4095, at_or_below_black=N at_or_above_white=M": a text header line.
std::string cfa_levels_text(const CfaLevels& levels);

}  // namespace hs::cli
