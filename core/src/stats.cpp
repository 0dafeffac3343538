#include "histoscope/core/stats.hpp"

#include <algorithm>
#include <cmath>

#include "histoscope/core/error.hpp"

namespace hs {

namespace {
// Exact sums of values and squares: N * 65535^2 overflows 64 bits past 4 Gsamples.
__extension__ typedef unsigned __int128 u128;

// Nearest rank of percentile p among `total` samples: ceil(p/100 * N), at least 1.
std::uint64_t nearest_rank(double p, std::uint64_t total) {
    if (!(p >= 0.0 && p <= 100.0)) throw UsageError("percentile must lie within 0..100");
    const auto rank = static_cast<std::uint64_t>(std::ceil(p / 100.0 * static_cast<double>(total)));
    return std::max<std::uint64_t>(rank, 1);
}
}  // namespace

std::uint32_t percentile(const std::vector<std::uint64_t>& value_counts, std::uint64_t total,
                         double p) {
    if (total == 0) throw UsageError("percentile of an empty histogram");
    // The smallest v with at least that many samples <= v.
    const std::uint64_t rank = nearest_rank(p, total);
    std::uint64_t seen = 0;
    for (std::size_t v = 0; v < value_counts.size(); ++v) {
        seen += value_counts[v];
        if (seen >= rank) return static_cast<std::uint32_t>(v);
    }
    return static_cast<std::uint32_t>(value_counts.size() - 1);
}

Stats stats_from_values(const std::vector<std::uint64_t>& value_counts, std::uint32_t max_code,
                        const HistogramSpec& spec, const std::vector<double>& percentiles) {
    Stats s;
    u128 sum = 0, sum_sq = 0;
    bool first = true;
    for (std::size_t v = 0; v < value_counts.size(); ++v) {
        const std::uint64_t n = value_counts[v];
        if (n == 0) continue;
        if (first) s.min = static_cast<std::uint32_t>(v);
        first = false;
        s.max = static_cast<std::uint32_t>(v);
        s.count += n;
        sum += static_cast<u128>(n) * v;
        sum_sq += static_cast<u128>(n) * v * v;
        // Outside the spec: where bin_of() finds no bin (without its division per value).
        const bool below = spec.has_edges() ? static_cast<double>(v) < spec.edges.front()
                                            : static_cast<std::int64_t>(v) < spec.lower;
        const bool above = spec.has_edges() ? static_cast<double>(v) >= spec.edges.back()
                                            : static_cast<std::int64_t>(v) >= spec.upper;
        if (below) s.below_range += n;
        if (above) s.above_range += n;
    }
    if (s.count == 0) return s;
    if (!value_counts.empty()) s.clipped_low = value_counts[0];
    if (max_code < value_counts.size()) s.clipped_high = value_counts[max_code];
    const auto n = static_cast<long double>(s.count);
    const long double mean = static_cast<long double>(sum) / n;
    // Variance from exact integer sums: (N * sum_sq - sum^2) / N^2, without cancellation.
    const u128 num = static_cast<u128>(s.count) * sum_sq - sum * sum;
    s.mean = static_cast<double>(mean);
    s.stddev = static_cast<double>(std::sqrt(static_cast<long double>(num) / (n * n)));
    // Every percentile (the median is p50) in one pass over the cumulative counts, each rank as
    // percentile() takes it.
    std::vector<std::pair<std::uint64_t, std::size_t>> ranks;  // rank, which (last: the median)
    for (std::size_t i = 0; i < percentiles.size(); ++i)
        ranks.emplace_back(nearest_rank(percentiles[i], s.count), i);
    ranks.emplace_back(nearest_rank(50.0, s.count), percentiles.size());
    std::sort(ranks.begin(), ranks.end());
    const auto last = static_cast<std::uint32_t>(value_counts.size() - 1);
    std::vector<std::uint32_t> found(percentiles.size(), last);
    s.median = last;
    std::uint64_t seen = 0;
    std::size_t next = 0;
    for (std::size_t v = 0; v < value_counts.size() && next < ranks.size(); ++v) {
        seen += value_counts[v];
        for (; next < ranks.size() && seen >= ranks[next].first; ++next) {
            const std::size_t which = ranks[next].second;
            if (which < found.size())
                found[which] = static_cast<std::uint32_t>(v);
            else
                s.median = static_cast<std::uint32_t>(v);
        }
    }
    for (std::size_t i = 0; i < percentiles.size(); ++i)
        s.percentiles.emplace_back(percentiles[i], found[i]);
    return s;
}

Stats compute_stats(const ImageView& image, Channel channel, const HistogramSpec& spec,
                    const std::vector<double>& percentiles) {
    spec.validate();
    for (double p : percentiles)
        if (!(p >= 0.0 && p <= 100.0)) throw UsageError("percentile must lie within 0..100");
    const std::int64_t codes = std::int64_t{channel_max_value(channel, image.type)} + 1;
    const auto values = reference_histogram(image, {channel},
                                            HistogramSpec::even(static_cast<int>(codes), 0, codes));
    return stats_from_values(values.front().counts, image.max_value(), spec, percentiles);
}

}  // namespace hs
