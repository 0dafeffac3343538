// Float samples (SampleType::F32): the type's checks, float bins (exact fp32 edges, every edge and
// its predecessor in adjacent bins, against Python's exact integers), the reference histogram
// against a naive count through FloatBins::bin_of, the luminance, statistics against brute force,
// and every integer-only path refusing float samples with a UsageError.

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <numeric>
#include <sstream>
#include <string>

#include "float_images.hpp"
#include "histoscope/core/display.hpp"
#include "histoscope/core/engine.hpp"
#include "histoscope/core/equalize.hpp"
#include "histoscope/core/error.hpp"
#include "histoscope/core/float_bins.hpp"
#include "histoscope/core/histogram.hpp"
#include "histoscope/core/scopes.hpp"
#include "histoscope/core/stats.hpp"
#include "histoscope/core/stream.hpp"
#include "run_command.hpp"
#include "synthetic.hpp"

using namespace hs;
using hs::test::float_image;
using hs::test::hostile_float_image;

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

float below(float f) {
    return std::nextafter(f, -kInf);
}

std::string message_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const UsageError& e) {
        return e.what();
    }
    return "(no UsageError)";
}

bool contains(const std::string& s, const std::string& part) {
    return s.find(part) != std::string::npos;
}

// The naive count: every pixel's value through FloatBins::bin_of (binary search, the
// definition), luminance by luminance709().
ChannelHistogram naive(const ImageView& v, Channel c, const HistogramSpec& spec) {
    ChannelHistogram h{c, std::vector<std::uint64_t>(static_cast<std::size_t>(spec.bins))};
    for (int y = 0; y < v.height; ++y)
        for (int x = 0; x < v.width; ++x) {
            const float value =
                is_luma(c) && v.channels > 1
                    ? luminance709(v.sample_f32(x, y, 0), v.sample_f32(x, y, 1),
                                   v.sample_f32(x, y, 2))
                    : v.sample_f32(x, y, std::max(0, channel_offset(c, v.channels)));
            const std::int32_t b = spec.float_bins->bin_of(value);
            if (b == kBelowRange)
                ++h.below_range;
            else if (b == kAboveRange)
                ++h.above_range;
            else if (b == kNonFinite)
                ++h.non_finite;
            else
                ++h.counts[static_cast<std::size_t>(b)];
        }
    if (spec.saturate)
        for (auto& n : h.counts) n = std::min(n, *spec.saturate);
    return h;
}

void expect_matches_naive(const ImageView& v, const HistogramSpec& spec, unsigned threads = 0) {
    std::vector<Channel> channels = all_channels(v.channels);
    if (v.channels > 1) channels.push_back(Channel::Luma709);
    const auto ref = reference_histogram(v, channels, spec, threads);
    ASSERT_EQ(ref.size(), channels.size());
    for (std::size_t k = 0; k < channels.size(); ++k)
        EXPECT_EQ(ref[k], naive(v, channels[k], spec))
            << channel_name(channels[k]) << " " << spec.describe();
}

// Python's exact edges (tests/support/float_reference.py): bit patterns, one per line.
std::vector<std::uint32_t> python_edges(const std::string& args) {
    const hs::test::CommandResult r = hs::test::run_command(std::string(HS_TEST_PYTHON) + " " +
                                                            HS_FLOAT_REFERENCE + " edges " + args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::vector<std::uint32_t> bits;
    std::istringstream in(r.out);
    std::string line;
    while (std::getline(in, line))
        if (!line.empty())
            bits.push_back(static_cast<std::uint32_t>(std::stoul(line, nullptr, 16)));
    return bits;
}

std::vector<std::uint32_t> bits_of(const FloatBins& b) {
    std::vector<std::uint32_t> out;
    for (float e : b.edges()) out.push_back(std::bit_cast<std::uint32_t>(e));
    return out;
}

}  // namespace

// --- the sample type

