#include "histoscope/cuda/register.hpp"

#include <vector>

#include "equalize/equalize_engine.hpp"
#include "kernels/strategies.hpp"
#include "pipeline/frame_pipeline.hpp"
#include "scopes/scope_engine.hpp"

namespace hs::cuda {

void register_engines(EngineRegistry& registry) {
    std::vector<HistogramEngine*> gpu;
    for (const detail::Strategy& s : detail::strategies()) {
        registry.add(detail::make_engine(s));
        gpu.push_back(registry.find(s.name));
    }
    // Last: it delegates to the GPU engines above (owned by the registry, as auto is).
    registry.add(detail::make_auto_engine(std::move(gpu)));
    registry.add_equalizer(detail::make_gpu_equalize_engine());
    registry.add_stream_engine(detail::make_pipeline_stream_engine(registry));
    registry.add_scope_engine(detail::make_gpu_scope_engine());
}

}  // namespace hs::cuda
