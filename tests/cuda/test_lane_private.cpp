// The "lane-private" engine against the exact CPU reference: 8- and 16-bit samples, 1, 3 and 4
// interleaved channels with any subset of them counted (and one asked for twice, luma among
// them: the pixel path), 32, 16 and 8
// copies of the histogram per block, 16-bit bins by shift over sub-ranges with values at their
// borders, counts crossing 65535 per bin, tiny and odd shapes, and repeated launches of one run
// (the kernel zeroes its counts itself: the benchmark's last result must still be exact).
// LanePrivateGpu.* skip without a device.

#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "gpu_test.hpp"
#include "histoscope/core/engine.hpp"
#include "histoscope/core/error.hpp"
#include "histoscope/cuda/register.hpp"
#include "kernels/lane_private.cuh"
#include "synthetic.hpp"

using namespace hs;

namespace {

class LanePrivateGpu : public ::testing::Test {
  protected:
    void SetUp() override {
        if (const std::string why = test::no_gpu_reason(); !why.empty()) GTEST_SKIP() << why;
        engine_ = test::gpu_engine(registry_, "lane-private");
        ASSERT_NE(engine_, nullptr);
    }

    // Served, and exact both from compute() and after repeated launches of one run.
    void expect_exact(const Image& image, const std::vector<Channel>& channels,
                      const HistogramSpec& spec, const std::string& what) {
        SCOPED_TRACE(what);
        const HistogramRequest request{image.view(), channels, spec};
        if (!test::expect_exact(*engine_, request)) return;
        const std::vector<ChannelHistogram> ref = reference_histogram(image.view(), channels, spec);
        try {
            BenchOptions options;
            options.warmup_runs = 2;
            options.timed_runs = 3;
            EXPECT_TRUE(engine_->benchmark(request, options).last == ref)
                << "the fifth launch of one run differs";
        } catch (const Error& e) {
            FAIL() << "threw: " << e.what();
        }
    }

    EngineRegistry registry_;
    HistogramEngine* engine_ = nullptr;
};

const std::vector<std::vector<Channel>>& subsets(int channels) {
    static const std::vector<std::vector<Channel>> gray{{Channel::Gray},
                                                        {Channel::Gray, Channel::Gray}};
    // Luma takes the pixel path (whole groups of pixels), alone, beside samples and twice.
    static const std::vector<std::vector<Channel>> rgb{
        {Channel::R, Channel::G, Channel::B},
        {Channel::B},
        {Channel::G, Channel::R},
        {Channel::R, Channel::B, Channel::R},
        {Channel::R, Channel::G, Channel::B, Channel::Luma601},
        {Channel::Luma709},
        {Channel::Luma601, Channel::G, Channel::Luma709, Channel::Luma601}};
    static const std::vector<std::vector<Channel>> rgba{
        {Channel::R, Channel::G, Channel::B, Channel::A},
        {Channel::A},
        {Channel::R, Channel::G, Channel::B},
        {Channel::B, Channel::G},
        {Channel::A, Channel::Luma709, Channel::R},
        {Channel::Luma601}};
    return channels == 1 ? gray : channels == 3 ? rgb : rgba;
}

}  // namespace

TEST_F(LanePrivateGpu, EveryChannelSubsetAtBothDepths) {
    for (const int c : {1, 3, 4}) {
        const Image u8 = test::uniform(1023, 77, c, SampleType::U8, 8, 31);
        const Image u16 = test::uniform(777, 99, c, SampleType::U16, 16, 32);
        const Image u12 = test::gaussian(333, 111, c, SampleType::U16, 12, 300.0);
        for (const auto& channels : subsets(c)) {
            expect_exact(u8, channels, HistogramSpec::even(256, 0, 256), "u8 identity");
            expect_exact(u8, channels, HistogramSpec::even(7, 10, 250), "u8 table");
            expect_exact(u8, channels, HistogramSpec::with_edges({0, 1, 7.5, 64, 200, 255}),
                         "u8 edges");
            // One counted channel: 32, 16 and 8 copies of 1024, 2048 and 4096 bins; 16 or 8
            // copies of 1024 bins for several (H100: 227 KiB of shared memory per block).
            const bool one = std::set<Channel>(channels.begin(), channels.end()).size() == 1;
            for (const int bins : {1024, 2048, 4096})
                if (one || bins == 1024)
                    expect_exact(u16, channels, HistogramSpec::even(bins, 0, 65536), "u16 shift");
            expect_exact(u12, channels, HistogramSpec::even(1024, 0, 4096), "u16/12 shift");
            if (one)
                expect_exact(u12, channels, HistogramSpec::even(4096, 0, 4096), "u16/12 per value");
        }
    }
}

