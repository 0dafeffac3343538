#pragma once
// One engine's row of the kernel comparison: benchmark(), medians, Gpix/s and the verdict
// against the CPU reference. Runs on the controller's thread.

#include <vector>

#include "histoscope/core/engine.hpp"
#include "histoscope/core/histogram.hpp"
#include "histoscope/ui/types.hpp"

namespace hs::ui {

BenchRow benchmark_engine(hs::HistogramEngine& engine, const hs::HistogramRequest& request,
                          const std::vector<hs::ChannelHistogram>& reference, int runs);

}  // namespace hs::ui
