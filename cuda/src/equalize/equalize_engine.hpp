#pragma once
// The "gpu" equalization engine (equalize_engine.cpp; kernels in equalize_kernels.cu).

#include <memory>
#include <string>

#include "histoscope/core/engine.hpp"

namespace hs::cuda::detail {

std::unique_ptr<EqualizeEngine> make_gpu_equalize_engine();
// Why the GPU equalization kernels cannot serve a valid `request` (empty when they can).
std::string gpu_equalize_refusal(const EqualizeRequest& request);

}  // namespace hs::cuda::detail
