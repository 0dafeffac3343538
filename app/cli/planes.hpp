#pragma once
// The coded Y', Cb, Cr planes of a video as channels of a histogram: --channels y,cb,cr, alone
// or mixed with r, g, b, luma, ... The planes have sizes of their own (chroma is subsampled),
// so they are not channels of the frame's image: each is a one-channel image of its own, counted
// by the same engine and spec, and reported under its name with its size.

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "histoscope/core/engine.hpp"
#include "histoscope/core/image.hpp"
#include "histoscope/media/media.hpp"
#include "json.hpp"

namespace hs::cli {

inline constexpr const char* kPlaneNames[3] = {"y", "cb", "cr"};

// A --channels list split into the planes it names and the other channels.
struct ChannelSelection {
    std::vector<int> planes;  // 0 y, 1 cb, 2 cr, in the order listed
    std::string others;       // the other channels as listed ("" when none), for parse_channel_list
    std::vector<std::string> other_items;  // the same, one name each
    // The order listed: (true, k) is planes[k], (false, k) the k-th of other_items.
    std::vector<std::pair<bool, int>> order;
    bool has_planes() const { return !planes.empty(); }
    // The order listed, (false, k) now the k-th of the channels the others parse to, which
    // `channels_of` counts for a list ("all" stands for several, and names a channel listed
    // beside it once).
    std::vector<std::pair<bool, int>> ordered(
        const std::function<std::size_t(const std::string&)>& channels_of) const;
};
// Throws UsageError for a plane listed twice. ("all" beside them is the image's channels.)
ChannelSelection select_channels(const std::string& list);

// The samples of a plane subsampled by 2^shift that hold any pixel of `region` of the frame.
Region plane_region(const Region& region, int shift_x, int shift_y);

// The planes of a frame, each cropped to the part of `region` it holds (all of it without one).
std::vector<ImageView> plane_views(const media::VideoPlanes& planes, const media::VideoCoding& c,
                                   const std::optional<Region>& region);

// Throws UsageError unless the video's planes can be histogrammed (a Y'CbCr coded stream).
void check_planes(const std::string& name, const media::VideoCoding& coding);

// {"name", "width", "height", "total", "counts"} of one plane's histogram.
Json plane_json(int plane, const ImageView& view, const ChannelHistogram& histogram);

// What a video's JSON says of its coding: "pixel_format", "coded_depth", "chroma" (Y'CbCr),
// "matrix" (+ "matrix_assumed"), "range" (+ "range_assumed"), "transfer", "primaries".
void add_coding_json(Json& j, const media::VideoCoding& coding);

// "yuv420p10le, Y'CbCr 4:2:0, matrix bt709, limited range, transfer bt709": one line of text.
std::string coding_text(const media::VideoCoding& coding);

}  // namespace hs::cli