TEST(FloatImage, TypeSizeAndChecks) {
    EXPECT_EQ(bytes_per_sample(SampleType::F32), 4);
    EXPECT_TRUE(is_float(SampleType::F32));
    EXPECT_FALSE(is_float(SampleType::U16));
    EXPECT_EQ(to_string(SampleType::F32), "f32");
    Image img(3, 2, 3, SampleType::F32);
    EXPECT_EQ(img.bit_depth(), 32);
    EXPECT_EQ(img.stride(), 3u * 3u * 4u);
    img.set_sample_f32(2, 1, 2, -1.5f);
    EXPECT_EQ(img.view().sample_f32(2, 1, 2), -1.5f);
    EXPECT_TRUE(
        contains(message_of([&] { (void)img.view().sample(0, 0, 0); }), "no integer value"));
    EXPECT_THROW(img.set_sample(0, 0, 0, 1), UsageError);
    EXPECT_THROW(hs::test::constant(2, 2, 1, SampleType::U8, 8, 1).view().sample_f32(0, 0, 0),
                 UsageError);
    EXPECT_EQ(FrameFormat::of(img.view()).describe(), "3x2x3 f32/32");

    ImageView v = img.view();
    v.bit_depth = 16;
    EXPECT_TRUE(
        contains(message_of([&] { validate(v); }), "float samples must declare bit depth 32"));
    v = img.view();
    v.stride += 2;
    EXPECT_TRUE(contains(message_of([&] { validate(v); }), "4-byte boundaries"));
    v = img.view();
    v.data += 2;
    v.stride = img.stride();
    EXPECT_TRUE(contains(message_of([&] { validate(v); }), "4-byte boundaries"));
    // A format's shape validates (its stand-in pixels are aligned for floats).
    EXPECT_NO_THROW(validate(FrameFormat{7, 5, 4, SampleType::F32, 32}.shape()));
}

TEST(FloatImage, ChannelsFloatsHaveAndHaveNot) {
    EXPECT_NO_THROW(check_channel(Channel::Luma709, 3, SampleType::F32));
    EXPECT_TRUE(contains(message_of([] { check_channel(Channel::Luma601, 3, SampleType::F32); }),
                         "luma709"));
    EXPECT_THROW(check_channel(Channel::Joint, 3, SampleType::F32), UsageError);
    EXPECT_THROW((void)channel_max_value(Channel::R, SampleType::F32), UsageError);
    // Rec.709 weights in fp32, products then sums in order.
    const float r = 0.3f, g = 1.7f, b = 1e-3f;
    const float expected = (0.2126f * r + 0.7152f * g) + 0.0722f * b;
    EXPECT_EQ(std::bit_cast<std::uint32_t>(luminance709(r, g, b)),
              std::bit_cast<std::uint32_t>(expected));
}

// --- rationals

TEST(FloatBins, RationalsAreReadExactly) {
    EXPECT_EQ(parse_rational("0.125", "x"), (Rational{1, 8}));
    EXPECT_EQ(parse_rational("1/8", "x"), (Rational{1, 8}));
    EXPECT_EQ(parse_rational("-16", "x"), (Rational{-16, 1}));
    EXPECT_EQ(parse_rational("+2.5e-3", "x"), (Rational{1, 400}));
    EXPECT_EQ(parse_rational("0.1", "x"), (Rational{1, 10}));
    EXPECT_EQ(parse_rational("1e3", "x"), (Rational{1000, 1}));
    EXPECT_EQ(parse_rational(".5", "x"), (Rational{1, 2}));
    EXPECT_EQ(parse_rational("6/4", "x"), (Rational{3, 2}));
    EXPECT_EQ((Rational{1, 8}).describe(), "0.125");
    EXPECT_EQ((Rational{-3, 2}).describe(), "-1.5");
    EXPECT_EQ((Rational{1, 3}).describe(), "1/3");
    EXPECT_EQ((Rational{-16, 1}).describe(), "-16");
    for (const char* bad : {"", "-", "abc", "1/0", "1/", "/2", "1.2.3", "1e", "1e99", "0x10",
                            "1/-2", "nan", "inf", "99999999999999999999999999999999999"})
        EXPECT_THROW((void)parse_rational(bad, "--range"), UsageError) << bad;
    EXPECT_TRUE(contains(message_of([] { (void)parse_rational("abc", "--range"); }),
                         "--range 'abc' is not a number"));
}

// --- edges

TEST(FloatBins, LinearEdgesAreTheSmallestFloatsAtOrAboveTheRealEdges) {
    // [0, 1) in 10 bins: edge k >= k/10 and its predecessor < k/10, checked as integers
    // (f = m 2^e; f >= k/10 <=> 10 m >= k 2^-e).
    const FloatBins b = FloatBins::linear({0, 1}, {1, 1}, 10);
    ASSERT_EQ(b.bins(), 10);
    ASSERT_EQ(b.edges().size(), 11u);
    EXPECT_EQ(b.edges().front(), 0.0f);
    EXPECT_EQ(b.edges().back(), 1.0f);
    __extension__ typedef __int128 Wide;
    const auto at_least = [](float f, int k) {  // f >= k / 10
        int e = 0;
        const float m = std::frexp(f, &e);  // f = m 2^e, m in [0.5, 1)
        const auto mi = static_cast<Wide>(std::ldexp(m, 24));
        e -= 24;
        if (f == 0.0f) return k <= 0;
        return e >= 0 ? 10 * (mi << e) >= k : 10 * mi >= (static_cast<Wide>(k) << -e);
    };
    for (int k = 1; k < 10; ++k) {
        const float e = b.edges()[static_cast<std::size_t>(k)];
        EXPECT_TRUE(at_least(e, k)) << k;
        EXPECT_FALSE(at_least(below(e), k)) << k;
    }
    EXPECT_EQ(b.edges()[5], 0.5f);  // exact edges are themselves
    EXPECT_EQ(b.describe(), "10 bins over [0, 1)");
}

