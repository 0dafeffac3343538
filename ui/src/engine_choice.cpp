#include "engine_choice.hpp"

#include <algorithm>
#include <exception>
#include <thread>

#include "histoscope/core/bench.hpp"

namespace hs::ui {

namespace {

QString qs(std::string_view s) {
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

}  // namespace

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
        if (!gpu_bw_) {
            gpu_bw_ = 0.0;
            if (options_.gpu_read_bandwidth_gbs) try {
                    gpu_bw_ = options_.gpu_read_bandwidth_gbs();
                } catch (const std::exception&) {
                    gpu_bw_ = 0.0;  // then no percentage is shown
                }
        }
        return *gpu_bw_;
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
