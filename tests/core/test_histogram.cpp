#include <gtest/gtest.h>

#include <algorithm>

#include "histoscope/core/error.hpp"
#include "histoscope/core/histogram.hpp"
#include "synthetic.hpp"

using namespace hs;
using hs::test::constant;
using hs::test::uniform;

namespace {

// Independent oracle: visits every pixel through ImageView::sample and bin_of.
std::vector<std::uint64_t> naive(const ImageView& v, Channel c, const HistogramSpec& spec) {
    std::vector<std::uint64_t> counts(static_cast<std::size_t>(spec.bins));
    for (int y = 0; y < v.height; ++y)
        for (int x = 0; x < v.width; ++x) {
            std::uint32_t value;
            if (is_luma(c) && v.channels > 1)
                value = luma(c == Channel::Luma601 ? kLuma601 : kLuma709, v.sample(x, y, 0),
                             v.sample(x, y, 1), v.sample(x, y, 2));
            else
                value = v.sample(x, y, channel_offset(c, v.channels));
            const auto b = bin_of(spec, value);
            if (b >= 0) ++counts[static_cast<std::size_t>(b)];
        }
    if (spec.saturate)
        for (auto& n : counts) n = std::min(n, *spec.saturate);
    return counts;
}

void expect_matches_naive(const Image& img, const HistogramSpec& spec) {
    const ImageView v = img.view();
    std::vector<Channel> channels = all_channels(v.channels);
    if (v.channels > 1) {
        channels.push_back(Channel::Luma601);
        channels.push_back(Channel::Luma709);
    }
    const auto ref = reference_histogram(v, channels, spec);
    ASSERT_EQ(ref.size(), channels.size());
    for (std::size_t k = 0; k < channels.size(); ++k)
        EXPECT_EQ(ref[k].counts, naive(v, channels[k], spec))
            << channel_name(channels[k]) << " " << spec.describe();
}

}  // namespace

TEST(Spec, ValidateRejectsNonsense) {
    EXPECT_THROW(HistogramSpec::even(0, 0, 256).validate(), UsageError);
    EXPECT_THROW(HistogramSpec::even(kMaxBins + 1, 0, 256).validate(), UsageError);
    EXPECT_THROW(HistogramSpec::even(16, 10, 10).validate(), UsageError);
    EXPECT_THROW(HistogramSpec::even(16, 10, 5).validate(), UsageError);
    EXPECT_THROW(HistogramSpec::with_edges({1.0}).validate(), UsageError);
    EXPECT_THROW(HistogramSpec::with_edges({0, 5, 5, 9}).validate(), UsageError);
    EXPECT_THROW(HistogramSpec::with_edges({0, 5, 3}).validate(), UsageError);
    HistogramSpec s = HistogramSpec::even(4, 0, 256);
    s.saturate = 0;
    EXPECT_THROW(s.validate(), UsageError);
}

TEST(Spec, UpperBoundIsExcludedLowerIncluded) {
    const auto s = HistogramSpec::even(4, 10, 20);
    EXPECT_EQ(bin_of(s, 9), -1);
    EXPECT_EQ(bin_of(s, 10), 0);
    EXPECT_EQ(bin_of(s, 12), 0);  // 2 * 4 / 10 = 0.8
    EXPECT_EQ(bin_of(s, 13), 1);  // 1.2
    EXPECT_EQ(bin_of(s, 15), 2);  // exactly on an edge: 2.0
    EXPECT_EQ(bin_of(s, 19), 3);
    EXPECT_EQ(bin_of(s, 20), -1);
    const auto e = HistogramSpec::with_edges({0, 1, 7.5, 64, 255});
    EXPECT_EQ(bin_of(e, 0), 0);
    EXPECT_EQ(bin_of(e, 7), 1);
    EXPECT_EQ(bin_of(e, 8), 2);  // 7.5 acts as threshold 8 for integer samples
    EXPECT_EQ(bin_of(e, 254), 3);
    EXPECT_EQ(bin_of(e, 255), -1);
    EXPECT_EQ(bin_of(e, -1), -1);
}

TEST(Spec, ThresholdsAgreeWithBinOf) {
    const std::vector<HistogramSpec> specs{
        HistogramSpec::even(256, 0, 256),
        HistogramSpec::even(7, 0, 256),
        HistogramSpec::even(24, 10, 250),
        HistogramSpec::even(1000, 0, 65536),
        HistogramSpec::even(3, -5, 300),
        HistogramSpec::even(300, 0, 100),
        HistogramSpec::with_edges({-3.5, 0, 0.25, 0.75, 17, 1000.5, 65536})};
    for (const auto& s : specs) {
        const auto t = s.thresholds();
        ASSERT_EQ(t.size(), static_cast<std::size_t>(s.bins) + 1);
        for (std::int64_t v = -10; v < 66000; ++v) {
            const auto it = std::upper_bound(t.begin(), t.end(), v);
            const std::int32_t expected = (v < t.front() || v >= t.back())
                                              ? -1
                                              : static_cast<std::int32_t>(it - t.begin() - 1);
            ASSERT_EQ(bin_of(s, v), expected) << s.describe() << " v=" << v;
        }
    }
}

