#pragma once
// The histogram strategies, listed once in kernels/strategies.cpp. The registry adds them in
// that order (register.cpp), "auto" falls back to them in that order when its learned map
// names none that serves a request (auto/auto_select.cpp), and `scripts/gpu.sh learn-auto`
// benchmarks every one the registry has.

#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "histoscope/core/engine.hpp"

namespace hs::cuda::detail {

struct Strategy {
    std::string_view name;
    std::unique_ptr<HistogramEngine> (*make)();
};

// The table: fastest first in the H100 benchmarks of docs/PERFORMANCE.md.
std::span<const Strategy> strategies();

// "auto" (auto/auto_engine.cpp): delegates to `engines`, which must outlive it.
std::unique_ptr<HistogramEngine> make_auto_engine(std::vector<HistogramEngine*> engines);

}  // namespace hs::cuda::detail
