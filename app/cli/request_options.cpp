#include "request_options.hpp"

#include <algorithm>
#include <cstdint>
#include <utility>

#include "histoscope/core/error.hpp"
#include "histoscope/media/media.hpp"
#include "planes.hpp"

namespace hs::cli {

HistogramEngine& available_kernel(const EngineRegistry& registry, const std::string& kernel) {
    HistogramEngine* engine = registry.find(kernel);
    if (!engine) throw UsageError("unknown kernel '" + kernel + "' (see 'histoscope-cli kernels')");
    if (const Availability a = engine->availability(); !a.available)
        throw DeviceError("kernel '" + kernel + "' is not available: " + a.reason);
    return *engine;
}

namespace {

// "A:B" or "A:B:C" as exact numbers.
std::vector<Rational> rationals(const std::string& text, std::size_t count, const char* what,
                                const char* form) {
    std::vector<Rational> out;
    std::size_t at = 0;
    for (std::size_t i = 0; i < count; ++i) {
        const std::size_t colon = i + 1 < count ? text.find(':', at) : text.size();
        if (colon == std::string::npos ||
            (i + 1 == count && text.find(':', at) != std::string::npos))
            throw UsageError(std::string(what) + " expects " + form + ", not '" +
                             text.substr(0, 64) + "'");
        out.push_back(parse_rational(text.substr(at, colon - at), what));
        at = colon + 1;
    }
    return out;
}

// The float bins of the options (histogram_request()).
HistogramSpec float_spec(const SpecOptions& options) {
    if (!options.edges.empty())
        throw UsageError(
            "--edges gives integer samples' edges; a float image takes --range LO:HI with --bins "
            "N, or --stops LO:HI:STEP");
    if (const auto& s = options.stops)
        return HistogramSpec::floating(FloatBins::stops((*s)[0], (*s)[1], (*s)[2]));
    if (const auto& r = options.range)
        return HistogramSpec::floating(
            FloatBins::linear(r->first, r->second, options.bins.value_or(256)));
    if (options.bins) {  // N bins over the default -16..+16 EV
        if (*options.bins > kMaxFloatBins)
            throw UsageError("--bins " + std::to_string(*options.bins) +
                             ": a float image has at most " + std::to_string(kMaxFloatBins) +
                             " bins");
        return HistogramSpec::floating(FloatBins::stops(
            {-16, 1}, {16, 1}, parse_rational("32/" + std::to_string(*options.bins), "--bins")));
    }
    return HistogramSpec::floating(FloatBins::default_stops());
}

}  // namespace

std::pair<Rational, Rational> parse_range(const std::string& text) {
    const auto r = rationals(text, 2, "--range", "LO:HI (e.g. 0:256, or 0:1 for a float image)");
    return {r[0], r[1]};
}

std::array<Rational, 3> parse_stops(const std::string& text) {
    const auto r = rationals(text, 3, "--stops", "LO:HI:STEP (e.g. -16:16:1/8)");
    return {r[0], r[1], r[2]};
}

HistogramRequest histogram_request(const SpecOptions& options, const ImageView& image,
                                   const std::string& channel_list, bool cfa) {
    // hist takes a video's planes out of its list before it comes here (planes.hpp).
    if (select_channels(channel_list).has_planes())
        throw UsageError(
            "the channels y, cb, cr (a video's coded Y'CbCr planes) are counted by "
            "hist, not here");
    HistogramRequest request{image,
                             cfa ? media::parse_cfa_channels(channel_list)
                                 : parse_channel_list(channel_list, image.channels, image.type),
                             {}};
    const bool joint = std::find(request.channels.begin(), request.channels.end(),
                                 Channel::Joint) != request.channels.end();
    if (joint && request.channels.size() > 1)
        throw UsageError("the joint colour channel 'rgb' must be requested alone");

    HistogramSpec& spec = request.spec;
    if (is_float(image.type)) {
        spec = float_spec(options);
        spec.saturate = options.saturate;
        spec.validate();
        return request;
    }
    if (options.stops)
        throw UsageError("--stops bins float samples (stops of linear light); this image has " +
                         to_string(image.type) + " samples: give --bins and --range");
    // The code values of the samples counted: the depth's, or every 24-bit colour.
    const std::int64_t values = joint ? std::int64_t{1} << 24 : std::int64_t{1} << image.bit_depth;
    if (!options.edges.empty()) {
        spec = HistogramSpec::with_edges(options.edges);
    } else {
        std::pair<std::int64_t, std::int64_t> range{0, values};
        if (const auto& r = options.range) {
            // Code values: whole numbers.
            for (const Rational& v : {r->first, r->second})
                if (v.den != 1)
                    throw UsageError("--range of " + to_string(image.type) +
                                     " samples takes whole numbers (HI excluded), not " +
                                     v.describe());
            range = {r->first.num, r->second.num};
        }
        const auto [lower, upper] = range;
        // Without --bins, a range of fewer code values than the default bins has one bin each.
        const std::int64_t default_bins = joint ? kMaxBins : 256;
        spec = HistogramSpec::even(
            options.bins.value_or(static_cast<int>(
                upper > lower ? std::min(default_bins, upper - lower) : default_bins)),
            lower, upper);
    }
    spec.saturate = options.saturate;
    spec.validate();
    // At most one bin per code value counted, as the desktop application offers them: more even
    // bins than values leave bins empty whatever the image. The values are the samples' (the
    // default range) and those of --range (HI - LO): a narrower range counts fewer. Photos, raw
    // and camera raw frames and video alike: every command's spec comes from here.
    if (!spec.has_edges()) {
        const std::int64_t in_range = spec.upper - spec.lower;
        const bool by_range = options.range && in_range < values;
        if (spec.bins > std::min(values, in_range))
            throw UsageError("--bins " + std::to_string(spec.bins) + ": more bins than the " +
                             std::to_string(by_range ? in_range : values) + " code values of " +
                             (by_range ? "--range " + std::to_string(spec.lower) + ":" +
                                             std::to_string(spec.upper)
                              : joint ? std::string("the joint colour rgb")
                                      : std::to_string(image.bit_depth) + "-bit samples") +
                             " (at most one bin per code value)");
    }
    return request;
}

StreamConfig histogram_stream_config(const SpecOptions& spec, const std::string& channel_list,
                                     const std::optional<Region>& region, const FrameFormat& format,
                                     const std::string& kernel) {
    const HistogramRequest shape = histogram_request(spec, format.shape(), channel_list);
    StreamConfig config;
    config.format = format;
    config.engine = kernel;
    config.channels = shape.channels;
    config.spec = shape.spec;
    config.region = region;
    return config;
}

Json spec_json(const HistogramSpec& spec) {
    Json s = Json::object();
    s["bins"] = spec.bins;
    if (spec.is_float()) {
        const FloatBins& f = *spec.float_bins;
        const bool stops = f.scale() == FloatScale::Stops;
        s["scale"] = stops ? "stops" : "linear";
        s[stops ? "stops" : "range"] = Json::array({f.lo().value(), f.hi().value()});
        if (stops) s["step"] = f.step().value();
        Json e = Json::array();
        for (float v : f.edges()) e.push_back(static_cast<double>(v));
        s["edges"] = std::move(e);
    } else if (spec.has_edges()) {
        Json e = Json::array();
        for (double v : spec.edges) e.push_back(v);
        s["edges"] = std::move(e);
    } else {
        s["range"] = Json::array({spec.lower, spec.upper});
    }
    s["saturate"] = spec.saturate ? Json(*spec.saturate) : Json();
    return s;
}

std::string channel_list(const std::vector<Channel>& channels, bool cfa) {
    std::string s;
    for (Channel c : channels)
        s += (s.empty() ? "" : ",") +
             std::string(cfa ? media::cfa_channel_name(c) : channel_name(c));
    return s;
}

std::string equalize_space(EqualizeSpace space, int channels) {
    return channels == 1 ? "gray" : std::string(space_name(space));
}

Json timing_json(const std::vector<StageTime>& stages, std::optional<double> total_ms) {
    Json t = Json::object();
    if (total_ms) t["total"] = *total_ms;
    for (const auto& s : stages) t[s.name] = s.ms;
    return t;
}

Json channel_json(const ChannelHistogram& histogram, bool cfa, bool floating) {
    Json c = Json::object();
    c["name"] = cfa ? media::cfa_channel_name(histogram.channel) : channel_name(histogram.channel);
    c["total"] = histogram.total();
    if (floating) {
        c["below_range"] = histogram.below_range;
        c["above_range"] = histogram.above_range;
        c["non_finite"] = histogram.non_finite;
    }
    Json counts = Json::array();
    for (std::uint64_t n : histogram.counts) counts.push_back(n);
    c["counts"] = std::move(counts);
    return c;
}

}  // namespace hs::cli
