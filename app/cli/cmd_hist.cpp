#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <iostream>
#include <sstream>

#include "camera_raw.hpp"
#include "commands.hpp"
#include "histoscope/core/error.hpp"
#include "histoscope/core/stats.hpp"
#include "input.hpp"
#include "json.hpp"
#include "planes.hpp"
#include "request_options.hpp"
#include "scope_options.hpp"

namespace hs::cli {

namespace {

// Real-valued lower edge of bin i (for even bins: lower + i * width / bins; for float bins the
// fp32 edge itself).
double edge(const HistogramSpec& spec, std::size_t i) {
    if (spec.is_float()) return static_cast<double>(spec.float_bins->edges()[i]);
    if (spec.has_edges()) return spec.edges[i];
    return static_cast<double>(spec.lower) +
           static_cast<double>(i) * static_cast<double>(spec.upper - spec.lower) / spec.bins;
}

std::string number(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.10g", v);
    return buf;
}

Json stats_json(const Stats& s) {
    Json j = Json::object();
    j["count"] = s.count;
    j["mean"] = s.mean;
    j["std"] = s.stddev;
    j["min"] = static_cast<std::uint64_t>(s.min);
    j["max"] = static_cast<std::uint64_t>(s.max);
    j["median"] = static_cast<std::uint64_t>(s.median);
    Json p = Json::object();
    for (const auto& [q, v] : s.percentiles) p["p" + number(q)] = static_cast<std::uint64_t>(v);
    j["percentiles"] = std::move(p);
    j["clipped_low"] = s.clipped_low;
    j["clipped_high"] = s.clipped_high;
    j["below_range"] = s.below_range;
    j["above_range"] = s.above_range;
    return j;
}

// A float channel's statistics: of its finite samples; its samples in no bin.
Json float_stats_json(const FloatStats& s) {
    Json j = Json::object();
    j["count"] = s.count;
    j["non_finite"] = s.non_finite;
    j["mean"] = s.mean;
    j["std"] = s.stddev;
    j["min"] = static_cast<double>(s.min);
    j["max"] = static_cast<double>(s.max);
    j["median"] = static_cast<double>(s.median);
    Json p = Json::object();
    for (const auto& [q, v] : s.percentiles) p["p" + number(q)] = static_cast<double>(v);
    j["percentiles"] = std::move(p);
    j["below_range"] = s.below_range;
    j["above_range"] = s.above_range;
    return j;
}

std::string float_stats_line(const FloatStats& s) {
    std::ostringstream os;
    const auto f = [](double v) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.9g", v);
        return std::string(buf);
    };
    os << "count=" << s.count << " non_finite=" << s.non_finite << " mean=" << number(s.mean)
       << " std=" << number(s.stddev) << " min=" << f(s.min) << " max=" << f(s.max)
       << " median=" << f(s.median);
    for (const auto& [q, v] : s.percentiles) os << " p" << number(q) << "=" << f(v);
    os << " below_range=" << s.below_range << " above_range=" << s.above_range;
    return os.str();
}

std::string stats_line(const Stats& s) {
    std::ostringstream os;
    os << "count=" << s.count << " mean=" << number(s.mean) << " std=" << number(s.stddev)
       << " min=" << s.min << " max=" << s.max << " median=" << s.median;
    for (const auto& [q, v] : s.percentiles) os << " p" << number(q) << "=" << v;
    os << " clipped_low=" << s.clipped_low << " clipped_high=" << s.clipped_high
       << " below_range=" << s.below_range << " above_range=" << s.above_range;
    return os.str();
}

}  // namespace

