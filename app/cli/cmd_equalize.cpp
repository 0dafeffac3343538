// histoscope-cli equalize: global equalization, CLAHE or histogram matching of a photo (or a
// raw frame), written with the input's depth and channels (as a photo, or as a raw frame when
// the output ends in .raw, which needs no OpenCV). --kernel picks the engine (cpu, the
// reference, by default; gpu); --repeat N runs the engine N times and reports the median of
// each stage.

#include <algorithm>
#include <bit>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <tuple>

#include "args.hpp"
#include "commands.hpp"
#include "frames.hpp"
#include "histoscope/core/error.hpp"
#include "histoscope/core/timing.hpp"
#include "histoscope/media/atomic_file.hpp"
#include "histoscope/media/media.hpp"
#include "input.hpp"
#include "json.hpp"
#include "request_options.hpp"

namespace hs::cli {

namespace {

using Clock = std::chrono::steady_clock;

// "8x8" or "8" (square grid).
std::pair<int, int> parse_tiles(const std::string& text) {
    const auto x = text.find('x');
    const std::string w = x == std::string::npos ? text : text.substr(0, x);
    const std::string h = x == std::string::npos ? text : text.substr(x + 1);
    const std::int64_t tw = parse_integer(w, "--tiles (WxH, e.g. 8x8)");
    const std::int64_t th = parse_integer(h, "--tiles (WxH, e.g. 8x8)");
    if (tw < 1 || tw > 64 || th < 1 || th > 64)
        throw UsageError("--tiles must be 1 to 64 tiles on each side, not '" + text + "'");
    return {static_cast<int>(tw), static_cast<int>(th)};
}

void refuse_options_of_other_modes(const Args& args, EqualizeMode mode) {
    if (mode != EqualizeMode::Clahe)
        for (const char* o : {"--clip", "--tiles"})
            if (args.has(o)) throw UsageError(std::string(o) + " applies to --mode clahe only");
    if (mode != EqualizeMode::Match && args.has("--reference"))
        throw UsageError("--reference applies to --mode match only");
}

EqualizeRequest request_from_args(const Args& args) {
    EqualizeRequest r;
    const std::string mode = args.value("--mode").value_or("global");
    const auto m = parse_mode(mode);
    if (!m) throw UsageError("--mode must be global, clahe or match, not '" + mode + "'");
    r.mode = *m;
    const std::string space = args.value("--space").value_or("luma");
    const auto s = parse_space(space);
    if (!s) throw UsageError("--space must be luma or rgb, not '" + space + "'");
    r.space = *s;
    refuse_options_of_other_modes(args, r.mode);
    r.strength = args.number("--strength").value_or(1.0);
    if (!(r.strength >= 0.0 && r.strength <= 1.0))
        throw UsageError("--strength must be between 0 and 1, not " +
                         args.value("--strength").value_or(""));
    r.clip = args.number("--clip").value_or(2.0);
    if (!(r.clip > 0.0 && r.clip <= 65536.0))
        throw UsageError("--clip must be greater than 0 and at most 65536, not " +
                         args.value("--clip").value_or(""));
    if (const auto t = args.value("--tiles")) std::tie(r.tiles_x, r.tiles_y) = parse_tiles(*t);
    if (r.mode == EqualizeMode::Match && !args.has("--reference"))
        throw UsageError("--mode match needs --reference REF (a photo of the same depth)");
    return r;
}

// "text" or "json".
std::string report_format(const Args& args) {
    return args.value("--format").value_or("text");
}

std::string equalizer_name(const Args& args) {
    return args.value("--kernel").value_or("cpu");
}

EqualizeEngine& engine_from_args(const Context& ctx, const Args& args) {
    const std::string kernel = equalizer_name(args);
    EqualizeEngine* engine = ctx.registry.find_equalizer(kernel);
    if (!engine) {
        std::string known;
        for (const auto& n : ctx.registry.equalizer_names())
            known += (known.empty() ? "" : ", ") + n;
        throw UsageError("unknown equalize kernel '" + kernel + "' (available: " + known + ")");
    }
    if (const Availability a = engine->availability(); !a.available)
        throw DeviceError("kernel '" + kernel + "' is not available: " + a.reason);
    return *engine;
}

// The --reference image (--reference-raw FMT: the first frame of a raw file). A corrupt
// reference is refused even with --allow-corrupt: matching a partial histogram is no match.
Image read_reference(const Args& args) {
    const std::string ref = args.value("--reference").value_or("");
    if (const auto fmt = args.value("--reference-raw"))
        return std::move(
            media::read_raw_frame(ref, media::parse_raw_format(*fmt), 0, media::RawCount::UpToFrame)
                .image);
    media::DecodeOptions options = decode_options(args);
    options.allow_corrupt = false;
    return std::move(media::read_image(input_source(ref, options), options).image);
}

struct Report {
    std::string input, output, kernel;
    const EqualizeRequest* request = nullptr;
    std::vector<StageTime> stages;  // read, [read_reference], engine stages, write, total
    int repeat = 1;                 // engine runs; engine stages are their medians
    bool corrupt = false;           // the input was decoded with errors (--allow-corrupt)
};

// The engine's stages and engine_total, each the median over `runs` (which all report the same
// stages, in the same order).
std::vector<StageTime> median_stages(const std::vector<EqualizeResult>& runs) {
    std::vector<StageTime> out;
    const EqualizeResult& first = runs.front();
    for (std::size_t i = 0; i < first.stages.size(); ++i) {
        std::vector<double> ms;
        for (const EqualizeResult& r : runs)
            if (i < r.stages.size() && r.stages[i].name == first.stages[i].name)
                ms.push_back(r.stages[i].ms);
        out.push_back({first.stages[i].name, median(ms)});
    }
    std::vector<double> totals;
    for (const EqualizeResult& r : runs) totals.push_back(r.total_ms);
    out.push_back({"engine_total", median(totals)});
    return out;
}

bool is_raw_output(const std::string& path) {
    std::string ext = std::filesystem::path(path).extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return ext == ".raw";
}

// Appends the samples to `file`, rows packed, 16-bit little-endian: what --raw reads back.
void append_raw(media::AtomicFile& file, const ImageView& image) {
    std::string row(image.row_bytes(), '\0');
    for (int y = 0; y < image.height; ++y) {
        std::copy_n(reinterpret_cast<const char*>(image.row(y)), row.size(), row.begin());
        if (std::endian::native == std::endian::big && image.type == SampleType::U16)
            for (std::size_t i = 0; i + 1 < row.size(); i += 2) std::swap(row[i], row[i + 1]);
        file.write(row);
    }
}

void write_raw(const std::string& path, const ImageView& image) {
    media::AtomicFile file(path);
    append_raw(file, image);
    file.commit();
}

std::string report_json(const Report& rep, bool timing) {
    const EqualizeRequest& r = *rep.request;
    Json j = Json::object();
    j["input"] = rep.input;
    j["output"] = rep.output;
    j["mode"] = mode_name(r.mode);
    j["space"] = space_name(r.space);
    j["kernel"] = rep.kernel;
    j["width"] = r.image.width;
    j["height"] = r.image.height;
    j["depth"] = r.image.bit_depth;
    j["channels"] = r.image.channels;
    j["strength"] = r.strength;
    j["repeat"] = rep.repeat;
    j["corrupt"] = rep.corrupt;
    if (r.mode == EqualizeMode::Clahe) {
        j["clip"] = r.clip;
        j["tiles"] = std::to_string(r.tiles_x) + "x" + std::to_string(r.tiles_y);
    }
    if (timing) {
        j["timing_ms"] = timing_json(rep.stages);
    }
    return to_text(j);
}

std::string report_text(const Report& rep) {
    const EqualizeRequest& r = *rep.request;
    std::ostringstream os;
    os << "# " << rep.input << " -> " << rep.output << ": " << mode_name(r.mode) << ", "
       << space_name(r.space) << ", kernel " << rep.kernel << ", " << r.image.width << "x"
       << r.image.height << ", " << r.image.channels << " channel(s), " << r.image.bit_depth
       << "-bit"
       << (rep.repeat > 1 ? ", engine stages: medians of " + std::to_string(rep.repeat) + " runs"
                          : std::string())
       << "\n";
    for (const auto& s : rep.stages) os << s.name << "\t" << s.ms << " ms\n";
    return os.str();
}

// The transfer and primaries of the clip, for the equalized video (empty for raw frames).
media::VideoWriter::Colour colour_of(const StreamInput& source) {
    const media::VideoCoding* c = source.coding();
    return c ? media::VideoWriter::Colour{c->transfer, c->primaries} : media::VideoWriter::Colour{};
}

}  // namespace

int run_equalize(const Context& ctx) {
    const auto start = Clock::now();
    const Args& args = ctx.args;
    refuse_output_onto_input(args);
    // A video equalizes into a video, unless --frame picks one of its frames.
    if (args.flag("--per-frame") || (input_is_video(args) && !args.has("--frame")))
        return run_equalize_frames(ctx, args);
    if (args.has("--frames")) throw UsageError("--frames N applies to videos and --per-frame");
    const std::string format = report_format(args);
    const std::string output = args.value("-o").value_or("");
    if (output.empty() || output == "-")
        throw UsageError("equalize needs an output image file: -o OUT.png");
    if (!is_raw_output(output)) media::check_image_output(output);  // before reading anything
    EqualizeRequest request = request_from_args(args);
    EqualizeEngine& engine = engine_from_args(ctx, args);
    const auto repeat = static_cast<int>(args.integer("--repeat").value_or(1));

    Report rep{{}, output, std::string(engine.name()), &request, {}, repeat, false};
    auto t = Clock::now();
    // A camera raw file's demosaiced image: a mosaic's quads are no picture to equalize.
    InputWants wants;
    wants.camera_raw = media::CameraRawView::Rgb;
    wants.cfa = false;
    const Input in = load_input(args, decode_options(args), false, wants);
    for (const auto& n : in.notes) diagnose("note", n);
    rep.input = in.name;
    rep.corrupt = in.corrupt;
    request.image = in.image.view();
    rep.stages.push_back({"read", ms_since(t)});

    std::optional<Image> reference;
    if (args.has("--reference")) {
        t = Clock::now();
        reference = read_reference(args);
        request.reference = reference->view();
        rep.stages.push_back({"read_reference", ms_since(t)});
    }

    std::vector<EqualizeResult> runs;
    for (int i = 0; i < repeat; ++i) {
        runs.push_back(engine.equalize(request));
        // Only the last output is written; earlier ones need not stay in memory.
        if (i + 1 < repeat) runs.back().image = Image();
    }
    const std::vector<StageTime> engine_stages = median_stages(runs);
    rep.stages.insert(rep.stages.end(), engine_stages.begin(), engine_stages.end());
    const EqualizeResult& result = runs.back();
    t = Clock::now();
    if (is_raw_output(output))
        write_raw(output, result.image.view());
    else
        media::write_image(output, result.image.view());
    rep.stages.push_back({"write", ms_since(t)});
    rep.stages.push_back({"total", ms_since(start)});

    const bool timing = args.flag("--timing");
    if (format == "json") write_output("", report_json(rep, timing));
    if (format == "text" && timing) write_output("", report_text(rep));
    return 0;
}

int run_equalize_frames(const Context& ctx, const Args& args) {
    const auto start = Clock::now();
    const std::string format = report_format(args);
    const std::string output = args.value("-o").value_or("");
    if (output.empty() || output == "-")
        throw UsageError("equalize needs an output file: -o OUT.mp4 (or .avi, .mkv, .raw)");
    const bool raw_out = is_raw_output(output);
    if (!raw_out && !media::is_video_path(output))
        throw UsageError(
            "the frames of a stream go to a video (.mp4, .avi, .mkv) or a .raw "
            "file, not '" +
            output + "'");
    if (args.has("--frame"))
        throw UsageError("--frame N picks one frame; --per-frame equalizes every frame");
    if (args.has("--repeat")) throw UsageError("--repeat applies to one image");
    EqualizeRequest request = request_from_args(args);
    static_cast<void>(engine_from_args(ctx, args));  // unknown or unavailable: exit 2 or 4
    const std::int64_t limit = args.integer("--frames").value_or(0);

    StreamInput source(args, 1);
    const FrameFormat& f = source.format();
    if (!raw_out)
        if (const std::string problem = media::video_output_problem(output, f); !problem.empty())
            throw UsageError(problem);
    std::optional<Image> reference;
    if (args.has("--reference")) {
        reference = read_reference(args);
        request.reference = reference->view();
    }
    StreamConfig config;
    config.format = f;
    config.equalize = request;
    config.equalizer = equalizer_name(args);
    config.validate();
    StreamEngine& streamer = choose_stream_engine(ctx.registry, config);
    const std::unique_ptr<FrameStream> stream = streamer.open(config);

    std::unique_ptr<media::AtomicFile> raw;
    std::unique_ptr<media::VideoWriter> video;
    if (raw_out)
        raw = std::make_unique<media::AtomicFile>(output);
    else
        video = std::make_unique<media::VideoWriter>(
            output, f, source.fps() > 0 ? source.fps() : 25.0, colour_of(source));
    double write_ms = 0.0;
    std::map<std::string, std::vector<double>> stages;
    StreamEvents events;
    events.result = [&](std::int64_t, const std::string& corrupt, FrameResult& r) {
        if (!corrupt.empty()) diagnose("warning", corrupt + " (written: --allow-corrupt)");
        for (const auto& st : r.stages) stages[st.name].push_back(st.ms);
        const auto t = Clock::now();
        if (raw_out)
            append_raw(*raw, r.equalized.view());
        else
            video->write(r.equalized.view());
        write_ms += ms_since(t);
    };
    events.failed = [&](std::int64_t, const std::string& why) {
        diagnose("warning", why + " (left out of " + output + ")");
    };
    const PumpStats stats = pump(source, stream.get(), events, limit);
    for (const auto& n : source.notes()) diagnose("warning", n);
    // Nothing decoded: the output is not written at all, and an existing file stays.
    if (stats.ok == 0) throw InputError("no frame of " + source.name() + " could be decoded");
    if (video) video->close();
    if (raw) raw->commit();

    const bool timing = args.flag("--timing");
    if (format == "json" || timing) {
        Json j = Json::object();
        j["input"] = source.name();
        j["output"] = output;
        j["mode"] = mode_name(request.mode);
        j["space"] = space_name(request.space);
        j["kernel"] = stream->equalizer();
        j["stream_engine"] = std::string(streamer.name());
        j["width"] = f.width;
        j["height"] = f.height;
        j["depth"] = f.bit_depth;
        j["channels"] = f.channels;
        j["strength"] = request.strength;
        if (source.fps() > 0) j["fps"] = source.fps();
        j["frames"] = stats.frames;
        j["written"] = stats.ok;
        j["failed"] = stats.failed;
        j["corrupt"] = stats.corrupt;
        Json t = Json::object();
        for (const auto& [name, v] : stages) t[name] = median(v);
        t["decode"] = source.decode_ms();
        t["write"] = write_ms;
        t["wall"] = stats.wall_ms;
        t["total"] = ms_since(start);
        j["timing_ms"] = std::move(t);
        j["notes"] = source.notes();
        if (format == "json") {
            write_output("", to_text(j));
        } else {
            std::ostringstream os;
            os << "# " << source.name() << " -> " << output << ": " << stats.ok << " of "
               << stats.frames << " frames equalized (" << mode_name(request.mode) << ", "
               << space_name(request.space) << ") by '" << stream->equalizer() << "' on the '"
               << streamer.name() << "' stream engine; per-frame stages are medians\n";
            for (const auto& [name, v] : j.at("timing_ms").items())
                os << name << "\t" << v.get<double>() << " ms\n";
            write_output("", os.str());
        }
    }
    return 0;
}

}  // namespace hs::cli
