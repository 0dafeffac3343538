#pragma once
// One factory per kernel strategy (each defined in its own file under kernels/). The
// registry (register.cpp) adds them in this order; the CLI, the GUI and the tests reach the
// engines only through the registry.

#include <memory>

#include "histoscope/core/engine.hpp"

namespace hs::cuda::detail {

std::unique_ptr<HistogramEngine> make_block_shared_engine();

}  // namespace hs::cuda::detail
