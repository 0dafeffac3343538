// histoscope-cli hist --per-frame: the histograms of every frame of a video or raw stream, one
// row per frame (CSV or text) or one line per frame in the JSON document's "frames" array,
// written as the frames are processed. Frames that fail to decode are reported in place and the
// rest processed.

#include <iostream>
#include <memory>
#include <sstream>

#include "args.hpp"
#include "commands.hpp"
#include "frames.hpp"
#include "histoscope/core/error.hpp"
#include "histoscope/media/atomic_file.hpp"
#include "json.hpp"
#include "request_options.hpp"
#include "scope_options.hpp"

namespace hs::cli {

namespace {

// Standard output, or the file of -o, which replaces an existing file only once complete.
class Output {
  public:
    explicit Output(const std::string& path) {
        if (!path.empty() && path != "-") file_ = std::make_unique<media::AtomicFile>(path);
    }
    std::ostream& out() { return file_ ? file_->stream() : std::cout; }
    void close() {
        if (file_) return file_->commit();
        std::cout.flush();
        if (!std::cout) throw InputError("cannot write to standard output");
    }

  private:
    std::unique_ptr<media::AtomicFile> file_;
};

}  // namespace

int run_hist_frames(const Context& ctx, const Args& args) {
    const std::string format = args.value("--format").value_or("text");
    if (args.flag("--stats")) throw UsageError("--stats applies to one image, not to --per-frame");
    if (args.has("--frame"))
        throw UsageError("--frame N picks one frame; --per-frame histograms every frame");
    const std::int64_t limit = args.integer("--frames").value_or(0);
    const std::string kernel = args.value("--kernel").value_or("cpu");
    if (kernel != "auto") static_cast<void>(available_kernel(ctx.registry, kernel));

    FrameSource source(args, 1);
    const FrameFormat& f = source.format();
    StreamConfig config = histogram_stream_config(args, f, kernel, "--channels");
    config.validate();
    StreamEngine& streamer = choose_stream_engine(ctx.registry, config);
    const std::unique_ptr<FrameStream> stream = streamer.open(config);

    const HistogramSpec& spec = config.spec;
    const auto bins = static_cast<std::size_t>(spec.bins);
    Output output(args.value("-o").value_or(""));
    std::ostream& os = output.out();
    const char sep = format == "csv" ? ',' : '\t';
    if (format == "json") {
        Json head = source_json(source);
        head["spec"] = spec_json(spec);
        head["region"] = region_json(config.region);
        head["kernel"] = kernel;
        head["stream_engine"] = std::string(streamer.name());
        std::string text = to_text(head);
        // Without the closing brace: "frames", "summary" and "notes" follow.
        text.erase(text.rfind('}'));
        while (!text.empty() && text.back() == '\n') text.pop_back();
        os << text << ",\n  \"frames\": [";
    } else {
        if (format == "text")
            os << "# " << source.name() << ": " << f.width << "x" << f.height << ", " << f.channels
               << " channel(s), " << f.bit_depth << "-bit " << source.kind() << " ("
               << source.codec() << "), " << source.reported_frames() << " frames reported\n"
               << "# kernel " << kernel << " on the '" << streamer.name() << "' stream engine, "
               << spec.describe()
               << (config.region ? ", region " + config.region->describe() : std::string()) << "\n";
        os << "frame" << sep << "status";
        for (Channel c : config.channels)
            for (std::size_t b = 0; b < bins; ++b) os << sep << channel_name(c) << '_' << b;
        os << "\n";
    }

    bool first = true;
    const auto begin_row = [&] {
        if (format == "json") os << (first ? "\n    " : ",\n    ");
        first = false;
    };
    StreamEvents events;
    events.result = [&](std::int64_t frame, const std::string& corrupt, FrameResult& r) {
        if (!corrupt.empty()) diagnose("warning", corrupt + " (kept: --allow-corrupt)");
        begin_row();
        if (format == "json") {
            Json j = Json::object();
            j["frame"] = frame;
            j["status"] = corrupt.empty() ? "ok" : "corrupt";
            if (!corrupt.empty()) j["reason"] = corrupt;
            j["kernel"] = r.histogram_engine;
            Json chans = Json::array();
            for (const ChannelHistogram& h : r.channels) chans.push_back(channel_json(h));
            j["channels"] = std::move(chans);
            j["timing_ms"] = timing_json(r.stages);
            os << to_text(j, -1);
            return;
        }
        os << frame << sep << (corrupt.empty() ? "ok" : "corrupt");
        for (const ChannelHistogram& h : r.channels)
            for (std::uint64_t n : h.counts) os << sep << n;
        os << "\n";
    };
    events.failed = [&](std::int64_t frame, const std::string& why) {
        diagnose("warning", why);
        begin_row();
        if (format == "json") {
            Json j = Json::object();
            j["frame"] = frame;
            j["status"] = "failed";
            j["reason"] = why;
            os << to_text(j, -1);
            return;
        }
        // As many fields as a histogram row, empty: every row has the header's columns (the
        // reason is on standard error, and in the JSON).
        os << frame << sep << "failed" << std::string(bins * config.channels.size(), sep) << "\n";
    };
    const PumpStats stats = pump(source, *stream, events, limit);
    for (const auto& n : source.notes()) diagnose("warning", n);
    // As equalize: a stream of which nothing could be histogrammed is a bad input (the -o file
    // is then not written; rows already on standard output stay there).
    if (stats.ok == 0) throw InputError("no frame of " + source.name() + " could be decoded");

    if (format == "json") {
        Json summary = Json::object();
        summary["frames"] = stats.frames;
        summary["ok"] = stats.ok;
        summary["failed"] = stats.failed;
        summary["corrupt"] = stats.corrupt;
        summary["histogram_engine"] = stream->histogram_engine();
        summary["wall_ms"] = stats.wall_ms;
        summary["decode_ms"] = source.decode_ms();
        const Json notes = source.notes();
        os << (first ? "]" : "\n  ]") << ",\n  \"summary\": " << to_text(summary, -1)
           << ",\n  \"notes\": " << to_text(notes, -1) << "\n}\n";
    } else if (format == "text") {
        os << "# " << stats.ok << " frames histogrammed (" << stats.corrupt << " corrupt), "
           << stats.failed << " failed\n";
    }
    output.close();
    return 0;
}

}  // namespace hs::cli
