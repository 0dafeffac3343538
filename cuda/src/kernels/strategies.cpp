// The table of histogram strategies (see strategies.hpp). Adding a strategy: its three files
// under kernels/, one line in the table below (and its factory's declaration beside it), one
// line in cuda/CMakeLists.txt; docs/ARCHITECTURE.md walks through it.

#include "kernels/strategies.hpp"

namespace hs::cuda::detail {

// Each defined in its kernels/<strategy>_engine.cpp.
std::unique_ptr<HistogramEngine> make_lane_private_engine();
std::unique_ptr<HistogramEngine> make_packed_engine();
std::unique_ptr<HistogramEngine> make_warp_private_engine();
std::unique_ptr<HistogramEngine> make_block_shared_engine();
std::unique_ptr<HistogramEngine> make_cub_engine();
std::unique_ptr<HistogramEngine> make_npp_engine();
std::unique_ptr<HistogramEngine> make_thread_private_engine();
std::unique_ptr<HistogramEngine> make_global_atomic_engine();
std::unique_ptr<HistogramEngine> make_sort_search_engine();
std::unique_ptr<HistogramEngine> make_packed_sat_engine();

namespace {

constexpr Strategy kStrategies[] = {
    {"lane-private", make_lane_private_engine},
    {"packed", make_packed_engine},
    {"warp-private", make_warp_private_engine},
    {"block-shared", make_block_shared_engine},
    {"cub", make_cub_engine},
#ifdef HS_HAVE_NPP  // where CMake found NPP's histogram primitives
    {"npp", make_npp_engine},
#endif
    {"thread-private", make_thread_private_engine},
    {"global-atomic", make_global_atomic_engine},
    {"sort-search", make_sort_search_engine},
    {"packed-sat", make_packed_sat_engine},
};

}  // namespace

std::span<const Strategy> strategies() {
    return kStrategies;
}

}  // namespace hs::cuda::detail
