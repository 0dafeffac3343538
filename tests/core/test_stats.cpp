#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "histoscope/core/error.hpp"
#include "histoscope/core/stats.hpp"
#include "synthetic.hpp"

using namespace hs;

namespace {

// Nearest rank over the sorted samples, straight from the definition.
std::uint32_t nearest_rank(std::vector<std::uint32_t> v, double p) {
    std::sort(v.begin(), v.end());
    auto rank = static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(v.size())));
    return v[std::max<std::size_t>(rank, 1) - 1];
}

void expect_stats_match_samples(const Image& img, Channel c, const HistogramSpec& spec) {
    const auto values = channel_values(img.view(), c);
    const Stats s = compute_stats(img.view(), c, spec, {0, 1, 10, 50, 90, 99.9, 100});
    long double sum = 0;
    for (auto v : values) sum += v;
    const long double mean = sum / static_cast<long double>(values.size());
    long double sq = 0;
    for (auto v : values) sq += (v - mean) * (v - mean);
    EXPECT_EQ(s.count, values.size());
    EXPECT_NEAR(s.mean, static_cast<double>(mean), 1e-9 * static_cast<double>(mean + 1));
    EXPECT_NEAR(s.stddev,
                std::sqrt(static_cast<double>(sq / static_cast<long double>(values.size()))), 1e-7);
    EXPECT_EQ(s.min, *std::min_element(values.begin(), values.end()));
    EXPECT_EQ(s.max, *std::max_element(values.begin(), values.end()));
    EXPECT_EQ(s.median, nearest_rank(values, 50));
    for (const auto& [p, v] : s.percentiles) EXPECT_EQ(v, nearest_rank(values, p)) << "p" << p;
    const auto max_code = img.view().max_value();
    EXPECT_EQ(s.clipped_low,
              static_cast<std::uint64_t>(std::count(values.begin(), values.end(), 0u)));
    EXPECT_EQ(s.clipped_high,
              static_cast<std::uint64_t>(std::count(values.begin(), values.end(), max_code)));
    std::uint64_t below = 0, above = 0;
    for (auto v : values)
        if (bin_of(spec, v) < 0)
            (static_cast<std::int64_t>(v) < spec.thresholds().front() ? below : above)++;
    EXPECT_EQ(s.below_range, below);
    EXPECT_EQ(s.above_range, above);
}

}  // namespace

TEST(Stats, MatchSamplesOnSyntheticImages) {
    const Image u8 = hs::test::uniform(101, 37, 3, SampleType::U8, 8, 3);
    expect_stats_match_samples(u8, Channel::G, HistogramSpec::even(256, 0, 256));
    expect_stats_match_samples(u8, Channel::Luma601, HistogramSpec::even(16, 20, 200));
    const Image g = hs::test::gaussian(64, 64, 1, SampleType::U16, 12, 40.0);
    expect_stats_match_samples(g, Channel::Gray, HistogramSpec::with_edges({2000, 2047.5, 2100}));
    const Image one = hs::test::constant(1, 1, 1, SampleType::U8, 8, 255);
    expect_stats_match_samples(one, Channel::Gray, HistogramSpec::even(256, 0, 256));
}

TEST(Stats, PercentileRule) {
    // Values 1..10 once each: p50 -> rank 5 -> 5; p0 -> min; p100 -> max; p95 -> rank 10.
    std::vector<std::uint64_t> counts(11, 1);
    counts[0] = 0;
    EXPECT_EQ(percentile(counts, 10, 50), 5u);
    EXPECT_EQ(percentile(counts, 10, 0), 1u);
    EXPECT_EQ(percentile(counts, 10, 100), 10u);
    EXPECT_EQ(percentile(counts, 10, 95), 10u);
    EXPECT_EQ(percentile(counts, 10, 10), 1u);
    EXPECT_EQ(percentile(counts, 10, 10.1), 2u);
    EXPECT_THROW(percentile(counts, 10, 101), UsageError);
    EXPECT_THROW(percentile(counts, 0, 50), UsageError);
}

TEST(Stats, ExactOnLargeSums) {
    // All samples 65535: mean exact, std exactly zero (no cancellation).
    const Image img = hs::test::constant(1000, 1000, 1, SampleType::U16, 16, 65535);
    const Stats s = compute_stats(img.view(), Channel::Gray, HistogramSpec::even(256, 0, 65536));
    EXPECT_EQ(s.mean, 65535.0);
    EXPECT_EQ(s.stddev, 0.0);
    EXPECT_EQ(s.clipped_high, 1000000u);
    EXPECT_EQ(s.clipped_low, 0u);
}

// The percentiles stats_from_values() finds in one pass are percentile()'s, in any order asked,
// on sparse and dense histograms, with counts outside the spec on both sides.
TEST(Stats, OnePassPercentilesArePercentileRule) {
    const std::vector<double> asked{99.9, 0, 50, 0.1, 100, 1, 25, 75, 10.1};
    for (const unsigned seed : {1u, 2u, 3u}) {
        std::vector<std::uint64_t> counts(4096, 0);
        std::uint64_t state = seed;
        for (std::size_t v = 0; v < counts.size(); ++v) {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            counts[v] = (state >> 60) < 3 ? (state >> 40) % 1000 : 0;  // sparse, uneven
        }
        std::uint64_t total = 0;
        for (const auto c : counts) total += c;
        const HistogramSpec spec = HistogramSpec::even(64, 100, 4000);
        const Stats s = stats_from_values(counts, 4095, spec, asked);
        ASSERT_EQ(s.percentiles.size(), asked.size());
        for (std::size_t i = 0; i < asked.size(); ++i) {
            EXPECT_EQ(s.percentiles[i].first, asked[i]);
            EXPECT_EQ(s.percentiles[i].second, percentile(counts, total, asked[i])) << asked[i];
        }
        EXPECT_EQ(s.median, percentile(counts, total, 50));
        std::uint64_t below = 0, above = 0;
        for (std::size_t v = 0; v < counts.size(); ++v) {
            if (bin_of(spec, static_cast<std::int64_t>(v)) >= 0) continue;
            (v < 100 ? below : above) += counts[v];
        }
        EXPECT_EQ(s.below_range, below);
        EXPECT_EQ(s.above_range, above);
    }
}
