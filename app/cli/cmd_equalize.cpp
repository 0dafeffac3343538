// histoscope-cli equalize: global equalization, CLAHE or histogram matching of a photo (or a
// raw frame), written with the input's depth and channels.

#include <chrono>
#include <iostream>
#include <optional>
#include <sstream>
#include <tuple>

#include "args.hpp"
#include "commands.hpp"
#include "histoscope/core/error.hpp"
#include "histoscope/media/media.hpp"
#include "input.hpp"
#include "json.hpp"

namespace hs::cli {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

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

void refuse_video(const Args& args) {
    if (args.has("--raw") || args.positional().size() != 1) return;
    const std::string& path = args.positional().front();
    if (media::probe(path) == media::MediaKind::Video)
        throw UsageError("equalize does not support video input yet ('" + path +
                         "' is a video): equalize a photo or a raw frame");
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

EqualizeEngine& engine_from_args(const Context& ctx, const Args& args) {
    const std::string kernel = args.value("--kernel").value_or("cpu");
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

struct Report {
    std::string input, output, kernel;
    const EqualizeRequest* request = nullptr;
    std::vector<StageTime> stages;  // read, [read_reference], engine stages, write, total
};

std::string report_json(const Report& rep, bool timing) {
    const EqualizeRequest& r = *rep.request;
    Json j = Json::object();
    j.set("input", rep.input);
    j.set("output", rep.output);
    j.set("mode", mode_name(r.mode));
    j.set("space", space_name(r.space));
    j.set("kernel", rep.kernel);
    j.set("width", r.image.width);
    j.set("height", r.image.height);
    j.set("depth", r.image.bit_depth);
    j.set("channels", r.image.channels);
    j.set("strength", r.strength);
    if (r.mode == EqualizeMode::Clahe) {
        j.set("clip", r.clip);
        j.set("tiles", std::to_string(r.tiles_x) + "x" + std::to_string(r.tiles_y));
    }
    if (timing) {
        Json t = Json::object();
        for (const auto& s : rep.stages) t.set(s.name, s.ms);
        j.set("timing_ms", std::move(t));
    }
    return j.dump();
}

std::string report_text(const Report& rep) {
    const EqualizeRequest& r = *rep.request;
    std::ostringstream os;
    os << "# " << rep.input << " -> " << rep.output << ": " << mode_name(r.mode) << ", "
       << space_name(r.space) << ", kernel " << rep.kernel << ", " << r.image.width << "x"
       << r.image.height << ", " << r.image.channels << " channel(s), " << r.image.bit_depth
       << "-bit\n";
    for (const auto& s : rep.stages) os << s.name << "\t" << s.ms << " ms\n";
    return os.str();
}

}  // namespace

int run_equalize(const Context& ctx) {
    const auto start = Clock::now();
    const Args args(ctx.args, {{"--raw", "--frame", "--mode", "--space", "--strength", "--clip",
                                "--tiles", "--reference", "--kernel", "--format", "-o"},
                               {"--timing"}});
    const std::string format = args.value("--format").value_or("text");
    if (format != "text" && format != "json")
        throw UsageError("--format for equalize must be text or json, not '" + format + "'");
    const std::string output = args.value("-o").value_or("");
    if (output.empty() || output == "-")
        throw UsageError("equalize needs an output image file: -o OUT.png");
    EqualizeRequest request = request_from_args(args);
    EqualizeEngine& engine = engine_from_args(ctx, args);

    Report rep{{}, output, std::string(engine.name()), &request, {}};
    auto t = Clock::now();
    refuse_video(args);
    const Input in = load_input(args);
    for (const auto& n : in.notes) std::cerr << "note: " << n << "\n";
    rep.input = in.name;
    request.image = in.image.view();
    rep.stages.push_back({"read", ms_since(t)});

    std::optional<media::LoadedImage> reference;
    if (const auto ref = args.value("--reference")) {
        t = Clock::now();
        reference = media::read_image(*ref);
        request.reference = reference->image.view();
        rep.stages.push_back({"read_reference", ms_since(t)});
    }

    const EqualizeResult result = engine.equalize(request);
    rep.stages.insert(rep.stages.end(), result.stages.begin(), result.stages.end());
    rep.stages.push_back({"engine_total", result.total_ms});
    t = Clock::now();
    media::write_image(output, result.image.view());
    rep.stages.push_back({"write", ms_since(t)});
    rep.stages.push_back({"total", ms_since(start)});

    const bool timing = args.flag("--timing");
    if (format == "json") write_output("", report_json(rep, timing));
    if (format == "text" && timing) write_output("", report_text(rep));
    return 0;
}

}  // namespace hs::cli
