#include "histoscope/core/stats.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <mutex>

#include "big_integer.hpp"
#include "histoscope/core/error.hpp"
#include "parallel.hpp"

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
    require_integer_samples(image, "statistics from code values");
    spec.validate();
    for (double p : percentiles)
        if (!(p >= 0.0 && p <= 100.0)) throw UsageError("percentile must lie within 0..100");
    const std::int64_t codes = std::int64_t{channel_max_value(channel, image.type)} + 1;
    const auto values = reference_histogram(image, {channel},
                                            HistogramSpec::even(static_cast<int>(codes), 0, codes));
    return stats_from_values(values.front().counts, image.max_value(), spec, percentiles);
}

namespace {

// Floats in their order as unsigned keys: -inf < ... < -0 < +0 < ... < +inf.
std::uint32_t order_key(float v) {
    const auto bits = std::bit_cast<std::uint32_t>(v);
    return (bits >> 31) != 0 ? ~bits : bits | 0x80000000u;
}
float from_order_key(std::uint32_t key) {
    return std::bit_cast<float>((key >> 31) != 0 ? key & 0x7FFFFFFFu : ~key);
}

// One part's exact sums and first pass: per exponent field e of the finite floats, the sum of
// their signed significands (times 2^(max(e, 1) - 150) each) and of their squares; counts of
// the top 16 bits of their order keys.
struct FloatPart {
    std::array<std::int64_t, 255> sum{};
    std::array<detail::UWide, 255> sum_sq{};
    std::vector<std::uint64_t> top = std::vector<std::uint64_t>(65536, 0);
    std::uint64_t count = 0, non_finite = 0;
    float min = std::numeric_limits<float>::infinity();
    float max = -std::numeric_limits<float>::infinity();

    void add(float v) {
        const auto bits = std::bit_cast<std::uint32_t>(v);
        const std::uint32_t field = (bits >> 23) & 0xFFu;
        if (field == 0xFFu) {
            ++non_finite;
            return;
        }
        ++count;
        min = std::min(min, v);
        max = std::max(max, v);
        const auto m = static_cast<std::int64_t>(field == 0 ? bits & 0x7FFFFFu
                                                            : (bits & 0x7FFFFFu) | 0x800000u);
        sum[field] += (bits >> 31) != 0 ? -m : m;
        sum_sq[field] += static_cast<detail::UWide>(m * m);
        ++top[order_key(v) >> 16];
    }
};

// The value of every rank (1-based, among the sorted finite values) from the first pass's counts
// and a second pass over `values` for the buckets the ranks fall in.
template <typename ForEach>
std::vector<float> values_at_ranks(const std::vector<std::uint64_t>& top,
                                   const std::vector<std::uint64_t>& ranks, ForEach&& for_each) {
    // Each rank's bucket and its rank inside it.
    std::vector<std::uint32_t> buckets;
    std::vector<std::pair<std::size_t, std::uint64_t>> where;  // index into buckets, rank within
    for (const std::uint64_t rank : ranks) {
        std::uint64_t seen = 0;
        std::uint32_t b = 0;
        for (; b < 65535 && seen + top[b] < rank; ++b) seen += top[b];
        const auto it = std::find(buckets.begin(), buckets.end(), b);
        where.emplace_back(static_cast<std::size_t>(it - buckets.begin()), rank - seen);
        if (it == buckets.end()) buckets.push_back(b);
    }
    std::vector<std::vector<std::uint64_t>> low(buckets.size(),
                                                std::vector<std::uint64_t>(65536, 0));
    std::mutex mutex;
    for_each([&](const float* begin, const float* end) {
        std::vector<std::vector<std::uint64_t>> mine(low.size(),
                                                     std::vector<std::uint64_t>(65536, 0));
        for (const float* v = begin; v != end; ++v) {
            if (!std::isfinite(*v)) continue;
            const std::uint32_t key = order_key(*v);
            for (std::size_t i = 0; i < buckets.size(); ++i)
                if (key >> 16 == buckets[i]) ++mine[i][key & 0xFFFFu];
        }
        const std::lock_guard lock(mutex);
        for (std::size_t i = 0; i < low.size(); ++i)
            for (std::size_t k = 0; k < 65536; ++k) low[i][k] += mine[i][k];
    });
    std::vector<float> out;
    for (const auto& [i, rank] : where) {
        std::uint64_t seen = 0;
        std::uint32_t k = 0;
        for (; k < 65535 && seen + low[i][k] < rank; ++k) seen += low[i][k];
        out.push_back(from_order_key(buckets[i] << 16 | k));
    }
    return out;
}

}  // namespace

