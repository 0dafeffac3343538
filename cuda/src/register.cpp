#include "histoscope/cuda/register.hpp"

#include <vector>

#include "equalize/equalize_engine.hpp"
#include "kernels/strategies.hpp"
#include "pipeline/frame_pipeline.hpp"

namespace hs::cuda {

void register_engines(EngineRegistry& registry) {
    const std::size_t first_gpu = registry.engines().size();
    registry.add(detail::make_lane_private_engine());
    registry.add(detail::make_block_shared_engine());
    registry.add(detail::make_warp_private_engine());
    registry.add(detail::make_thread_private_engine());
    registry.add(detail::make_packed_engine());
    registry.add(detail::make_packed_sat_engine());
    registry.add(detail::make_global_atomic_engine());
    registry.add(detail::make_cub_engine());
    registry.add(detail::make_sort_search_engine());
#ifdef HS_HAVE_NPP
    registry.add(detail::make_npp_engine());
#endif
    // Last: it delegates to the GPU engines above (owned by the registry, as auto is).
    std::vector<HistogramEngine*> gpu;
    for (std::size_t i = first_gpu; i < registry.engines().size(); ++i)
        gpu.push_back(registry.engines()[i].get());
    registry.add(detail::make_auto_engine(std::move(gpu)));
    registry.add_equalizer(detail::make_gpu_equalize_engine());
    registry.add_stream_engine(detail::make_pipeline_stream_engine(registry));
}

}  // namespace hs::cuda
