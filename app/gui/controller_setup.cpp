#include "controller_setup.hpp"

#include "app_engines.hpp"

namespace hs::gui {

ControllerSetup make_controller_setup() {
    hs::app::Engines engines = hs::app::make_engines();
    ControllerSetup out;
    out.registry = std::move(engines.registry);
    for (const std::string& name : engines.gpu_engines)
        out.options.gpu_engines << QString::fromStdString(name);
    out.options.gpu_read_bandwidth_gbs = std::move(engines.gpu_read_bandwidth_gbs);
    out.options.gpu_floor = std::move(engines.gpu_floor);
    if (!engines.gpu_engines.empty()) {
        // What the status bar and the benchmark exports say about the GPU.
        const hs::app::GpuInfo gpu = engines.query_gpu();
        out.options.gpu_device = QString::fromStdString(gpu.device);
        out.options.gpu_absence = QString::fromStdString(gpu.absence);
        out.options.gpu_l2_bytes = gpu.l2_bytes;
    }
    return out;
}

}  // namespace hs::gui
