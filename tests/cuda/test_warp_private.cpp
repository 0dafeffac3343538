// The "warp-private" GPU engine (multi-histogramming, Henriksen et al.) beyond the engine
// matrix of test_gpu_engines.cpp: explicit edges too many for shared memory, bin counts that
// need several passes, contention from one-value images, and the tuning it reports.
// WarpPrivateGpu.* skip without a device; CudaHost.* run on any machine.

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "gpu_test.hpp"
#include "histoscope/core/engine.hpp"
#include "histoscope/core/error.hpp"
#include "histoscope/cuda/register.hpp"
#include "synthetic.hpp"

using namespace hs;

namespace {

class WarpPrivateGpu : public ::testing::Test {
  protected:
    void SetUp() override {
        if (const std::string why = test::no_gpu_reason(); !why.empty()) GTEST_SKIP() << why;
        engine_ = test::gpu_engine(registry_, "warp-private");
        ASSERT_NE(engine_, nullptr);
    }

    // Compares every count with the reference; returns the engine's description afterwards
    // (it names the tuning of the last request).
    std::string expect_exact(const ImageView& image, const std::vector<Channel>& channels,
                             const HistogramSpec& spec) {
        if (!test::expect_exact(*engine_, {image, channels, spec})) return {};
        return std::string(engine_->description());
    }

    EngineRegistry registry_;
    HistogramEngine* engine_ = nullptr;
};

}  // namespace

TEST_F(WarpPrivateGpu, ManyExplicitEdges) {
    // Thresholds of 20000 (16-bit) and 30000 (joint colour) bins: searched in global memory.
    std::vector<double> edges;
    for (int i = 0; i <= 20000; ++i) edges.push_back(-7.5 + i * 3.3);
    const Image g16 = test::gaussian(1000, 600, 3, SampleType::U16, 16, 3000.0);
    expect_exact(g16.view(), {Channel::R, Channel::B, Channel::Luma709},
                 HistogramSpec::with_edges(edges));
    std::vector<double> joint_edges;
    for (int i = 0; i <= 30000; ++i) joint_edges.push_back(i * 559.3);
    const Image rgb = test::uniform(800, 600, 3, SampleType::U8, 8, 4);
    expect_exact(rgb.view(), {Channel::Joint}, HistogramSpec::with_edges(joint_edges));
}

TEST_F(WarpPrivateGpu, SeveralPasses) {
    // 65536 and 2^24 bins do not fit into the shared memory of a block: several passes.
    const Image g16 = test::gaussian(2000, 1000, 1, SampleType::U16, 16, 9000.0);
    const std::string d =
        expect_exact(g16.view(), {Channel::Gray}, HistogramSpec::even(65536, 0, 65536));
    EXPECT_NE(d.find(" passes of "), std::string::npos) << d;
    RecordProperty("tuning_65536_bins", d);
    expect_exact(g16.view(), {Channel::Gray}, HistogramSpec::even(50000, -1000, 70000));
    const Image rgba = test::gaussian(640, 480, 4, SampleType::U8, 8, 20.0);
    RecordProperty("tuning_joint", expect_exact(rgba.view(), {Channel::Joint},
                                                HistogramSpec::even(1 << 24, 0, 1 << 24)));
    expect_exact(rgba.view(), {Channel::Joint}, HistogramSpec::even(3000000, 12345, 1 << 24));
}

TEST_F(WarpPrivateGpu, ContentionGetsMoreSubHistograms) {
    // One value everywhere: every lane of a warp hits one bin, the race factor is 32 at M = 1.
    const Image one = test::constant(1920, 1080, 1, SampleType::U8, 8, 77);
    const std::string d =
        expect_exact(one.view(), {Channel::Gray}, HistogramSpec::even(256, 0, 256));
    EXPECT_EQ(d.find("M=1 "), std::string::npos) << d;
    EXPECT_NE(d.find("race factor"), std::string::npos) << d;
    RecordProperty("tuning_one_value", d);
    // Larger than 2^24 samples in one bin, 16-bit.
    const Image deep = test::constant(4096, 4100, 1, SampleType::U16, 16, 4095);
    expect_exact(deep.view(), {Channel::Gray}, HistogramSpec::even(4096, 0, 65536));
}

TEST_F(WarpPrivateGpu, BenchmarkMatchesTheReference) {
    const Image img = test::gaussian(1280, 720, 3, SampleType::U8, 8, 5.0);
    test::expect_benchmark_exact(
        *engine_, {img.view(), {Channel::G, Channel::Luma601}, HistogramSpec::even(256, 0, 256)});
}

TEST(CudaHost, RegisterEnginesAddsWarpPrivate) {
    EngineRegistry reg;
    cuda::register_engines(reg);
    HistogramEngine* e = reg.find("warp-private");
    ASSERT_NE(e, nullptr);
    EXPECT_FALSE(e->description().empty());
    const Capabilities caps = e->capabilities();
    EXPECT_TRUE(caps.joint);
    EXPECT_TRUE(caps.edges);
    EXPECT_EQ(caps.max_bins, kMaxBins);
}