TEST(Spec, ShiftBinsAgreeWithBinOf) {
    const struct {
        HistogramSpec spec;
        std::uint32_t values;
    } cases[] = {{HistogramSpec::even(65536, 0, 65536), 65536},
                 {HistogramSpec::even(1024, 0, 65536), 65536},
                 {HistogramSpec::even(4096, 0, 65536), 65536},
                 {HistogramSpec::even(256, 0, 256), 256},
                 {HistogramSpec::even(16, -32, 96), 256},
                 {HistogramSpec::even(8, 100, 164), 65536},
                 {HistogramSpec::even(1, 0, 1 << 20), 65536},
                 {HistogramSpec::even(2, 65000, 66024), 65536},
                 {HistogramSpec::even(4, -(1ll << 31), 1ll << 31), 65536}};
    for (const auto& c : cases) {
        SCOPED_TRACE(c.spec.describe());
        const std::optional<ShiftBins> s = shift_bins(c.spec, c.values);
        ASSERT_TRUE(s.has_value());
        for (std::uint32_t v = 0; v < c.values; ++v) {
            const std::int32_t got =
                v >= s->lo && v < s->hi
                    ? static_cast<std::int32_t>((v - s->lo + s->base) >> s->shift)
                    : -1;
            ASSERT_EQ(got, bin_of(c.spec, v)) << "value " << v;
        }
    }
    EXPECT_FALSE(shift_bins(HistogramSpec::even(1000, 0, 65536), 65536));   // width 65.536
    EXPECT_FALSE(shift_bins(HistogramSpec::even(640, 0, 64000), 65536));    // width 100
    EXPECT_FALSE(shift_bins(HistogramSpec::even(4, 70000, 70004), 65536));  // no value inside
    EXPECT_FALSE(shift_bins(HistogramSpec::with_edges({0, 1, 2}), 256));
    // v - lower beyond 32 bits.
    EXPECT_FALSE(shift_bins(HistogramSpec::even(1, -(1ll << 33), 1ll << 33), 65536));
}

TEST(Reference, MatchesNaiveOnSynthetic8Bit) {
    expect_matches_naive(uniform(31, 17, 3, SampleType::U8, 8, 5),
                         HistogramSpec::even(256, 0, 256));
    expect_matches_naive(uniform(64, 9, 4, SampleType::U8, 8, 6, 13),
                         HistogramSpec::even(17, 0, 256));
    expect_matches_naive(uniform(1, 1, 1, SampleType::U8, 8, 7), HistogramSpec::even(256, 0, 256));
    expect_matches_naive(uniform(1, 257, 1, SampleType::U8, 8, 8), HistogramSpec::even(5, 3, 200));
    expect_matches_naive(uniform(257, 1, 3, SampleType::U8, 8, 9, 1),
                         HistogramSpec::with_edges({0, 1, 7.5, 64, 200, 255, 256}));
    for (int bins = 1; bins <= 256; bins += 15)
        expect_matches_naive(uniform(33, 7, 1, SampleType::U8, 8, 10),
                             HistogramSpec::even(bins, 0, 256));
}

TEST(Reference, MatchesNaiveOnSynthetic16Bit) {
    for (int depth : {10, 12, 16}) {
        const Image img = uniform(123, 45, 3, SampleType::U16, depth, 11, 6);
        for (int bins : {1024, 4096, 65536})
            expect_matches_naive(img, HistogramSpec::full_range(img.view(), bins));
        expect_matches_naive(img, HistogramSpec::even(1000, 17, 1 << depth));
    }
    expect_matches_naive(uniform(77, 13, 4, SampleType::U16, 16, 12),
                         HistogramSpec::with_edges({0, 0.5, 255, 256, 1023.25, 4096, 65535}));
}

TEST(Reference, JointColourHistogram) {
    const Image img = uniform(61, 43, 4, SampleType::U8, 8, 31);
    const auto spec = HistogramSpec::even(1 << 24, 0, 1 << 24);
    const auto h = reference_histogram(img.view(), {Channel::Joint}, spec);
    std::vector<std::uint64_t> expected(1 << 24);
    const ImageView v = img.view();
    for (int y = 0; y < v.height; ++y)
        for (int x = 0; x < v.width; ++x)
            ++expected[joint_value(v.sample(x, y, 0), v.sample(x, y, 1), v.sample(x, y, 2))];
    EXPECT_EQ(h[0].counts, expected);
    // Coarser joint bins: 4096 bins over the 2^24 colours.
    const auto coarse =
        reference_histogram(v, {Channel::Joint}, HistogramSpec::even(4096, 0, 1 << 24));
    EXPECT_EQ(coarse[0].total(), 61u * 43u);
    const Image gray = uniform(8, 8, 1, SampleType::U8, 8);
    const Image deep = uniform(8, 8, 3, SampleType::U16, 10);
    EXPECT_THROW(reference_histogram(gray.view(), {Channel::Joint}, spec), UsageError);
    EXPECT_THROW(reference_histogram(deep.view(), {Channel::Joint}, spec), UsageError);
}

