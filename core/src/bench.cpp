#include "histoscope/core/bench.hpp"

#include <algorithm>
#include <ctime>
#include <fstream>
#include <new>
#include <numeric>
#include <thread>

#include "histoscope/core/error.hpp"
#include "histoscope/core/version.hpp"

namespace hs {

namespace {

using Clock = std::chrono::steady_clock;

constexpr int kWarmupRuns = 3;
constexpr double kChunkMs = 250.0;  // about how long one benchmark() call may take

std::string iso_date_utc() {
    const std::time_t now = std::time(nullptr);
    std::tm utc{};
    gmtime_r(&now, &utc);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
    return text;
}

unsigned threads() {
    return std::max(1u, std::thread::hardware_concurrency());
}

}  // namespace

BenchOptions bench_options(int timed_runs, std::size_t device_l2_bytes) {
    BenchOptions options;
    options.warmup_runs = kWarmupRuns;
    options.timed_runs = timed_runs;
    options.rotate_bytes = 4 * device_l2_bytes;
    return options;
}

BenchContext bench_context(const BenchOptions& options, const std::string& device,
                           const std::string& device_absence, double device_read_bandwidth_gbs,
                           double host_read_bandwidth_gbs) {
    BenchContext c;
    c.device = !device.empty()          ? device
               : device_absence.empty() ? std::string("none")
                                        : "none (" + device_absence + ")";
    c.device_read_bandwidth_gbs = device_read_bandwidth_gbs;
    c.cpu = cpu_description();
    c.host_read_bandwidth_gbs = host_read_bandwidth_gbs;
    c.timed_runs = options.timed_runs;
    c.warmup_runs = options.warmup_runs;
    c.rotate_bytes = options.rotate_bytes;
    c.date = iso_date_utc();
    c.version = kVersion;
    return c;
}

namespace {

// The row's input fields for `image`.
void describe_input(const ImageView& image, std::string channels, std::string spec, int bins,
                    std::string_view kernel, BenchRow& row) {
    row = BenchRow();
    row.width = image.width;
    row.height = image.height;
    row.image_channels = image.channels;
    row.depth = image.bit_depth;
    row.bytes = image.row_bytes() * static_cast<std::uint64_t>(image.height);
    row.channels = std::move(channels);
    row.spec = std::move(spec);
    row.bins = bins;
    row.kernel = std::string(kernel);
}

// The timings of a row's runs, as the benchmark() calls append them.
struct RunTimes {
    std::vector<double> ms, back_to_back_ms, end_to_end_ms;
};

// What bench_engine(), bench_scope_engine() and bench_floor() share: the refusals, the timed
// runs in chunks, the medians and rates. `run_chunk(options, times)` runs one benchmark() call,
// appends its timings to `times` and returns whether its last result was verified.
template <typename Engine, typename Request, typename RunChunk>
bool bench_rows(Engine& engine, const Request& request, const BenchOptions& options,
                double read_bandwidth_gbs, BenchRow& row, const BenchControl& control,
                RunChunk&& run_chunk) {
    if (const Availability a = engine.availability(); !a.available) {
        row.status = "unavailable";
        row.reason = a.reason;
        return true;
    }
    if (std::string why = engine.unsupported_reason(request); !why.empty()) {
        row.status = "unsupported";
        row.reason = std::move(why);
        return true;
    }
    const int runs = std::max(options.timed_runs, 1);
    RunTimes times;
    bool verified = true;
    try {
        // Without a caller listening, all runs go in one call; an interactive caller gets them
        // in chunks, the first of one run to learn how long a run takes.
        const bool interactive = control.cancel != nullptr || control.progress != nullptr;
        BenchOptions chunk = options;
        chunk.timed_runs = interactive ? 1 : runs;
        while (static_cast<int>(times.ms.size()) < runs) {
            if (control.cancel != nullptr && control.cancel->load()) return false;
            chunk.timed_runs = std::min(chunk.timed_runs, runs - static_cast<int>(times.ms.size()));
            const auto start = Clock::now();
            verified = run_chunk(chunk, times) && verified;
            const double per_run = ms_since(start) / (chunk.warmup_runs + chunk.timed_runs);
            chunk.timed_runs = std::max(1, static_cast<int>(kChunkMs / std::max(per_run, 1e-3)));
            chunk.warmup_runs = std::min(options.warmup_runs, 1);
            if (control.progress) control.progress(static_cast<int>(times.ms.size()));
        }
    } catch (const Error& e) {
        row.status = "error";
        row.reason = e.what();
        return true;
    } catch (const std::bad_alloc&) {
        row.status = "error";
        row.reason = "out of host memory";
        return true;
    }
    row.runs = static_cast<int>(times.ms.size());
    row.median_ms = median(times.ms);
    row.min_ms = *std::min_element(times.ms.begin(), times.ms.end());
    row.end_to_end_median_ms = median(times.end_to_end_ms);
    row.back_to_back_ms = median(times.back_to_back_ms);
    if (row.median_ms > 0) {
        row.gpix_s = static_cast<double>(request.image.pixel_count()) / (row.median_ms * 1e6);
        row.gb_s = static_cast<double>(row.bytes) / (row.median_ms * 1e6);
    }
    if (read_bandwidth_gbs > 0) row.pct_read_bw = 100.0 * row.gb_s / read_bandwidth_gbs;
    row.verified = verified;
    if (!verified)
        row.reason = row.floor ? "the read-only kernel did not read every byte"
                               : "counts differ from the CPU reference";
    return true;
}

template <typename Timing>
void append_times(const Timing& t, const std::vector<double>& ms, RunTimes& times, BenchRow& row) {
    times.ms.insert(times.ms.end(), ms.begin(), ms.end());
    times.back_to_back_ms.insert(times.back_to_back_ms.end(), t.back_to_back_ms.begin(),
                                 t.back_to_back_ms.end());
    times.end_to_end_ms.insert(times.end_to_end_ms.end(), t.end_to_end_ms.begin(),
                               t.end_to_end_ms.end());
    row.input_copies = t.input_copies;
}

// The floor as bench_rows() sees it: always available, every image served.
struct FloorRequest {
    const ImageView& image;
};
struct FloorEngine {
    Availability availability() const { return {}; }
    std::string unsupported_reason(const FloorRequest&) const { return {}; }
};

}  // namespace

bool bench_engine(HistogramEngine& engine, const HistogramRequest& request,
                  const std::vector<ChannelHistogram>& reference, const BenchOptions& options,
                  double read_bandwidth_gbs, BenchRow& row, const BenchControl& control) {
    std::string channels;
    for (Channel c : request.channels)
        channels += (channels.empty() ? "" : ",") + std::string(channel_name(c));
    describe_input(request.image, std::move(channels), request.spec.describe(), request.spec.bins,
                   engine.name(), row);
    std::vector<ChannelHistogram> expected = reference;
    apply_saturation(request.spec, expected);
    return bench_rows(engine, request, options, read_bandwidth_gbs, row, control,
                      [&](const BenchOptions& chunk, RunTimes& times) {
                          const BenchTiming t = engine.benchmark(request, chunk);
                          append_times(t, t.histogram_ms, times, row);
                          return t.last == expected;
                      });
}

bool bench_scope_engine(ScopeEngine& engine, const ScopeRequest& request,
                        const std::vector<ScopePlane>& reference, const BenchOptions& options,
                        double read_bandwidth_gbs, BenchRow& row, const BenchControl& control) {
    std::string planes;
    int bins = 0;
    for (const ScopePlane& p : reference) {
        planes += (planes.empty() ? "" : ",") + p.name;
        bins = p.width * p.height;
    }
    describe_input(request.image, std::move(planes), request.spec.describe(request.image.width),
                   bins, engine.name(), row);
    return bench_rows(engine, request, options, read_bandwidth_gbs, row, control,
                      [&](const BenchOptions& chunk, RunTimes& times) {
                          const ScopeBenchTiming t = engine.benchmark(request, chunk);
                          append_times(t, t.scope_ms, times, row);
                          return t.last == reference;
                      });
}

bool bench_floor(const FloorTimer& floor, const ImageView& image, const BenchOptions& options,
                 double read_bandwidth_gbs, BenchRow& row, const BenchControl& control) {
    describe_input(image, {}, {}, 0, "floor", row);
    row.floor = true;
    FloorEngine engine;
    return bench_rows(engine, FloorRequest{image}, options, read_bandwidth_gbs, row, control,
                      [&](const BenchOptions& chunk, RunTimes& times) {
                          const FloorTiming t = floor(image, chunk);
                          append_times(t.timing, t.timing.histogram_ms, times, row);
                          return t.read_every_byte;
                      });
}

void relate_to_floor(const BenchRow& floor, BenchRow& row) {
    if (!floor.floor || floor.status != "ok" || row.floor || row.status != "ok") return;
    if (floor.median_ms > 0) row.floor_ratio = row.median_ms / floor.median_ms;
    if (row.back_to_back_ms > 0 && floor.back_to_back_ms > 0)
        row.back_to_back_floor_ratio = row.back_to_back_ms / floor.back_to_back_ms;
}

void relate_to_floor(std::vector<BenchRow>& rows) {
    for (const BenchRow& floor : rows)
        if (floor.floor)
            for (BenchRow& row : rows)
                if (row.input == floor.input) relate_to_floor(floor, row);
}

double measure_host_read_bandwidth_gbs(int passes) {
    const std::size_t words = (std::size_t{128} << 20) / sizeof(std::uint64_t);
    std::vector<std::uint64_t> buffer(words);
    std::iota(buffer.begin(), buffer.end(), std::uint64_t{1});
    const unsigned n = threads();
    std::vector<std::uint64_t> sums(n);
    double best = 0.0;
    for (int pass = 0; pass < std::max(passes, 1); ++pass) {
        const auto start = Clock::now();
        std::vector<std::thread> pool;
        for (unsigned t = 0; t < n; ++t)
            pool.emplace_back([&, t] {
                const std::size_t begin = words * t / n, end = words * (t + 1) / n;
                std::uint64_t s = 0;
                for (std::size_t i = begin; i < end; ++i) s += buffer[i];
                sums[t] = s;
            });
        for (auto& th : pool) th.join();
        const double ms = ms_since(start);
        if (ms > 0)
            best = std::max(best, static_cast<double>(words * sizeof(std::uint64_t)) / ms / 1e6);
    }
    // The sums are used so the reads cannot be optimized away.
    volatile std::uint64_t sink = std::accumulate(sums.begin(), sums.end(), std::uint64_t{0});
    (void)sink;
    return best;
}

std::string cpu_description() {
    std::string model = "unknown CPU";
    std::ifstream info("/proc/cpuinfo");
    for (std::string line; std::getline(info, line);) {
        if (line.rfind("model name", 0) != 0) continue;
        const auto colon = line.find(':');
        if (colon == std::string::npos) continue;
        const auto first = line.find_first_not_of(" \t", colon + 1);
        if (first != std::string::npos) model = line.substr(first);
        break;
    }
    return model + ", " + std::to_string(threads()) + " threads";
}

}  // namespace hs
