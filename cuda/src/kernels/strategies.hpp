#pragma once
// One factory per kernel strategy (each defined in its own file under kernels/). The
// registry (register.cpp) adds them in this order; the CLI, the GUI and the tests reach the
// engines only through the registry.

#include <memory>
#include <vector>

#include "histoscope/core/engine.hpp"

namespace hs::cuda::detail {

std::unique_ptr<HistogramEngine> make_block_shared_engine();
std::unique_ptr<HistogramEngine> make_warp_private_engine();
std::unique_ptr<HistogramEngine> make_thread_private_engine();
std::unique_ptr<HistogramEngine> make_packed_engine();
std::unique_ptr<HistogramEngine> make_packed_sat_engine();
std::unique_ptr<HistogramEngine> make_global_atomic_engine();
std::unique_ptr<HistogramEngine> make_cub_engine();
std::unique_ptr<HistogramEngine> make_sort_search_engine();
std::unique_ptr<HistogramEngine> make_npp_engine();  // defined only with HS_HAVE_NPP
std::unique_ptr<HistogramEngine> make_lane_private_engine();
// "auto" (cuda/src/auto/): delegates to `engines`, which must outlive it.
std::unique_ptr<HistogramEngine> make_auto_engine(std::vector<HistogramEngine*> engines);

}  // namespace hs::cuda::detail