TEST(FloatBins, EdgesAgreeWithPythonsExactIntegers) {
    struct Case {
        FloatBins bins;
        std::string args;
    };
    const std::vector<Case> cases{
        {FloatBins::linear({0, 1}, {1, 1}, 256), "linear 0 1 256"},
        {FloatBins::linear({-1, 3}, {7, 10}, 7), "linear -1/3 7/10 7"},
        {FloatBins::linear({-65504, 1}, {65504, 1}, 1000), "linear -65504 65504 1000"},
        {FloatBins::linear({1, 10}, {2, 10}, 333), "linear 1/10 2/10 333"},
        {FloatBins::default_stops(), "stops -16 16 1/8"},
        {FloatBins::stops({-3, 1}, {5, 1}, {1, 3}), "stops -3 5 1/3"},
        {FloatBins::stops({-149, 1}, {-140, 1}, {1, 1}), "stops -149 -140 1"},
        {FloatBins::stops({100, 1}, {127, 1}, {1, 10}), "stops 100 127 1/10"},
        {FloatBins::stops({-1, 2}, {1, 2}, {1, 64}), "stops -1/2 1/2 1/64"},
    };
    for (const Case& c : cases) EXPECT_EQ(bits_of(c.bins), python_edges(c.args)) << c.args;
}

TEST(FloatBins, EveryEdgeAndItsPredecessorLandInAdjacentBins) {
    for (const FloatBins& b :
         {FloatBins::default_stops(), FloatBins::stops({-3, 1}, {5, 1}, {1, 3}),
          FloatBins::linear({0, 1}, {1, 1}, 256), FloatBins::linear({-1, 3}, {7, 10}, 7),
          FloatBins::linear({-1, 1}, {0, 1}, 4), FloatBins::stops({-149, 1}, {-140, 1}, {1, 1})}) {
        const std::vector<float>& e = b.edges();
        const int n = b.bins();
        EXPECT_EQ(b.bin_of(e[0]), 0) << b.describe();
        EXPECT_EQ(b.bin_of(below(e[0])), kBelowRange) << b.describe();
        EXPECT_EQ(b.bin_of(e[static_cast<std::size_t>(n)]), kAboveRange) << b.describe();
        EXPECT_EQ(b.bin_of(below(e[static_cast<std::size_t>(n)])), n - 1) << b.describe();
        for (int k = 1; k < n; ++k) {
            EXPECT_EQ(b.bin_of(e[static_cast<std::size_t>(k)]), k) << b.describe();
            EXPECT_EQ(b.bin_of(below(e[static_cast<std::size_t>(k)])), k - 1) << b.describe();
        }
        // The reference histogram (its guess from the bits, then the table) agrees: an image
        // of every edge and every predecessor, each counted once in its bin.
        std::vector<float> values;
        for (float f : e) values.insert(values.end(), {f, below(f)});
        const Image img = float_image(static_cast<int>(values.size()), 1, 1, [&](int x, int, int) {
            return values[static_cast<std::size_t>(x)];
        });
        const ChannelHistogram h =
            reference_histogram(img.view(), {Channel::Gray}, HistogramSpec::floating(b)).front();
        EXPECT_EQ(h.below_range, 1u) << b.describe();
        EXPECT_EQ(h.above_range, 1u) << b.describe();
        EXPECT_EQ(h.non_finite, 0u);
        for (int k = 0; k < n; ++k)
            EXPECT_EQ(h.counts[static_cast<std::size_t>(k)], 2u) << b.describe() << " bin " << k;
    }
}

