// Every GPU engine in the registry against the exact CPU reference, on one matrix of inputs
// (uniform, one value, narrow gaussian, ramp, bundled photos, 1x1, 1xN, Nx1, odd widths,
// padded strides, counts crossing 255/256 and 65535/65536, 3- and 4-channel interleaved) and
// specs (8-bit 256 bins, uneven ranges, explicit edges, 16-bit 1024/4096/65536 bins,
// saturation, luma, joint RGB), and every engine at the most bins and channels it claims. An
// engine may refuse a request, but only through unsupported_reason(); whatever it accepts must
// be exact.
//
// Photos: decoded with hs::media when the build has OpenCV; on a GPU host without OpenCV,
// from the raw dumps of bundled_media.hpp.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "bundled_media.hpp"
#include "gpu_test.hpp"
#include "histoscope/core/engine.hpp"
#include "histoscope/core/error.hpp"
#include "histoscope/cuda/register.hpp"
#include "histoscope/media/media.hpp"
#include "kernels/block_shared.cuh"
#include "kernels/strategies.hpp"
#include "synthetic.hpp"

using namespace hs;

namespace {

// A strategy that exists only in these tests, added as one row of the strategy table:
// block-shared's kernels launched in blocks of 256 threads only (more blocks, each counting
// fewer pixels, than the registered row's occupancy choice).
cuda::detail::Strategy test_only_strategy() {
    return cuda::detail::block_shared_row(
        "test-block-shared-256", "test only: block-shared in blocks of 256 threads", {{256}});
}

std::vector<std::string> gpu_engine_names() {
    EngineRegistry registry;
    cuda::register_engines(registry);
    std::vector<std::string> names = registry.names();
    names.emplace_back(test_only_strategy().name);
    return names;
}

struct Case {
    std::string what;
    Image image;
};

// Bundled photos, as decoded images.
std::vector<Case> photos() {
    std::vector<Case> out;
    for (auto& p : test::bundled_photos()) out.push_back({p.name, std::move(p.frames.front())});
    return out;
}

std::vector<Channel> plain_and_luma(const ImageView& v) {
    std::vector<Channel> c = all_channels(v.channels);
    if (v.channels > 1) {
        c.push_back(Channel::Luma601);
        c.push_back(Channel::Luma709);
    }
    return c;
}

std::vector<HistogramSpec> specs_for(const ImageView& v) {
    std::vector<HistogramSpec> s;
    if (v.type == SampleType::U8) {
        s.push_back(HistogramSpec::even(256, 0, 256));
        s.push_back(HistogramSpec::even(7, 10, 250));
        s.push_back(HistogramSpec::with_edges({0, 1, 7.5, 64, 200, 254.5, 255}));
        HistogramSpec sat = HistogramSpec::even(256, 0, 256);
        sat.saturate = 255;
        s.push_back(sat);
        sat.saturate = 1000;
        s.push_back(sat);
    } else {
        const std::int64_t top = std::int64_t{1} << v.bit_depth;
        for (int bins : {1024, 4096, 65536}) s.push_back(HistogramSpec::even(bins, 0, top));
        s.push_back(HistogramSpec::even(1000, 17, top - 3));
        s.push_back(HistogramSpec::with_edges({0, 0.5, 255, 256, 1023.25, 4096, 40000, 65535}));
        HistogramSpec sat = HistogramSpec::even(4096, 0, top);
        sat.saturate = 65535;
        s.push_back(sat);
    }
    return s;
}

class GpuEngineMatrix : public ::testing::TestWithParam<std::string> {
  protected:
    void SetUp() override {
        if (const std::string why = test::no_gpu_reason(); !why.empty()) GTEST_SKIP() << why;
        if (GetParam() == test_only_strategy().name)
            registry_.add(cuda::detail::make_engine(test_only_strategy()));
        engine_ = test::gpu_engine(registry_, GetParam());
        ASSERT_NE(engine_, nullptr);
    }

    // Exact or refused; returns true when the engine served the request.
    bool check(const std::string& what, const ImageView& image,
               const std::vector<Channel>& channels, const HistogramSpec& spec) {
        SCOPED_TRACE(what);
        const HistogramRequest request{image, channels, spec};
        if (!engine_->unsupported_reason(request).empty()) {
            ++refused_;
            return false;
        }
        if (!test::expect_exact(*engine_, request)) return false;
        ++served_;
        return true;
    }

    void check_all_specs(const std::string& what, const Image& img) {
        const ImageView v = img.view();
        for (const HistogramSpec& spec : specs_for(v)) {
            check(what, v, plain_and_luma(v), spec);
            // The plain channels alone too, for engines without luma.
            if (v.channels > 1) check(what + ", plain", v, all_channels(v.channels), spec);
        }
    }

