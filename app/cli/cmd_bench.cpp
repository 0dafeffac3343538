// histoscope-cli bench: every requested engine on every input, timed by the engine itself
// (device-resident input rotated past L2, CUDA events, for GPU engines), verified bit for bit
// against the CPU reference.

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <sstream>

#include "commands.hpp"
#include "frames.hpp"
#include "histoscope/core/bench.hpp"
#include "histoscope/core/error.hpp"
#include "histoscope/core/synthetic.hpp"
#include "histoscope/report/bench_report.hpp"
#include "input.hpp"
#include "json.hpp"
#include "request_options.hpp"
#include "scope_options.hpp"

namespace hs::cli {

namespace {

struct BenchInput {
    std::string name;
    Image image;
    bool cfa = false;  // a camera raw file's CFA mosaic: channels r, g1, g2, b
};

// A loaded input as a case: a camera raw file is named with its view ("shot.dng (cfa)").
BenchInput bench_input(Input in) {
    std::string name = in.name;
    if (in.camera_raw) name += " (" + std::string(media::to_string(in.camera_view)) + ")";
    return {std::move(name), std::move(in.image), in.cfa()};
}

std::string fixed(double v, int digits) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}

std::vector<BenchInput> bench_inputs(const BenchCommand& cmd) {
    std::vector<BenchInput> inputs;
    if (cmd.synthetic) {
        if (!cmd.input.files.empty() || cmd.input.raw)
            throw UsageError("--synthetic cannot be combined with files or --raw");
        SyntheticSpec s = *cmd.synthetic;
        s.pixels = cmd.pixels;
        s.type = cmd.depth == 8 ? SampleType::U8 : SampleType::U16;
        s.bit_depth = cmd.depth;
        s.channels = cmd.channels;
        inputs.push_back({s.describe(), make_synthetic(s)});
        return inputs;
    }
    const std::int64_t frame = cmd.frame.value;
    if (cmd.input.raw || cmd.input.files.size() <= 1) {
        inputs.push_back(bench_input(load_input(cmd.input, frame)));
        return inputs;
    }
    // A named DecodeOptions: GCC 13's -Wdangling-reference flags a reference returned by a call
    // given a temporary, even where the referent outlives it (input_source keeps its sources).
    const media::DecodeOptions decode = cmd.input.decode();
    for (const auto& path : cmd.input.files) {
        const media::Source& source = input_source(path, decode);
        if (!cmd.frame.given && media::probe(source, decode) == media::MediaKind::Video)
            throw UsageError(source.name() +
                             " is a video: its frames are benchmarked as a stream when it is "
                             "given alone, or pick one with --frame N");
        InputOptions one = cmd.input;
        one.files = {path};
        inputs.push_back(bench_input(load_input(one, frame)));
    }
    return inputs;
}

// The engines --kernels `names`, of `all` (the registry's list): "all" (default) is every one,
// the unavailable ones included (their rows say why); named ones must exist, once each, and run
// here (`available` finds one, as --kernel of hist does).
template <typename Engine, typename Available>
std::vector<Engine*> engines_named(const std::vector<std::string>& names,
                                   const std::vector<std::unique_ptr<Engine>>& all,
                                   Available&& available) {
    std::vector<Engine*> engines;
    if (names == std::vector<std::string>{"all"}) {
        for (const auto& e : all) engines.push_back(e.get());
        return engines;
    }
    for (const std::string& name : names) {
        Engine& e = available(name);
        if (std::find(engines.begin(), engines.end(), &e) != engines.end())
            throw UsageError("kernel '" + name + "' is listed twice in --kernels");
        engines.push_back(&e);
    }
    if (engines.empty()) throw UsageError("--kernels lists no kernel");
    return engines;
}

}  // namespace

