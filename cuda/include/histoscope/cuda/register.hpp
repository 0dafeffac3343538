#pragma once
// The GPU engines, reached only through the registry: the one entry point of hs::cuda for the
// CLI, the UI and the tests. No CUDA types in this header.

#include "histoscope/core/engine.hpp"
#include "histoscope/cuda/device.hpp"

namespace hs::cuda {

// Adds every GPU histogram engine (in the order of the strategy table, kernels/strategies.hpp),
// "auto", the "gpu" equalizer and the "gpu" stream engine (the frame pipeline); each reports
// availability() false on a machine without a device.
void register_engines(EngineRegistry& registry);

}  // namespace hs::cuda