    void TearDown() override {
        // "Exact or refused" must not pass by refusing everything.
        if (engine_ != nullptr && must_serve_ && !IsSkipped()) {
            EXPECT_GT(served_, 0) << GetParam() << " refused every case of this test";
        }
        if (engine_ != nullptr)
            RecordProperty("served", std::to_string(served_) + " served, " +
                                         std::to_string(refused_) + " refused");
    }

    EngineRegistry registry_;
    HistogramEngine* engine_ = nullptr;
    int served_ = 0, refused_ = 0;
    bool must_serve_ = true;  // TearDown: the engine served at least one case
};

}  // namespace

TEST_P(GpuEngineMatrix, ServesThePlainCase) {
    // Every engine must at least serve one 8-bit channel at 256 bins: plain, or with a
    // saturation cap of 255 for an engine that only saturates (packed-sat).
    const Image img = test::uniform(640, 480, 1, SampleType::U8, 8, 3);
    HistogramSpec spec = HistogramSpec::even(256, 0, 256);
    if (!check("uniform", img.view(), {Channel::Gray}, spec)) {
        spec.saturate = 255;
        EXPECT_TRUE(check("uniform, saturated", img.view(), {Channel::Gray}, spec));
    }
}

TEST_P(GpuEngineMatrix, FourK) {
    // A 4K frame at both depths (also the large input of the compute-sanitizer runs).
    const Image rgb = test::uniform(3840, 2160, 3, SampleType::U8, 8, 21);
    check("4K u8", rgb.view(), plain_and_luma(rgb.view()), HistogramSpec::even(256, 0, 256));
    HistogramSpec saturated = HistogramSpec::even(256, 0, 256);
    saturated.saturate = 255;
    check("4K u8 saturated", rgb.view(), {Channel::R}, saturated);
    const Image deep = test::gaussian(3840, 2160, 1, SampleType::U16, 16, 2000.0);
    check("4K u16", deep.view(), {Channel::Gray}, HistogramSpec::even(4096, 0, 65536));
}

TEST_P(GpuEngineMatrix, SyntheticDistributions) {
    for (int c : {1, 3, 4}) {
        check_all_specs("uniform u8", test::uniform(1920, 1080, c, SampleType::U8, 8, 11));
        check_all_specs("gaussian u8", test::gaussian(1000, 700, c, SampleType::U8, 8, 3.0));
        check_all_specs("ramp u8", test::ramp(1023, 77, c, SampleType::U8, 8));
        check_all_specs("uniform u16", test::uniform(1000, 500, c, SampleType::U16, 16, 12));
        check_all_specs("gaussian u16/12", test::gaussian(999, 333, c, SampleType::U16, 12, 40.0));
        check_all_specs("ramp u16/10", test::ramp(777, 99, c, SampleType::U16, 10));
    }
}

TEST_P(GpuEngineMatrix, OneValueCountsCross8And16Bits) {
    // 300 x 300 = 90000 and 4096 x 4100 = 16793600 samples in one bin.
    for (std::uint32_t v : {0u, 1u, 255u}) {
        check_all_specs("one value", test::constant(300, 300, 1, SampleType::U8, 8, v));
        check_all_specs("one value", test::constant(300, 300, 4, SampleType::U8, 8, v));
    }
    check_all_specs("one value u16", test::constant(300, 300, 3, SampleType::U16, 16, 65535));
    check_all_specs("one value 16M", test::constant(4096, 4100, 1, SampleType::U8, 8, 200));
}

TEST_P(GpuEngineMatrix, TinyOddAndStridedShapes) {
    for (int c : {1, 3, 4}) {
        for (auto [w, h] :
             std::vector<std::pair<int, int>>{{1, 1}, {1, 1000}, {1000, 1}, {17, 13}, {1023, 77}}) {
            check_all_specs("shape u8", test::uniform(w, h, c, SampleType::U8, 8, 5));
            check_all_specs("shape u16", test::uniform(w, h, c, SampleType::U16, 16, 6));
        }
        check_all_specs("padded u8", test::uniform(333, 111, c, SampleType::U8, 8, 7, 13));
        check_all_specs("padded u16", test::uniform(333, 111, c, SampleType::U16, 12, 8, 6));
    }
}

