#include "app_engines.hpp"

#include "histoscope/core/scopes.hpp"
#include "histoscope/media/media.hpp"
#ifdef HS_HAVE_CUDA
#include "histoscope/cuda/device.hpp"
#include "histoscope/cuda/register.hpp"
#endif

namespace hs::app {

Engines make_engines() {
    Engines out;
    out.registry = std::make_unique<EngineRegistry>();
    register_core_engines(*out.registry);
    media::register_engines(*out.registry);
#ifdef HS_HAVE_CUDA
    const std::size_t before = out.registry->engines().size();
    const std::size_t scopes_before = out.registry->scope_engines().size();
    cuda::register_engines(*out.registry);
    for (std::size_t i = before; i < out.registry->engines().size(); ++i)
        out.gpu_engines.emplace_back(out.registry->engines()[i]->name());
    for (std::size_t i = scopes_before; i < out.registry->scope_engines().size(); ++i)
        out.gpu_scope_engines.emplace_back(out.registry->scope_engines()[i]->name());
    out.query_gpu = [] {
        const cuda::DeviceQuery query = cuda::query_devices();
        GpuInfo info;
        if (query.devices.empty()) {
            info.absence = query.driver_version == 0 ? "no NVIDIA driver" : "no NVIDIA GPU";
            return info;
        }
        auto version = [](int v) {
            return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
        };
        const cuda::DeviceInfo& d = query.devices.front();
        info.device = d.name + " (sm_" + std::to_string(d.cc_major) + std::to_string(d.cc_minor) +
                      "), driver CUDA " + version(query.driver_version) + ", runtime " +
                      version(query.runtime_version);
        info.l2_bytes = d.l2_cache;
        return info;
    };
    out.gpu_read_bandwidth_gbs = [] { return cuda::measure_read_bandwidth_gbs(); };
    out.gpu_floor = cuda::measure_read_floor;
#else
    out.query_gpu = [] { return GpuInfo{{}, "built without CUDA", 0}; };
#endif
    return out;
}

}  // namespace hs::app