TEST_F(LanePrivateGpu, SixteenBitSubRangesAndBorders) {
    // Values at 0, lower - 1, lower, upper - 1, upper and 65535 for ranges inside the 16-bit
    // values, one starting below zero and one reaching past them.
    const std::vector<std::uint32_t> values{0, 1023, 1024, 5119, 5120, 65535, 65534, 7};
    for (const int c : {1, 3}) {
        const Image img =
            test::make_image(61, 19, c, SampleType::U16, 16, [&](int x, int y, int ch) {
                return values[static_cast<std::size_t>(x + y + ch) % values.size()];
            });
        const std::vector<Channel> channels = subsets(c).front();
        expect_exact(img, channels, HistogramSpec::even(64, 1024, 5120), "inside");
        expect_exact(img, channels, HistogramSpec::even(16, -32, 96), "below zero");
        expect_exact(img, channels, HistogramSpec::even(2, 65000, 66024), "past the top");
        expect_exact(img, channels, HistogramSpec::even(1, 0, 1 << 20), "one wide bin");
    }
}

TEST_F(LanePrivateGpu, CountsCross65535PerBinAndTinyShapes) {
    expect_exact(test::constant(300, 300, 1, SampleType::U16, 16, 65535), {Channel::Gray},
                 HistogramSpec::even(1024, 0, 65536), "one value u16");
    expect_exact(test::constant(300, 300, 3, SampleType::U8, 8, 255),
                 {Channel::R, Channel::G, Channel::B}, HistogramSpec::even(256, 0, 256),
                 "one value rgb");
    for (const int c : {1, 3, 4}) {
        // 16-bit: 4096 bins of one channel, 1024 of three or four (8 copies of 4096 bins of
        // three channels need 394,240 bytes of shared memory per block: refused, see below).
        const int bins = c == 1 ? 4096 : 1024;
        for (const auto& [w, h] :
             std::vector<std::pair<int, int>>{{1, 1}, {1, 9}, {7, 1}, {17, 13}}) {
            expect_exact(test::uniform(w, h, c, SampleType::U8, 8, 5), subsets(c).front(),
                         HistogramSpec::even(256, 0, 256), "tiny u8");
            expect_exact(test::uniform(w, h, c, SampleType::U16, 16, 6), subsets(c).front(),
                         HistogramSpec::even(bins, 0, 65536), "tiny u16");
            if (c > 1)
                expect_exact(test::uniform(w, h, c, SampleType::U16, 16, 7),
                             {Channel::Luma709, Channel::B}, HistogramSpec::even(1024, 0, 65536),
                             "tiny u16 luma");
        }
    }
}

TEST_F(LanePrivateGpu, RefusesWhatDoesNotFitIntoSharedMemory) {
    // 8 copies (the fewest) of 4096 bins of three or four channels need 394,240 or 525,312
    // bytes of shared memory per block, 8 copies of 8192 bins of one channel 263,168: more than
    // the H100's opt-in limit of 232,448. Refused with a reason, never a failed launch; one
    // channel of such an image is served.
    const std::size_t optin = cuda::query_devices().devices.front().shared_per_block_optin;
    const HistogramSpec bins4096 = HistogramSpec::even(4096, 0, 65536);
    int refused = 0;
    for (const int c : {3, 4}) {
        const Image img = test::uniform(64, 64, c, SampleType::U16, 16, 2);
        const HistogramRequest all{img.view(), subsets(c).front(), bins4096};
        if (cuda::detail::lane_private_smem_bytes(c, 4096, cuda::detail::kLanePrivateMinCopies) >
            optin) {
            const std::string why = engine_->unsupported_reason(all);
            EXPECT_NE(why.find("shared memory"), std::string::npos) << why;
            EXPECT_THROW(engine_->compute(all), UnsupportedError);
            ++refused;
        }
        expect_exact(img, {Channel::G}, bins4096, "one channel of several");
    }
    const Image gray = test::uniform(64, 64, 1, SampleType::U16, 16, 3);
    if (cuda::detail::lane_private_smem_bytes(1, 8192, cuda::detail::kLanePrivateMinCopies) >
        optin) {
        EXPECT_NE(engine_->unsupported_reason(
                      {gray.view(), {Channel::Gray}, HistogramSpec::even(8192, 0, 65536)}),
                  "");
        ++refused;
    }
    RecordProperty("refused", refused);
}

TEST_F(LanePrivateGpu, RefusesWhatItCannotCount) {
    const Image u16 = test::uniform(64, 64, 1, SampleType::U16, 16, 1);
    for (const HistogramSpec& spec :
         {HistogramSpec::even(1000, 0, 65536), HistogramSpec::even(65536, 0, 65536),
          HistogramSpec::with_edges({0, 1, 2})}) {
        const std::string why = engine_->unsupported_reason({u16.view(), {Channel::Gray}, spec});
        EXPECT_NE(why, "") << spec.describe();
    }
    // Joint colours, and more distinct channels than one pass counts.
    const Image rgb = test::uniform(64, 64, 3, SampleType::U8, 8, 1);
    EXPECT_NE(engine_->unsupported_reason(
                  {rgb.view(), {Channel::Joint}, HistogramSpec::even(256, 0, 1 << 24)}),
              "");
    EXPECT_NE(engine_->unsupported_reason(
                  {rgb.view(),
                   {Channel::R, Channel::G, Channel::B, Channel::Luma601, Channel::Luma709},
                   HistogramSpec::even(256, 0, 256)}),
              "");
}
