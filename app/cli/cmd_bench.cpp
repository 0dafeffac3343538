// histoscope-cli bench: every requested engine on every input, timed by the engine itself
// (device-resident input rotated past L2, CUDA events, for GPU engines), verified bit for bit
// against the CPU reference.

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <sstream>

#include "args.hpp"
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

std::vector<BenchInput> bench_inputs(const Args& args) {
    std::vector<BenchInput> inputs;
    if (const auto kind = args.value("--synthetic")) {
        if (!args.positional().empty() || args.has("--raw"))
            throw UsageError("--synthetic cannot be combined with files or --raw");
        SyntheticSpec s;
        s.kind = SyntheticSpec::parse_kind(*kind, s.sigma);
        s.pixels = parse_count(args.value("--pixels").value_or("16M"), "--pixels");
        const auto depth = args.integer("--depth").value_or(8);
        s.type = depth == 8 ? SampleType::U8 : SampleType::U16;
        s.bit_depth = static_cast<int>(depth);
        s.channels = static_cast<int>(args.integer("--channels").value_or(1));
        if (s.channels == 2) throw UsageError("--channels must be 1, 3 or 4");
        inputs.push_back({s.describe(), make_synthetic(s)});
        return inputs;
    }
    const media::DecodeOptions options = decode_options(args);
    if (args.has("--raw") || args.positional().size() <= 1) {
        inputs.push_back(bench_input(load_input(args, options)));
        return inputs;
    }
    for (const auto& path : args.positional()) {
        const media::Source& source = input_source(path, options);
        if (!args.has("--frame") && media::probe(source) == media::MediaKind::Video)
            throw UsageError(source.name() +
                             " is a video: its frames are benchmarked as a stream when it is "
                             "given alone, or pick one with --frame N");
        inputs.push_back(bench_input(load_input(args.with_positional({path}), options)));
    }
    return inputs;
}

// The engines --kernels names, of `all` (the registry's list): "all" (default) is every one,
// the unavailable ones included (their rows say why); named ones must exist, once each, and run
// here (`available` finds one, as --kernel of hist does).
template <typename Engine, typename Available>
std::vector<Engine*> engines_named(const Args& args,
                                   const std::vector<std::unique_ptr<Engine>>& all,
                                   Available&& available) {
    std::vector<Engine*> engines;
    const std::string list = args.value("--kernels").value_or("all");
    if (list == "all") {
        for (const auto& e : all) engines.push_back(e.get());
        return engines;
    }
    std::stringstream names(list);
    for (std::string name; std::getline(names, name, ',');) {
        Engine& e = available(name);
        if (std::find(engines.begin(), engines.end(), &e) != engines.end())
            throw UsageError("kernel '" + name + "' is listed twice in --kernels");
        engines.push_back(&e);
    }
    if (engines.empty()) throw UsageError("--kernels lists no kernel");
    return engines;
}

}  // namespace

int run_bench(const Context& ctx) {
    const Args& args = ctx.args;
    refuse_output_onto_input(args);
    // The scopes' options, for kernels and streams alike.
    const auto scope_kind = args.value("--scope");
    if (!scope_kind)
        for (const char* o : {"--levels", "--columns", "--size", "--matrix"})
            if (args.has(o)) throw UsageError(std::string(o) + " applies to --scope");
    // A video (unless --frame picks one of its frames) or --stream: the stream benchmark.
    if (args.flag("--stream") || (input_is_video(args) && !args.has("--frame")))
        return run_bench_frames(ctx, args);
    for (const char* o : {"--kernel", "--loop", "--frames", "--verify-frames", "--depth-in-flight",
                          "--no-equalize"})
        if (args.has(o))
            throw UsageError(std::string(o) +
                             " applies to the stream benchmark (a video, or "
                             "--stream)");
    const std::string format = args.value("--format").value_or("table");
    if (scope_kind && (args.has("--saturate") || args.has("--edges") || args.has("--range") ||
                       args.has("--bins")))
        throw UsageError(
            "--bins, --range, --edges and --saturate apply to histograms, not to "
            "--scope (use --levels or --size)");

    std::vector<HistogramEngine*> engines;
    std::vector<ScopeEngine*> scope_engines;
    if (scope_kind)
        scope_engines = engines_named(args, ctx.registry.scope_engines(),
                                      [&](const std::string& n) -> ScopeEngine& {
                                          return available_scope_engine(ctx.registry, n);
                                      });
    else
        engines = engines_named(args, ctx.registry.engines(),
                                [&](const std::string& n) -> HistogramEngine& {
                                    return available_kernel(ctx.registry, n);
                                });

    // The rules and the rooflines of every benchmark (core's bench_options), for the device
    // when there is one, and the host's for the CPU engines.
    const app::GpuInfo gpu = ctx.engines.query_gpu();
    const bool device = !gpu.device.empty() && ctx.engines.gpu_read_bandwidth_gbs;
    BenchOptions options =
        bench_options(static_cast<int>(args.integer("--runs").value_or(20)), gpu.l2_bytes);
    if (const auto warmup = args.integer("--warmup"))
        options.warmup_runs = static_cast<int>(*warmup);
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
    for (BenchInput& in : bench_inputs(args)) {
        const ImageView image = apply_region(args, in.image.view());
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
            const std::vector<ScopeSpec> specs = scopes_from_args(args, image, "--select");
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
        const HistogramRequest request = request_from_args(args, image, "--select", in.cfa);
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
    write_output(args.value("-o").value_or(""), out);
    const bool all_verified = std::all_of(
        rows.begin(), rows.end(), [](const BenchRow& r) { return r.status != "ok" || r.verified; });
    return all_verified ? 0 : 5;
}

}  // namespace hs::cli
