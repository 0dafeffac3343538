// The equalization reference on synthetic images, without OpenCV: hand-computed LUTs, strength
// rounding, YCrCb on grays, CLAHE's clipping, padding and grid, histogram matching properties,
// option validation and the "cpu" equalize engine.

#include <gtest/gtest.h>

#include <limits>

#include "histoscope/core/engine.hpp"
#include "histoscope/core/equalize.hpp"
#include "histoscope/core/error.hpp"
#include "synthetic.hpp"

using namespace hs;
using hs::test::make_image;

namespace {

Image equalize(const Image& img, EqualizeMode mode, EqualizeSpace space = EqualizeSpace::Luma,
               double strength = 1.0) {
    EqualizeRequest r;
    r.image = img.view();
    r.mode = mode;
    r.space = space;
    r.strength = strength;
    r.tiles_x = std::min(8, img.width());
    r.tiles_y = std::min(8, img.height());
    return equalize_reference(r);
}

std::vector<std::uint32_t> samples(const Image& img) {
    std::vector<std::uint32_t> out;
    const ImageView v = img.view();
    for (int y = 0; y < v.height; ++y)
        for (int x = 0; x < v.width; ++x)
            for (int c = 0; c < v.channels; ++c) out.push_back(v.sample(x, y, c));
    return out;
}

// Plane `c` of an image as a one-channel image.
Image plane_image(const Image& img, int c) {
    const ImageView v = img.view();
    return make_image(v.width, v.height, 1, v.type, v.bit_depth,
                      [&](int x, int y, int) { return v.sample(x, y, c); });
}

ValueHistogram histogram_of(std::size_t levels, std::initializer_list<std::pair<int, int>> bins) {
    ValueHistogram h(levels, 0);
    for (const auto& [v, n] : bins) h[static_cast<std::size_t>(v)] = static_cast<std::uint64_t>(n);
    return h;
}

Lut identity(std::size_t levels) {
    Lut l(levels);
    for (std::size_t v = 0; v < levels; ++v) l[v] = static_cast<std::uint16_t>(v);
    return l;
}

void expect_same_shape(const Image& a, const Image& b) {
    EXPECT_EQ(a.width(), b.width());
    EXPECT_EQ(a.height(), b.height());
    EXPECT_EQ(a.channels(), b.channels());
    EXPECT_EQ(a.type(), b.type());
    EXPECT_EQ(a.bit_depth(), b.bit_depth());
}

}  // namespace

// ---------------------------------------------------------------- global LUT

TEST(EqualizeLut, ConstantAndEmptyHistogramsGiveTheIdentity) {
    EXPECT_EQ(equalize_lut(histogram_of(256, {{77, 1000}})), identity(256));
    EXPECT_EQ(equalize_lut(histogram_of(256, {})), identity(256));
    EXPECT_EQ(equalize_lut(histogram_of(65536, {{65535, 3}})), identity(65536));
}

TEST(EqualizeLut, HandComputedWithTiesToEven) {
    // N - h[first] = 2: scale = 127.5; S = 1 gives 127.5 -> 128 (even), S = 2 gives 255.
    Lut lut = equalize_lut(histogram_of(256, {{10, 2}, {20, 1}, {30, 1}}));
    for (int v = 0; v < 20; ++v) EXPECT_EQ(lut[static_cast<std::size_t>(v)], 0) << v;
    for (int v = 20; v < 30; ++v) EXPECT_EQ(lut[static_cast<std::size_t>(v)], 128) << v;
    EXPECT_EQ(lut[30], 255);
    EXPECT_EQ(lut[255], 255);
    // N - h[first] = 6: scale = 42.5; S = 1 gives 42.5 -> 42 (even).
    lut = equalize_lut(histogram_of(256, {{0, 1}, {1, 1}, {2, 5}}));
    EXPECT_EQ(lut[0], 0);
    EXPECT_EQ(lut[1], 42);
    EXPECT_EQ(lut[2], 255);
}