TEST(FloatBins, StopsHaveExactPowersOfTwoAndCountZeroAndNegativesBelow) {
    const FloatBins s = FloatBins::default_stops();
    EXPECT_EQ(s.bins(), 256);
    EXPECT_EQ(s.describe(), "256 bins of 0.125 stop over [-16, 16) EV");
    EXPECT_EQ(s.edges()[0], std::ldexp(1.0f, -16));
    EXPECT_EQ(s.edges()[128], 1.0f);
    EXPECT_EQ(s.edges()[256], 65536.0f);
    for (int k = 0; k <= 32; ++k)
        EXPECT_EQ(s.edges()[static_cast<std::size_t>(8 * k)], std::ldexp(1.0f, k - 16));
    EXPECT_EQ(s.bin_of(1.0f), 128);
    EXPECT_EQ(s.bin_of(0.0f), kBelowRange);
    EXPECT_EQ(s.bin_of(-0.0f), kBelowRange);
    EXPECT_EQ(s.bin_of(-1.0f), kBelowRange);
    EXPECT_EQ(s.bin_of(1e-30f), kBelowRange);
    EXPECT_EQ(s.bin_of(65536.0f), kAboveRange);
    EXPECT_EQ(s.bin_of(kInf), kNonFinite);
    EXPECT_EQ(s.bin_of(-kInf), kNonFinite);
    EXPECT_EQ(s.bin_of(kNaN), kNonFinite);
    // Irrational edges: 2^(1/8) lies between the edge's predecessor and the edge.
    const long double r = std::exp2(1.0L / 8.0L);
    EXPECT_GT(static_cast<long double>(s.edges()[129]), r);
    EXPECT_LT(static_cast<long double>(below(s.edges()[129])), r);
}

TEST(FloatBins, NonsenseIsAUsageErrorNamingIt) {
    EXPECT_TRUE(contains(message_of([] { (void)FloatBins::linear({1, 1}, {1, 1}, 4); }), "empty"));
    EXPECT_TRUE(contains(message_of([] {
                             (void)FloatBins::linear({0, 1}, {1, 1}, 0);
                         }),
                         "between 1 and"));
    EXPECT_TRUE(contains(message_of([] {
                             (void)FloatBins::linear({0, 1}, {1, 1}, kMaxFloatBins + 1);
                         }),
                         "between 1 and"));
    // A million bins over [1, 1 + 2^-20): narrower than the floats there.
    EXPECT_TRUE(contains(message_of([] {
                             (void)FloatBins::linear({1, 1}, {1048577, 1048576}, 1000);
                         }),
                         "meet at the same float"));
    EXPECT_TRUE(contains(message_of([] {
                             (void)FloatBins::stops({0, 1}, {1, 1}, {0, 1});
                         }),
                         "step must be above 0"));
    EXPECT_TRUE(contains(message_of([] {
                             (void)FloatBins::stops({0, 1}, {1, 1}, {2, 5});
                         }),
                         "does not divide"));
    EXPECT_TRUE(contains(message_of([] {
                             (void)FloatBins::stops({100, 1}, {129, 1}, {1, 1});
                         }),
                         "beyond the largest float"));
    EXPECT_TRUE(contains(message_of([] {
                             (void)FloatBins::stops({-150, 1}, {0, 1}, {1, 1});
                         }),
                         "-149"));
    EXPECT_TRUE(contains(message_of([] {
                             (void)FloatBins::stops({-149, 1}, {-148, 1}, {1, 8});
                         }),
                         "meet at the same float"));
    EXPECT_TRUE(contains(message_of([] {
                             (void)FloatBins::stops({0, 1}, {1, 1}, {1, 2000000});
                         }),
                         "no whole number of bins"));
}

// --- histograms

TEST(FloatHistogram, MatchesTheNaiveCountOnEveryKindOfFloat) {
    const Image rgb = hostile_float_image(301, 67, 3, 7);
    const Image rgba = hostile_float_image(64, 33, 4, 8);
    const Image gray = hostile_float_image(129, 31, 1, 9);
    for (const HistogramSpec& spec :
         {HistogramSpec::floating(FloatBins::default_stops()),
          HistogramSpec::floating(FloatBins::stops({-3, 1}, {5, 1}, {1, 3})),
          HistogramSpec::floating(FloatBins::linear({0, 1}, {1, 1}, 256)),
          HistogramSpec::floating(FloatBins::linear({-1, 1}, {1, 1}, 7)),
          HistogramSpec::floating(FloatBins::linear({-4, 1}, {3000, 1}, 65536))}) {
        for (const Image* img : {&rgb, &rgba, &gray}) {
            expect_matches_naive(img->view(), spec);
            expect_matches_naive(img->view(), spec, 1);
            expect_matches_naive(img->view(), spec, 5);
        }
    }
}

