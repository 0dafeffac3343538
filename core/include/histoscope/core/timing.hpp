#pragma once
// The two timing helpers every measurement in Histoscope uses.

#include <chrono>
#include <vector>

namespace hs {

// Milliseconds since `start` on the steady clock.
double ms_since(std::chrono::steady_clock::time_point start);
// The median of `values` (the mean of the middle two for an even count; 0 when empty).
double median(std::vector<double> values);

}  // namespace hs