TEST(EqualizeLut, TwoValuedImagesSpanTheFullRangeAtEveryDepth) {
    for (const auto& [type, depth] : std::vector<std::pair<SampleType, int>>{
             {SampleType::U8, 8}, {SampleType::U16, 16}, {SampleType::U16, 12}}) {
        const Image img = make_image(
            13, 7, 1, type, depth, [](int x, int y, int) { return (x + y) % 3 == 0 ? 40u : 41u; });
        const Image out = equalize(img, EqualizeMode::Global);
        expect_same_shape(out, img);
        const std::uint32_t max = (1u << depth) - 1u;
        for (int y = 0; y < 7; ++y)
            for (int x = 0; x < 13; ++x)
                ASSERT_EQ(out.view().sample(x, y, 0), (x + y) % 3 == 0 ? 0u : max) << depth;
    }
}

TEST(EqualizeLut, SixteenBitRampBecomesEvenlySpread) {
    // 65536 distinct values, one each: S(v) = v, scale = 65535 / 65535 = 1: the identity.
    const Image ramp = hs::test::ramp(256, 256, 1, SampleType::U16, 16);
    EXPECT_EQ(samples(equalize(ramp, EqualizeMode::Global)), samples(ramp));
    // Values 0, 2, 4, ... 8190 (4096 values) spread over 0..65535: v -> round(v / 2 * 65535/4095).
    const Image even = make_image(64, 64, 1, SampleType::U16, 16, [](int x, int y, int) {
        return static_cast<std::uint32_t>(2 * (y * 64 + x));
    });
    const Image out = equalize(even, EqualizeMode::Global);
    const float scale = 65535.0f / 4095.0f;
    for (int i = 0; i < 4096; ++i)
        ASSERT_EQ(out.view().sample(i % 64, i / 64, 0),
                  round_even_clamp(static_cast<float>(i) * scale, 65535))
            << i;
}

TEST(EqualizeLut, RejectsHistogramsOfTheWrongSize) {
    EXPECT_THROW(equalize_lut(ValueHistogram(1, 5)), UsageError);
    EXPECT_THROW(equalize_lut(ValueHistogram(65537, 1)), UsageError);
}

// ---------------------------------------------------------------- strength

TEST(Strength, WeightsAndRoundingHalfUp) {
    EXPECT_EQ(strength_weight(0.0), 0);
    EXPECT_EQ(strength_weight(1.0), 65536);
    EXPECT_EQ(strength_weight(0.5), 32768);
    EXPECT_EQ(blend(0, 1, 32768), 1u);     // 0.5 -> up
    EXPECT_EQ(blend(1, 0, 32768), 1u);     // 0.5 -> up (towards +infinity)
    EXPECT_EQ(blend(10, 20, 16384), 13u);  // 12.5 -> 13
    EXPECT_EQ(blend(20, 10, 16384), 18u);  // 17.5 -> 18
    EXPECT_EQ(blend(100, 200, 0), 100u);
    EXPECT_EQ(blend(100, 200, 65536), 200u);
    EXPECT_EQ(blend(0, 65535, 65536), 65535u);
    for (double bad : {-0.01, 1.01, std::numeric_limits<double>::quiet_NaN()})
        EXPECT_THROW(strength_weight(bad), UsageError) << bad;
}

TEST(Strength, ZeroIsTheIdentityOneIsTheLutAndBetweenStaysBetween) {
    const Image img = hs::test::gaussian(97, 31, 1, SampleType::U8, 8, 30.0);
    const Lut lut =
        equalize_lut(plane_histogram(split_planes(img.view(), EqualizeSpace::Luma).planes[0], 8));
    EXPECT_EQ(blend_lut(lut, 0.0), identity(256));
    EXPECT_EQ(blend_lut(lut, 1.0), lut);
    const Lut half = blend_lut(lut, 0.5);
    for (std::size_t v = 0; v < 256; ++v) {
        EXPECT_GE(half[v], std::min<std::uint16_t>(static_cast<std::uint16_t>(v), lut[v]));
        EXPECT_LE(half[v], std::max<std::uint16_t>(static_cast<std::uint16_t>(v), lut[v]));
    }
    const Image colour = hs::test::uniform(33, 17, 4, SampleType::U16, 16);
    for (EqualizeMode m : {EqualizeMode::Global, EqualizeMode::Clahe})
        for (EqualizeSpace s : {EqualizeSpace::Luma, EqualizeSpace::Rgb}) {
            EXPECT_EQ(samples(equalize(colour, m, s, 0.0)), samples(colour));
            EXPECT_EQ(samples(equalize(img, m, s, 0.0)), samples(img));
        }
    // Strength 1 applies the full LUT to every sample.
    const Image full = equalize(img, EqualizeMode::Global, EqualizeSpace::Luma, 1.0);
    const std::vector<std::uint32_t> in = samples(img), out = samples(full);
    for (std::size_t i = 0; i < in.size(); ++i) ASSERT_EQ(out[i], lut[in[i]]);
}

