// The "thread-private" GPU engine (8-bit per-thread counters) beyond the engine matrix of
// test_gpu_engines.cpp: many flushes of one counter, the bin counts it serves and the ones it
// refuses. ThreadPrivateGpu.* skip without a device; CudaHost.* run on any machine.

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

class ThreadPrivateGpu : public ::testing::Test {
  protected:
    void SetUp() override {
        if (const std::string why = test::no_gpu_reason(); !why.empty()) GTEST_SKIP() << why;
        engine_ = test::gpu_engine(registry_, "thread-private");
        ASSERT_NE(engine_, nullptr);
    }

    void expect_exact(const ImageView& image, const std::vector<Channel>& channels,
                      const HistogramSpec& spec) {
        test::expect_exact(*engine_, {image, channels, spec});
    }

    EngineRegistry registry_;
    HistogramEngine* engine_ = nullptr;
};

}  // namespace

TEST_F(ThreadPrivateGpu, OneCounterFlushedManyTimes) {
    // Every sample in one bin: each thread's counter reaches 240 (8-bit) or 248 (16-bit)
    // before every flush.
    const Image u8 = test::constant(4000, 3000, 1, SampleType::U8, 8, 255);
    expect_exact(u8.view(), {Channel::Gray}, HistogramSpec::even(256, 0, 256));
    expect_exact(u8.view(), {Channel::Gray}, HistogramSpec::even(1, 0, 256));
    const Image u16 = test::constant(3000, 2000, 4, SampleType::U16, 16, 40000);
    expect_exact(u16.view(), {Channel::A, Channel::Luma601}, HistogramSpec::even(1024, 0, 65536));
}

TEST_F(ThreadPrivateGpu, EdgesAndJointThatFit) {
    std::vector<double> edges;
    for (int i = 0; i <= 1000; ++i) edges.push_back(-3.5 + i * 66.1);
    const Image g16 = test::gaussian(999, 777, 3, SampleType::U16, 16, 5000.0);
    expect_exact(g16.view(), {Channel::G, Channel::Luma709}, HistogramSpec::with_edges(edges));
    const Image rgb = test::uniform(1280, 720, 3, SampleType::U8, 8, 3);
    expect_exact(rgb.view(), {Channel::Joint}, HistogramSpec::even(1024, 0, 1 << 24));
    expect_exact(rgb.view(), {Channel::Joint},
                 HistogramSpec::with_edges({0, 1, 65536, 1e6, 1 << 23, 16777215, 2e7}));
}

TEST_F(ThreadPrivateGpu, RefusesBinsThatDoNotFitForOneWarp) {
    const Image img = test::uniform(256, 256, 3, SampleType::U16, 16, 71);
    // 65536 bins x 32 threads = 2 MiB of 8-bit counters: more than any GPU's shared memory.
    const HistogramRequest big{img.view(), {Channel::R}, HistogramSpec::even(65536, 0, 65536)};
    const std::string why = engine_->unsupported_reason(big);
    EXPECT_NE(why.find("thread-private"), std::string::npos) << why;
    EXPECT_THROW(engine_->compute(big), UnsupportedError);
    const Image rgb = test::uniform(64, 64, 3, SampleType::U8, 8, 72);
    EXPECT_FALSE(engine_
                     ->unsupported_reason(
                         {rgb.view(), {Channel::Joint}, HistogramSpec::even(1 << 24, 0, 1 << 24)})
                     .empty());
    // The largest bin count it advertises is served.
    const int most = engine_->capabilities().max_bins;
    EXPECT_LE(static_cast<std::size_t>(most) * 32, test::shared_optin());
    expect_exact(img.view(), {Channel::B}, HistogramSpec::even(most, 0, 65536));
}

TEST_F(ThreadPrivateGpu, BenchmarkMatchesTheReference) {
    const Image img = test::uniform(1920, 1080, 4, SampleType::U8, 8, 5);
    test::expect_benchmark_exact(
        *engine_, {img.view(), {Channel::A, Channel::Luma709}, HistogramSpec::even(100, 3, 250)});
}

TEST(CudaHost, RegisterEnginesAddsThreadPrivate) {
    EngineRegistry reg;
    cuda::register_engines(reg);
    HistogramEngine* e = reg.find("thread-private");
    ASSERT_NE(e, nullptr);
    EXPECT_FALSE(e->description().empty());
    EXPECT_TRUE(e->capabilities().luma);
}
