#pragma once
// The "gpu" scope engine (scope_engine.cpp; kernels in scope_kernels.cu).

#include <cstdint>
#include <memory>
#include <vector>

#include "histoscope/core/scopes.hpp"

namespace hs::cuda::detail {

// The planes of `spec` for `image` filled from the kernels' 32-bit counts (launch_scope's
// layout: plane after plane).
std::vector<ScopePlane> planes_of(const ImageView& image, const ScopeSpec& spec,
                                  const std::uint32_t* counts);

std::unique_ptr<ScopeEngine> make_gpu_scope_engine();

}  // namespace hs::cuda::detail
