#include "benchmark_runner.hpp"

#include <QCoreApplication>
#include <QDateTime>
#include <QElapsedTimer>
#include <QStringList>
#include <algorithm>
#include <exception>

#include "engine_choice.hpp"
#include "frame_work.hpp"
#include "histoscope/core/histogram.hpp"
#include "host_bandwidth.hpp"

namespace hs::ui {

namespace {

constexpr int kWarmupRuns = 2;
constexpr qint64 kChunkMs = 250;  // about how long one call to benchmark() may take
constexpr std::size_t kRotateBytes = std::size_t{256} << 20;

double median(std::vector<double> values) {
    if (values.empty()) return 0.0;
    std::sort(values.begin(), values.end());
    const std::size_t mid = values.size() / 2;
    return values.size() % 2 == 1 ? values[mid] : 0.5 * (values[mid - 1] + values[mid]);
}

}  // namespace

BenchContext bench_context(const hs::HistogramRequest& request, const QString& input, int runs,
                           const QString& gpu_device, double host_read_bandwidth_gbs) {
    BenchContext context;
    context.input = input;
    context.width = request.image.width;
    context.height = request.image.height;
    context.image_channels = request.image.channels;
    context.depth = request.image.bit_depth;
    context.bytes = image_bytes(request.image);
    QStringList channels;
    for (const hs::Channel c : request.channels) channels << qstr(hs::channel_name(c));
    context.channels = channels.join(QLatin1Char(','));
    context.spec = QString::fromStdString(request.spec.describe());
    context.bins = request.spec.bins;
    context.timed_runs = runs;
    context.warmup_runs = kWarmupRuns;
    context.rotate_bytes = kRotateBytes;
    context.device = gpu_device.isEmpty() ? QStringLiteral("none") : gpu_device;
    context.cpu = cpu_description();
    context.host_read_bandwidth_gbs = host_read_bandwidth_gbs;
    context.date = QDateTime::currentDateTimeUtc().toString(Qt::ISODate);
    context.version = QCoreApplication::applicationVersion();
    return context;
}

bool benchmark_engine(hs::HistogramEngine& engine, const hs::HistogramRequest& request,
                      const std::vector<hs::ChannelHistogram>& reference, int runs,
                      const BenchHooks& hooks, BenchRow& row,
                      const std::function<void(int runs_done)>& progress) {
    row = BenchRow();
    row.engine = qstr(engine.name());
    if (const hs::Availability a = engine.availability(); !a.available) {
        row.status = QStringLiteral("unavailable");
        row.reason = QString::fromStdString(a.reason);
        return true;
    }
    if (const std::string why = engine.unsupported_reason(request); !why.empty()) {
        row.status = QStringLiteral("unsupported");
        row.reason = QString::fromStdString(why);
        return true;
    }
    runs = std::max(runs, 1);
    std::vector<double> histogram_ms, end_to_end_ms;
    try {
        std::vector<hs::ChannelHistogram> expected = reference;
        hs::apply_saturation(request.spec, expected);
        bool verified = true;
        // The first call warms up and times one run; later calls time as many runs as fit in
        // about kChunkMs (one warm-up each when more than one fits, for engines whose setup
        // per call is what is fast).
        int chunk = 1, warmup = kWarmupRuns;
        while (static_cast<int>(histogram_ms.size()) < runs) {
            if (hooks.cancel != nullptr && hooks.cancel->load()) return false;
            hs::BenchOptions options;
            options.warmup_runs = warmup;
            options.timed_runs = std::min(chunk, runs - static_cast<int>(histogram_ms.size()));
            options.rotate_bytes = kRotateBytes;
            QElapsedTimer clock;
            clock.start();
            const hs::BenchTiming timing = engine.benchmark(request, options);
            const double per_run =
                static_cast<double>(clock.elapsed()) / (options.warmup_runs + options.timed_runs);
            histogram_ms.insert(histogram_ms.end(), timing.histogram_ms.begin(),
                                timing.histogram_ms.end());
            end_to_end_ms.insert(end_to_end_ms.end(), timing.end_to_end_ms.begin(),
                                 timing.end_to_end_ms.end());
            verified = verified && timing.last == expected;
            chunk = std::max(
                1, static_cast<int>(static_cast<double>(kChunkMs) / std::max(per_run, 0.001)));
            warmup = chunk > 1 ? 1 : 0;
            if (progress) progress(static_cast<int>(histogram_ms.size()));
        }
        row.status = QStringLiteral("ok");
        row.runs = static_cast<int>(histogram_ms.size());
        row.median_ms = median(histogram_ms);
        row.min_ms = *std::min_element(histogram_ms.begin(), histogram_ms.end());
        row.end_to_end_median_ms = median(end_to_end_ms);
        if (row.median_ms > 0.0)
            row.gpix_per_s =
                static_cast<double>(request.image.pixel_count()) / (row.median_ms * 1e6);
        row.verified = verified;
        if (!row.verified) row.reason = QStringLiteral("counts differ from the CPU reference");
    } catch (const std::exception& e) {
        row.status = QStringLiteral("error");
        row.reason = QString::fromUtf8(e.what());
    }
    return true;
}

bool compare_engines(hs::EngineRegistry& registry, const hs::HistogramRequest& request,
                     const QString& input, int runs, const QString& gpu_device,
                     EngineChoice& choice, const BenchHooks& hooks) {
    const std::vector<hs::ChannelHistogram> reference =
        hs::reference_histogram(request.image, request.channels, request.spec);
    QString host;
    const BenchContext context = bench_context(
        request, input, runs, gpu_device, choice.readBandwidthGbs(QStringLiteral("cpu"), host));
    int available = 0;
    for (const auto& engine : registry.engines())
        if (engine->availability().available) ++available;
    const int total = available * runs;
    if (hooks.started) hooks.started(context, total);
    int done = 0;  // runs of the engines before this one
    for (const auto& engine : registry.engines()) {
        const QString name = qstr(engine->name());
        const bool available_here = engine->availability().available;
        if (available_here && hooks.progress) hooks.progress(done, total, name);
        BenchRow row;
        if (!benchmark_engine(*engine, request, reference, runs, hooks, row, [&](int runs_done) {
                if (hooks.progress) hooks.progress(done + runs_done, total, name);
            }))
            return false;
        if (available_here) done += runs;
        if (row.status == QLatin1String("ok") && row.median_ms > 0.0) {
            row.gb_per_s = static_cast<double>(context.bytes) / (row.median_ms * 1e6);
            QString device;
            const double bw = choice.readBandwidthGbs(row.engine, device);
            if (bw > 0.0) row.pct_read_bw = 100.0 * row.gb_per_s / bw;
        }
        if (hooks.row) hooks.row(row);
    }
    if (hooks.progress) hooks.progress(total, total, QString());
    return true;
}

}  // namespace hs::ui