TEST(FloatHistogram, OddShapesStridesAndRegions) {
    const HistogramSpec spec = HistogramSpec::floating(FloatBins::default_stops());
    expect_matches_naive(float_image(1, 1, 1, [](int, int, int) { return 1.0f; }).view(), spec);
    expect_matches_naive(hostile_float_image(1, 1, 3, 3).view(), spec);
    expect_matches_naive(hostile_float_image(17, 5, 3, 4, /*row_padding_floats=*/3).view(), spec);
    const Image big = hostile_float_image(40, 30, 4, 5, 1);
    expect_matches_naive(crop(big.view(), {3, 7, 31, 13}), spec);
    const auto h = reference_histogram(
        float_image(1, 1, 1, [](int, int, int) { return 1.0f; }).view(), {Channel::Gray}, spec);
    EXPECT_EQ(h.front().counts[128], 1u);
    EXPECT_EQ(h.front().total(), 1u);
}

TEST(FloatHistogram, CountsCrossing8And16Bits) {
    for (const int n : {255, 256, 65535, 65536, 70001}) {
        const Image img = float_image(n, 1, 1, [](int x, int, int) {
            return x % 3 == 0 ? 0.75f : x % 3 == 1 ? 3.0f : kNaN;
        });
        const FloatBins bins = FloatBins::linear({0, 1}, {4, 1}, 4);
        const ChannelHistogram h =
            reference_histogram(img.view(), {Channel::Gray}, HistogramSpec::floating(bins)).front();
        const auto n3 = static_cast<std::uint64_t>(n);
        EXPECT_EQ(h.counts[0], (n3 + 2) / 3);
        EXPECT_EQ(h.counts[3], (n3 + 1) / 3);
        EXPECT_EQ(h.non_finite, n3 / 3);
        EXPECT_EQ(h.counts[1] + h.counts[2] + h.below_range + h.above_range, 0u);
    }
}

TEST(FloatHistogram, SaturationCapsTheBinsOnly) {
    const Image img = float_image(100, 1, 1, [](int x, int, int) { return x < 50 ? 0.5f : -1.0f; });
    HistogramSpec spec = HistogramSpec::floating(FloatBins::linear({0, 1}, {1, 1}, 2));
    spec.saturate = 10;
    const ChannelHistogram h = reference_histogram(img.view(), {Channel::Gray}, spec).front();
    EXPECT_EQ(h.counts[1], 10u);
    EXPECT_EQ(h.below_range, 50u);
}

TEST(FloatHistogram, SpecsMustFitTheSamples) {
    const Image f = hostile_float_image(4, 4, 3);
    const Image u = hs::test::constant(4, 4, 3, SampleType::U8, 8, 7);
    const HistogramSpec floating = HistogramSpec::floating(FloatBins::default_stops());
    EXPECT_TRUE(
        contains(message_of([&] { (void)reference_histogram(u.view(), {Channel::R}, floating); }),
                 "count float samples"));
    EXPECT_TRUE(contains(message_of([&] {
                             (void)reference_histogram(f.view(), {Channel::R},
                                                       HistogramSpec::even(256, 0, 256));
                         }),
                         "float samples take float bins"));
    EXPECT_THROW((void)HistogramSpec::full_range(f.view()), UsageError);
    EXPECT_THROW((void)bin_of(floating, 3), UsageError);
    EXPECT_THROW((void)floating.thresholds(), UsageError);
    EXPECT_FALSE(shift_bins(floating, 256).has_value());
    HistogramSpec mixed = floating;
    mixed.edges = {0, 1, 2};
    EXPECT_THROW(mixed.validate(), UsageError);
    EXPECT_THROW((void)reference_histogram(f.view(), {Channel::Luma601}, floating), UsageError);
    EXPECT_THROW((void)channel_values(f.view(), Channel::R), UsageError);
    EXPECT_THROW((void)float_channel_values(u.view(), Channel::R), UsageError);
}

// --- engines

namespace {
class IntegerOnlyEngine final : public HistogramEngine {
  public:
    std::string_view name() const override { return "integers"; }
    std::string_view description() const override { return "default capabilities"; }
    Capabilities capabilities() const override { return {}; }

  protected:
    HistogramResult run(const HistogramRequest& r) override {
        HistogramResult out;
        out.channels = reference_histogram(r.image, r.channels, r.spec);
        return out;
    }
};
}  // namespace