// ---------------------------------------------------------------- YCrCb and colour

TEST(YCrCbGray, GraysMapToHalfChromaAndBackExactly) {
    for (int depth : {8, 12, 16}) {
        const std::uint32_t half = 1u << (depth - 1);
        for (std::uint32_t v = 0; v < (1u << depth); v += depth == 8 ? 1 : 7) {
            EXPECT_EQ(rgb_to_ycrcb(v, v, v, depth), (Triple{v, half, half}));
            EXPECT_EQ(ycrcb_to_rgb(v, half, half, depth), (Triple{v, v, v}));
        }
    }
    // Saturated red: Cr clamps at the top (OpenCV computes 256 and saturates to 255).
    EXPECT_EQ(rgb_to_ycrcb(255, 0, 0, 8), (Triple{76, 255, 85}));
}

TEST(EqualizeColour, LumaOfGrayColourImageEqualsGrayEqualization) {
    for (const auto& [type, depth] :
         std::vector<std::pair<SampleType, int>>{{SampleType::U8, 8}, {SampleType::U16, 16}}) {
        const Image gray = hs::test::gaussian(61, 43, 1, type, depth, depth == 8 ? 25.0 : 5000.0);
        const Image colour = make_image(
            61, 43, 3, type, depth, [&](int x, int y, int) { return gray.view().sample(x, y, 0); });
        for (EqualizeMode m : {EqualizeMode::Global, EqualizeMode::Clahe}) {
            const Image g = equalize(gray, m);
            const Image c = equalize(colour, m, EqualizeSpace::Luma);
            for (int k = 0; k < 3; ++k)
                EXPECT_EQ(samples(plane_image(c, k)), samples(g)) << depth << " plane " << k;
        }
    }
}

TEST(EqualizeColour, RgbEqualizesEachChannelAloneAndKeepsAlpha) {
    const Image img = hs::test::gaussian(50, 30, 4, SampleType::U8, 8, 20.0);
    for (EqualizeMode m : {EqualizeMode::Global, EqualizeMode::Clahe}) {
        for (EqualizeSpace s : {EqualizeSpace::Rgb, EqualizeSpace::Luma}) {
            const Image out = equalize(img, m, s);
            expect_same_shape(out, img);
            EXPECT_EQ(samples(plane_image(out, 3)), samples(plane_image(img, 3)));
            if (s != EqualizeSpace::Rgb) continue;
            for (int k = 0; k < 3; ++k) {
                EXPECT_EQ(samples(plane_image(out, k)), samples(equalize(plane_image(img, k), m)))
                    << k;
            }
        }
    }
}

TEST(EqualizeColour, OutputIsPackedEvenWhenTheInputIsPadded) {
    const Image img = hs::test::uniform(21, 9, 3, SampleType::U16, 16, 3, 10);
    const Image out = equalize(img, EqualizeMode::Global, EqualizeSpace::Rgb);
    EXPECT_EQ(out.stride(), 21u * 3u * 2u);
    for (int k = 0; k < 3; ++k)
        EXPECT_EQ(samples(plane_image(out, k)),
                  samples(equalize(plane_image(img, k), EqualizeMode::Global)));
}

