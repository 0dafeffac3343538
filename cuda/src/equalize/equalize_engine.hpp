#pragma once
// The "gpu" equalization engine (equalize_engine.cpp; kernels in equalize_kernels.cu).

#include <memory>

#include "histoscope/core/engine.hpp"

namespace hs::cuda::detail {

std::unique_ptr<EqualizeEngine> make_gpu_equalize_engine();

}  // namespace hs::cuda::detail
