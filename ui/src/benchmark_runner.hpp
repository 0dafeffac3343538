#pragma once
// The kernel comparison on the controller's thread: every engine of the registry on one
// request, its runs timed a few at a time so that a cancel is heard within about a second and
// progress moves with every run; each row verified against the CPU reference.

#include <atomic>
#include <functional>
#include <vector>

#include "histoscope/core/engine.hpp"
#include "histoscope/core/histogram.hpp"
#include "histoscope/ui/types.hpp"

namespace hs::ui {

class EngineChoice;

struct BenchHooks {
    const std::atomic<bool>* cancel = nullptr;  // checked between chunks of runs
    std::function<void(const BenchContext& context, int total_runs)> started;
    std::function<void(int runs_done, int total_runs, const QString& engine)> progress;
    std::function<void(const BenchRow& row)> row;
};

// What makes a comparison of `request` reproducible: the image, the spec, the runs, the GPU
// (or "none"), the CPU and its read bandwidth, the date and the application's version.
BenchContext bench_context(const hs::HistogramRequest& request, const QString& input, int runs,
                           const QString& gpu_device, double host_read_bandwidth_gbs);

// One engine's row: `runs` timed runs after 2 warm-up runs (unavailable and unsupported
// engines get a row saying why); `progress` gets the runs of this engine done. False when
// cancelled (no row then).
bool benchmark_engine(hs::HistogramEngine& engine, const hs::HistogramRequest& request,
                      const std::vector<hs::ChannelHistogram>& reference, int runs,
                      const BenchHooks& hooks, BenchRow& row,
                      const std::function<void(int runs_done)>& progress);

// Every engine of `registry` on `request` (`input` names the image), verified against the CPU
// reference, each row with its share of the read bandwidth of the device it runs on (`choice`).
// False when cancelled. Throws what the CPU reference throws for the request.
bool compare_engines(hs::EngineRegistry& registry, const hs::HistogramRequest& request,
                     const QString& input, int runs, const QString& gpu_device,
                     EngineChoice& choice, const BenchHooks& hooks);

}  // namespace hs::ui
