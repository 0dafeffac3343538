// The "block-shared" GPU engine against the exact CPU reference, through the public API only
// (registry + hs::cuda::register_engines). BlockSharedGpu.* skip without a device;
// CudaHost.* run on any machine.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpu_test.hpp"
#include "histoscope/core/engine.hpp"
#include "histoscope/core/error.hpp"
#include "histoscope/cuda/register.hpp"
#include "synthetic.hpp"

using namespace hs;

namespace {

const std::vector<Channel> kGray{Channel::Gray};
const std::vector<Channel> kRgbLuma{Channel::R, Channel::G, Channel::B, Channel::Luma601,
                                    Channel::Luma709};
const std::vector<Channel> kRgbaLuma{Channel::R, Channel::G,       Channel::B,
                                     Channel::A, Channel::Luma601, Channel::Luma709};

class BlockSharedGpu : public ::testing::Test {
  protected:
    void SetUp() override {
        if (const std::string why = test::no_gpu_reason(); !why.empty()) GTEST_SKIP() << why;
        engine_ = test::gpu_engine(registry_, "block-shared");
        ASSERT_NE(engine_, nullptr);
    }

    // Runs the engine and the reference on the same request and compares every count.
    // `expected_total` (when set) also pins the reference, so that two empty answers cannot
    // agree by accident.
    HistogramResult expect_exact(const ImageView& image, const std::vector<Channel>& channels,
                                 const HistogramSpec& spec,
                                 std::optional<std::uint64_t> expected_total = std::nullopt) {
        const std::optional<HistogramResult> gpu =
            test::expect_exact(*engine_, {image, channels, spec});
        if (!gpu) return {};
        if (expected_total) {
            for (const ChannelHistogram& h : reference_histogram(image, channels, spec))
                EXPECT_EQ(h.total(), *expected_total) << channel_name(h.channel);
        }
        std::vector<std::string> stage_names;
        for (const StageTime& s : gpu->stages) {
            stage_names.push_back(s.name);
            EXPECT_GE(s.ms, 0.0) << s.name;
        }
        EXPECT_EQ(stage_names, (std::vector<std::string>{"upload", "histogram", "download"}));
        return *gpu;
    }