TEST(EqualizeColour, SamplesAboveTheDeclaredDepthAreAnInputError) {
    Image img(4, 4, 1, SampleType::U16, 12);
    img.set_sample(1, 2, 0, 4096);
    EXPECT_THROW(equalize(img, EqualizeMode::Global), InputError);
}

// ---------------------------------------------------------------- tiny and odd images

TEST(EqualizeShapes, OnePixelAndOddSizesWorkInEveryMode) {
    const std::vector<Image> images{hs::test::constant(1, 1, 1, SampleType::U8, 8, 9),
                                    hs::test::constant(1, 1, 3, SampleType::U16, 16, 999),
                                    hs::test::uniform(1, 77, 1, SampleType::U8, 8),
                                    hs::test::uniform(77, 1, 4, SampleType::U8, 8),
                                    hs::test::uniform(13, 11, 3, SampleType::U16, 10)};
    for (const Image& img : images) {
        for (EqualizeMode m : {EqualizeMode::Global, EqualizeMode::Clahe, EqualizeMode::Match}) {
            EqualizeRequest r;
            r.image = img.view();
            r.mode = m;
            r.tiles_x = std::min(3, img.width());
            r.tiles_y = std::min(5, img.height());
            if (m == EqualizeMode::Match) r.reference = img.view();
            const Image out = equalize_reference(r);
            expect_same_shape(out, img);
        }
    }
    // Global equalization of a constant image leaves it unchanged (as cv::equalizeHist).
    EXPECT_EQ(samples(equalize(images[0], EqualizeMode::Global)), samples(images[0]));
}

// ---------------------------------------------------------------- CLAHE

TEST(Clahe, ReflectOneHundredOne) {
    EXPECT_EQ(reflect101(-1, 5), 1);
    EXPECT_EQ(reflect101(-4, 5), 4);
    EXPECT_EQ(reflect101(5, 5), 3);
    EXPECT_EQ(reflect101(8, 5), 0);
    EXPECT_EQ(reflect101(9, 5), 1);  // reflected twice
    EXPECT_EQ(reflect101(3, 1), 0);
    EXPECT_EQ(reflect101(2, 2), 0);
    EXPECT_EQ(reflect101(3, 2), 1);
}

TEST(Clahe, GridPadsBothSidesAsOpenCVDoes) {
    ClaheGrid g = clahe_grid(64, 48, 8, 2.0, 8, 8);  // divisible: no padding
    EXPECT_EQ(g.pad_right, 0);
    EXPECT_EQ(g.pad_bottom, 0);
    EXPECT_EQ(g.tile_width, 8);
    EXPECT_EQ(g.tile_height, 6);
    EXPECT_EQ(g.clip_limit, 1);  // int(2 * 48 / 256) = 0 -> at least 1
    EXPECT_EQ(g.lut_scale, 255.0f / 48.0f);
    g = clahe_grid(10, 7, 8, 40.0, 3, 5);
    EXPECT_EQ(g.pad_right, 2);
    EXPECT_EQ(g.pad_bottom, 3);
    EXPECT_EQ(g.tile_width, 4);
    EXPECT_EQ(g.tile_height, 2);
    EXPECT_EQ(g.clip_limit, 1);  // int(40 * 8 / 256) = 1
    // Width divisible, height not: OpenCV still pads the width, by a whole tile.
    g = clahe_grid(8, 7, 8, 2.0, 4, 5);
    EXPECT_EQ(g.pad_right, 4);
    EXPECT_EQ(g.pad_bottom, 3);
    EXPECT_EQ(g.tile_width, 3);
    EXPECT_EQ(g.tile_height, 2);
    // 16-bit: 65536 levels.
    g = clahe_grid(512, 512, 16, 4.0, 2, 2);
    EXPECT_EQ(g.clip_limit, 4);  // int(4 * 65536 / 65536)
    EXPECT_EQ(g.lut_scale, 65535.0f / 65536.0f);
    // A clip limit at or above the tile area clips nothing; it is stored as the area.
    EXPECT_EQ(clahe_grid(16, 16, 8, 65536.0, 1, 1).clip_limit, 256);
}

