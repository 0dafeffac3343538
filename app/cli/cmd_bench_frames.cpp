// histoscope-cli bench of a video or raw stream (bench VIDEO, bench --raw FMT FILE --stream):
// every frame through the chosen stream engine (the GPU frame pipeline when it can run):
// decode fps, per-stage times per frame, end-to-end fps, the upload of one frame alone and the
// steady-state time per frame with transfers and kernels overlapped, host and device memory at
// the start, after the first pass and at the end, and a verification pass against the CPU
// reference.

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <sstream>

#include "commands.hpp"
#include "frames.hpp"
#include "histoscope/core/error.hpp"
#include "json.hpp"
#include "request_options.hpp"
#include "scope_options.hpp"

namespace hs::cli {

namespace {

struct Memory {
    std::uint64_t host = 0;
    std::optional<std::size_t> device;
};

Memory memory_now(const FrameStream& stream) {
    return {host_resident_bytes(), stream.device_memory_used()};
}

// Every frame of one pass (at most `limit`) through `stream`, each compared with the CPU
// reference: histograms and scopes bin for bin, equalized frames sample for sample. Returns the
// frames compared; `ok` is false after the first mismatch.
std::int64_t verify(const InputOptions& input, FrameStream& stream, std::int64_t limit, bool& ok,
                    std::string& mismatch) {
    StreamInput source(input, 1);
    const StreamConfig& c = stream.config();
    std::vector<std::byte> frame(c.format.frame_bytes());
    std::int64_t compared = 0;
    std::string why;
    ok = true;
    while (ok && (limit <= 0 || source.position() < limit)) {
        const StreamInput::Status status = source.read_into(frame.data(), why);
        if (status == StreamInput::Status::End) break;
        if (status == StreamInput::Status::Failed) continue;
        const ImageView view = c.format.view(frame.data());
        stream.submit(view);
        const std::optional<FrameResult> r = stream.wait();
        if (!r) throw std::logic_error("frame stream: no result for a submitted frame");
        std::vector<ChannelHistogram> reference;
        if (!c.channels.empty()) {
            reference = reference_histogram(c.counted(view), c.channels, c.spec);
            apply_saturation(c.spec, reference);
        }
        if (r->channels != reference) {
            ok = false;
            mismatch = "the histograms of frame " + std::to_string(source.position() - 1) +
                       " differ from the CPU reference";
        }
        for (std::size_t i = 0; ok && i < c.scopes.size(); ++i)
            if (r->scopes.size() != c.scopes.size() ||
                r->scopes[i] != reference_scope(c.counted(view), c.scopes[i])) {
                ok = false;
                mismatch = "the " + std::string(scope_kind_name(c.scopes[i].kind)) + " of frame " +
                           std::to_string(source.position() - 1) +
                           " differs from the CPU reference";
            }
        if (ok && c.equalize) {
            EqualizeRequest request = *c.equalize;
            request.image = view;
            const Image expected = equalize_reference(request);
            const ImageView got = r->equalized.view();
            const std::size_t bytes = c.format.frame_bytes();
            if (got.row_bytes() * static_cast<std::size_t>(got.height) != bytes ||
                !std::equal(got.data, got.data + bytes, expected.view().data)) {
                ok = false;
                mismatch = "the equalized frame " + std::to_string(source.position() - 1) +
                           " differs from the CPU reference";
            }
        }
        ++compared;
    }
    return compared;
}

}  // namespace

int run_bench_frames(const Context& ctx, const BenchCommand& cmd) {
    const std::string& format = cmd.output.format.value;
    if (format != "table" && format != "json")
        throw UsageError(
            cmd.output.format.given
                ? "--format for a stream benchmark must be table or json, not '" + format + "'"
                : "-o " + cmd.output.path + " names a " + format +
                      " file, which a stream benchmark does not write: name it " +
                      std::filesystem::path(cmd.output.path).replace_extension(".txt").string() +
                      " or " +
                      std::filesystem::path(cmd.output.path).replace_extension(".json").string());
    // (--pixels, --depth and --channels need --synthetic.)
    for (const auto& [given, option] :
         {std::pair{cmd.synthetic.has_value(), "--synthetic"},
          std::pair{cmd.kernels.given, "--kernels"}, std::pair{cmd.runs.given, "--runs"},
          std::pair{cmd.warmup.given, "--warmup"}, std::pair{cmd.frame.given, "--frame"}})
        if (given) throw UsageError(std::string(option) + " does not apply to a stream benchmark");
    const int passes = cmd.loop.value;
    const std::int64_t limit = cmd.frames.value_or(0);
    const std::int64_t verify_limit = cmd.verify_frames.value_or(limit);
    const std::string& kernel = cmd.kernel.value;
    if (kernel != "auto" && ctx.registry.find(kernel) == nullptr)
        throw UsageError("unknown kernel '" + kernel + "' (see 'histoscope-cli kernels')");

    StreamInput source(cmd.input, passes);
    const FrameFormat& f = source.format();
    StreamConfig config = histogram_stream_config(cmd.spec, cmd.select.value, cmd.roi, f, kernel);
    if (!cmd.no_equalize) {
        if (is_float(f.type))
            throw UsageError(
                "a stream of float frames has no equalization to time (a float image is tone "
                "mapped, one at a time): give --no-equalize to time its histograms");
        EqualizeRequest eq;  // global equalization of the luminance, full strength
        config.equalize = eq;
        config.equalizer = "auto";
    }
    if (!cmd.scopes.empty()) {
        // --select is the histograms' channels here: the waveform is of luma. Scope options
        // without --scope were refused by run_bench().
        config.scopes = scope_specs(cmd.scope, cmd.scopes, config.counted_shape(), {});
        config.scope_engine = "auto";
    }
    config.depth = cmd.depth_in_flight.value;
    config.validate();
    std::string declined;
    StreamEngine& streamer = choose_stream_engine(ctx.registry, config, &declined);
    if (!declined.empty()) diagnose("note", declined);
    const std::unique_ptr<FrameStream> stream = streamer.open(config);

    std::string device = ctx.engines.query_gpu().device;
    if (device.empty()) device = "none";

    const Memory at_start = memory_now(*stream);
    std::optional<Memory> after_first_pass;
    const std::int64_t first_pass_end = source.reported_frames();
    std::map<std::string, std::vector<double>> stages;
    std::vector<std::int64_t> failed_frames;
    StreamEvents events;
    std::string scope_engine;
    events.result = [&](std::int64_t frame, const std::string& corrupt, FrameResult& r) {
        if (!corrupt.empty()) diagnose("warning", corrupt + " (kept: --allow-corrupt)");
        for (const auto& st : r.stages) stages[st.name].push_back(st.ms);
        scope_engine = r.scope_engine;
        if (frame + 1 == first_pass_end) after_first_pass = memory_now(*stream);
    };
    events.failed = [&](std::int64_t frame, const std::string& why) {
        if (failed_frames.size() < 100) failed_frames.push_back(frame);
        diagnose("warning", why);
    };
    diagnose("note", "bench: " + source.name() + " (" + f.describe() + ", " +
                         std::to_string(source.reported_frames()) + " frames x " +
                         std::to_string(passes) + ") on the '" + std::string(streamer.name()) +
                         "' stream engine");
    const PumpStats stats = pump(source, stream.get(), events, limit);
    const Memory at_end = memory_now(*stream);
    for (const auto& n : source.notes()) diagnose("warning", n);
    if (stats.ok == 0) throw InputError("no frame of " + source.name() + " could be decoded");

    const std::vector<double> upload = stream->measure_upload_ms(30);
    const std::vector<double> copy_floor = stream->measure_copy_floor_ms(30);
    const double steady = stream->measure_steady_state_ms(200);
    bool verified = false;
    std::string mismatch;
    const std::int64_t compared = verify(cmd.input, *stream, verify_limit, verified, mismatch);
    if (!verified) diagnose("error", mismatch);

    const double upload_ms = median(upload);
    const double copy_floor_ms = median(copy_floor);
    const double decode_fps =
        source.decode_ms() > 0 ? static_cast<double>(source.decoded()) / (source.decode_ms() / 1e3)
                               : 0.0;
    const double e2e_fps =
        stats.wall_ms > 0 ? static_cast<double>(stats.ok) / (stats.wall_ms / 1e3) : 0.0;

    Json j = source_json(source);
    j["device"] = device;
    j["passes"] = passes;
    j["stream_engine"] = std::string(streamer.name());
    j["histogram_engine"] = stream->histogram_engine();
    j["scope_engine"] = scope_engine;
    j["channels"] = channel_list(config.channels);
    j["spec"] = config.spec.describe();
    j["region"] = region_json(config.region);
    Json scopes = Json::array();
    for (const ScopeSpec& spec : config.scopes)
        scopes.push_back(spec.describe(config.counted_shape().width));
    j["scopes"] = std::move(scopes);
    j["equalizer"] = stream->equalizer();
    j["equalize"] =
        config.equalize
            ? Json("global, " + equalize_space(EqualizeSpace::Luma, config.format.channels) +
                   ", strength 1")
            : Json();
    j["frames"] = stats.frames;
    j["ok"] = stats.ok;
    j["failed"] = stats.failed;
    Json ff = Json::array();
    for (std::int64_t i : failed_frames) ff.push_back(i);
    j["failed_frames"] = std::move(ff);
    j["decode_fps"] = decode_fps;
    j["end_to_end_fps"] = e2e_fps;
    j["wall_ms"] = stats.wall_ms;
    Json st = Json::object();
    for (const char* name :
         {"upload", "histogram", "scopes", "lut", "apply", "download", "equalize", "gpu_total"})
        if (const auto it = stages.find(name); it != stages.end()) st[name] = median(it->second);
    j["stage_median_ms"] = std::move(st);
    j["upload_alone_ms"] = upload.empty() ? Json() : Json(upload_ms);
    j["steady_state_ms_per_frame"] = steady;
    j["steady_state_over_upload"] = upload.empty() ? Json() : Json(steady / upload_ms);
    j["copy_floor_ms"] = copy_floor.empty() ? Json() : Json(copy_floor_ms);
    j["steady_state_over_copy_floor"] = copy_floor.empty() ? Json() : Json(steady / copy_floor_ms);
    const auto mem = [](const Memory& m) {
        Json o = Json::object();
        o["host_rss_bytes"] = m.host;
        o["device_used_bytes"] = m.device ? Json(static_cast<std::uint64_t>(*m.device)) : Json();
        return o;
    };
    Json memory = Json::object();
    memory["start"] = mem(at_start);
    memory["after_first_pass"] = after_first_pass ? mem(*after_first_pass) : Json();
    memory["end"] = mem(at_end);
    j["memory"] = std::move(memory);
    j["verified_frames"] = compared;
    j["verified"] = verified;
    Json notes = Json::array();
    if (!declined.empty()) notes.push_back(declined);
    for (const std::string& n : source.notes()) notes.push_back(n);
    j["notes"] = std::move(notes);

    std::string out;
    if (format == "json") {
        out = to_text(j);
    } else {
        std::ostringstream os;
        char line[256];
        os << "# " << source.name() << ": " << f.describe() << ", " << stats.frames << " frames ("
           << passes << " pass(es)), device " << device << "\n"
           << "# stream engine '" << streamer.name() << "', histograms by '"
           << stream->histogram_engine() << "' (" << channel_list(config.channels) << ", "
           << config.spec.describe() << "), equalizer '" << stream->equalizer() << "'\n";
        std::snprintf(line, sizeof line,
                      "frames ok %lld, failed %lld; decode %.1f fps; end to end %.1f fps\n",
                      static_cast<long long>(stats.ok), static_cast<long long>(stats.failed),
                      decode_fps, e2e_fps);
        if (!config.scopes.empty()) {
            os << "# scopes by '" << scope_engine << "':";
            std::string sep = " ";
            for (const auto& spec : j.at("scopes")) {
                os << sep << spec.get<std::string>();
                sep = "; ";
            }
            os << "\n";
        }
        if (config.region)
            os << "# histograms and scopes of the region " << config.region->describe() << "\n";
        os << line << "per-frame stage medians (ms):";
        for (const auto& [name, value] : j.at("stage_median_ms").items())
            os << " " << name << " " << value.get<double>();
        std::snprintf(line, sizeof line, "\nsteady state %.4f ms/frame", steady);
        os << line;
        if (!upload.empty()) {
            std::snprintf(line, sizeof line, "; upload alone %.4f ms; ratio %.3f", upload_ms,
                          steady / upload_ms);
            os << line;
        }
        if (!copy_floor.empty()) {
            std::snprintf(line, sizeof line, "; copy floor %.4f ms; ratio %.3f", copy_floor_ms,
                          steady / copy_floor_ms);
            os << line;
        }
        // From the JSON's memory object: MiB, or n/a where nothing was measured.
        const auto mib = [&](const char* when, const char* what) {
            const Json& m = j.at("memory").at(when);
            if (m.is_null() || m.at(what).is_null()) return std::string("n/a");
            std::snprintf(line, sizeof line, "%.1f",
                          static_cast<double>(m.at(what).get<std::uint64_t>()) / 1048576.0);
            return std::string(line);
        };
        for (const char* what : {"host_rss_bytes", "device_used_bytes"})
            os << "\n"
               << what << " (MiB, start / after the first pass / end): " << mib("start", what)
               << " / " << mib("after_first_pass", what) << " / " << mib("end", what);
        os << "\n";
        os << "verified: " << (verified ? "true" : "FALSE") << " (" << compared
           << " frames against the CPU reference)\n";
        out = os.str();
    }
    write_output(cmd.output.path, out);
    return verified ? 0 : 5;
}

}  // namespace hs::cli
