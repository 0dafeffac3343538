#pragma once
// The "gpu" scope engine (scope_engine.cpp; kernels in scope_kernels.cu).

#include <memory>

#include "histoscope/core/scopes.hpp"

namespace hs::cuda::detail {

std::unique_ptr<ScopeEngine> make_gpu_scope_engine();

}  // namespace hs::cuda::detail