TEST_P(GpuEngineMatrix, RangeBorders) {
    // Values at lower, upper - 1 and upper (excluded), at both depths.
    const Image u8 = test::make_image(64, 64, 1, SampleType::U8, 8, [](int x, int, int) {
        return std::uint32_t(x % 3 == 0 ? 10 : x % 3 == 1 ? 249 : 250);
    });
    check("borders u8", u8.view(), {Channel::Gray}, HistogramSpec::even(7, 10, 250));
    check("borders u8", u8.view(), {Channel::Gray}, HistogramSpec::even(240, 10, 250));
    const Image u16 = test::make_image(64, 64, 1, SampleType::U16, 16, [](int x, int, int) {
        return std::uint32_t(x % 3 == 0 ? 0 : x % 3 == 1 ? 65534 : 65535);
    });
    check("borders u16", u16.view(), {Channel::Gray}, HistogramSpec::even(1024, 0, 65535));
    check("borders u16", u16.view(), {Channel::Gray}, HistogramSpec::even(65536, 0, 65536));
    // The same borders with a cap below the counts (and served by saturating engines).
    HistogramSpec capped = HistogramSpec::even(240, 10, 250);
    capped.saturate = 1000;
    check("borders u8 capped", u8.view(), {Channel::Gray}, capped);
    capped = HistogramSpec::even(1024, 0, 65535);
    capped.saturate = 1000;
    check("borders u16 capped", u16.view(), {Channel::Gray}, capped);
}

TEST_P(GpuEngineMatrix, JointColour) {
    // An engine without joint colours must say so; one with them must serve some of these.
    must_serve_ = engine_->capabilities().joint;
    for (int c : {3, 4}) {
        const Image img = test::uniform(1280, 720, c, SampleType::U8, 8, 9);
        HistogramSpec saturated = HistogramSpec::even(4096, 0, 1 << 24);
        saturated.saturate = 100;
        for (const HistogramSpec& spec : {HistogramSpec::even(1 << 24, 0, 1 << 24),
                                          HistogramSpec::even(4096, 0, 1 << 24), saturated}) {
            const bool served = check("joint", img.view(), {Channel::Joint}, spec);
            if (!must_serve_) {
                EXPECT_FALSE(served) << "served joint colours without the capability";
            }
        }
    }
}

TEST_P(GpuEngineMatrix, RunsOfEqualValues) {
    // Runs of equal values of growing length (1, 2, 3, ...: they start and end anywhere in the
    // groups a thread reads), every third run outside the range, and flat images whose every
    // warp ends its groups on one value: engines that merge equal neighbours must still count
    // each pixel once.
    const auto runs = [](int w, int h, int channels, SampleType type, int depth) {
        return test::make_image(w, h, channels, type, depth, [&](int x, int y, int c) {
            int i = y * w + x, len = 1;
            while (i >= len) i -= len++;  // i is in the run of length len
            const std::uint32_t top = (1u << depth) - 1;
            return len % 3 == 0 ? 3
                                : 40 + static_cast<std::uint32_t>(len * 7 + c * 13) % (top - 80);
        });
    };
    for (int c : {1, 3, 4}) {
        for (const Image& img :
             {runs(1001, 37, c, SampleType::U8, 8), runs(3840, 16, c, SampleType::U8, 8),
              test::constant(1003, 45, c, SampleType::U8, 8, 77)}) {
            const ImageView v = img.view();
            HistogramSpec capped = HistogramSpec::even(256, 0, 256);
            capped.saturate = 1000;  // for the saturating engines
            for (const HistogramSpec& spec :
                 {HistogramSpec::even(256, 0, 256), HistogramSpec::even(200, 10, 250), capped}) {
                check("runs", v, plain_and_luma(v), spec);
                if (c > 1) check("runs, plain", v, all_channels(c), spec);
            }
            if (c >= 3)
                check("runs, joint", v, {Channel::Joint}, HistogramSpec::even(1 << 24, 0, 1 << 24));
        }
    }
    for (const Image& img : {runs(1001, 37, 1, SampleType::U16, 16),
                             test::constant(1003, 45, 3, SampleType::U16, 16, 4099)})
        for (const HistogramSpec& spec :
             {HistogramSpec::even(65536, 0, 65536), HistogramSpec::even(1000, 17, 65533)})
            check("runs u16", img.view(), all_channels(img.view().channels), spec);
}

