// histoscope-cli equalize: global equalization, CLAHE or histogram matching of a photo (or a
// raw frame), written with the input's depth and channels (as a photo, or as a raw frame when
// the output ends in .raw, which needs no OpenCV). --kernel picks the engine (cpu, the
// reference, by default; gpu); --repeat N runs the engine N times and reports the median of
// each stage. A float (HDR) image is tone mapped instead (core's tonemap.hpp), to 8 or 16 bits
// (--depth).

#include <algorithm>
#include <bit>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <tuple>

#include "commands.hpp"
#include "frames.hpp"
#include "histoscope/core/error.hpp"
#include "histoscope/core/match_reference.hpp"
#include "histoscope/core/timing.hpp"
#include "histoscope/core/tonemap.hpp"
#include "histoscope/media/atomic_file.hpp"
#include "histoscope/media/media.hpp"
#include "input.hpp"
#include "json.hpp"
#include "request_options.hpp"

namespace hs::cli {

namespace {

using Clock = std::chrono::steady_clock;

void refuse_options_of_other_modes(const EqualizeCommand& cmd) {
    if (cmd.mode != EqualizeMode::Clahe)
        for (const auto& [given, option] :
             {std::pair{cmd.clip.given, "--clip"}, std::pair{cmd.tiles.given, "--tiles"}})
            if (given) throw UsageError(std::string(option) + " applies to --mode clahe only");
    if (cmd.mode != EqualizeMode::Match && cmd.reference)
        throw UsageError("--reference applies to --mode match only");
}

// The request of the options, without its image (and reference).
EqualizeRequest equalize_request(const EqualizeCommand& cmd) {
    refuse_options_of_other_modes(cmd);
    if (cmd.mode == EqualizeMode::Match && !cmd.reference)
        throw UsageError(
            "--mode match needs --reference REF (a photo, a frame of a video or raw frames, of "
            "any depth)");
    EqualizeRequest r;
    r.mode = cmd.mode;
    r.space = cmd.space;
    r.strength = cmd.strength;
    r.clip = cmd.clip.value;
    std::tie(r.tiles_x, r.tiles_y) = cmd.tiles.value;
    return r;
}

EqualizeEngine& available_equalizer(const Context& ctx, const std::string& kernel) {
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

// The --reference: anything the commands read as their input (a photo, frame
// --reference-frame N of a video, of raw frames with --reference-raw FMT, a camera raw file's
// demosaiced image), of any depth, its histograms taken once (match_reference.hpp says how
// depths meet). A corrupt reference is refused even with --allow-corrupt: matching a partial
// histogram is no match.
MatchReference read_reference(const EqualizeCommand& cmd) {
    InputOptions input;
    input.files = {*cmd.reference};
    input.raw = cmd.reference_raw;
    input.max_pixels = cmd.input.max_pixels;
    InputWants wants;
    wants.camera_raw = media::CameraRawView::Rgb;
    wants.cfa = false;
    wants.frame_option = "--reference-frame";
    wants.raw_option = "--reference-raw";
    Input in = load_input(input, cmd.reference_frame, false, wants);
    for (const auto& n : in.notes) diagnose("note", "the reference: " + n);
    return MatchReference(std::make_shared<const Image>(std::move(in.image)));
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
    j["space"] = equalize_space(r.space, r.image.channels);
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
       << equalize_space(r.space, r.image.channels) << ", kernel " << rep.kernel << ", "
       << r.image.width << "x" << r.image.height << ", " << r.image.channels << " channel(s), "
       << r.image.bit_depth << "-bit"
       << (rep.repeat > 1 ? ", engine stages: medians of " + std::to_string(rep.repeat) + " runs"
                          : std::string())
       << "\n";
    for (const auto& s : rep.stages) os << s.name << "\t" << s.ms << " ms\n";
    return os.str();
}

// A float image tone mapped into `output` (tonemap.hpp): only the options that apply to it;
// --depth 8 or 16 (default 16 where the format stores it, else 8). `read_ms` and `start`: the
// read so far, for the report.
int tone_map_image(const EqualizeCommand& cmd, const Input& in, const std::string& output,
                   double read_ms, Clock::time_point start) {
    // What equalizes 8-bit and 16-bit images (the values other than the defaults, or given).
    const EqualizeRequest defaults;
    const std::pair<bool, const char*> others[] = {
        {cmd.space != defaults.space, "--space"},
        {cmd.strength != defaults.strength, "--strength"},
        {cmd.clip.given, "--clip"},
        {cmd.tiles.given, "--tiles"},
        {cmd.reference.has_value(), "--reference"}};
    for (const auto& [given, option] : others)
        if (given)
            throw UsageError(std::string(option) +
                             " applies to the equalization of 8-bit and 16-bit images; a float "
                             "image is tone mapped");
    if (cmd.mode != EqualizeMode::Global)
        throw UsageError("--mode " + std::string(mode_name(cmd.mode)) +
                         " works on 8-bit and 16-bit images; a float (HDR) image is tone mapped "
                         "by histogram adjustment (give no --mode)");
    if (cmd.kernel != "cpu")
        throw UsageError("tone mapping runs on the CPU (core), not with kernel '" + cmd.kernel +
                         "'");
    ToneMapSpec spec;
    const bool raw_out = is_raw_output(output);
    const int channels = in.image.channels();
    if (cmd.depth) {
        spec.output_depth = *cmd.depth;
    } else if (!raw_out) {
        try {
            media::check_image_output(output, SampleType::U16, channels);
        } catch (const UsageError&) {
            spec.output_depth = 8;  // the format stores 8 bits only
        }
    }
    if (!raw_out)
        media::check_image_output(output, spec.output_depth == 8 ? SampleType::U8 : SampleType::U16,
                                  channels);
    // Notes once the request stands: a usage error is the only line of a command refused.
    for (const auto& n : in.notes) diagnose("note", n);
    const int repeat = cmd.repeat.value;
    std::vector<ToneMapResult> runs;
    std::vector<double> totals;
    for (int i = 0; i < repeat; ++i) {
        const auto t = Clock::now();
        runs.push_back(tone_map(in.image.view(), spec));
        totals.push_back(ms_since(t));
        if (i + 1 < repeat) runs.back().image = Image();
    }
    const ToneMapResult& result = runs.back();
    std::vector<StageTime> stages{{"read", read_ms}};
    for (std::size_t s = 0; s < result.stages.size(); ++s) {
        std::vector<double> ms;
        for (const ToneMapResult& r : runs) ms.push_back(r.stages[s].ms);
        stages.push_back({result.stages[s].name, median(ms)});
    }
    stages.push_back({"engine_total", median(totals)});
    const auto t = Clock::now();
    if (raw_out)
        write_raw(output, result.image.view());
    else
        media::write_image(output, result.image.view());
    stages.push_back({"write", ms_since(t)});
    stages.push_back({"total", ms_since(start)});
    // What the mapping did that a user would not see in the picture.
    const auto count_of = [](std::uint64_t n, const char* one, const char* many) {
        return std::to_string(n) + (n == 1 ? one : many);
    };
    if (result.black_pixels != 0)
        diagnose("note",
                 count_of(result.black_pixels, " pixel has", " pixels have") +
                     " no finite luminance above 0 (NaN, infinite, zero or negative): shown black");
    if (result.clipped_samples != 0)
        diagnose("note",
                 count_of(result.clipped_samples, " colour sample was", " colour samples were") +
                     " clipped (a colour brighter than the display in one primary, or outside "
                     "its gamut)");
    if (result.linear)
        diagnose("note", "the scene's luminance range fits the display's (" +
                             std::to_string(static_cast<int>(spec.display_contrast)) +
                             ":1): mapped linearly, its brightest pixel at white");

    const std::string& format = cmd.output.format.value;
    if (format == "json") {
        Json j = Json::object();
        j["input"] = in.name;
        j["output"] = output;
        j["mode"] = "tonemap";
        j["kernel"] = "cpu";
        j["width"] = in.image.width();
        j["height"] = in.image.height();
        j["depth"] = in.image.bit_depth();
        j["sample_type"] = to_string(in.image.type());
        j["channels"] = channels;
        j["output_depth"] = spec.output_depth;
        j["repeat"] = repeat;
        j["corrupt"] = in.corrupt;
        Json m = Json::object();
        m["method"] =
            "histogram adjustment with a linear ceiling (Ward Larson, Rushmeier, Piatko 1997)";
        m["bins"] = spec.bins;
        m["display_contrast"] = spec.display_contrast;
        m["log10_luminance"] = Json::array({result.log_min, result.log_max});
        m["linear"] = result.linear;
        m["iterations"] = result.iterations;
        m["black_pixels"] = result.black_pixels;
        m["clipped_samples"] = result.clipped_samples;
        j["tonemap"] = std::move(m);
        if (cmd.timing) j["timing_ms"] = timing_json(stages);
        write_output("", to_text(j));
    } else if (cmd.timing) {
        std::ostringstream os;
        os << "# " << in.name << " -> " << output << ": tone mapped (histogram adjustment), "
           << in.image.width() << "x" << in.image.height() << ", " << channels
           << " channel(s), 32-bit float -> " << spec.output_depth << "-bit"
           << (repeat > 1 ? ", engine stages: medians of " + std::to_string(repeat) + " runs"
                          : std::string())
           << "\n";
        for (const auto& s : stages) os << s.name << "\t" << s.ms << " ms\n";
        write_output("", os.str());
    }
    return 0;
}

// The transfer and primaries of the clip, for the equalized video (empty for raw frames).
media::VideoWriter::Colour colour_of(const StreamInput& source) {
    const media::VideoCoding* c = source.coding();
    return c ? media::VideoWriter::Colour{c->transfer, c->primaries} : media::VideoWriter::Colour{};
}

}  // namespace

int run_equalize(const Context& ctx, const EqualizeCommand& cmd) {
    const auto start = Clock::now();
    refuse_output_onto_input(cmd.input, cmd.output.path, cmd.reference);
    // A video equalizes into a video, unless --frame picks one of its frames.
    if (cmd.per_frame || (input_is_video(cmd.input) && !cmd.frame.given))
        return run_equalize_frames(ctx, cmd);
    // One image: --frame N of a video, a raw stream's frame without --per-frame, or a photo.
    if (cmd.frames)
        throw UsageError(cmd.frame.given
                             ? "--frames N limits the frames of a stream, and --frame N picks one "
                               "frame: give one of them"
                             : "--frames N applies to streams (a video, or --per-frame), not to "
                               "one image");
    const std::string& format = cmd.output.format.value;
    const std::string& output = cmd.output.path;
    if (output.empty() || output == "-")
        throw UsageError("equalize needs an output image file: -o OUT.png");
    if (!is_raw_output(output)) {  // before reading anything
        std::vector<std::string> offered = media::image_output_extensions();
        offered.emplace_back(".raw");
        media::check_image_output(output, offered);
    }
    EqualizeRequest request = equalize_request(cmd);
    EqualizeEngine& engine = available_equalizer(ctx, cmd.kernel);
    const int repeat = cmd.repeat.value;

    Report rep{{}, output, std::string(engine.name()), &request, {}, repeat, false};
    auto t = Clock::now();
    // A camera raw file's demosaiced image: a mosaic's quads are no picture to equalize.
    InputWants wants;
    wants.camera_raw = media::CameraRawView::Rgb;
    wants.cfa = false;
    const Input in = load_input(cmd.input, cmd.frame.value, false, wants);
    if (is_float(in.image.type())) return tone_map_image(cmd, in, output, ms_since(t), start);
    if (cmd.depth)
        throw UsageError(
            "--depth sets a float image's tone-mapped depth; an equalized image "
            "keeps its input's");
    for (const auto& n : in.notes) diagnose("note", n);
    rep.input = in.name;
    rep.corrupt = in.corrupt;
    request.image = in.image.view();
    rep.stages.push_back({"read", ms_since(t)});

    std::optional<MatchReference> reference;
    if (cmd.reference) {
        t = Clock::now();
        reference = read_reference(cmd);
        reference->apply(request);
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

    const bool timing = cmd.timing;
    if (format == "json") write_output("", report_json(rep, timing));
    if (format == "text" && timing) write_output("", report_text(rep));
    return 0;
}

int run_equalize_frames(const Context& ctx, const EqualizeCommand& cmd) {
    const auto start = Clock::now();
    const std::string& format = cmd.output.format.value;
    const std::string& output = cmd.output.path;
    if (output.empty() || output == "-")
        throw UsageError("equalize needs an output file: -o OUT.mp4 (or .avi, .mkv, .raw)");
    const bool raw_out = is_raw_output(output);
    if (!raw_out && !media::is_video_path(output))
        throw UsageError(
            "the frames of a stream go to a video (.mp4, .avi, .mkv) or a .raw "
            "file, not '" +
            output + "'");
    if (cmd.frame.given)
        throw UsageError("--frame N picks one frame; --per-frame equalizes every frame");
    if (cmd.repeat.given)
        throw UsageError(
            "--repeat applies to one image (a photo, or --frame N of a video), not to a stream");
    if (cmd.depth)
        throw UsageError(
            "--depth sets a float image's tone-mapped depth; equalized frames keep "
            "their stream's");
    EqualizeRequest request = equalize_request(cmd);
    static_cast<void>(available_equalizer(ctx, cmd.kernel));  // unknown or unavailable: exit 2 or 4
    const std::int64_t limit = cmd.frames.value_or(0);

    StreamInput source(cmd.input, 1);
    const FrameFormat& f = source.format();
    if (is_float(f.type))
        throw UsageError(
            "float frames are not equalized: a float (HDR) image is tone mapped, one at a "
            "time (--frame N, to an 8- or 16-bit picture)");
    if (!raw_out)
        if (const std::string problem = media::video_output_problem(output, f); !problem.empty())
            throw UsageError(problem);
    std::optional<MatchReference> reference;
    if (cmd.reference) {
        reference = read_reference(cmd);
        request.image = f.shape();  // the frames' type, depth and channels
        reference->apply(request);
    }
    StreamConfig config;
    config.format = f;
    config.equalize = request;
    config.equalizer = cmd.kernel;
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
    events.result = [&](std::int64_t frame, const std::string& corrupt, FrameResult& r) {
        if (!corrupt.empty()) diagnose("warning", corrupt + " (written: --allow-corrupt)");
        for (const auto& st : r.stages) stages[st.name].push_back(st.ms);
        const auto t = Clock::now();
        if (raw_out)
            append_raw(*raw, r.equalized.view());
        else if (const double time = source.frame_time(frame); time >= 0.0)
            video->write(r.equalized.view(), time);  // its timing kept: a failed frame's gap
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

    const bool timing = cmd.timing;
    if (format == "json" || timing) {
        Json j = Json::object();
        j["input"] = source.name();
        j["output"] = output;
        j["mode"] = mode_name(request.mode);
        j["space"] = equalize_space(request.space, f.channels);
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
               << equalize_space(request.space, f.channels) << ") by '" << stream->equalizer()
               << "' on the '" << streamer.name()
               << "' stream engine; per-frame stages are medians\n";
            for (const auto& [name, v] : j.at("timing_ms").items())
                os << name << "\t" << v.get<double>() << " ms\n";
            write_output("", os.str());
        }
    }
    return 0;
}

}  // namespace hs::cli
