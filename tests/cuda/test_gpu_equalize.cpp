// The "gpu" equalization engine against the exact CPU reference, sample for sample: global
// equalization, CLAHE and histogram matching, at 8 and 16 bits (declared depths 16, 12, 10),
// gray, RGB and RGBA, luma and per-channel spaces, strengths 0, 0.37 and 1, degenerate images
// (one value, two values), odd shapes (1x1, 1xN, Nx1, 37x19), padded rows, CLAHE grids that do
// not divide the image, 4K frames and the bundled photos. Every mode is required to be exact
// (no tolerance, CLAHE included); the engine may refuse a request only through
// unsupported_reason(), and these tests require that it refuses none of them.
//
// Photos: decoded with hs::media when the build has OpenCV; on a GPU host without OpenCV,
// from raw dumps in $HS_RAW_PHOTOS named NAME.WxHxC.TYPE.raw (`scripts/gpu.sh check` makes them
// with scripts/gpu/tools.py decode).

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "bundled_media.hpp"
#include "histoscope/core/engine.hpp"
#include "histoscope/core/equalize.hpp"
#include "histoscope/core/error.hpp"
#include "histoscope/cuda/register.hpp"
#include "histoscope/media/media.hpp"
#include "synthetic.hpp"

using namespace hs;

namespace {

struct Photo {
    std::string name;
    Image image;
};

std::vector<Photo> photos() {
    std::vector<Photo> out;
    for (auto& p : test::bundled_photos()) out.push_back({p.name, std::move(p.frames.front())});
    return out;
}

std::string describe(const ImageView& v) {
    return std::to_string(v.width) + "x" + std::to_string(v.height) + "x" +
           std::to_string(v.channels) + " " + to_string(v.type) + "/" + std::to_string(v.bit_depth);
}

std::string describe(const EqualizeRequest& r) {
    std::string s = std::string(mode_name(r.mode)) + " " + std::string(space_name(r.space)) +
                    " strength " + std::to_string(r.strength) + " on " + describe(r.image);
    if (r.mode == EqualizeMode::Clahe)
        s += " clip " + std::to_string(r.clip) + " tiles " + std::to_string(r.tiles_x) + "x" +
             std::to_string(r.tiles_y);
    if (r.reference) s += " reference " + describe(*r.reference);
    if (!r.reference_histograms.empty())
        s += " " + std::to_string(r.reference_histograms.size()) + " reference histogram(s)";
    return s;
}

// Two images with the same two values in uneven proportions.
Image two_valued(int w, int h, int c, SampleType t, int depth, std::uint32_t a, std::uint32_t b) {
    return test::make_image(w, h, c, t, depth, [&](int x, int y, int k) {
        return (x * 7 + y * 3 + k) % 5 == 0 ? a : b;
    });
}

class GpuEqualize : public ::testing::Test {
  protected:
    void SetUp() override {
        if (!cuda::device_available())
            GTEST_SKIP() << "no CUDA device: " << cuda::query_devices().error;
        cuda::register_engines(registry_);
        engine_ = registry_.find_equalizer("gpu");
        ASSERT_NE(engine_, nullptr);
        ASSERT_TRUE(engine_->availability().available) << engine_->availability().reason;
    }

    // The engine's output must equal equalize_reference() sample for sample.
    void expect_exact(const EqualizeRequest& r) {
        SCOPED_TRACE(describe(r));
        ASSERT_EQ(engine_->unsupported_reason(r), "") << "the gpu engine refused the request";
        const Image expected = equalize_reference(r);
        EqualizeResult got;
        try {
            got = engine_->equalize(r);
        } catch (const Error& e) {
            FAIL() << "equalize threw: " << e.what();
        }
        const ImageView e = expected.view(), g = got.image.view();
        ASSERT_EQ(g.width, e.width);
        ASSERT_EQ(g.height, e.height);
        ASSERT_EQ(g.channels, e.channels);
        ASSERT_EQ(g.type, e.type);
        ASSERT_EQ(g.bit_depth, e.bit_depth);
        std::uint64_t wrong = 0;
        std::uint32_t worst = 0;
        for (int y = 0; y < e.height; ++y)
            for (int x = 0; x < e.width; ++x)
                for (int c = 0; c < e.channels; ++c) {
                    const std::uint32_t a = g.sample(x, y, c), b = e.sample(x, y, c);
                    if (a == b) continue;
                    worst = std::max(worst, a > b ? a - b : b - a);
                    if (++wrong <= 3)
                        ADD_FAILURE() << "pixel (" << x << ", " << y << ") sample " << c << ": gpu "
                                      << a << ", reference " << b;
                }
        EXPECT_EQ(wrong, 0u) << "samples that differ (largest difference " << worst << ")";
        if (r.strength != 0.0) {
            std::vector<std::string> names;
            for (const StageTime& s : got.stages) {
                names.push_back(s.name);
                EXPECT_GE(s.ms, 0.0) << s.name;
            }
            EXPECT_EQ(names, (std::vector<std::string>{"upload", "histogram", "lut", "apply",
                                                       "download"}));
        }
        ++checked_;
    }

