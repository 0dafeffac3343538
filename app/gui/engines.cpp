#include "engines.hpp"

#include "histoscope/media/media.hpp"
#ifdef HS_HAVE_CUDA
#include "histoscope/cuda/register.hpp"
#endif

namespace hs::gui {

Engines make_engines() {
    Engines out;
    out.registry = std::make_unique<hs::EngineRegistry>();
    hs::register_core_engines(*out.registry);
    hs::media::register_engines(*out.registry);
#ifdef HS_HAVE_CUDA
    const std::size_t before = out.registry->engines().size();
    hs::cuda::register_engines(*out.registry);
    for (std::size_t i = before; i < out.registry->engines().size(); ++i) {
        const auto name = out.registry->engines()[i]->name();
        out.options.gpu_engines << QString::fromUtf8(name.data(),
                                                     static_cast<qsizetype>(name.size()));
    }
    // 256 MiB, median of 10 passes: measured once, when a GPU engine first runs.
    out.options.gpu_read_bandwidth_gbs = [] {
        return hs::cuda::measure_read_bandwidth_gbs(std::size_t{256} << 20, 10);
    };
    // What the status bar and the benchmark exports say about the GPU.
    const hs::cuda::DeviceQuery query = hs::cuda::query_devices();
    auto version = [](int v) { return QStringLiteral("%1.%2").arg(v / 1000).arg((v % 1000) / 10); };
    if (query.devices.empty()) {
        out.options.gpu_absence = query.driver_version == 0 ? QStringLiteral("no NVIDIA driver")
                                                            : QStringLiteral("no NVIDIA GPU");
    } else {
        const hs::cuda::DeviceInfo& d = query.devices.front();
        out.options.gpu_device =
            QStringLiteral("%1 (sm_%2%3), driver CUDA %4, runtime %5")
                .arg(QString::fromStdString(d.name))
                .arg(d.cc_major)
                .arg(d.cc_minor)
                .arg(version(query.driver_version), version(query.runtime_version));
    }
#endif
    return out;
}

}  // namespace hs::gui
