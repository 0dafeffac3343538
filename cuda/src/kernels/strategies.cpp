// The table of histogram strategies (see strategies.hpp). Each row is made by its strategy's
// kernels/<strategy>_engine.cpp (name, summary, probe, capabilities, refusal, prepare), so
// adding a strategy is its files under kernels/, one line in the table below (and its row's
// declaration beside it) and one line in cuda/CMakeLists.txt; docs/ARCHITECTURE.md walks
// through it.

#include "kernels/strategies.hpp"

namespace hs::cuda::detail {

// Each defined in its kernels/<strategy>_engine.cpp.
Strategy lane_private_strategy();
Strategy packed_strategy();
Strategy warp_private_strategy();
Strategy block_shared_strategy();
Strategy cub_strategy();
Strategy npp_strategy();
Strategy thread_private_strategy();
Strategy global_atomic_strategy();
Strategy sort_search_strategy();
Strategy packed_sat_strategy();

std::span<const Strategy> strategies() {
    static const std::vector<Strategy> table = {
        lane_private_strategy(),
        packed_strategy(),
        warp_private_strategy(),
        block_shared_strategy(),
        cub_strategy(),
#ifdef HS_HAVE_NPP  // where CMake found NPP's histogram primitives
        npp_strategy(),
#endif
        thread_private_strategy(),
        global_atomic_strategy(),
        sort_search_strategy(),
        packed_sat_strategy(),
    };
    return table;
}

std::unique_ptr<HistogramEngine> make_engine(const Strategy& strategy) {
    return std::make_unique<GpuEngine>(strategy);
}

}  // namespace hs::cuda::detail