TEST(Clahe, TileLutClipsAndRedistributesWithResidual) {
    // 4 levels, area 8, scale 3/8. Clip 2: excess 4, batch 1, no residual.
    std::vector<std::int64_t> h{6, 1, 1, 0};
    EXPECT_EQ(clahe_tile_lut(h, 2, 0.375f), (Lut{1, 2, 3, 3}));  // sums 3 5 7 8
    EXPECT_EQ(h, (std::vector<std::int64_t>{3, 2, 2, 1}));
    // Excess 5: batch 1, residual 1 given to bin 0 (step 4). Sums 4 6 7 8: 1.5 -> 2 (even).
    h = {7, 1, 0, 0};
    EXPECT_EQ(clahe_tile_lut(h, 2, 0.375f), (Lut{2, 2, 3, 3}));
    EXPECT_EQ(h, (std::vector<std::int64_t>{4, 2, 1, 1}));
    // Excess 3 over 4 bins: residual 3, step max(4 / 3, 1) = 1: bins 0, 1, 2.
    h = {5, 0, 0, 0};
    clahe_tile_lut(h, 2, 1.0f);
    EXPECT_EQ(h, (std::vector<std::int64_t>{3, 1, 1, 0}));
}

TEST(Clahe, OneTileWithoutClippingIsTheTileCdf) {
    // 2x2 image, area 4, no clipping: lut = round_even(cdf * 255 / 4): 63.75, 127.5, 191.25, 255.
    const Image img = make_image(2, 2, 1, SampleType::U8, 8, [](int x, int y, int) {
        return std::vector<std::uint32_t>{0, 64, 128, 255}[static_cast<std::size_t>(y * 2 + x)];
    });
    EqualizeRequest r;
    r.image = img.view();
    r.mode = EqualizeMode::Clahe;
    r.clip = 65536.0;
    r.tiles_x = r.tiles_y = 1;
    EXPECT_EQ(samples(equalize_reference(r)), (std::vector<std::uint32_t>{64, 128, 191, 255}));
}

TEST(Clahe, ConstantImageStaysConstantAndOddGridsKeepTheShape) {
    for (const auto& [type, depth] :
         std::vector<std::pair<SampleType, int>>{{SampleType::U8, 8}, {SampleType::U16, 16}}) {
        const Image flat = hs::test::constant(45, 29, 1, type, depth, 100);
        const std::vector<std::uint32_t> out = samples(equalize(flat, EqualizeMode::Clahe));
        for (std::uint32_t v : out) ASSERT_EQ(v, out.front());
        const Image noisy = hs::test::gaussian(45, 29, 1, type, depth, depth == 8 ? 10.0 : 900.0);
        for (const auto& [tx, ty] :
             std::vector<std::pair<int, int>>{{3, 5}, {7, 7}, {45, 29}, {1, 29}}) {
            EqualizeRequest r;
            r.image = noisy.view();
            r.mode = EqualizeMode::Clahe;
            r.tiles_x = tx;
            r.tiles_y = ty;
            expect_same_shape(equalize_reference(r), noisy);
        }
    }
}

// ---------------------------------------------------------------- matching

TEST(Match, HandComputedLut) {
    // Cs = 2 4 4 4 of Ns = 4; Cr = 0 0 1 2 of Nr = 2.
    EXPECT_EQ(match_lut(histogram_of(4, {{0, 2}, {1, 2}}), histogram_of(4, {{2, 1}, {3, 1}})),
              (Lut{2, 3, 3, 3}));
    EXPECT_THROW(match_lut(ValueHistogram(4, 1), ValueHistogram(8, 1)), UsageError);
    EXPECT_THROW(match_lut(ValueHistogram(4, 0), ValueHistogram(4, 1)), UsageError);
}

