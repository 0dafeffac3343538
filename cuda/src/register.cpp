#include "histoscope/cuda/register.hpp"

#include "equalize/equalize_engine.hpp"
#include "kernels/strategies.hpp"

namespace hs::cuda {

void register_engines(EngineRegistry& registry) {
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
    registry.add_equalizer(detail::make_gpu_equalize_engine());
}

}  // namespace hs::cuda
