// The "gpu" scope engine against the exact CPU reference: waveforms (every channel, grouped
// columns, 256 to 4096 levels), parades and vectorscopes (Rec.601 and 709, 1 to 1024 bins a
// side, the shared and the global counters) on the bundled photos, odd shapes, strides,
// 16-bit samples at and above the declared depth, regions, 8-bit rows read in 32-bit words (part
// tiles, 1, 3 and 4 channels), counts crossing 65535 in one bin and in one vectorscope chunk
// (65520 pixels, 8-bit ones read as 16-byte vectors); and its benchmark verified.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "bundled_media.hpp"
#include "gpu_test.hpp"
#include "histoscope/core/bench.hpp"
#include "histoscope/core/scopes.hpp"
#include "scope_specs.hpp"
#include "synthetic.hpp"

using namespace hs;
using hs::test::parade;
using hs::test::vectorscope;
using hs::test::waveform;

namespace {

ScopeEngine* gpu_scopes(EngineRegistry& registry) {
    cuda::register_engines(registry);
    ScopeEngine* engine = registry.find_scope_engine("gpu");
    if (engine == nullptr) {
        ADD_FAILURE() << "no scope engine 'gpu'";
        return nullptr;
    }
    if (const Availability a = engine->availability(); !a.available) {
        ADD_FAILURE() << "scope engine 'gpu' is not available: " << a.reason;
        return nullptr;
    }
    return engine;
}

// Every scope a user can ask of `v`.
std::vector<ScopeSpec> specs_for(const ImageView& v) {
    std::vector<ScopeSpec> s;
    std::vector<Channel> channels = all_channels(v.channels);
    if (v.channels > 1) channels.insert(channels.end(), {Channel::Luma601, Channel::Luma709});
    for (Channel c : channels) s.push_back(waveform(c));
    const int deep = v.type == SampleType::U16 ? 4096 : 256;
    s.push_back(waveform(channels.back(), deep, (v.width + 2) / 3));
    s.push_back(waveform(channels.front(), 1024, 1));
    if (v.channels >= 3) {
        s.push_back(parade());
        s.push_back(parade(v.type == SampleType::U16 ? 1024 : 64, std::max(1, v.width / 5)));
        for (int size : {256, 17, 1024}) s.push_back(vectorscope(size));
        s.push_back(vectorscope(128, ChromaMatrix::Rec709));
    }
    return s;
}

void expect_exact(ScopeEngine& engine, const ImageView& v, const ScopeSpec& spec,
                  const std::string& what) {
    SCOPED_TRACE(what + ": " + spec.describe(v.width) + " on " + std::to_string(v.width) + "x" +
                 std::to_string(v.height) + "x" + std::to_string(v.channels) + " " +
                 to_string(v.type) + "/" + std::to_string(v.bit_depth));
    const std::string why = engine.refusal({v, spec});
    ASSERT_EQ(why, "");
    const auto expected = reference_scope(v, spec);
    const ScopeResult got = engine.compute({v, spec});
    ASSERT_EQ(got.planes.size(), expected.size());
    for (std::size_t p = 0; p < expected.size(); ++p) {
        ASSERT_EQ(got.planes[p].counts.size(), expected[p].counts.size());
        const auto height = static_cast<std::size_t>(expected[p].height);
        for (std::size_t i = 0; i < expected[p].counts.size(); ++i)
            ASSERT_EQ(got.planes[p].counts[i], expected[p].counts[i])
                << "plane " << expected[p].name << " x " << i / height << " y " << i % height;
    }
}

class GpuScopes : public ::testing::Test {
  protected:
    void SetUp() override {
        if (const std::string why = test::no_gpu_reason(); !why.empty()) GTEST_SKIP() << why;
        engine_ = gpu_scopes(registry_);
        ASSERT_NE(engine_, nullptr);
    }
    EngineRegistry registry_;
    ScopeEngine* engine_ = nullptr;
};

}  // namespace

TEST_F(GpuScopes, BundledPhotosAndTheirRegions) {
    for (auto& photo : test::bundled_photos()) {
        const ImageView v = photo.frames.front().view();
        for (const ScopeSpec& spec : specs_for(v)) expect_exact(*engine_, v, spec, photo.name);
        const ImageView part = crop(v, {v.width / 5, v.height / 7, v.width / 2 + 1, v.height / 3});
        for (const ScopeSpec& spec : specs_for(part))
            expect_exact(*engine_, part, spec, photo.name + " region");
    }
}

