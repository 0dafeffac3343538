// histoscope-cli bench: every requested engine on every input, timed by the engine itself
// (device-resident input rotated past L2, CUDA events, for GPU engines), verified bit for bit
// against the CPU reference.

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <sstream>

#include "args.hpp"
#include "commands.hpp"
#include "frames.hpp"
#include "histoscope/core/error.hpp"
#include "histoscope/core/synthetic.hpp"
#include "input.hpp"
#include "json.hpp"
#include "request_options.hpp"
#ifdef HS_HAVE_CUDA
#include "histoscope/cuda/register.hpp"
#endif

namespace hs::cli {

namespace {

struct BenchInput {
    std::string name;
    Image image;
};

struct Row {
    std::string input, kernel, status = "ok", reason;
    std::string channels, spec;
    int width = 0, height = 0, image_channels = 0, depth = 0;
    std::uint64_t bytes = 0, pixels = 0;
    double median_ms = 0, min_ms = 0, e2e_median_ms = 0;
    int runs = 0, input_copies = 0;
    double gpix_s = 0, gb_s = 0, pct_read_bw = 0;
    bool verified = false;
};

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
        Input in = load_input(args, options);
        inputs.push_back({in.name, std::move(in.image)});
        return inputs;
    }
    for (const auto& path : args.positional()) {
        Input in = load_input(args.with_positional({path}), options);
        inputs.push_back({in.name, std::move(in.image)});
    }
    return inputs;
}

}  // namespace

