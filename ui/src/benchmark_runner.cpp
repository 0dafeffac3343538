#include "benchmark_runner.hpp"

#include <algorithm>
#include <exception>

#include "histoscope/core/histogram.hpp"

namespace hs::ui {

namespace {

double median(std::vector<double> values) {
    if (values.empty()) return 0.0;
    std::sort(values.begin(), values.end());
    const std::size_t mid = values.size() / 2;
    return values.size() % 2 == 1 ? values[mid] : 0.5 * (values[mid - 1] + values[mid]);
}

}  // namespace

BenchRow benchmark_engine(hs::HistogramEngine& engine, const hs::HistogramRequest& request,
                          const std::vector<hs::ChannelHistogram>& reference, int runs) {
    BenchRow row;
    row.engine =
        QString::fromUtf8(engine.name().data(), static_cast<qsizetype>(engine.name().size()));
    const std::string unsupported = engine.unsupported_reason(request);
    if (!unsupported.empty()) {
        row.status = QStringLiteral("unsupported");
        row.reason = QString::fromStdString(unsupported);
        return row;
    }
    try {
        hs::BenchOptions options;
        options.warmup_runs = 2;
        options.timed_runs = std::max(runs, 1);
        options.rotate_bytes = std::size_t{256} << 20;
        const hs::BenchTiming timing = engine.benchmark(request, options);
        row.status = QStringLiteral("ok");
        row.runs = static_cast<int>(timing.histogram_ms.size());
        row.median_ms = median(timing.histogram_ms);
        row.min_ms = timing.histogram_ms.empty() ? 0.0
                                                 : *std::min_element(timing.histogram_ms.begin(),
                                                                     timing.histogram_ms.end());
        row.end_to_end_median_ms = median(timing.end_to_end_ms);
        if (row.median_ms > 0.0)
            row.gpix_per_s =
                static_cast<double>(request.image.pixel_count()) / (row.median_ms * 1e6);
        std::vector<hs::ChannelHistogram> expected = reference;
        hs::apply_saturation(request.spec, expected);
        row.verified = timing.last == expected;
        if (!row.verified) row.reason = QStringLiteral("counts differ from the CPU reference");
    } catch (const std::exception& e) {
        row.status = QStringLiteral("error");
        row.reason = QString::fromUtf8(e.what());
    }
    return row;
}

}  // namespace hs::ui
