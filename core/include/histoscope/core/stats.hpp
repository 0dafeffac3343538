#pragma once
// Exact statistics of one channel, computed from its full-resolution value histogram (one
// bin per code value), so they do not depend on the histogram's binning.
//
// Percentile p (0..100) uses the nearest-rank rule: the smallest value v such that at least
// ceil(p / 100 * N) samples are <= v (p = 0 gives the minimum). The median is percentile 50.
// std is the population standard deviation. clipped_low/high count samples at 0 and at the
// largest code value of the declared depth; below/above count samples outside the spec.
//
// Float samples (FloatStats) have no code values: their statistics are of the finite samples
// (NaN and infinities counted apart), the mean and std from exact sums (every float added as
// the integer multiple of 2^-149 it is, squares as multiples of 2^-298, rounded once at the
// end), min, max and the nearest-rank percentiles exact floats found by a two-pass radix
// select over the floats' order; below/above count what the float bins leave out.

#include <cstdint>
#include <utility>
#include <vector>

#include "histoscope/core/channels.hpp"
#include "histoscope/core/histogram.hpp"
#include "histoscope/core/image.hpp"

namespace hs {

struct Stats {
    std::uint64_t count = 0;
    double mean = 0.0;
    double stddev = 0.0;
    std::uint32_t min = 0;
    std::uint32_t max = 0;
    std::uint32_t median = 0;
    std::vector<std::pair<double, std::uint32_t>> percentiles;
    std::uint64_t clipped_low = 0;
    std::uint64_t clipped_high = 0;
    std::uint64_t below_range = 0;
    std::uint64_t above_range = 0;
};

inline const std::vector<double> kDefaultPercentiles{1, 5, 25, 75, 95, 99};

struct FloatStats {
    std::uint64_t count = 0;       // finite samples
    std::uint64_t non_finite = 0;  // NaN, +-infinity
    double mean = 0.0;
    double stddev = 0.0;
    float min = 0.0f;
    float max = 0.0f;
    float median = 0.0f;
    std::vector<std::pair<double, float>> percentiles;
    std::uint64_t below_range = 0;
    std::uint64_t above_range = 0;
};

// `value_counts[v]` = number of samples equal to v. `max_code` = largest value of the depth.
Stats stats_from_values(const std::vector<std::uint64_t>& value_counts, std::uint32_t max_code,
                        const HistogramSpec& spec,
                        const std::vector<double>& percentiles = kDefaultPercentiles);

// UsageError for float samples (compute_float_stats()).
Stats compute_stats(const ImageView& image, Channel channel, const HistogramSpec& spec,
                    const std::vector<double>& percentiles = kDefaultPercentiles);
// The statistics of a float image's channel (luma709: its luminance) with the float bins of
// `spec`. UsageError for integer samples or an integer spec.
FloatStats compute_float_stats(const ImageView& image, Channel channel, const HistogramSpec& spec,
                               const std::vector<double>& percentiles = kDefaultPercentiles);

// Nearest-rank percentile of a value histogram (see above). Requires a non-empty histogram.
std::uint32_t percentile(const std::vector<std::uint64_t>& value_counts, std::uint64_t total,
                         double p);

}  // namespace hs
