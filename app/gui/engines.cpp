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
#endif
    return out;
}

}  // namespace hs::gui
