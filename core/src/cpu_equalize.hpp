#pragma once
// The "cpu" equalizer's work (cpu_equalize.cpp): equalize_reference()'s values, each stage timed
// on the host clock.

#include "histoscope/core/engine.hpp"

namespace hs::detail {

// For a valid request.
EqualizeResult cpu_equalize(const EqualizeRequest& request);

}  // namespace hs::detail