    EqualizeRequest request(const Image& img, EqualizeMode mode, EqualizeSpace space,
                            double strength = 1.0) {
        EqualizeRequest r;
        r.image = img.view();
        r.mode = mode;
        r.space = space;
        r.strength = strength;
        return r;
    }

    void all_global(const Image& img) {
        for (EqualizeSpace space : {EqualizeSpace::Luma, EqualizeSpace::Rgb})
            for (double s : {1.0, 0.37, 0.0})
                expect_exact(request(img, EqualizeMode::Global, space, s));
    }

    void clahe(const Image& img, double clip, int tx, int ty, EqualizeSpace space,
               double strength = 1.0) {
        EqualizeRequest r = request(img, EqualizeMode::Clahe, space, strength);
        r.clip = clip;
        r.tiles_x = tx;
        r.tiles_y = ty;
        expect_exact(r);
    }

    void match(const Image& img, const Image& ref, EqualizeSpace space, double p = 1.0) {
        EqualizeRequest r = request(img, EqualizeMode::Match, space, p);
        r.reference = ref.view();
        expect_exact(r);
    }

    EngineRegistry registry_;
    EqualizeEngine* engine_ = nullptr;
    int checked_ = 0;
};

struct Depth {
    SampleType type;
    int bits;
};
const std::vector<Depth> kDepths{
    {SampleType::U8, 8}, {SampleType::U16, 16}, {SampleType::U16, 12}, {SampleType::U16, 10}};

}  // namespace

TEST(CudaHost, GpuEqualizerIsRegistered) {
    EngineRegistry registry;
    cuda::register_engines(registry);
    EqualizeEngine* gpu = registry.find_equalizer("gpu");
    ASSERT_NE(gpu, nullptr);
    EXPECT_FALSE(gpu->description().empty());
    EXPECT_EQ(gpu->availability().available, cuda::device_available());
    if (!gpu->availability().available) {
        EXPECT_FALSE(gpu->availability().reason.empty());
        const Image img = test::uniform(8, 8, 1, SampleType::U8, 8);
        EqualizeRequest r;
        r.image = img.view();
        EXPECT_THROW(gpu->equalize(r), UnsupportedError);
    }
}

TEST_F(GpuEqualize, EveryKernelVariantOnSmallFrames) {
    // Each kernel instantiation once on a small frame (the compute-sanitizer runs use this):
    // 8-bit, 16-bit (two histogram segments) and 12-bit; gray, RGB, RGBA; luma and rgb.
    for (const Depth d : {kDepths[0], kDepths[1], kDepths[2]})
        for (int c : {1, 3, 4}) {
            const Image img = test::gaussian(67, 45, c, d.type, d.bits, 1.0 * (1 << (d.bits - 3)));
            const Image ref = test::uniform(31, 29, c, d.type, d.bits, 19);
            for (EqualizeSpace space : {EqualizeSpace::Luma, EqualizeSpace::Rgb}) {
                expect_exact(request(img, EqualizeMode::Global, space, 0.37));
                clahe(img, 2.0, 5, 3, space, 0.37);
                match(img, ref, space, 0.37);
            }
        }
}

TEST_F(GpuEqualize, GlobalOnSyntheticImagesEveryDepthAndLayout) {
    for (const Depth d : kDepths)
        for (int c : {1, 3, 4}) {
            all_global(test::uniform(640, 480, c, d.type, d.bits, 3));
            all_global(test::gaussian(333, 101, c, d.type, d.bits, d.bits == 8 ? 20.0 : 900.0));
            all_global(test::ramp(257, 13, c, d.type, d.bits));
        }
}

