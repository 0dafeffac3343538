#include "engine_choice.hpp"

#include <algorithm>
#include <exception>
#include <thread>

#include "frame_work.hpp"
#include "histoscope/core/bench.hpp"

namespace hs::ui {

namespace {

QString qs(std::string_view s) {
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

template <typename Engines>
QVector<EngineInfo> infos(const Engines& engines) {
    QVector<EngineInfo> out;
    for (const auto& engine : engines) {
        const hs::Availability a = engine->availability();
        out.push_back({qs(engine->name()), qs(engine->description()), a.available,
                       QString::fromStdString(a.reason)});
    }
    return out;
}

}  // namespace

QVector<EngineInfo> list_engines(const hs::EngineRegistry& registry) {
    return infos(registry.engines());
}

QVector<EngineInfo> list_equalizers(const hs::EngineRegistry& registry) {
    return infos(registry.equalizers());
}

void EngineChoice::addThroughput(FrameTiming& timing, const HistogramData& h) {
    timing.histogram_ms = h.histogram_ms();
    if (timing.histogram_ms > 0.0) {
        timing.gpix_per_s = static_cast<double>(h.pixels) / (timing.histogram_ms * 1e6);
        timing.gb_per_s = static_cast<double>(h.bytes) / (timing.histogram_ms * 1e6);
    }
    timing.read_bandwidth_gbs = readBandwidthGbs(timing.engine, timing.bandwidth_device);
    if (timing.read_bandwidth_gbs > 0.0)
        timing.pct_read_bw = 100.0 * timing.gb_per_s / timing.read_bandwidth_gbs;
}

hs::HistogramEngine* EngineChoice::histogram(const QString& requested,
                                             const hs::HistogramRequest& request,
                                             EngineStatus& status) const {
    status.requested = requested;
    hs::HistogramEngine* chosen = registry_.find(requested.toStdString());
    const QString why =
        chosen == nullptr ? QObject::tr("not in this build") : qs(chosen->refusal(request));
    if (why.isEmpty()) {
        status.resolved = requested;
        status.message = requested == QLatin1String("auto")
                             ? QObject::tr("Kernel: auto (the registry's GPU selection)")
                             : QObject::tr("Kernel: %1").arg(requested);
        return chosen;
    }
    // The status bar says it in a few words; the engines' own sentence is the tooltip.
    status.resolved = QStringLiteral("cpu");
    status.detail = why;
    if (requested != QLatin1String("auto")) {
        status.message = QObject::tr("Kernel: cpu (%1 cannot run)").arg(requested);
    } else if (options_.gpu_engines.isEmpty()) {
        status.message = QObject::tr("CPU only: this build has no GPU kernels");
        status.detail =
            QObject::tr("Histoscope was built without CUDA: auto runs the CPU reference.");
    } else if (!options_.gpu_absence.isEmpty()) {
        status.message = QObject::tr("CPU only: %1").arg(options_.gpu_absence);
    } else {
        status.message = QObject::tr("Kernel: cpu (auto): no GPU kernel serves this request");
    }
    return registry_.find("cpu");
}

hs::EqualizeEngine* EngineChoice::equalizer(const QString& requested,
                                            const hs::EqualizeRequest& request) const {
    const auto usable = [&](hs::EqualizeEngine* e) {
        return e != nullptr && e->refusal(request).empty();
    };
    if (requested != QLatin1String("auto")) {
        hs::EqualizeEngine* e = registry_.find_equalizer(requested.toStdString());
        return usable(e) ? e : registry_.find_equalizer("cpu");
    }
    // auto: the first usable equalizer that is not the CPU reference, else the reference.
    for (const auto& e : registry_.equalizers())
        if (e->name() != "cpu" && usable(e.get())) return e.get();
    return registry_.find_equalizer("cpu");
}

double EngineChoice::readBandwidthGbs(const QString& engine, QString& device) {
    if (options_.gpu_engines.contains(engine)) {
        device = QObject::tr("GPU");
        if (!gpu_bw_ && options_.gpu_read_bandwidth_gbs) {
            try {
                // 0: not measured yet (asked again with the next frame).
                if (const double gbs = options_.gpu_read_bandwidth_gbs(); gbs > 0.0) gpu_bw_ = gbs;
            } catch (const std::exception&) {
                gpu_bw_ = 0.0;  // then no percentage is shown
            }
        }
        return gpu_bw_.value_or(0.0);
    }
    if (!host_bw_) remeasureHostBandwidth();
    device = QObject::tr("CPU, %1 threads").arg(std::max(1u, std::thread::hardware_concurrency()));
    return *host_bw_;
}

double EngineChoice::remeasureHostBandwidth() {
    host_bw_ = hs::measure_host_read_bandwidth_gbs();
    if (host_measured_) host_measured_(*host_bw_);
    return *host_bw_;
}

}  // namespace hs::ui