int run_hist(const Context& ctx, const HistCommand& cmd) {
    refuse_output_onto_input(cmd.input, cmd.output.path);
    if (cmd.per_frame) return run_hist_frames(ctx, cmd);
    if (cmd.frames) throw UsageError("--frames N applies to --per-frame");
    const std::string& format = cmd.output.format.value;
    const std::string& kernel = cmd.kernel;
    HistogramEngine& engine = available_kernel(ctx.registry, kernel);

    // y, cb, cr: the coded planes of a video, each counted as an image of its own.
    const ChannelSelection selection = select_channels(cmd.channels);
    InputWants wants;
    wants.planes = selection.has_planes();
    wants.rgb = !selection.others.empty();
    const Input in = load_input(cmd.input, cmd.frame.value, false, wants);
    const ImageView frame = wants.rgb ? in.image.view() : in.shape.shape();
    const ImageView image = apply_region(cmd.roi, frame);

    // One histogram per channel in the order listed: the image's channels in one request,
    // each plane in one of its own, all with the spec of the frame's depth.
    struct Counted {
        std::string name;
        ChannelHistogram histogram;
        ImageView view;   // what was counted
        Channel channel;  // of `view`
        int plane = -1;   // 0 y, 1 cb, 2 cr; -1 for the image's channels
    };
    std::vector<Counted> counted;
    HistogramResult result;
    // Without channels of the image, its request still makes the spec (at the frame's depth).
    const HistogramRequest request = histogram_request(
        cmd.spec, image, selection.others.empty() ? "all" : selection.others, in.cfa());
    // Notes once the request stands: a usage error (an engine that cannot serve it too) is the
    // only line of a command refused.
    if (wants.rgb) {
        request.spec.validate_for(request.image);
        if (std::string why = engine.refusal(request); !why.empty()) throw UnsupportedError(why);
    }
    for (const auto& n : in.notes) diagnose("note", n);
    std::vector<HistogramResult> results;
    if (wants.rgb) results.push_back(engine.compute(request));
    std::vector<ImageView> planes;
    if (wants.planes) {
        planes = plane_views({in.planes[0].view(), in.planes[1].view(), in.planes[2].view()},
                             *in.coding, cmd.roi);
        for (int p : selection.planes) {
            const ImageView& v = planes[static_cast<std::size_t>(p)];
            results.push_back(engine.compute({v, {Channel::Gray}, request.spec}));
        }
    }
    std::size_t next_plane = wants.rgb ? 1 : 0;
    const auto channels_of = [&](const std::string& list) {
        return (in.cfa() ? media::parse_cfa_channels(list)
                         : parse_channel_list(list, image.channels, image.type))
            .size();
    };
    for (const auto& [is_plane, k] : selection.ordered(channels_of)) {
        if (is_plane) {
            const int p = selection.planes[static_cast<std::size_t>(k)];
            HistogramResult& r = results[next_plane++];
            counted.push_back({kPlaneNames[p], std::move(r.channels.front()),
                               planes[static_cast<std::size_t>(p)], Channel::Gray, p});
        } else {
            const auto i = static_cast<std::size_t>(k);
            const Channel channel = request.channels[i];
            counted.push_back(
                {std::string(in.cfa() ? media::cfa_channel_name(channel) : channel_name(channel)),
                 results.front().channels[i], image, channel, -1});
        }
    }
    // Timing: the engine's stages and total summed over its calls.
    for (const HistogramResult& r : results) {
        result.total_ms += r.total_ms;
        for (const StageTime& st : r.stages) {
            auto it = std::find_if(result.stages.begin(), result.stages.end(),
                                   [&](const StageTime& t) { return t.name == st.name; });
            if (it == result.stages.end())
                result.stages.push_back(st);
            else
                it->ms += st.ms;
        }
    }

    std::vector<Stats> stats;
    std::vector<FloatStats> float_stats;  // a float image's
    const bool floating = request.spec.is_float();
    if (cmd.stats)
        for (const Counted& c : counted) {
            if (floating)
                float_stats.push_back(compute_float_stats(c.view, c.channel, request.spec));
            else
                stats.push_back(compute_stats(c.view, c.channel, request.spec));
        }
    // A CFA mosaic's channels: the photosites at or below the black level, at or above white.
    std::vector<CfaLevels> levels;
    if (in.cfa())
        for (const Counted& c : counted)
            levels.push_back(cfa_levels(*in.camera_raw, c.view, c.channel));

    const HistogramSpec& spec = request.spec;
    const auto bins = static_cast<std::size_t>(spec.bins);
    std::string out;
    if (format == "json") {
        Json j = input_json(in.name, in.kind, in.format, in.shape.shape());
        if (in.kind == "video" || in.kind == "raw") j["frame"] = in.frame;
        j["image_channels"] = in.shape.channels;
        if (in.coding) add_coding_json(j, *in.coding);
        if (in.camera_raw) j["camera_raw"] = camera_raw_json(*in.camera_raw, in.camera_view);
        j["corrupt"] = in.corrupt;
        j["region"] = region_json(cmd.roi);
        j["spec"] = spec_json(spec);
        j["kernel"] = kernel;
        j["timing_ms"] = timing_json(result.stages, result.total_ms);
        Json chans = Json::array();
        for (std::size_t k = 0; k < counted.size(); ++k) {
            const Counted& c = counted[k];
            Json o = c.plane >= 0 ? plane_json(c.plane, c.view, c.histogram)
                                  : channel_json(c.histogram, in.cfa(), floating);
            if (!levels.empty()) add_cfa_levels_json(o, levels[k]);
            if (!stats.empty()) o["stats"] = stats_json(stats[k]);
            if (!float_stats.empty()) o["stats"] = float_stats_json(float_stats[k]);
            chans.push_back(std::move(o));
        }
        j["channels"] = std::move(chans);
        j["notes"] = in.notes;
        out = to_text(j);
    } else {
        std::ostringstream os;
        const char sep = format == "csv" ? ',' : '\t';
        if (format == "text") {
            const std::optional<Region>& region = cmd.roi;
            os << "# " << in.name << ": " << in.shape.width << "x" << in.shape.height << ", "
               << in.shape.channels << " channel(s), " << in.shape.bit_depth << "-bit " << in.kind
               << " (" << in.format << ")"
               << (in.kind == "video" || in.kind == "raw" ? ", frame " + std::to_string(in.frame)
                                                          : std::string())
               << (region ? ", region " + region->describe() : std::string()) << "\n";
            if (in.coding) os << "# coded " << coding_text(*in.coding) << "\n";
            if (in.camera_raw) {
                const media::CameraRawInfo& r = *in.camera_raw;
                os << "# camera raw " << r.make << " " << r.model << ", "
                   << (in.cfa() ? "CFA " + r.cfa_pattern + " mosaic as 2x2 quads, " +
                                      std::to_string(r.sensor_depth) + "-bit sensor"
                                : std::string("demosaiced linear 16-bit"))
                   << "\n";
            }
            os << "# kernel " << kernel << ", " << spec.describe() << ", "
               << number(result.total_ms) << " ms\n";
        }
        for (const CfaLevels& l : levels) os << "# levels " << cfa_levels_text(l) << "\n";
        for (std::size_t k = 0; k < stats.size(); ++k)
            os << "# stats " << counted[k].name << ": " << stats_line(stats[k]) << "\n";
        for (std::size_t k = 0; k < float_stats.size(); ++k)
            os << "# stats " << counted[k].name << ": " << float_stats_line(float_stats[k]) << "\n";
        // Float samples in no bin, which the rows below do not count.
        if (floating)
            for (const Counted& c : counted)
                os << "# outside " << c.name << ": below_range=" << c.histogram.below_range
                   << " above_range=" << c.histogram.above_range
                   << " non_finite=" << c.histogram.non_finite << "\n";
        os << "bin" << sep << "lower" << sep << "upper";
        for (const Counted& c : counted) os << sep << c.name;
        os << "\n";
        for (std::size_t b = 0; b < bins; ++b) {
            os << b << sep << number(edge(spec, b)) << sep << number(edge(spec, b + 1));
            for (const Counted& c : counted) os << sep << c.histogram.counts[b];
            os << "\n";
        }
        out = os.str();
    }
    write_output(cmd.output.path, out);
    return 0;
}

}  // namespace hs::cli