TEST(FloatHistogram, EnginesSayWhetherTheyTakeFloats) {
    EngineRegistry registry;
    register_core_engines(registry);
    const Image img = hostile_float_image(50, 20, 3);
    const HistogramRequest request{img.view(),
                                   {Channel::Luma709, Channel::R},
                                   HistogramSpec::floating(FloatBins::default_stops())};
    HistogramEngine* cpu = registry.find("cpu");
    ASSERT_NE(cpu, nullptr);
    EXPECT_TRUE(cpu->capabilities().f32);
    const HistogramResult r = cpu->compute(request);
    EXPECT_EQ(r.channels[0], naive(img.view(), Channel::Luma709, request.spec));
    IntegerOnlyEngine other;
    EXPECT_EQ(other.unsupported_reason(request),
              "engine 'integers' does not handle 32-bit float samples");
    EXPECT_THROW((void)other.compute(request), UnsupportedError);
    // Float bins over integer samples: refused before any engine runs.
    const Image u = hs::test::constant(4, 4, 1, SampleType::U16, 16, 7);
    EXPECT_THROW((void)cpu->compute({u.view(), {Channel::Gray}, request.spec}), UsageError);
}

TEST(FloatHistogram, TheCpuStreamCountsFloatFrames) {
    EngineRegistry registry;
    register_core_engines(registry);
    const Image img = hostile_float_image(64, 48, 3, 11);
    StreamConfig config;
    config.format = FrameFormat::of(img.view());
    config.channels = {Channel::Luma709, Channel::G};
    config.spec = HistogramSpec::floating(FloatBins::default_stops());
    config.region = Region{5, 6, 40, 30};
    StreamEngine* cpu = registry.find_stream_engine("cpu");
    ASSERT_NE(cpu, nullptr);
    auto stream = cpu->open(config);
    stream->submit(img.view());
    const auto result = stream->wait();
    ASSERT_TRUE(result);
    const ImageView counted = crop(img.view(), *config.region);
    EXPECT_EQ(result->channels[0], naive(counted, Channel::Luma709, config.spec));
    EXPECT_EQ(result->channels[1], naive(counted, Channel::G, config.spec));
    // Equalization and scopes of float frames are refused when the stream is configured.
    StreamConfig eq = config;
    eq.equalize = EqualizeRequest{};
    EXPECT_THROW(eq.validate(), UsageError);
    StreamConfig scope = config;
    scope.scopes.push_back(ScopeSpec{});
    EXPECT_THROW(scope.validate(), UsageError);
}

// --- everything that works on code values refuses float samples

TEST(FloatImage, IntegerOnlyPathsRefuseFloatSamples) {
    const Image img = hostile_float_image(8, 8, 3);
    const ImageView v = img.view();
    const auto refuses = [](const std::function<void()>& f) {
        return contains(message_of(f), "not on float samples");
    };
    EqualizeRequest eq;
    eq.image = v;
    EXPECT_TRUE(refuses([&] { eq.validate(); }));
    EXPECT_TRUE(refuses([&] { (void)split_planes(v, EqualizeSpace::Rgb); }));
    EXPECT_TRUE(refuses([&] { (void)reference_scope(v, ScopeSpec{}); }));
    EXPECT_TRUE(refuses([&] {
        (void)compute_stats(v, Channel::R, HistogramSpec::floating(FloatBins::default_stops()));
    }));
    EXPECT_TRUE(refuses([&] { (void)full_display_range(v); }));
    EXPECT_TRUE(refuses([&] { (void)stretched_display_range(v); }));
    EXPECT_TRUE(refuses([&] { (void)display_picture(v, 1, {0, 255}); }));
    EXPECT_TRUE(refuses([&] { (void)clipping_mask(v, 1, 7); }));
    EXPECT_TRUE(refuses([&] { (void)channel_values(v, Channel::R); }));
}

// --- statistics

namespace {
// Brute force: the finite values sorted, ranks read off, sums in long double.
void expect_stats_match(const ImageView& v, Channel c, const HistogramSpec& spec) {
    const std::vector<double> ps{0, 1, 5, 25, 75, 95, 99, 100};
    const FloatStats s = compute_float_stats(v, c, spec, ps);
    std::vector<float> finite;
    std::uint64_t non_finite = 0;
    for (float f : float_channel_values(v, c)) {
        if (std::isfinite(f))
            finite.push_back(f);
        else
            ++non_finite;
    }
    std::sort(finite.begin(), finite.end());
    EXPECT_EQ(s.count, finite.size());
    EXPECT_EQ(s.non_finite, non_finite);
    const ChannelHistogram h = naive(v, c, spec);
    EXPECT_EQ(s.below_range, h.below_range);
    EXPECT_EQ(s.above_range, h.above_range);
    if (finite.empty()) return;
    EXPECT_EQ(s.min, finite.front());
    EXPECT_EQ(s.max, finite.back());
    const auto at = [&](double p) {
        const auto rank = std::max<std::uint64_t>(
            1,
            static_cast<std::uint64_t>(std::ceil(p / 100.0 * static_cast<double>(finite.size()))));
        return finite[static_cast<std::size_t>(rank - 1)];
    };
    EXPECT_EQ(s.median, at(50));
    ASSERT_EQ(s.percentiles.size(), ps.size());
    for (std::size_t i = 0; i < ps.size(); ++i)
        EXPECT_EQ(s.percentiles[i].second, at(ps[i])) << ps[i];
}
}  // namespace