namespace {

// The largest bin count in [1, top] with which the engine serves `channels` of `image` (even
// bins over [0, top), saturating at `cap`), or 0. The largest power of two first, then the
// largest count below the next power of two: engines refuse bins by their shared memory, which
// grows with the bins.
int largest_bins(const HistogramEngine& engine, const ImageView& image,
                 const std::vector<Channel>& channels, std::optional<std::uint64_t> cap, int top) {
    const auto serves = [&](int bins) {
        HistogramSpec s = HistogramSpec::even(bins, 0, top);
        s.saturate = cap;
        return engine.unsupported_reason({image, channels, s}).empty();
    };
    int lo = top;
    while (lo >= 1 && !serves(lo)) lo /= 2;
    if (lo < 1) return 0;
    int hi = std::min(top, 2 * lo - 1);  // lo served; find the largest served in [lo, hi]
    while (lo < hi) {
        const int mid = lo + (hi - lo + 1) / 2;
        if (serves(mid))
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

}  // namespace

TEST_P(GpuEngineMatrix, LargestConfigurationItClaims) {
    // Every engine at the most bins and the most channels it claims, at both depths, with and
    // without a saturation cap: what an engine accepts must launch and be exact, so a
    // shared-memory or launch-limit mistake fails here instead of for a user.
    for (const SampleType type : {SampleType::U8, SampleType::U16}) {
        const int depth = type == SampleType::U8 ? 8 : 16;
        const Image img = test::uniform(1021, 67, 4, type, depth, 41);
        const ImageView v = img.view();
        const std::vector<std::vector<Channel>> sets = {
            plain_and_luma(v), all_channels(4), {Channel::R}};
        for (const auto& channels : sets)
            for (const std::optional<std::uint64_t> cap :
                 {std::optional<std::uint64_t>{}, std::optional<std::uint64_t>{65535},
                  std::optional<std::uint64_t>{255}}) {
                const int bins = largest_bins(*engine_, v, channels, cap, 1 << depth);
                if (bins == 0) continue;
                HistogramSpec spec = HistogramSpec::even(bins, 0, 1 << depth);
                spec.saturate = cap;
                check("largest (" + std::to_string(channels.size()) + " channels)", v, channels,
                      spec);
            }
    }
}

TEST_P(GpuEngineMatrix, BundledPhotos) {
    const std::vector<Case> cases = photos();
    if (cases.empty()) GTEST_SKIP() << "no decoder for the photos (no OpenCV, no HS_RAW_PHOTOS)";
    for (const Case& c : cases) check_all_specs(c.what, c.image);
}

INSTANTIATE_TEST_SUITE_P(GpuEngines, GpuEngineMatrix, ::testing::ValuesIn(gpu_engine_names()),
                         test::ParamName());

// The floor every benchmark row is compared with reads every byte of the image's device copy,
// whatever its shape and depth, and is timed the way the engines are.
TEST(ReadFloor, ReadsEveryByteOfEveryShape) {
    if (const std::string why = test::no_gpu_reason(); !why.empty()) GTEST_SKIP() << why;
    BenchOptions options;
    options.warmup_runs = 1;
    options.timed_runs = 3;
    options.rotate_bytes = std::size_t{1} << 20;
    struct Shape {
        int width, height, channels;
        SampleType type;
    };
    for (const Shape s : {Shape{1, 1, 1, SampleType::U8}, Shape{7, 3, 3, SampleType::U8},
                          Shape{1021, 67, 4, SampleType::U16}, Shape{3840, 2160, 3, SampleType::U8},
                          Shape{333, 1, 3, SampleType::U16}}) {
        const int depth = s.type == SampleType::U8 ? 8 : 16;
        const Image img = test::uniform(s.width, s.height, s.channels, s.type, depth, 7);
        const FloorTiming floor = cuda::measure_read_floor(img.view(), options);
        SCOPED_TRACE(std::to_string(s.width) + "x" + std::to_string(s.height) + "x" +
                     std::to_string(s.channels) + " " + std::to_string(depth) + "-bit");
        EXPECT_TRUE(floor.read_every_byte);
        EXPECT_EQ(floor.timing.histogram_ms.size(), 3u);
        EXPECT_EQ(floor.timing.end_to_end_ms.size(), 3u);
        ASSERT_EQ(floor.timing.back_to_back_ms.size(), 1u);
        EXPECT_GT(floor.timing.back_to_back_ms.front(), 0.0);
        // Small images rotate over copies covering the rotation, as the engines' input does
        // (each packed and padded to whole groups of 16 bytes per channel).
        const std::size_t group = 16 * static_cast<std::size_t>(s.channels);
        const std::size_t padded =
            (img.view().row_bytes() * static_cast<std::size_t>(s.height) + group - 1) / group *
            group;
        EXPECT_EQ(static_cast<std::size_t>(floor.timing.input_copies),
                  std::max<std::size_t>(1, (options.rotate_bytes + padded - 1) / padded));
    }
}
