#pragma once
// The histogram request options shared by `hist` and `bench`: channels, --bins, --range,
// --edges, --saturate.

#include <optional>
#include <string>
#include <vector>

#include "args.hpp"
#include "histoscope/core/engine.hpp"
#include "histoscope/core/stream.hpp"
#include "json.hpp"

namespace hs::cli {

// Channels come from `channels_option` (default "all"). Even bins default to 256 over
// [0, 2^depth); the joint colour channel "rgb" must be requested alone and defaults to one
// bin per colour, 2^24 bins over [0, 2^24). A float image takes float bins: --stops LO:HI:STEP,
// --range LO:HI with --bins N (default 256) linear, --bins N alone N stops over -16..+16 EV,
// nothing -16:16:1/8; its "all" adds the luminance (luma709) to a colour image's channels.
// Throws UsageError.
// `cfa`: the image is a camera raw file's CFA mosaic, whose channels are r, g1, g2, b.
HistogramRequest request_from_args(const Args& args, const ImageView& image,
                                   const std::string& channels_option, bool cfa = false);
// The same with the channels of `channel_list` (what is left of --channels once a video's
// planes y, cb, cr are taken out: see planes.hpp).
HistogramRequest request_with_channels(const Args& args, const ImageView& image,
                                       const std::string& channel_list, bool cfa = false);

// The histogram engine named `kernel` (--kernel): UsageError when there is none of that name,
// DeviceError when it is not available here.
HistogramEngine& available_kernel(const EngineRegistry& registry, const std::string& kernel);

// A stream of `format` frames histogrammed by `kernel` with the channels and spec of the
// options (as request_from_args reads them) over the --roi region; no equalization.
StreamConfig histogram_stream_config(const Args& args, const FrameFormat& format,
                                     const std::string& kernel, const std::string& channels_option);

// {"bins": N, "range": [LO, HI]} or {"bins": N, "edges": [...]}, then "saturate" (null or N);
// float bins: {"bins": N, "scale": "linear", "range": [LO, HI]} or {"bins": N, "scale":
// "stops", "stops": [LO, HI], "step": STEP}, then "edges" (the N + 1 fp32 edges) and "saturate".
Json spec_json(const HistogramSpec& spec);
// "r,g,b": the channels' names, comma-separated (of a CFA mosaic, "r,g1,g2,b").
std::string channel_list(const std::vector<Channel>& channels, bool cfa = false);

// {"total": total_ms (when given), then each stage's name: its milliseconds}.
Json timing_json(const std::vector<StageTime>& stages, std::optional<double> total_ms = {});
// {"name", "total", "counts": [...]} (of a CFA mosaic, named r, g1, g2, b); of float bins
// (`floating`) also "below_range", "above_range", "non_finite".
Json channel_json(const ChannelHistogram& histogram, bool cfa = false, bool floating = false);

}  // namespace hs::cli
