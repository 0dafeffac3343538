#include <cinttypes>
#include <cstdio>
#include <iostream>
#include <sstream>

#include "args.hpp"
#include "commands.hpp"
#include "histoscope/core/error.hpp"
#include "histoscope/core/stats.hpp"
#include "input.hpp"
#include "json.hpp"
#include "request_options.hpp"
#include "scope_options.hpp"

namespace hs::cli {

namespace {

// Real-valued lower edge of bin i (for even bins: lower + i * width / bins).
double edge(const HistogramSpec& spec, std::size_t i) {
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

int run_hist(const Context& ctx) {
    const Args& args = ctx.args;
    refuse_output_onto_input(args);
    if (args.flag("--per-frame")) return run_hist_frames(ctx, args);
    if (args.has("--frames")) throw UsageError("--frames N applies to --per-frame");
    const std::string format = args.value("--format").value_or("text");
    const std::string kernel = args.value("--kernel").value_or("cpu");
    HistogramEngine& engine = available_kernel(ctx.registry, kernel);

    const Input in = load_input(args, decode_options(args));
    for (const auto& n : in.notes) diagnose("note", n);
    const ImageView image = apply_region(args, in.image.view());
    const HistogramRequest request = request_from_args(args, image, "--channels");
    const HistogramResult result = engine.compute(request);

    std::vector<Stats> stats;
    if (args.flag("--stats"))
        for (Channel c : request.channels) stats.push_back(compute_stats(image, c, request.spec));

    const HistogramSpec& spec = request.spec;
    const auto bins = static_cast<std::size_t>(spec.bins);
    std::string out;
    if (format == "json") {
        Json j = input_json(in.name, in.kind, in.format, in.image.view());
        if (in.kind != "image") j["frame"] = in.frame;
        j["image_channels"] = image.channels;
        j["corrupt"] = in.corrupt;
        j["region"] = region_json(region_option(args));
        j["spec"] = spec_json(spec);
        j["kernel"] = kernel;
        j["timing_ms"] = timing_json(result.stages, result.total_ms);
        Json chans = Json::array();
        for (std::size_t k = 0; k < result.channels.size(); ++k) {
            Json c = channel_json(result.channels[k]);
            if (!stats.empty()) c["stats"] = stats_json(stats[k]);
            chans.push_back(std::move(c));
        }
        j["channels"] = std::move(chans);
        j["notes"] = in.notes;
        out = to_text(j);
    } else {
        std::ostringstream os;
        const char sep = format == "csv" ? ',' : '\t';
        if (format == "text") {
            const auto region = region_option(args);
            os << "# " << in.name << ": " << in.image.width() << "x" << in.image.height() << ", "
               << image.channels << " channel(s), " << image.bit_depth << "-bit " << in.kind << " ("
               << in.format << ")"
               << (in.kind == "image" ? std::string() : ", frame " + std::to_string(in.frame))
               << (region ? ", region " + region->describe() : std::string()) << "\n"
               << "# kernel " << kernel << ", " << spec.describe() << ", "
               << number(result.total_ms) << " ms\n";
        }
        for (std::size_t k = 0; k < stats.size(); ++k)
            os << "# stats " << channel_name(request.channels[k]) << ": " << stats_line(stats[k])
               << "\n";
        os << "bin" << sep << "lower" << sep << "upper";
        for (Channel c : request.channels) os << sep << channel_name(c);
        os << "\n";
        for (std::size_t b = 0; b < bins; ++b) {
            os << b << sep << number(edge(spec, b)) << sep << number(edge(spec, b + 1));
            for (const auto& h : result.channels) os << sep << h.counts[b];
            os << "\n";
        }
        out = os.str();
    }
    write_output(args.value("-o").value_or(""), out);
    return 0;
}

}  // namespace hs::cli