    EngineRegistry registry_;
    HistogramEngine* engine_ = nullptr;
};

std::uint64_t pixels(const Image& img) {
    return img.view().pixel_count();
}

TEST_F(BlockSharedGpu, Uniform8) {
    const Image img = test::uniform(1920, 1080, 1, SampleType::U8, 8, 7);
    expect_exact(img.view(), kGray, HistogramSpec::even(256, 0, 256), pixels(img));
    expect_exact(img.view(), kGray, HistogramSpec::even(64, 0, 256), pixels(img));
    expect_exact(img.view(), kGray, HistogramSpec::even(7, 0, 256), pixels(img));
    expect_exact(img.view(), kGray, HistogramSpec::even(1000, 0, 256), pixels(img));
    expect_exact(img.view(), kGray, HistogramSpec::even(1, 0, 256), pixels(img));
}

TEST_F(BlockSharedGpu, OneValueCrosses8And16BitCounts) {
    // 300x300 = 90000 pixels in one bin: past 255/256 and 65535/65536.
    for (const std::uint32_t v : {0u, 1u, 128u, 255u}) {
        const Image img = test::constant(300, 300, 1, SampleType::U8, 8, v);
        const HistogramResult r =
            expect_exact(img.view(), kGray, HistogramSpec::even(256, 0, 256), 90000);
        ASSERT_EQ(r.channels.size(), 1u);
        EXPECT_EQ(r.channels[0].counts[v], 90000u);
    }
    const Image rgb = test::constant(300, 300, 3, SampleType::U8, 8, 77);
    expect_exact(rgb.view(), kRgbLuma, HistogramSpec::even(256, 0, 256), 90000);
    const Image big = test::constant(300, 300, 1, SampleType::U16, 16, 65535);
    const HistogramResult r =
        expect_exact(big.view(), kGray, HistogramSpec::even(4096, 0, 65536), 90000);
    ASSERT_EQ(r.channels.size(), 1u);
    EXPECT_EQ(r.channels[0].counts[4095], 90000u);
}

TEST_F(BlockSharedGpu, GaussianNarrow) {
    const Image g8 = test::gaussian(1024, 768, 1, SampleType::U8, 8, 2.0);
    expect_exact(g8.view(), kGray, HistogramSpec::even(256, 0, 256), pixels(g8));
    const Image g16 = test::gaussian(1024, 768, 3, SampleType::U16, 12, 5.0);
    expect_exact(g16.view(), kRgbLuma, HistogramSpec::even(4096, 0, 4096), pixels(g16));
}

TEST_F(BlockSharedGpu, Ramp) {
    const Image r8 = test::ramp(1000, 1000, 3, SampleType::U8, 8);
    expect_exact(r8.view(), kRgbLuma, HistogramSpec::even(256, 0, 256), pixels(r8));
    const Image r16 = test::ramp(640, 480, 1, SampleType::U16, 16);
    expect_exact(r16.view(), kGray, HistogramSpec::even(65536 / 16, 0, 65536), pixels(r16));
}

TEST_F(BlockSharedGpu, TinyAndOddShapes) {
    const int shapes[][2] = {{1, 1}, {1, 5000}, {5000, 1}, {1023, 77}, {17, 3}, {3, 17}, {2, 2}};
    for (const auto& wh : shapes) {
        for (const int channels : {1, 3, 4}) {
            const auto ch = channels == 1 ? kGray : channels == 3 ? kRgbLuma : kRgbaLuma;
            const Image u8 = test::uniform(wh[0], wh[1], channels, SampleType::U8, 8, 11);
            expect_exact(u8.view(), ch, HistogramSpec::even(256, 0, 256), pixels(u8));
            const Image u16 = test::uniform(wh[0], wh[1], channels, SampleType::U16, 16, 12);
            expect_exact(u16.view(), ch, HistogramSpec::even(1024, 0, 65536), pixels(u16));
        }
    }
}

TEST_F(BlockSharedGpu, PaddedStrides) {
    for (const std::size_t pad : {1u, 3u, 7u, 64u}) {
        for (const int channels : {1, 3, 4}) {
            const auto ch = channels == 1 ? kGray : channels == 3 ? kRgbLuma : kRgbaLuma;
            const Image u8 = test::uniform(333, 101, channels, SampleType::U8, 8, 5, pad);
            ASSERT_EQ(u8.stride(), u8.view().row_bytes() + pad);
            expect_exact(u8.view(), ch, HistogramSpec::even(256, 0, 256), pixels(u8));
            const Image u16 = test::uniform(333, 101, channels, SampleType::U16, 16, 6, 2 * pad);
            expect_exact(u16.view(), ch, HistogramSpec::even(4096, 0, 65536), pixels(u16));
        }
    }
}

TEST_F(BlockSharedGpu, Interleaved3And4Channels) {
    const Image rgb = test::uniform(1280, 720, 3, SampleType::U8, 8, 21);
    expect_exact(rgb.view(), kRgbLuma, HistogramSpec::even(256, 0, 256), pixels(rgb));
    const Image rgba = test::uniform(1280, 720, 4, SampleType::U8, 8, 22);
    expect_exact(rgba.view(), kRgbaLuma, HistogramSpec::even(256, 0, 256), pixels(rgba));
    expect_exact(rgba.view(), kRgbaLuma, HistogramSpec::even(32, 0, 256), pixels(rgba));
    const Image rgb16 = test::uniform(800, 600, 3, SampleType::U16, 16, 23);
    expect_exact(rgb16.view(), kRgbLuma, HistogramSpec::even(4096, 0, 65536), pixels(rgb16));
    const Image rgba16 = test::uniform(800, 600, 4, SampleType::U16, 16, 24);
    expect_exact(rgba16.view(), kRgbaLuma, HistogramSpec::even(1024, 0, 65536), pixels(rgba16));
    // Channels that differ per pixel position, so that a wrong offset cannot go unnoticed.
    const Image distinct =
        test::make_image(257, 129, 4, SampleType::U8, 8, [](int x, int y, int c) {
            return static_cast<std::uint32_t>((x * (c + 1) + y * 3 + 50 * c) % 256);
        });
    expect_exact(distinct.view(), kRgbaLuma, HistogramSpec::even(256, 0, 256), pixels(distinct));
}

TEST_F(BlockSharedGpu, SixteenBitDepths) {
    for (const int depth : {10, 12, 16}) {
        const Image img = test::uniform(1531, 997, 1, SampleType::U16, depth, 31);
        const std::int64_t top = std::int64_t{1} << depth;
        for (const int bins : {1024, 4096})
            expect_exact(img.view(), kGray, HistogramSpec::even(bins, 0, top), pixels(img));
        expect_exact(img.view(), kGray, HistogramSpec::full_range(img.view(), 256), pixels(img));
        const Image rgba = test::uniform(511, 255, 4, SampleType::U16, depth, 32);
        expect_exact(rgba.view(), kRgbaLuma, HistogramSpec::even(4096, 0, top), pixels(rgba));
    }
}

TEST_F(BlockSharedGpu, RangeBorders) {
    // Values lower - 1, lower, upper - 1, upper, upper + 1 (and the extremes) in every row.
    auto borders = [](SampleType type, std::int64_t lower, std::int64_t upper, std::uint32_t max) {
        std::vector<std::uint32_t> values{0, max};
        for (const std::int64_t v : {lower - 1, lower, upper - 1, upper, upper + 1})
            if (v >= 0 && v <= static_cast<std::int64_t>(max))
                values.push_back(static_cast<std::uint32_t>(v));
        return test::make_image(static_cast<int>(values.size()) * 13, 37, 1, type,
                                type == SampleType::U8 ? 8 : 16, [values](int x, int, int) {
                                    return values[static_cast<std::size_t>(x) % values.size()];
                                });
    };
    struct Case {
        SampleType type;
        int bins;
        std::int64_t lower, upper;
    };
    const Case cases[] = {
        {SampleType::U8, 7, 10, 200},
        {SampleType::U8, 256, 1, 255},
        {SampleType::U8, 3, -100, 100},
        {SampleType::U8, 100, 250, 100000},
        {SampleType::U16, 13, 1000, 60000},
        {SampleType::U16, 4096, 0, 65535},
        {SampleType::U16, 1000, -70000, 3},        // negative lower bound
        {SampleType::U16, 50000, -100000, 65536},  // (v - lower) * bins needs 64 bits
        {SampleType::U16, 256, -(std::int64_t{1} << 31), std::int64_t{1} << 31},  // 64-bit
        {SampleType::U16, 9, 65535, 65536},
        {SampleType::U16, 5, 70000, 80000},  // nothing can fall inside
    };
    for (const Case& c : cases) {
        if (static_cast<std::size_t>(c.bins) * 4 > test::shared_optin())
            continue;  // see TooManyBins
        const std::uint32_t max = c.type == SampleType::U8 ? 255u : 65535u;
        const Image img = borders(c.type, c.lower, c.upper, max);
        const HistogramSpec spec = HistogramSpec::even(c.bins, c.lower, c.upper);
        const HistogramResult r = expect_exact(img.view(), kGray, spec);
        // Explicitly: `lower` and `upper - 1` are counted (lower in bin 0), `upper` is not.
        if (r.channels.size() == 1 && c.lower >= 0 &&
            c.upper - 1 <= static_cast<std::int64_t>(max)) {
            const std::vector<std::uint64_t>& counts = r.channels[0].counts;
            EXPECT_GT(counts.front(), 0u);
            EXPECT_GT(counts[static_cast<std::size_t>(bin_of(spec, c.upper - 1))], 0u);
            EXPECT_EQ(bin_of(spec, c.upper), -1);
        }
    }
}

TEST_F(BlockSharedGpu, ExplicitEdges) {
    const Image u8 = test::uniform(900, 700, 3, SampleType::U8, 8, 41);
    expect_exact(u8.view(), kRgbLuma, HistogramSpec::with_edges({0, 1, 5, 17, 100, 255, 256}),
                 pixels(u8));
    expect_exact(u8.view(), kRgbLuma,
                 HistogramSpec::with_edges({-3.5, 0.5, 0.7, 10.2, 99.99, 100.0, 200.5}));
    expect_exact(u8.view(), {Channel::G}, HistogramSpec::with_edges({-1e12, 3, 1e12}), pixels(u8));

    const Image u16 = test::uniform(1200, 800, 1, SampleType::U16, 16, 42);
    expect_exact(
        u16.view(), kGray,
        HistogramSpec::with_edges({-3.5, 0.5, 0.7, 10.2, 1000.9, 4096, 30000.25, 65535.5}));
    // Many uneven edges: squares, so the widths grow.
    std::vector<double> squares;
    for (int i = 0; i * i <= 70000; ++i) squares.push_back(static_cast<double>(i) * i + 0.25);
    expect_exact(u16.view(), kGray, HistogramSpec::with_edges(squares));
    const Image rgba16 = test::uniform(640, 480, 4, SampleType::U16, 12, 43);
    expect_exact(rgba16.view(), kRgbaLuma,
                 HistogramSpec::with_edges({0, 100, 101, 102, 2047.5, 4000, 4096}), pixels(rgba16));
}

TEST_F(BlockSharedGpu, Saturation) {
    const Image one = test::constant(300, 300, 1, SampleType::U8, 8, 9);
    HistogramSpec spec = HistogramSpec::even(256, 0, 256);
    spec.saturate = 1000;
    const HistogramResult r = expect_exact(one.view(), kGray, spec);
    ASSERT_EQ(r.channels.size(), 1u);
    EXPECT_EQ(r.channels[0].counts[9], 1000u);
    EXPECT_EQ(r.channels[0].total(), 1000u);

    const Image rgb = test::uniform(640, 480, 3, SampleType::U16, 16, 51);
    HistogramSpec s16 = HistogramSpec::even(64, 0, 65536);
    s16.saturate = 4000;  // about 4800 per bin: most are capped
    expect_exact(rgb.view(), kRgbLuma, s16);
}

TEST_F(BlockSharedGpu, LargestBinCountsThatFit) {
    const std::size_t optin = test::shared_optin();
    ASSERT_GT(optin, 0u);
    const Image img = test::uniform(2000, 1000, 1, SampleType::U16, 16, 61);
    const int even_bins = static_cast<int>(optin / 4);
    expect_exact(img.view(), kGray, HistogramSpec::even(std::min(even_bins, 65536), 0, 65536),
                 pixels(img));
    const int edge_bins = static_cast<int>(optin / 8) - 1;
    std::vector<double> edges;
    for (int i = 0; i <= edge_bins; ++i)
        edges.push_back(static_cast<double>(i) * 65536.0 / edge_bins);
    expect_exact(img.view(), kGray, HistogramSpec::with_edges(edges), pixels(img));
}

TEST_F(BlockSharedGpu, TooManyBinsAreRefusedOnlyWhenTheyDoNotFit) {
    const Image img = test::uniform(256, 256, 1, SampleType::U16, 16, 71);
    const HistogramRequest request{img.view(), kGray, HistogramSpec::even(65536, 0, 65536)};
    if (65536u * 4u > test::shared_optin()) {
        const std::string why = engine_->unsupported_reason(request);
        EXPECT_FALSE(why.empty());
        EXPECT_NE(why.find("block-shared"), std::string::npos) << why;
        EXPECT_THROW(engine_->compute(request), UnsupportedError);
        EXPECT_LT(engine_->capabilities().max_bins, 65536);
    } else {
        expect_exact(request.image, request.channels, request.spec, pixels(img));
    }
    // Explicit edges need a threshold per bin too: refused once the pair no longer fits.
    std::vector<double> edges;
    const int bins = static_cast<int>(test::shared_optin() / 8) + 1;
    for (int i = 0; i <= bins; ++i) edges.push_back(i);
    const HistogramRequest with_edges{img.view(), kGray, HistogramSpec::with_edges(edges)};
    const std::string why = engine_->unsupported_reason(with_edges);
    EXPECT_NE(why.find("shared memory"), std::string::npos) << why;
    EXPECT_THROW(engine_->compute(with_edges), UnsupportedError);
}

TEST_F(BlockSharedGpu, LargeImages) {
    const Image rgba = test::uniform(3840, 2160, 4, SampleType::U8, 8, 81);
    expect_exact(rgba.view(), kRgbaLuma, HistogramSpec::even(256, 0, 256), pixels(rgba));
    const Image g16 = test::uniform(4096, 3072, 1, SampleType::U16, 16, 82);
    expect_exact(g16.view(), kGray, HistogramSpec::even(4096, 0, 65536), pixels(g16));
}

// ---------------------------------------------------------------------------------------------
// Host-side behaviour: runs on every machine.

TEST(CudaHost, RegisterEnginesAddsBlockShared) {
    EngineRegistry reg;
    register_core_engines(reg);
    cuda::register_engines(reg);
    HistogramEngine* e = reg.find("block-shared");
    ASSERT_NE(e, nullptr);
    EXPECT_NE(reg.find("cpu"), nullptr);
    EXPECT_FALSE(e->description().empty());
    EXPECT_TRUE(e->capabilities().saturate);
    EXPECT_THROW(cuda::register_engines(reg), UsageError);  // names stay unique
}

TEST(CudaHost, AvailabilityFollowsTheDevice) {
    EngineRegistry reg;
    cuda::register_engines(reg);
    HistogramEngine* e = reg.find("block-shared");
    ASSERT_NE(e, nullptr);
    const Availability a = e->availability();
    const Image img = test::uniform(64, 48, 3, SampleType::U8, 8, 91);
    const HistogramRequest request{img.view(), kRgbLuma, HistogramSpec::even(256, 0, 256)};
    if (cuda::device_available()) {
        EXPECT_TRUE(a.available) << a.reason;
        const HistogramResult r = e->compute(request);
        EXPECT_EQ(r.channels, reference_histogram(request.image, request.channels, request.spec));
    } else {
        EXPECT_FALSE(a.available);
        EXPECT_FALSE(a.reason.empty());
        EXPECT_THROW(e->compute(request), UnsupportedError);
        try {
            e->compute(request);
        } catch (const UnsupportedError& err) {
            EXPECT_NE(std::string(err.what()).find("not available"), std::string::npos)
                << err.what();
        }
    }
}

TEST(CudaHost, QueryDevicesNeverThrows) {
    cuda::DeviceQuery q;
    EXPECT_NO_THROW(q = cuda::query_devices());
    EXPECT_GT(q.runtime_version, 0);
    EXPECT_EQ(cuda::device_available(), !q.devices.empty());
    if (q.devices.empty()) {
        EXPECT_FALSE(q.error.empty());
        return;
    }
    for (const cuda::DeviceInfo& d : q.devices) {
        EXPECT_FALSE(d.name.empty());
        EXPECT_GT(d.sm_count, 0);
        EXPECT_GT(d.global_memory, 0u);
        EXPECT_GE(d.shared_per_block_optin, d.shared_per_block);
        EXPECT_GT(d.peak_bandwidth_gbs(), 0.0);
    }
}

TEST(CudaHost, PeakBandwidthFormula) {
    cuda::DeviceInfo d;
    d.memory_bus_bits = 5120;
    d.memory_clock_khz = 2619000;  // H100 SXM: HBM3 at 2.619 GHz
    EXPECT_NEAR(d.peak_bandwidth_gbs(), 2.0 * 2619e6 * 640.0 / 1e9, 1e-6);
    d.memory_clock_khz = 0;
    EXPECT_EQ(d.peak_bandwidth_gbs(), 0.0);
}

}  // namespace
