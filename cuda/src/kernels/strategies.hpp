#pragma once
// The histogram strategies, listed once in kernels/strategies.cpp: one row each (struct
// Strategy, gpu_engine.hpp), which GpuEngine turns into an engine. The registry adds them in
// that order (register.cpp), "auto" falls back to them in that order when its learned map
// names none that serves a request (auto/auto_select.cpp), and `scripts/gpu.sh learn-auto`
// benchmarks every one the registry has.

#include <memory>
#include <span>
#include <vector>

#include "gpu_engine.hpp"
#include "histoscope/core/engine.hpp"

namespace hs::cuda::detail {

// The table: fastest first in the H100 benchmarks of docs/PERFORMANCE.md.
std::span<const Strategy> strategies();

// The engine of one row.
std::unique_ptr<HistogramEngine> make_engine(const Strategy& strategy);

// "auto" (auto/auto_engine.cpp): delegates to `engines`, which must outlive it.
std::unique_ptr<HistogramEngine> make_auto_engine(std::vector<HistogramEngine*> engines);

}  // namespace hs::cuda::detail