// The plain channels are counted in one pass over the pixels, the computed ones a channel at a
// time: any order and mix of them gives each channel its own counts, in the order asked.
TEST(Reference, ChannelsInAnyOrderAndMixEachGetTheirCounts) {
    const auto spec = HistogramSpec::even(97, 0, 1 << 12);
    const Image rgba = uniform(101, 37, 4, SampleType::U16, 12, 21, 6);
    const std::vector<Channel> mixed{Channel::A, Channel::Luma709, Channel::B,
                                     Channel::R, Channel::Luma601, Channel::G};
    const auto h = reference_histogram(rgba.view(), mixed, spec, 3);
    ASSERT_EQ(h.size(), mixed.size());
    for (std::size_t k = 0; k < mixed.size(); ++k) {
        EXPECT_EQ(h[k].channel, mixed[k]);
        EXPECT_EQ(h[k].counts, naive(rgba.view(), mixed[k], spec)) << channel_name(mixed[k]);
    }
    // On one channel every plain name reads the gray sample: four in one pass, and luma.
    const Image gray = uniform(1, 300, 1, SampleType::U8, 8, 22);
    const std::vector<Channel> names{Channel::B, Channel::Gray, Channel::Luma601, Channel::R,
                                     Channel::G};
    const auto g = reference_histogram(gray.view(), names, HistogramSpec::even(256, 0, 256));
    for (std::size_t k = 0; k < names.size(); ++k)
        EXPECT_EQ(g[k].counts, naive(gray.view(), Channel::Gray, HistogramSpec::even(256, 0, 256)));
}

TEST(Reference, MultiThreadedEqualsSingleThreaded) {
    const Image img = uniform(1999, 1001, 3, SampleType::U16, 16, 13);
    const auto spec = HistogramSpec::even(4096, 0, 65536);
    const std::vector<Channel> ch{Channel::R, Channel::Luma709};
    EXPECT_EQ(reference_histogram(img.view(), ch, spec, 1),
              reference_histogram(img.view(), ch, spec, 7));
}

TEST(Reference, CountsCross255And65535PerBin) {
    // 300 x 300 = 90000 samples in one bin: past 2^8 and 2^16 per bin.
    const Image img = constant(300, 300, 1, SampleType::U8, 8, 255);
    const auto h =
        reference_histogram(img.view(), {Channel::Gray}, HistogramSpec::even(256, 0, 256));
    EXPECT_EQ(h[0].counts[255], 90000u);
    EXPECT_EQ(h[0].total(), 90000u);
    // The top value is excluded when the range ends at it.
    const auto h2 =
        reference_histogram(img.view(), {Channel::Gray}, HistogramSpec::even(255, 0, 255));
    EXPECT_EQ(h2[0].total(), 0u);
    // 16-bit: borders of the range.
    const Image deep = constant(257, 256, 1, SampleType::U16, 16, 65535);
    const auto h3 =
        reference_histogram(deep.view(), {Channel::Gray}, HistogramSpec::even(65536, 0, 65536));
    EXPECT_EQ(h3[0].counts[65535], 65792u);
}

TEST(Reference, SaturationCapsEveryBin) {
    const Image img = hs::test::ramp(256, 300, 1, SampleType::U8, 8);  // 300 of each value
    HistogramSpec spec = HistogramSpec::even(128, 0, 256);             // 600 per bin
    spec.saturate = 255;
    const auto h = reference_histogram(img.view(), {Channel::Gray}, spec);
    for (auto n : h[0].counts) EXPECT_EQ(n, 255u);
    for (std::uint64_t cap : {600u, 1u << 20}) {
        spec.saturate = cap;
        const auto capped = reference_histogram(img.view(), {Channel::Gray}, spec);
        for (auto n : capped[0].counts) EXPECT_EQ(n, 600u);
    }
}

TEST(Reference, RejectsBadRequests) {
    const Image img = uniform(8, 8, 3, SampleType::U8, 8);
    EXPECT_THROW(reference_histogram(img.view(), {Channel::A}, HistogramSpec::even(256, 0, 256)),
                 UsageError);
    EXPECT_THROW(reference_histogram(img.view(), {}, HistogramSpec::even(256, 0, 256)), UsageError);
    EXPECT_THROW(reference_histogram(img.view(), {Channel::R}, HistogramSpec::even(0, 0, 256)),
                 UsageError);
}