TEST(FloatStats, MatchBruteForce) {
    // Finite values within +-2^40 so that the brute-force long double sums are accurate.
    const Image img = float_image(97, 41, 3, [](int x, int y, int c) {
        const std::uint64_t r = hs::test::mix64(static_cast<std::uint64_t>(x * 131 + y * 7 + c));
        if (r % 29 == 0) return kNaN;
        if (r % 31 == 0) return -kInf;
        return static_cast<float>((static_cast<double>(r >> 11) * 0x1.0p-53 - 0.3) *
                                  std::exp2(static_cast<double>(r % 40) - 20.0));
    });
    const HistogramSpec spec = HistogramSpec::floating(FloatBins::linear({-1, 10}, {1, 1}, 64));
    for (Channel c : {Channel::R, Channel::B, Channel::Luma709}) {
        expect_stats_match(img.view(), c, spec);
        const FloatStats s = compute_float_stats(img.view(), c, spec);
        long double sum = 0, sq = 0;
        std::uint64_t n = 0;
        for (float f : float_channel_values(img.view(), c))
            if (std::isfinite(f)) {
                sum += f;
                sq += static_cast<long double>(f) * f;
                ++n;
            }
        const long double mean = sum / n;
        EXPECT_NEAR(s.mean, static_cast<double>(mean),
                    1e-12 * std::fabs(static_cast<double>(mean)) + 1e-30);
        EXPECT_NEAR(s.stddev, static_cast<double>(std::sqrt(sq / n - mean * mean)),
                    1e-9 * s.stddev);
    }
    expect_stats_match(hostile_float_image(60, 60, 1, 3).view(), Channel::Gray,
                       HistogramSpec::floating(FloatBins::default_stops()));
}

TEST(FloatStats, SumsAreExactWhereFloatSumsLoseEverything) {
    // 2^30, then 1000 ones, then -2^30: a float sum gives 0, the exact mean is 1000 / 1002.
    const Image img = float_image(1002, 1, 1, [](int x, int, int) {
        return x == 0 ? 1073741824.0f : x == 1001 ? -1073741824.0f : 1.0f;
    });
    const FloatStats s = compute_float_stats(img.view(), Channel::Gray,
                                             HistogramSpec::floating(FloatBins::default_stops()));
    EXPECT_DOUBLE_EQ(s.mean, 1000.0 / 1002.0);
    const double mean = 1000.0 / 1002.0;
    const double var = (2.0 * 1073741824.0 * 1073741824.0 + 1000.0) / 1002.0 - mean * mean;
    EXPECT_DOUBLE_EQ(s.stddev, std::sqrt(var));
    // Only non-finite samples: a count of 0 and nothing made up.
    const Image nan = float_image(3, 1, 1, [](int, int, int) { return kNaN; });
    const FloatStats n = compute_float_stats(nan.view(), Channel::Gray,
                                             HistogramSpec::floating(FloatBins::default_stops()));
    EXPECT_EQ(n.count, 0u);
    EXPECT_EQ(n.non_finite, 3u);
    EXPECT_THROW((void)compute_float_stats(hs::test::constant(2, 2, 1, SampleType::U8, 8, 1).view(),
                                           Channel::Gray,
                                           HistogramSpec::floating(FloatBins::default_stops())),
                 UsageError);
}

// --- pictures of float frames (display.hpp)

namespace {
std::uint8_t expected_shown(double v, double exposure) {
    const double c = v * std::exp2(exposure);
    if (!(c > 0.0)) return 0;
    if (c >= 1.0) return 255;
    const double e = c <= 0.0031308 ? 12.92 * c : 1.055 * std::pow(c, 1.0 / 2.4) - 0.055;
    return static_cast<std::uint8_t>(std::lround(e * 255.0));
}
}  // namespace

