#pragma once
// The kernel comparison on the controller's thread: core's benchmark (hs::bench_engine, the
// same as `histoscope-cli bench`) for every engine of the registry on one request, with its runs
// in chunks so that a cancel is heard within about a second and progress moves with the runs.

#include <QString>
#include <atomic>
#include <functional>

#include "histoscope/core/bench.hpp"
#include "histoscope/core/engine.hpp"
#include "histoscope/ui/controller.hpp"
#include "histoscope/ui/types.hpp"

namespace hs::ui {

class EngineChoice;

struct BenchHooks {
    const std::atomic<bool>* cancel = nullptr;  // checked between chunks of runs
    std::function<void(const BenchContext& context, int total_runs)> started;
    std::function<void(int runs_done, int total_runs, const QString& engine)> progress;
    std::function<void(const BenchRow& row)> row;
};

// Every engine of `registry` on `request` (`input` names the image) under core's rules for the
// GPU of `options`, verified against the CPU reference, each row with its share of the read
// bandwidth of the device it runs on (`choice`). False when cancelled. Throws what the CPU
// reference throws for the request.
bool compare_engines(hs::EngineRegistry& registry, const hs::HistogramRequest& request,
                     const QString& input, int runs, const ControllerOptions& options,
                     EngineChoice& choice, const BenchHooks& hooks);

}  // namespace hs::ui
