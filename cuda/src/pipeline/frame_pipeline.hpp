#pragma once
// The "gpu" stream engine: the GPU frame pipeline (frame_pipeline.cpp).

#include <memory>

#include "histoscope/core/stream.hpp"

namespace hs::cuda::detail {

// Runs the kernels of the GPU histogram engines of `registry`, which must outlive it.
std::unique_ptr<StreamEngine> make_pipeline_stream_engine(const EngineRegistry& registry);

}  // namespace hs::cuda::detail