int run_bench(const Context& ctx) {
    const Args& args = ctx.args;
    refuse_output_onto_input(args);
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
    BenchOptions options;
    options.timed_runs = static_cast<int>(args.integer("--runs").value_or(20));
    options.warmup_runs = static_cast<int>(args.integer("--warmup").value_or(3));

    std::vector<HistogramEngine*> engines;
    const std::string list = args.value("--kernels").value_or("all");
    if (list == "all") {
        for (const auto& e : ctx.registry.engines()) engines.push_back(e.get());
    } else {
        for (const std::string& name : [&] {
                 std::vector<std::string> names;
                 std::stringstream ss(list);
                 for (std::string n; std::getline(ss, n, ',');) names.push_back(n);
                 return names;
             }()) {
            HistogramEngine* e = ctx.registry.find(name);
            if (!e)
                throw UsageError("unknown kernel '" + name + "' (see 'histoscope-cli kernels')");
            engines.push_back(e);
        }
    }

    double read_bw = 0;
    std::string device = "none";
#ifdef HS_HAVE_CUDA
    if (cuda::device_available()) {
        read_bw = cuda::measure_read_bandwidth_gbs();
        const auto q = cuda::query_devices();
        device = q.devices.front().name;
    }
#endif
    std::size_t rotate = 0;
#ifdef HS_HAVE_CUDA
    if (cuda::device_available()) rotate = 4 * cuda::query_devices().devices.front().l2_cache;
#endif
    options.rotate_bytes = rotate;

    std::vector<Row> rows;
    for (BenchInput& in : bench_inputs(args)) {
        const ImageView image = in.image.view();
        const HistogramRequest request = request_from_args(args, image, "--select");
        const std::vector<ChannelHistogram> reference =
            reference_histogram(request.image, request.channels, request.spec);
        for (HistogramEngine* engine : engines) {
            Row row;
            row.input = in.name;
            row.kernel = std::string(engine->name());
            row.width = image.width;
            row.height = image.height;
            row.image_channels = image.channels;
            row.depth = image.bit_depth;
            row.pixels = image.pixel_count();
            row.bytes = image.row_bytes() * static_cast<std::uint64_t>(image.height);
            row.channels = channel_list(request.channels);
            row.spec = request.spec.describe();
            std::cerr << "bench: " << row.kernel << " on " << row.input << "\n";
            if (const Availability a = engine->availability(); !a.available) {
                row.status = "unavailable";
                row.reason = a.reason;
            } else if (std::string why = engine->unsupported_reason(request); !why.empty()) {
                row.status = "unsupported";
                row.reason = why;
            } else {
                try {
                    const BenchTiming t = engine->benchmark(request, options);
                    row.runs = static_cast<int>(t.histogram_ms.size());
                    row.input_copies = t.input_copies;
                    row.median_ms = median(t.histogram_ms);
                    row.min_ms = *std::min_element(t.histogram_ms.begin(), t.histogram_ms.end());
                    row.e2e_median_ms = median(t.end_to_end_ms);
                    row.gpix_s = static_cast<double>(row.pixels) / (row.median_ms * 1e-3) / 1e9;
                    row.gb_s = static_cast<double>(row.bytes) / (row.median_ms * 1e-3) / 1e9;
                    row.pct_read_bw = read_bw > 0 ? 100.0 * row.gb_s / read_bw : 0.0;
                    row.verified = t.last == reference;
                } catch (const Error& e) {
                    row.status = "error";
                    row.reason = e.what();
                }
            }
            rows.push_back(std::move(row));
        }
    }

    std::string out;
    if (format == "json") {
        Json j = Json::object();
        j["device"] = device;
        j["read_bandwidth_gbs"] = read_bw;
        j["timed_runs"] = options.timed_runs;
        j["warmup_runs"] = options.warmup_runs;
        j["rotate_bytes"] = static_cast<std::uint64_t>(options.rotate_bytes);
        Json results = Json::array();
        for (const Row& r : rows) {
            Json o = Json::object();
            o["input"] = r.input;
            o["width"] = r.width;
            o["height"] = r.height;
            o["image_channels"] = r.image_channels;
            o["depth"] = r.depth;
            o["bytes"] = r.bytes;
            o["channels"] = r.channels;
            o["spec"] = r.spec;
            o["kernel"] = r.kernel;
            o["status"] = r.status;
            if (!r.reason.empty()) o["reason"] = r.reason;
            if (r.status == "ok") {
                o["median_ms"] = r.median_ms;
                o["min_ms"] = r.min_ms;
                o["runs"] = r.runs;
                o["input_copies"] = r.input_copies;
                o["gpix_s"] = r.gpix_s;
                o["gb_s"] = r.gb_s;
                o["pct_read_bw"] = r.pct_read_bw;
                o["end_to_end_median_ms"] = r.e2e_median_ms;
                o["verified"] = r.verified;
            }
            results.push_back(std::move(o));
        }
        j["results"] = std::move(results);
        out = to_text(j);
    } else {
        std::ostringstream os;
        const bool csv = format == "csv";
        if (!csv)
            os << "# device: " << device << ", read bandwidth " << fixed(read_bw, 1) << " GB/s, "
               << options.timed_runs << " timed runs after " << options.warmup_runs << " warm-up\n";
        const char* header = csv ? "input,kernel,channels,spec,status,median_ms,min_ms,gpix_s,gb_s,"
                                   "pct_read_bw,e2e_median_ms,verified,reason\n"
                                 : "";
        os << header;
        if (!csv) {
            char line[256];
            std::snprintf(line, sizeof line, "%-16s %10s %10s %8s %8s %6s %10s %-8s\n", "kernel",
                          "median_ms", "min_ms", "Gpix/s", "GB/s", "%bw", "e2e_ms", "verified");
            os << line;
        }
        std::string last_input;
        for (const Row& r : rows) {
            if (csv) {
                os << csv_field(r.input) << "," << csv_field(r.kernel) << ","
                   << csv_field(r.channels) << "," << csv_field(r.spec) << "," << r.status << ","
                   << fixed(r.median_ms, 4) << "," << fixed(r.min_ms, 4) << ","
                   << fixed(r.gpix_s, 3) << "," << fixed(r.gb_s, 2) << ","
                   << fixed(r.pct_read_bw, 1) << "," << fixed(r.e2e_median_ms, 4) << ","
                   << (r.verified ? "true" : "false") << "," << csv_field(r.reason) << "\n";
                continue;
            }
            if (r.input != last_input) {
                os << "# " << r.input << " (" << r.width << "x" << r.height << "x"
                   << r.image_channels << ", " << r.depth << "-bit), channels " << r.channels
                   << ", " << r.spec << "\n";
                last_input = r.input;
            }
            if (r.status != "ok") {
                os << r.kernel << std::string(r.kernel.size() < 17 ? 17 - r.kernel.size() : 1, ' ')
                   << r.status << ": " << r.reason << "\n";
                continue;
            }
            char line[256];
            std::snprintf(line, sizeof line, "%-16s %10.4f %10.4f %8.2f %8.1f %6.1f %10.4f %-8s\n",
                          r.kernel.c_str(), r.median_ms, r.min_ms, r.gpix_s, r.gb_s, r.pct_read_bw,
                          r.e2e_median_ms, r.verified ? "true" : "FALSE");
            os << line;
        }
        out = os.str();
    }
    write_output(args.value("-o").value_or(""), out);
    const bool all_verified = std::all_of(
        rows.begin(), rows.end(), [](const Row& r) { return r.status != "ok" || r.verified; });
    return all_verified ? 0 : 5;
}

}  // namespace hs::cli