TEST(FloatDisplay, ShownValuesAreTheSrgbEncodingAtTheExposure) {
    for (const double exposure : {0.0, 1.5, -3.0, 7.9})
        for (int i = 0; i < 20000; ++i) {
            const float v = hs::test::hostile_float(static_cast<std::uint64_t>(i) + 77);
            ASSERT_EQ(displayed_float(v, exposure), expected_shown(v, exposure))
                << v << " at " << exposure;
        }
    // Every code's first value and the value just below it.
    for (int k = 1; k < 256; ++k) {
        double lo = 0.0, hi = 1.0;
        for (int i = 0; i < 200; ++i) {
            const double mid = (lo + hi) / 2;
            (expected_shown(mid, 0) >= k ? hi : lo) = mid;
        }
        EXPECT_EQ(displayed_float(hi, 0), expected_shown(hi, 0)) << k;
        EXPECT_EQ(displayed_float(lo, 0), expected_shown(lo, 0)) << k;
    }
    EXPECT_EQ(displayed_float(std::numeric_limits<double>::quiet_NaN(), 0), 0);
    EXPECT_EQ(displayed_float(kInf, 0), 255);
    EXPECT_EQ(displayed_float(-1.0, 0), 0);
    EXPECT_EQ(displayed_float_alpha(0.5), 128);
    EXPECT_EQ(displayed_float_alpha(2.0), 255);
}

TEST(FloatDisplay, PicturesMasksAndReductionsOfBlockMeans) {
    const Image img = float_image(7, 5, 4, [](int x, int y, int c) {
        if (c == 3) return 0.25f * static_cast<float>(x % 5);
        if (x == 6 && y == 4) return kNaN;
        return std::ldexp(1.0f, x - 4 + c) * (y == 2 ? -1.0f : 1.0f);
    });
    const double exposure = 0.5;
    for (const int factor : {1, 2, 3}) {
        const Image pic = float_display_picture(img.view(), factor, exposure);
        const Image reduced = downscale(img.view(), factor);
        ASSERT_EQ(pic.width(), (7 + factor - 1) / factor);
        ASSERT_EQ(reduced.type(), SampleType::F32);
        for (int oy = 0; oy < pic.height(); ++oy)
            for (int ox = 0; ox < pic.width(); ++ox)
                for (int c = 0; c < 4; ++c) {
                    double sum = 0;
                    int n = 0;
                    for (int y = oy * factor; y < std::min(5, (oy + 1) * factor); ++y)
                        for (int x = ox * factor; x < std::min(7, (ox + 1) * factor); ++x, ++n)
                            sum += img.view().sample_f32(x, y, c);
                    const double mean = sum / n;
                    const std::uint32_t want =
                        c == 3 ? displayed_float_alpha(mean) : expected_shown(mean, exposure);
                    EXPECT_EQ(pic.view().sample(ox, oy, c), want)
                        << factor << " " << ox << "," << oy;
                    const float r = reduced.view().sample_f32(ox, oy, c);
                    if (std::isnan(mean))
                        EXPECT_TRUE(std::isnan(r));
                    else
                        EXPECT_EQ(r, static_cast<float>(mean));
                }
        const Image mask = float_clipping_mask(img.view(), factor, 7, exposure);
        for (int oy = 0; oy < mask.height(); ++oy)
            for (int ox = 0; ox < mask.width(); ++ox) {
                std::uint32_t want = 0;
                for (int y = oy * factor; y < std::min(5, (oy + 1) * factor); ++y)
                    for (int x = ox * factor; x < std::min(7, (ox + 1) * factor); ++x)
                        for (int c = 0; c < 3; ++c) {
                            const double v = img.view().sample_f32(x, y, c) * std::exp2(exposure);
                            if (v >= 1.0)
                                want = kClippedHigh;
                            else if (!(v > 0.0) && want != kClippedHigh)
                                want = kClippedLow;
                        }
                EXPECT_EQ(mask.view().sample(ox, oy, 0), want) << factor << " " << ox << "," << oy;
            }
    }
    // A stream's pictures of a float frame: at the spec's exposure, over the 8 bits shown.
    DisplaySpec spec;
    spec.factor = 2;
    spec.exposure = exposure;
    spec.clipping = 7;
    const FramePictures p = make_pictures(img.view(), nullptr, spec);
    EXPECT_EQ(p.original_range, (DisplayRange{0, 255}));
    EXPECT_EQ(p.original.view().sample(1, 1, 0),
              float_display_picture(img.view(), 2, exposure).view().sample(1, 1, 0));
    EXPECT_FALSE(p.original_clipping.empty());
    EXPECT_THROW(
        (void)float_display_picture(hs::test::constant(2, 2, 1, SampleType::U8, 8, 1).view(), 1, 0),
        UsageError);
}
