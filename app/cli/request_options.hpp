#pragma once
// The histogram request of `hist` and `bench`: channels, --bins, --range, --stops, --edges,
// --saturate; and what the reports of several commands share.

#include <array>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "histoscope/core/engine.hpp"
#include "histoscope/core/stream.hpp"
#include "json.hpp"
#include "options.hpp"

namespace hs::cli {

// The request for the channels of `channel_list` (as --channels lists them, "all" by default;
// for hist, what is left of it once a video's planes y, cb, cr are taken out: see planes.hpp)
// with the spec of `spec`. Even bins default to 256 over [0, 2^depth) (one per code value of a
// --range of fewer), at most one per code value of the samples and of the range; the joint
// colour channel "rgb" must be requested alone and defaults to one bin per colour, 2^24 bins
// over [0, 2^24). A float image takes float bins (float_bins.hpp): --stops LO:HI:STEP, --range
// LO:HI with --bins N (default 256) linear, --bins N alone N stops over -16..+16 EV, nothing
// -16:16:1/8; its "all" adds the luminance (luma709) to a colour image's channels. Throws
// UsageError. `cfa`: the image is a camera raw file's CFA mosaic, whose channels are r, g1, g2,
// b.
HistogramRequest histogram_request(const SpecOptions& spec, const ImageView& image,
                                   const std::string& channel_list, bool cfa = false);

// The histogram engine named `kernel` (--kernel): UsageError when there is none of that name,
// DeviceError when it is not available here.
HistogramEngine& available_kernel(const EngineRegistry& registry, const std::string& kernel);

// A stream of `format` frames histogrammed by `kernel` with the channels of `channel_list` and
// the spec of `spec` (as histogram_request() makes them) over `region`; no equalization.
StreamConfig histogram_stream_config(const SpecOptions& spec, const std::string& channel_list,
                                     const std::optional<Region>& region, const FrameFormat& format,
                                     const std::string& kernel);

// --range's LO:HI and --stops' LO:HI:STEP, each a decimal (read exactly) or a fraction
// (float_bins.hpp's rationals). UsageError naming the option.
std::pair<Rational, Rational> parse_range(const std::string& text);
std::array<Rational, 3> parse_stops(const std::string& text);

// {"bins": N, "range": [LO, HI]} or {"bins": N, "edges": [...]}, then "saturate" (null or N);
// float bins: {"bins": N, "scale": "linear", "range": [LO, HI]} or {"bins": N, "scale":
// "stops", "stops": [LO, HI], "step": STEP}, then "edges" (the N + 1 fp32 edges) and "saturate".
Json spec_json(const HistogramSpec& spec);
// "r,g,b": the channels' names, comma-separated (of a CFA mosaic, "r,g1,g2,b").
std::string channel_list(const std::vector<Channel>& channels, bool cfa = false);

// The space an equalization works in, as the reports name it: --space's ("luma", "rgb"), or
// "gray" for a one-channel image, which is equalized as it is whatever --space says.
std::string equalize_space(EqualizeSpace space, int channels);

// {"total": total_ms (when given), then each stage's name: its milliseconds}.
Json timing_json(const std::vector<StageTime>& stages, std::optional<double> total_ms = {});
// {"name", "total", "counts": [...]} (of a CFA mosaic, named r, g1, g2, b); of float bins
// (`floating`) also "below_range", "above_range", "non_finite".
Json channel_json(const ChannelHistogram& histogram, bool cfa = false, bool floating = false);

}  // namespace hs::cli