int run_bench(const Context& ctx, const BenchCommand& cmd) {
    refuse_output_onto_input(cmd.input, cmd.output.path);
    // The scopes' options, for kernels and streams alike.
    const bool scope_kind = !cmd.scopes.empty();
    if (!scope_kind)
        for (const auto& [given, option] : {std::pair{cmd.scope.levels.given, "--levels"},
                                            std::pair{cmd.scope.columns.has_value(), "--columns"},
                                            std::pair{cmd.scope.size.given, "--size"},
                                            std::pair{cmd.scope.matrix.given, "--matrix"}})
            if (given) throw UsageError(std::string(option) + " applies to --scope");
    // A video (unless --frame picks one of its frames) or --stream: the stream benchmark.
    if (cmd.stream || (input_is_video(cmd.input) && !cmd.frame.given))
        return run_bench_frames(ctx, cmd);
    for (const auto& [given, option] :
         {std::pair{cmd.kernel.given, "--kernel"}, std::pair{cmd.loop.given, "--loop"},
          std::pair{cmd.frames.has_value(), "--frames"},
          std::pair{cmd.verify_frames.has_value(), "--verify-frames"},
          std::pair{cmd.depth_in_flight.given, "--depth-in-flight"},
          std::pair{cmd.no_equalize, "--no-equalize"}})
        if (given)
            throw UsageError(std::string(option) +
                             (cmd.frame.given
                                  ? " applies to the stream benchmark, and --frame N benchmarks "
                                    "one frame: give one of them"
                                  : " applies to the stream benchmark (a video, or --stream)"));
    const std::string& format = cmd.output.format.value;
    if (scope_kind && cmd.spec.given())
        throw UsageError(
            "--bins, --range, --edges and --saturate apply to histograms, not to "
            "--scope (use --levels or --size)");

    std::vector<HistogramEngine*> engines;
    std::vector<ScopeEngine*> scope_engines;
    if (scope_kind)
        scope_engines = engines_named(cmd.kernels.value, ctx.registry.scope_engines(),
                                      [&](const std::string& n) -> ScopeEngine& {
                                          return available_scope_engine(ctx.registry, n);
                                      });
    else
        engines = engines_named(cmd.kernels.value, ctx.registry.engines(),
                                [&](const std::string& n) -> HistogramEngine& {
                                    return available_kernel(ctx.registry, n);
                                });

    // The rules and the rooflines of every benchmark (core's bench_options), for the device
    // when there is one, and the host's for the CPU engines.
    const app::GpuInfo gpu = ctx.engines.query_gpu();
    const bool device = !gpu.device.empty() && ctx.engines.gpu_read_bandwidth_gbs;
    BenchOptions options = bench_options(cmd.runs.value, gpu.l2_bytes);
    options.warmup_runs = cmd.warmup.value;
    const BenchContext context = bench_context(options, gpu.device, gpu.absence,
                                               device ? ctx.engines.gpu_read_bandwidth_gbs() : 0.0,
                                               measure_host_read_bandwidth_gbs());
    const auto on_gpu = [&](std::string_view name) {
        const auto& on_device =
            scope_kind ? ctx.engines.gpu_scope_engines : ctx.engines.gpu_engines;
        return std::find(on_device.begin(), on_device.end(), name) != on_device.end();
    };

    const auto any_on_gpu = [&](const auto& timed) {
        return std::any_of(timed.begin(), timed.end(),
                           [&](const auto* e) { return on_gpu(e->name()); });
    };
    const bool floor = device && ctx.engines.gpu_floor &&
                       (scope_kind ? any_on_gpu(scope_engines) : any_on_gpu(engines));
    const bool progress = isatty(STDERR_FILENO) != 0;
    std::vector<BenchRow> rows;
    // Where an engine runs: the bandwidth its row's percentage is of.
    const auto bandwidth_of = [&](std::string_view name) {
        return on_gpu(name) ? context.device_read_bandwidth_gbs : context.host_read_bandwidth_gbs;
    };
    // Progress for a person watching; standard error redirected keeps only Histoscope's error:,
    // warning: and note: lines.
    const auto announce = [&](std::string_view engine, const std::string& input) {
        if (progress) std::cerr << "bench: " << engine << " on " << input << "\n";
    };
    for (BenchInput& in : bench_inputs(cmd)) {
        const ImageView image = apply_region(cmd.roi, in.image.view());
        // The floor first, when a GPU engine is timed: what reading these bytes alone costs
        // on the device.
        if (floor) {
            announce("floor", in.name);
            BenchRow row;
            bench_floor(ctx.engines.gpu_floor, image, options, context.device_read_bandwidth_gbs,
                        row);
            row.input = in.name;
            rows.push_back(std::move(row));
        }
        if (scope_kind) {
            if (in.cfa)
                throw UsageError(
                    "the scopes of a camera raw file are of its demosaiced image: "
                    "--camera-raw rgb");
            const std::vector<ScopeSpec> specs = scope_specs(
                cmd.scope, cmd.scopes, image,
                {cmd.select.given ? std::optional(cmd.select.value) : std::nullopt, "--select"});
            if (specs.size() != 1)
                throw UsageError(
                    "bench --scope times one scope at a time (a stream benchmark counts several)");
            const ScopeRequest request{image, specs.front()};
            const std::vector<ScopePlane> reference = reference_scope(image, request.spec);
            for (ScopeEngine* engine : scope_engines) {
                announce(engine->name(), in.name);
                BenchRow row;
                bench_scope_engine(*engine, request, reference, options,
                                   bandwidth_of(engine->name()), row);
                row.input = in.name;
                rows.push_back(std::move(row));
            }
            continue;
        }
        const HistogramRequest request =
            histogram_request(cmd.spec, image, cmd.select.value, in.cfa);
        const std::vector<ChannelHistogram> reference =
            reference_histogram(request.image, request.channels, request.spec);
        for (HistogramEngine* engine : engines) {
            announce(engine->name(), in.name);
            BenchRow row;
            bench_engine(*engine, request, reference, options, bandwidth_of(engine->name()), row);
            row.input = in.name;
            if (in.cfa) row.channels = channel_list(request.channels, true);
            rows.push_back(std::move(row));
        }
    }

    relate_to_floor(rows);

    std::string out;
    if (format == "json") {
        out = to_text(report::bench_json(context, rows));
    } else if (format == "csv") {
        out = report::bench_csv(context, rows);
    } else {
        std::ostringstream os;
        os << "# device: " << context.device << ", read bandwidth "
           << fixed(context.device_read_bandwidth_gbs, 1) << " GB/s; cpu: " << context.cpu
           << ", read bandwidth " << fixed(context.host_read_bandwidth_gbs, 1) << " GB/s; "
           << options.timed_runs << " timed runs after " << options.warmup_runs << " warm-up\n";
        char line[256];
        std::snprintf(line, sizeof line, "%-16s %10s %10s %8s %8s %6s %10s %10s %7s %7s %-8s\n",
                      "kernel", "median_ms", "min_ms", "Gpix/s", "GB/s", "%bw", "e2e_ms", "b2b_ms",
                      "xfloor", "xb2b", "verified");
        os << line;
        std::string last_input;
        for (const BenchRow& r : rows) {
            if (r.input != last_input) {
                // The case's channels and spec are those of its engines (the floor has none).
                const auto engine_row = std::find_if(rows.begin(), rows.end(), [&](const auto& e) {
                    return e.input == r.input && !e.floor;
                });
                os << "# " << r.input << " (" << r.width << "x" << r.height << "x"
                   << r.image_channels << ", " << r.depth << "-bit)";
                if (engine_row != rows.end())
                    os << ", channels " << engine_row->channels << ", " << engine_row->spec;
                os << "\n";
                last_input = r.input;
            }
            if (r.status != "ok") {
                os << r.kernel << std::string(r.kernel.size() < 17 ? 17 - r.kernel.size() : 1, ' ')
                   << r.status << ": " << r.reason << "\n";
                continue;
            }
            // Unmeasured values print as "-".
            const auto opt = [](double v, int digits) {
                char text[32] = "-";
                if (v > 0) std::snprintf(text, sizeof text, "%.*f", digits, v);
                return std::string(text);
            };
            std::snprintf(line, sizeof line,
                          "%-16s %10.4f %10.4f %8.2f %8.1f %6.1f %10.4f %10s %7s %7s %-8s\n",
                          r.kernel.c_str(), r.median_ms, r.min_ms, r.gpix_s, r.gb_s, r.pct_read_bw,
                          r.end_to_end_median_ms, opt(r.back_to_back_ms, 4).c_str(),
                          opt(r.floor_ratio, 2).c_str(), opt(r.back_to_back_floor_ratio, 2).c_str(),
                          r.verified ? "true" : "FALSE");
            os << line;
        }
        out = os.str();
    }
    write_output(cmd.output.path, out);
    const bool all_verified = std::all_of(
        rows.begin(), rows.end(), [](const BenchRow& r) { return r.status != "ok" || r.verified; });
    return all_verified ? 0 : 5;
}

}  // namespace hs::cli