TEST_F(GpuScopes, OddShapesStridesAndDepths) {
    std::vector<std::pair<std::string, Image>> images;
    images.emplace_back("1x1", test::uniform(1, 1, 3, SampleType::U8, 8, 1));
    images.emplace_back("1x1 gray", test::uniform(1, 1, 1, SampleType::U8, 8, 2));
    images.emplace_back("1xN", test::uniform(1, 333, 3, SampleType::U8, 8, 3));
    images.emplace_back("Nx1", test::uniform(4099, 1, 4, SampleType::U8, 8, 4));
    images.emplace_back("padded", test::uniform(257, 31, 3, SampleType::U8, 8, 5, 13));
    images.emplace_back("gray padded", test::uniform(199, 77, 1, SampleType::U16, 16, 6, 6));
    images.emplace_back("12-bit", test::uniform(97, 65, 3, SampleType::U16, 12, 7));
    images.emplace_back("16-bit rgba", test::uniform(133, 41, 4, SampleType::U16, 16, 8));
    images.emplace_back("gauss", test::gaussian(641, 359, 3, SampleType::U8, 8, 6.0));
    // Rows of whole 32-bit words: the last tile part full.
    images.emplace_back("words", test::uniform(100, 37, 3, SampleType::U8, 8, 9, 5));
    images.emplace_back("rgba words", test::uniform(36, 29, 4, SampleType::U8, 8, 10));
    images.emplace_back("gray words", test::uniform(44, 13, 1, SampleType::U8, 8, 11));
    images.emplace_back("one value", test::constant(512, 300, 3, SampleType::U8, 8, 255));
    images.emplace_back("deep one value", test::constant(300, 300, 3, SampleType::U16, 16, 0));
    // 10-bit samples, some above the declared depth (not counted).
    images.emplace_back("above depth",
                        test::make_image(75, 50, 3, SampleType::U16, 10, [](int x, int y, int c) {
                            return static_cast<std::uint32_t>((x * 37 + y * 11 + c * 5) % 1300);
                        }));
    for (const auto& [what, img] : images)
        for (const ScopeSpec& spec : specs_for(img.view()))
            expect_exact(*engine_, img.view(), spec, what);
}

TEST_F(GpuScopes, CountsPastSixteenBits) {
    // 70000 rows of one column in one waveform bin, read a sample and a word at a time; a 16-bit
    // vectorscope spread over every SM in small chunks.
    for (int width : {3, 4}) {
        const Image tall = test::constant(width, 70000, 3, SampleType::U8, 8, 77);
        expect_exact(*engine_, tall.view(), waveform(Channel::Luma601), "tall");
        expect_exact(*engine_, tall.view(), parade(), "tall");
    }
    const Image chunks = test::constant(65535, 2, 3, SampleType::U16, 16, 40000);
    expect_exact(*engine_, chunks.view(), vectorscope(256), "small chunks");
}

TEST_F(GpuScopes, WholeVectorscopeChunks) {
    // 8K of one colour: every 65520-pixel chunk full in one 16-bit counter (the last one part
    // full; an image this size has whole chunks on any GPU of up to 253 SMs) and the global sum
    // past 2^16, 8-bit pixels read as vectors and 16-bit ones a sample at a time.
    const Image flat = test::constant(7680, 2160, 3, SampleType::U8, 8, 128);
    expect_exact(*engine_, flat.view(), vectorscope(256), "8K flat");
    expect_exact(*engine_, flat.view(), parade(), "8K flat");
    const Image deep = test::constant(7680, 2160, 3, SampleType::U16, 16, 40000);
    expect_exact(*engine_, deep.view(), vectorscope(256), "8K deep flat");
}

TEST_F(GpuScopes, BenchmarkIsVerified) {
    const Image img = test::gaussian(3840, 2160, 3, SampleType::U8, 8, 30.0);
    for (const ScopeSpec& spec : {parade(), vectorscope(256), waveform(Channel::Luma601)}) {
        const ScopeRequest request{img.view(), spec};
        BenchRow row;
        ASSERT_TRUE(bench_scope_engine(*engine_, request, reference_scope(img.view(), spec),
                                       bench_options(5, 64u << 20), 3000.0, row));
        EXPECT_EQ(row.status, "ok") << row.reason;
        EXPECT_TRUE(row.verified) << spec.describe(img.view().width);
        EXPECT_GT(row.input_copies, 1);
    }
}

TEST(CudaHost, TheGpuScopeEngineIsRegistered) {
    EngineRegistry registry;
    cuda::register_engines(registry);
    ASSERT_NE(registry.find_scope_engine("gpu"), nullptr);
    // Without a device it says why; with one it serves an ordinary request.
    const Image img = test::uniform(16, 16, 3, SampleType::U8, 8, 9);
    const std::string why = registry.find_scope_engine("gpu")->refusal({img.view(), parade()});
    EXPECT_EQ(why.empty(), cuda::device_available()) << why;
}