FloatStats compute_float_stats(const ImageView& image, Channel channel, const HistogramSpec& spec,
                               const std::vector<double>& percentiles) {
    validate(image);
    spec.validate_for(image);
    check_channel(channel, image.channels, image.type);
    for (double p : percentiles)
        if (!(p >= 0.0 && p <= 100.0)) throw UsageError("percentile must lie within 0..100");
    // The values, once (luminance computed as the histograms compute it), in parts of rows.
    const std::vector<float> values = float_channel_values(image, channel);
    const auto n = static_cast<std::int64_t>(values.size());
    constexpr std::int64_t kPart = std::int64_t{1} << 20;
    const auto for_each_part = [&](auto&& f) {
        detail::parallel_ranges((n + kPart - 1) / kPart, 1, [&](std::int64_t a, std::int64_t b) {
            for (std::int64_t p = a; p < b; ++p)
                f(values.data() + p * kPart, values.data() + std::min(n, (p + 1) * kPart));
        });
    };
    FloatPart all;
    std::mutex mutex;
    for_each_part([&](const float* begin, const float* end) {
        FloatPart mine;
        for (const float* v = begin; v != end; ++v) mine.add(*v);
        const std::lock_guard lock(mutex);
        all.count += mine.count;
        all.non_finite += mine.non_finite;
        all.min = std::min(all.min, mine.min);
        all.max = std::max(all.max, mine.max);
        for (std::size_t e = 0; e < 255; ++e) {
            all.sum[e] += mine.sum[e];
            all.sum_sq[e] += mine.sum_sq[e];
        }
        for (std::size_t k = 0; k < 65536; ++k) all.top[k] += mine.top[k];
    });
    FloatStats s;
    s.count = all.count;
    s.non_finite = all.non_finite;
    const ChannelHistogram binned = reference_histogram(image, {channel}, spec).front();
    s.below_range = binned.below_range;
    s.above_range = binned.above_range;
    if (s.count == 0) return s;
    s.min = all.min;
    s.max = all.max;
    // A = sum * 2^149 and B = sum of squares * 2^298, as integers.
    detail::Signed a;
    detail::Big b;
    for (std::size_t e = 0; e < 255; ++e) {
        const int shift = std::max(static_cast<int>(e), 1) - 1;  // (max(e, 1) - 150) + 149
        if (all.sum[e] != 0)
            a = detail::add(a, detail::Signed{all.sum[e] < 0,
                                              detail::shift_left(
                                                  detail::Big::of(static_cast<detail::UWide>(
                                                      all.sum[e] < 0 ? -all.sum[e] : all.sum[e])),
                                                  static_cast<std::uint64_t>(shift))});
        if (all.sum_sq[e] != 0)
            b = detail::add(b, detail::shift_left(detail::Big::of(all.sum_sq[e]),
                                                  static_cast<std::uint64_t>(2 * shift)));
    }
    const auto count = static_cast<long double>(s.count);
    const long double sum = (a.negative ? -1.0L : 1.0L) * detail::approximate(a.magnitude);
    s.mean = static_cast<double>(std::ldexp(sum, -149) / count);
    // Variance = (N B - A^2) / (N^2 2^298): an exact, non-negative numerator.
    const detail::Big nb = detail::multiply(detail::Big::of(s.count), b);
    const detail::Big aa = detail::multiply(a.magnitude, a.magnitude);
    const detail::Big num = detail::compare(nb, aa) > 0 ? detail::subtract(nb, aa) : detail::Big{};
    s.stddev = static_cast<double>(
        std::sqrt(std::ldexp(detail::approximate(num), -298) / (count * count)));
    // Percentiles and the median by nearest rank among the finite values.
    std::vector<std::uint64_t> ranks;
    for (double p : percentiles) ranks.push_back(nearest_rank(p, s.count));
    ranks.push_back(nearest_rank(50.0, s.count));
    const std::vector<float> at = values_at_ranks(all.top, ranks, for_each_part);
    for (std::size_t i = 0; i < percentiles.size(); ++i)
        s.percentiles.emplace_back(percentiles[i], at[i]);
    s.median = at.back();
    return s;
}

}  // namespace hs