TEST_F(GpuEqualize, DegenerateImages) {
    for (const Depth d : kDepths) {
        const std::uint32_t top = (1u << d.bits) - 1;
        for (int c : {1, 3, 4}) {
            for (std::uint32_t v : {0u, 1u, top / 2, top}) {
                const Image one = test::constant(45, 31, c, d.type, d.bits, v);
                all_global(one);
                clahe(one, 2.0, 3, 3, EqualizeSpace::Luma);
                clahe(one, 40.0, 4, 2, EqualizeSpace::Rgb, 0.37);
                match(one, test::uniform(20, 20, c, d.type, d.bits, 4), EqualizeSpace::Luma);
            }
            const Image two = two_valued(64, 48, c, d.type, d.bits, 3, top - 7);
            all_global(two);
            clahe(two, 2.0, 8, 8, EqualizeSpace::Luma);
            clahe(two, 0.01, 5, 3, EqualizeSpace::Rgb);
            match(two, test::gaussian(30, 17, c, d.type, d.bits, 5.0), EqualizeSpace::Rgb);
        }
    }
}

TEST_F(GpuEqualize, OddShapesAndPaddedRows) {
    const std::vector<std::pair<int, int>> shapes{{1, 1},   {1, 1000}, {1000, 1},
                                                  {37, 19}, {17, 3},   {1023, 77}};
    for (const Depth d : kDepths)
        for (int c : {1, 3, 4})
            for (auto [w, h] : shapes) {
                const Image img = test::uniform(w, h, c, d.type, d.bits, 7);
                all_global(img);
                clahe(img, 2.0, std::min(w, 3), std::min(h, 5), EqualizeSpace::Luma);
                clahe(img, 3.5, std::min(w, 8), std::min(h, 8), EqualizeSpace::Rgb, 0.37);
                match(img, test::gaussian(50, 40, c, d.type, d.bits, 1.0 * (1 << (d.bits - 3))),
                      EqualizeSpace::Luma);
            }
    // Rows with padding bytes between them (the engine packs them on upload).
    for (const Depth d : kDepths)
        for (int c : {1, 3, 4}) {
            const Image padded = test::uniform(333, 111, c, d.type, d.bits, 8, 14);
            all_global(padded);
            clahe(padded, 2.0, 7, 5, EqualizeSpace::Rgb);
            match(padded, test::uniform(100, 100, c, d.type, d.bits, 9, 6), EqualizeSpace::Rgb);
        }
}

TEST_F(GpuEqualize, ClaheGridsClipsAndStrengths) {
    for (const Depth d : kDepths)
        for (int c : {1, 3}) {
            const Image img = test::gaussian(401, 263, c, d.type, d.bits,
                                             d.bits == 8 ? 30.0 : 30.0 * (1 << (d.bits - 8)));
            // 8x8 divides neither side; 1x1, 64x64 (most tiles), 7x3, 5x13 (uneven padding).
            for (auto [tx, ty] :
                 std::vector<std::pair<int, int>>{{8, 8}, {1, 1}, {64, 64}, {7, 3}, {5, 13}})
                clahe(img, 2.0, tx, ty, EqualizeSpace::Luma);
            for (double clip : {0.01, 1.0, 4.0, 40.0, 65536.0})
                clahe(img, clip, 6, 4, EqualizeSpace::Rgb);
            for (double s : {0.0, 0.37, 1.0}) clahe(img, 2.0, 8, 8, EqualizeSpace::Rgb, s);
        }
    // Tiles that divide the image exactly (no padding) and a 4-channel image.
    clahe(test::uniform(640, 480, 4, SampleType::U8, 8, 12), 2.0, 8, 8, EqualizeSpace::Luma);
    clahe(test::uniform(640, 480, 4, SampleType::U16, 16, 13), 2.0, 8, 8, EqualizeSpace::Rgb);
}

TEST_F(GpuEqualize, MatchReferencesAndProportions) {
    for (const Depth d : kDepths) {
        const Image gray = test::gaussian(300, 200, 1, d.type, d.bits, 1.0 * (1 << (d.bits - 4)));
        const Image rgb = test::uniform(321, 123, 3, d.type, d.bits, 14);
        const Image rgba = test::ramp(97, 55, 4, d.type, d.bits);
        const Image ref_rgb = test::gaussian(77, 66, 3, d.type, d.bits, 1.0 * (1 << (d.bits - 3)));
        const Image ref_gray = test::ramp(50, 50, 1, d.type, d.bits);
        for (double p : {1.0, 0.37, 0.0}) {
            match(gray, ref_gray, EqualizeSpace::Luma, p);
            match(gray, ref_rgb, EqualizeSpace::Luma, p);  // gray target: Y of the reference
            match(rgb, ref_rgb, EqualizeSpace::Rgb, p);    // R, G, B each to its own
            match(rgb, ref_gray, EqualizeSpace::Rgb, p);   // gray reference for all three
            match(rgba, ref_rgb, EqualizeSpace::Luma, p);  // Y to Y, alpha kept
            match(rgba, rgba, EqualizeSpace::Rgb, p);      // to itself
        }
        // Reference histograms instead of an image: one for every plane, or one per plane.
        EqualizeRequest r = request(rgb, EqualizeMode::Match, EqualizeSpace::Rgb);
        const std::size_t levels = std::size_t{1} << d.bits;
        ValueHistogram a(levels, 0), b(levels, 1), c(levels, 0);
        a[levels / 3] = 5;
        a[levels - 1] = 1;
        c[0] = 1000;
        c[levels / 2] = 1;
        r.reference_histograms = {a};
        expect_exact(r);
        r.reference_histograms = {a, b, c};
        expect_exact(r);
        r.space = EqualizeSpace::Luma;
        r.reference_histograms = {c};
        r.strength = 0.37;
        expect_exact(r);
    }
}