TEST(Match, ToItselfIsTheIdentityAndToAConstantIsThatConstant) {
    for (const auto& [type, depth] :
         std::vector<std::pair<SampleType, int>>{{SampleType::U8, 8}, {SampleType::U16, 16}}) {
        const Image img = hs::test::gaussian(80, 60, 1, type, depth, depth == 8 ? 30.0 : 8000.0);
        EqualizeRequest r;
        r.image = img.view();
        r.mode = EqualizeMode::Match;
        r.reference = img.view();
        EXPECT_EQ(samples(equalize_reference(r)), samples(img));

        const Image flat = hs::test::constant(7, 3, 1, type, depth, 1234 % (1u << depth));
        r.reference = flat.view();
        for (std::uint32_t v : samples(equalize_reference(r))) ASSERT_EQ(v, 1234 % (1u << depth));

        r.reference.reset();
        r.reference_histograms = {histogram_of(std::size_t{1} << depth, {{5, 10}})};
        for (std::uint32_t v : samples(equalize_reference(r))) ASSERT_EQ(v, 5u);
    }
}

TEST(Match, ToAnEqualizedImageReproducesTheEqualization) {
    const Image img = hs::test::gaussian(120, 90, 3, SampleType::U8, 8, 20.0);
    for (EqualizeSpace s : {EqualizeSpace::Rgb, EqualizeSpace::Luma}) {
        const Image target = equalize(img, EqualizeMode::Global, s);
        if (s == EqualizeSpace::Luma) {
            // Match the Y of the image to the histogram of the equalized Y.
            const WorkingPlanes y = split_planes(img.view(), s);
            const Lut lut = equalize_lut(plane_histogram(y.planes[0], 8));
            ValueHistogram equalized(256, 0);
            for (std::uint16_t v : y.planes[0].samples) ++equalized[lut[v]];
            EqualizeRequest r;
            r.image = img.view();
            r.mode = EqualizeMode::Match;
            r.reference_histograms = {equalized};
            EXPECT_EQ(samples(equalize_reference(r)), samples(target));
            continue;
        }
        EqualizeRequest r;
        r.image = img.view();
        r.mode = EqualizeMode::Match;
        r.space = s;
        r.reference = target.view();
        EXPECT_EQ(samples(equalize_reference(r)), samples(target));
    }
}

TEST(Match, ProportionZeroIsTheInputAndGrayReferencesServeEveryChannel) {
    const Image img = hs::test::uniform(40, 20, 3, SampleType::U8, 8, 5);
    const Image ref = hs::test::gaussian(10, 10, 1, SampleType::U8, 8, 5.0);
    EqualizeRequest r;
    r.image = img.view();
    r.mode = EqualizeMode::Match;
    r.space = EqualizeSpace::Rgb;
    r.reference = ref.view();
    r.strength = 0.0;
    EXPECT_EQ(samples(equalize_reference(r)), samples(img));
    r.strength = 1.0;
    const Image out = equalize_reference(r);
    for (int k = 0; k < 3; ++k) {
        EqualizeRequest one = r;
        const Image plane = plane_image(img, k);
        one.image = plane.view();
        EXPECT_EQ(samples(plane_image(out, k)), samples(equalize_reference(one))) << k;
    }
}

// ---------------------------------------------------------------- validation

