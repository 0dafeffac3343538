// histoscope-cli hist --per-frame: the histograms of every frame of a video or raw stream, one
// row per frame (CSV or text) or one line per frame in the JSON document's "frames" array,
// written as the frames are processed. Frames that fail to decode are reported in place and the
// rest processed.

#include <chrono>
#include <deque>
#include <iostream>
#include <memory>
#include <sstream>

#include "commands.hpp"
#include "frames.hpp"
#include "histoscope/core/error.hpp"
#include "histoscope/core/timing.hpp"
#include "histoscope/media/atomic_file.hpp"
#include "json.hpp"
#include "planes.hpp"
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

int run_hist_frames(const Context& ctx, const HistCommand& cmd) {
    const std::string& format = cmd.output.format.value;
    if (cmd.stats) throw UsageError("--stats applies to one image, not to --per-frame");
    if (cmd.frame.given)
        throw UsageError("--frame N picks one frame; --per-frame histograms every frame");
    const std::int64_t limit = cmd.frames.value_or(0);
    const std::string& kernel = cmd.kernel;
    if (kernel != "auto") static_cast<void>(available_kernel(ctx.registry, kernel));

    // y, cb, cr (a video's coded planes) are counted as each frame is read, on this thread, by
    // the kernel named (auto: cpu); the image's channels go through the frame stream.
    const ChannelSelection selection = select_channels(cmd.channels);
    const bool image_channels = !selection.others.empty();
    StreamInput source(cmd.input, 1);
    source.want(image_channels, selection.has_planes());
    const FrameFormat& f = source.format();
    StreamConfig config;
    std::unique_ptr<FrameStream> stream;
    StreamEngine* streamer = nullptr;
    {
        const HistogramRequest shape = histogram_request(
            cmd.spec, f.shape(), image_channels ? selection.others : std::string("all"));
        config.format = f;
        config.engine = kernel;
        config.spec = shape.spec;
        config.region = cmd.roi;
        if (image_channels) config.channels = shape.channels;
    }
    if (image_channels) {
        config.validate();
        streamer = &choose_stream_engine(ctx.registry, config);
        stream = streamer->open(config);
    } else {
        static_cast<void>(config.counted_shape());  // a region outside the frame: UsageError
    }
    HistogramEngine& plane_engine =
        available_kernel(ctx.registry, kernel == "auto" ? std::string("cpu") : kernel);
    const media::VideoCoding* coding = source.coding();

    // The columns in the order listed.
    const std::vector<std::pair<bool, int>> order = selection.ordered([&](const std::string& list) {
        return parse_channel_list(list, f.channels, f.type).size();
    });
    std::vector<std::string> names;
    for (const auto& [is_plane, k] : order)
        names.push_back(
            is_plane ? kPlaneNames[selection.planes[static_cast<std::size_t>(k)]]
                     : std::string(channel_name(config.channels[static_cast<std::size_t>(k)])));

    const HistogramSpec& spec = config.spec;
    const auto bins = static_cast<std::size_t>(spec.bins);
    Output output(cmd.output.path);
    std::ostream& os = output.out();
    const char sep = format == "csv" ? ',' : '\t';
    if (format == "json") {
        Json head = source_json(source);
        head["spec"] = spec_json(spec);
        head["region"] = region_json(config.region);
        head["kernel"] = kernel;
        head["stream_engine"] = streamer != nullptr ? Json(std::string(streamer->name())) : Json();
        if (selection.has_planes()) head["plane_engine"] = std::string(plane_engine.name());
        std::string text = to_text(head);
        // Without the closing brace: "frames", "summary" and "notes" follow.
        text.erase(text.rfind('}'));
        while (!text.empty() && text.back() == '\n') text.pop_back();
        os << text << ",\n  \"frames\": [";
    } else {
        if (format == "text") {
            os << "# " << source.name() << ": " << f.width << "x" << f.height << ", " << f.channels
               << " channel(s), " << f.bit_depth << "-bit " << source.kind() << " ("
               << source.codec() << "), ";
            if (source.reported_frames() > 0)
                os << source.reported_frames() << " frames "
                   << (source.frames_counted() ? "counted" : "reported") << "\n";
            else
                os << "frames not known in advance\n";
            if (coding != nullptr) os << "# coded " << coding_text(*coding) << "\n";
            os << "# kernel " << kernel;
            if (streamer != nullptr) os << " on the '" << streamer->name() << "' stream engine";
            if (selection.has_planes())
                os << (streamer != nullptr ? ", planes by '" : " ('") << plane_engine.name()
                   << (streamer != nullptr ? "'" : "' on the planes)");
            os << ", " << spec.describe()
               << (config.region ? ", region " + config.region->describe() : std::string()) << "\n";
        }
        // Float bins: each channel's counts of the values outside them follow its bins.
        os << "frame" << sep << "status";
        for (const std::string& n : names) {
            for (std::size_t b = 0; b < bins; ++b) os << sep << n << '_' << b;
            if (spec.is_float())
                os << sep << n << "_below_range" << sep << n << "_above_range" << sep << n
                   << "_non_finite";
        }
        os << "\n";
    }

    // The planes' histograms of the frames read, waiting for the stream's results (in order).
    struct PlaneCounts {
        std::vector<ChannelHistogram> histograms;  // in selection.planes' order
        std::vector<ImageView> views;              // their sizes, for the JSON
        double ms = 0.0;
    };
    std::deque<PlaneCounts> plane_counts;
    StreamEvents events;
    if (selection.has_planes())
        events.read = [&](std::int64_t) {
            const auto t0 = std::chrono::steady_clock::now();
            const std::vector<ImageView> views =
                plane_views(source.planes(), *coding, config.region);
            PlaneCounts counts;
            for (int p : selection.planes) {
                const ImageView& v = views[static_cast<std::size_t>(p)];
                HistogramResult r = plane_engine.compute({v, {Channel::Gray}, spec});
                counts.histograms.push_back(std::move(r.channels.front()));
                counts.views.push_back(v);
            }
            counts.ms = ms_since(t0);
            plane_counts.push_back(std::move(counts));
        };

    bool first = true;
    const auto begin_row = [&] {
        if (format == "json") os << (first ? "\n    " : ",\n    ");
        first = false;
    };
    events.result = [&](std::int64_t frame, const std::string& corrupt, FrameResult& r) {
        if (!corrupt.empty()) diagnose("warning", corrupt + " (kept: --allow-corrupt)");
        PlaneCounts planes;
        if (selection.has_planes()) {
            planes = std::move(plane_counts.front());
            plane_counts.pop_front();
        }
        // The row's histograms in the order listed.
        std::vector<const ChannelHistogram*> row;
        for (const auto& [is_plane, k] : order)
            row.push_back(is_plane ? &planes.histograms[static_cast<std::size_t>(k)]
                                   : &r.channels[static_cast<std::size_t>(k)]);
        begin_row();
        if (format == "json") {
            Json j = Json::object();
            j["frame"] = frame;
            j["status"] = corrupt.empty() ? "ok" : "corrupt";
            if (!corrupt.empty()) j["reason"] = corrupt;
            j["kernel"] = image_channels ? r.histogram_engine : std::string(plane_engine.name());
            Json chans = Json::array();
            for (std::size_t i = 0; i < row.size(); ++i) {
                const auto& [is_plane, k] = order[i];
                const auto ku = static_cast<std::size_t>(k);
                chans.push_back(is_plane
                                    ? plane_json(selection.planes[ku], planes.views[ku], *row[i])
                                    : channel_json(*row[i], false, spec.is_float()));
            }
            j["channels"] = std::move(chans);
            Json timing = timing_json(r.stages);
            if (selection.has_planes()) timing["planes"] = planes.ms;
            j["timing_ms"] = std::move(timing);
            os << to_text(j, -1);
            return;
        }
        os << frame << sep << (corrupt.empty() ? "ok" : "corrupt");
        for (const ChannelHistogram* h : row) {
            for (std::uint64_t n : h->counts) os << sep << n;
            if (spec.is_float())
                os << sep << h->below_range << sep << h->above_range << sep << h->non_finite;
        }
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
        os << frame << sep << "failed" << std::string(bins * names.size(), sep) << "\n";
    };
    const PumpStats stats = pump(source, stream.get(), events, limit);
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
        summary["histogram_engine"] =
            stream ? stream->histogram_engine() : std::string(plane_engine.name());
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