TEST_F(GpuEqualize, FourKFrames) {
    // The benchmark's shapes (and the large inputs of the compute-sanitizer run).
    const Image rgb = test::gaussian(3840, 2160, 3, SampleType::U8, 8, 40.0, 21);
    expect_exact(request(rgb, EqualizeMode::Global, EqualizeSpace::Luma));
    clahe(rgb, 2.0, 8, 8, EqualizeSpace::Luma);
    const Image deep = test::gaussian(3840, 2160, 1, SampleType::U16, 16, 3000.0, 22);
    expect_exact(request(deep, EqualizeMode::Global, EqualizeSpace::Luma));
    clahe(deep, 2.0, 8, 8, EqualizeSpace::Luma);
    match(deep, test::uniform(1000, 1000, 1, SampleType::U16, 16, 23), EqualizeSpace::Luma, 0.5);
}

TEST_F(GpuEqualize, SamplesAboveTheDeclaredDepthAreTheSameInputErrorAsOnTheCpu) {
    Image img = test::uniform(40, 30, 4, SampleType::U16, 12, 15);
    img.set_sample(9, 17, 3, 5000);  // alpha too is checked
    img.set_sample(2, 20, 0, 4096);
    for (EqualizeMode mode : {EqualizeMode::Global, EqualizeMode::Clahe, EqualizeMode::Match}) {
        EqualizeRequest r = request(img, mode, EqualizeSpace::Luma);
        const Image ok = test::uniform(10, 10, 3, SampleType::U16, 12, 16);
        if (mode == EqualizeMode::Match) r.reference = ok.view();
        std::string cpu, gpu;
        try {
            static_cast<void>(equalize_reference(r));
        } catch (const InputError& e) {
            cpu = e.what();
        }
        try {
            static_cast<void>(engine_->equalize(r));
        } catch (const InputError& e) {
            gpu = e.what();
        }
        EXPECT_NE(cpu, "") << mode_name(mode);
        EXPECT_EQ(gpu, cpu) << mode_name(mode);
        EXPECT_NE(gpu.find("row 17"), std::string::npos) << gpu;
    }
    // A bad reference.
    Image ref = test::uniform(10, 10, 1, SampleType::U16, 12, 17);
    ref.set_sample(3, 4, 0, 65535);
    const Image good = test::uniform(20, 20, 1, SampleType::U16, 12, 18);
    EqualizeRequest r = request(good, EqualizeMode::Match, EqualizeSpace::Luma);
    r.reference = ref.view();
    EXPECT_THROW(engine_->equalize(r), InputError);
    EXPECT_THROW(static_cast<void>(equalize_reference(r)), InputError);
}

TEST_F(GpuEqualize, BundledPhotos) {
    const std::vector<Photo> all = photos();
    if (all.empty()) GTEST_SKIP() << "no decoder for the photos (no OpenCV, no HS_RAW_PHOTOS)";
    // Match each photo to another one of the same sample type and depth.
    std::map<std::pair<SampleType, int>, const Image*> reference;
    for (const Photo& p : all) {
        SCOPED_TRACE(p.name);
        const ImageView v = p.image.view();
        expect_exact(request(p.image, EqualizeMode::Global, EqualizeSpace::Luma));
        expect_exact(request(p.image, EqualizeMode::Global, EqualizeSpace::Rgb, 0.37));
        clahe(p.image, 2.0, 8, 8, EqualizeSpace::Luma);
        clahe(p.image, 3.0, 7, 5, EqualizeSpace::Rgb);
        const auto key = std::make_pair(v.type, v.bit_depth);
        if (const auto it = reference.find(key); it != reference.end())
            match(p.image, *it->second, EqualizeSpace::Luma);
        reference[key] = &p.image;
    }
    EXPECT_GE(checked_, 4 * static_cast<int>(all.size()));
}