TEST(EqualizeRequest, RejectsBadOptionsWithOneSentence) {
    const Image img = hs::test::uniform(16, 12, 3, SampleType::U8, 8);
    const Image deep = hs::test::uniform(16, 12, 1, SampleType::U16, 16);
    auto base = [&](EqualizeMode m) {
        EqualizeRequest r;
        r.image = img.view();
        r.mode = m;
        return r;
    };
    struct Bad {
        EqualizeRequest request;
        std::string says;
    };
    std::vector<Bad> bad;
    auto add = [&](EqualizeMode m, auto&& change, std::string says) {
        EqualizeRequest r = base(m);
        change(r);
        bad.push_back({r, std::move(says)});
    };
    add(
        EqualizeMode::Global, [](EqualizeRequest& r) { r.strength = 1.5; }, "strength");
    add(
        EqualizeMode::Global, [](EqualizeRequest& r) { r.strength = -0.5; }, "strength");
    add(
        EqualizeMode::Match,
        [&](EqualizeRequest& r) {
            r.strength = 2;
            r.reference = img.view();
        },
        "proportion");
    add(
        EqualizeMode::Clahe, [](EqualizeRequest& r) { r.clip = 0.0; }, "clip limit");
    add(
        EqualizeMode::Clahe, [](EqualizeRequest& r) { r.clip = -1.0; }, "clip limit");
    add(
        EqualizeMode::Clahe, [](EqualizeRequest& r) { r.tiles_x = 0; }, "tile grid 0x8");
    add(
        EqualizeMode::Clahe, [](EqualizeRequest& r) { r.tiles_y = 65; }, "1 to 64");
    add(
        EqualizeMode::Clahe, [](EqualizeRequest& r) { r.tiles_x = 17; }, "larger than the 16x12");
    add(
        EqualizeMode::Clahe, [](EqualizeRequest& r) { r.tiles_y = 13; }, "larger than the 16x12");
    add(
        EqualizeMode::Match, [](EqualizeRequest&) {}, "needs a reference");
    add(
        EqualizeMode::Match,
        [&](EqualizeRequest& r) {
            r.reference = img.view();
            r.reference_histograms = {ValueHistogram(256, 1)};
        },
        "not both");
    add(
        EqualizeMode::Match, [&](EqualizeRequest& r) { r.reference = deep.view(); }, "same depth");
    add(
        EqualizeMode::Match,
        [](EqualizeRequest& r) { r.reference_histograms = {ValueHistogram(65536, 1)}; },
        "256 bins");
    add(
        EqualizeMode::Match,
        [](EqualizeRequest& r) { r.reference_histograms = {ValueHistogram(256, 0)}; }, "empty");
    add(
        EqualizeMode::Match,
        [](EqualizeRequest& r) {
            r.reference_histograms = {ValueHistogram(256, 1), ValueHistogram(256, 1)};
        },
        "give 1 reference histogram");  // Luma: one plane
    add(
        EqualizeMode::Global, [&](EqualizeRequest& r) { r.reference = img.view(); },
        "match mode only");
    add(
        EqualizeMode::Global, [](EqualizeRequest& r) { r.image.channels = 2; }, "channels");
    for (const Bad& b : bad) {
        try {
            equalize_reference(b.request);
            ADD_FAILURE() << "accepted: " << b.says;
        } catch (const UsageError& e) {
            const std::string what = e.what();
            EXPECT_NE(what.find(b.says), std::string::npos) << what;
            EXPECT_EQ(what.find('\n'), std::string::npos) << what;
        }
    }
    // Tile options are ignored outside CLAHE: a 1x1 image equalizes with the default 8x8.
    const Image one = hs::test::constant(1, 1, 1, SampleType::U8, 8, 3);
    EqualizeRequest ok;
    ok.image = one.view();
    EXPECT_NO_THROW(equalize_reference(ok));
}

TEST(EqualizeNames, ParseAndPrint) {
    for (EqualizeMode m : {EqualizeMode::Global, EqualizeMode::Clahe, EqualizeMode::Match})
        EXPECT_EQ(parse_mode(mode_name(m)), m);
    for (EqualizeSpace s : {EqualizeSpace::Luma, EqualizeSpace::Rgb})
        EXPECT_EQ(parse_space(space_name(s)), s);
    EXPECT_FALSE(parse_mode("histogram"));
    EXPECT_FALSE(parse_space("hsv"));
}

// ---------------------------------------------------------------- engine

TEST(EqualizeEngineRegistry, CpuEqualizerIsTheReference) {
    EngineRegistry reg;
    register_core_engines(reg);
    EqualizeEngine* cpu = reg.find_equalizer("cpu");
    ASSERT_NE(cpu, nullptr);
    EXPECT_EQ(reg.find_equalizer("nope"), nullptr);
    EXPECT_EQ(reg.equalizer_names(), std::vector<std::string>{"cpu"});
    EXPECT_NE(reg.find("cpu"), nullptr);  // the histogram engine is still there

    const Image img = hs::test::gaussian(200, 100, 4, SampleType::U16, 16, 4000.0);
    for (EqualizeMode m : {EqualizeMode::Global, EqualizeMode::Clahe, EqualizeMode::Match}) {
        EqualizeRequest r;
        r.image = img.view();
        r.mode = m;
        r.space = EqualizeSpace::Rgb;
        r.strength = 0.75;
        if (m == EqualizeMode::Match) r.reference = img.view();
        const EqualizeResult result = cpu->equalize(r);
        EXPECT_EQ(samples(result.image), samples(equalize_reference(r))) << mode_name(m);
        EXPECT_FALSE(result.stages.empty());
        EXPECT_GE(result.total_ms, 0.0);
    }
    EqualizeRequest bad;
    bad.image = img.view();
    bad.strength = 3;
    EXPECT_THROW(cpu->equalize(bad), UsageError);
}

// The "cpu" equalizer runs global equalization and matching in two passes over the interleaved
// pixels on every thread: the same values as the plane pipeline of equalize_reference() on
// every layout, depth, space and strength, images large enough to split over threads, and the
// same error for the first row holding a sample above the declared depth.
TEST(EqualizeEngineRegistry, CpuEqualizerInTwoPassesIsTheReference) {
    EngineRegistry reg;
    register_core_engines(reg);
    EqualizeEngine& cpu = *reg.find_equalizer("cpu");
    const Image ref8 = hs::test::gaussian(37, 21, 3, SampleType::U8, 8, 20.0, 3);
    for (const int channels : {1, 3, 4})
        for (const auto& [type, depth] :
             {std::pair{SampleType::U8, 8}, std::pair{SampleType::U16, 12},
              std::pair{SampleType::U16, 16}})
            for (const auto& [w, h] : {std::pair{1, 1}, std::pair{13, 7}, std::pair{700, 800}}) {
                const Image img =
                    w > 100 ? hs::test::gaussian(w, h, channels, type, depth,
                                                 static_cast<double>(1u << depth) / 9.0, 5)
                            : hs::test::uniform(w, h, channels, type, depth, 9, 6);
                const Image ref = hs::test::gaussian(29, 17, channels, type, depth,
                                                     static_cast<double>(1u << depth) / 5.0, 8);
                for (EqualizeMode m : {EqualizeMode::Global, EqualizeMode::Match})
                    for (EqualizeSpace space : {EqualizeSpace::Luma, EqualizeSpace::Rgb})
                        for (double strength : {1.0, 0.4}) {
                            EqualizeRequest r;
                            r.image = img.view();
                            r.mode = m;
                            r.space = space;
                            r.strength = strength;
                            if (m == EqualizeMode::Match)
                                r.reference =
                                    (type == SampleType::U8 && channels == 3 ? ref8 : ref).view();
                            const EqualizeResult got = cpu.equalize(r);
                            ASSERT_EQ(samples(got.image), samples(equalize_reference(r)))
                                << w << "x" << h << "x" << channels << " depth " << depth << " "
                                << mode_name(m) << " " << space_name(space) << " " << strength;
                        }
            }
    // Rows above the declared depth: the first one is reported, whichever thread met it.
    Image deep = hs::test::uniform(300, 900, 3, SampleType::U16, 10, 4);
    deep.set_sample(7, 611, 2, 2000);
    deep.set_sample(290, 850, 0, 5000);
    EqualizeRequest r;
    r.image = deep.view();
    std::string want, got;
    try {
        static_cast<void>(equalize_reference(r));
    } catch (const InputError& e) {
        want = e.what();
    }
    try {
        static_cast<void>(cpu.equalize(r));
    } catch (const InputError& e) {
        got = e.what();
    }
    EXPECT_NE(want.find("row 611"), std::string::npos) << want;
    EXPECT_EQ(got, want);
}

TEST(EqualizeEngineRegistry, NamesAreUnique) {
    EngineRegistry reg;
    register_core_engines(reg);
    class Twin final : public EqualizeEngine {
      public:
        std::string_view name() const override { return "cpu"; }
        std::string_view description() const override { return "a second cpu"; }

      protected:
        EqualizeResult run(const EqualizeRequest&) override { return {}; }
    };
    EXPECT_THROW(reg.add_equalizer(std::make_unique<Twin>()), UsageError);
}
