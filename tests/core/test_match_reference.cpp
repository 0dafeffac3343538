// Histogram matching to a reference of another depth (match_reference.hpp), judged against the
// definition computed here on its own: the normalized CDFs compared over each side's own code
// values by brute force, and the value found carried to the image's depth as the nearest value
// of the same fraction of full scale (long double, rounded).

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <vector>

#include "histoscope/core/equalize.hpp"
#include "histoscope/core/error.hpp"
#include "histoscope/core/match_reference.hpp"
#include "synthetic.hpp"

using namespace hs;
using hs::test::make_image;

namespace {

SampleType type_of(int depth) {
    return depth == 8 ? SampleType::U8 : SampleType::U16;
}

// The nearest code value of depth `to` to the fraction u / (2^from - 1) of full scale.
std::uint32_t nearest_at(std::uint32_t u, int from, int to) {
    const long double from_max = std::ldexp(1.0L, from) - 1, to_max = std::ldexp(1.0L, to) - 1;
    return static_cast<std::uint32_t>(
        std::llround(static_cast<long double>(u) * to_max / from_max));
}

// One plane of values (a channel, or gray) of `image`, for a plane index `k`.
std::vector<std::uint32_t> plane(const Image& image, int k) {
    std::vector<std::uint32_t> out;
    const ImageView v = image.view();
    const int c = v.channels == 1 ? 0 : k;
    for (int y = 0; y < v.height; ++y)
        for (int x = 0; x < v.width; ++x) out.push_back(v.sample(x, y, c));
    return out;
}

// The Y of YCrCb of a colour image at its depth (equalize.hpp's 3).
std::vector<std::uint32_t> luma_plane(const Image& image) {
    std::vector<std::uint32_t> out;
    const ImageView v = image.view();
    for (int y = 0; y < v.height; ++y)
        for (int x = 0; x < v.width; ++x)
            out.push_back(
                rgb_to_ycrcb(v.sample(x, y, 0), v.sample(x, y, 1), v.sample(x, y, 2), v.bit_depth)
                    .a);
    return out;
}

// lut[v] for every value of the image's depth: the smallest reference value u whose share of
// reference samples at or below it reaches the share of image samples at or below v, carried to
// the image's depth.
std::vector<std::uint32_t> expected_lut(const std::vector<std::uint32_t>& source, int source_depth,
                                        const std::vector<std::uint32_t>& reference,
                                        int reference_depth) {
    const std::uint32_t levels = 1u << source_depth, ref_levels = 1u << reference_depth;
    std::vector<std::uint64_t> hs(levels), hr(ref_levels);
    for (std::uint32_t v : source) ++hs[v];
    for (std::uint32_t u : reference) ++hr[u];
    // The images here are small: the products fit in 64 bits.
    const std::uint64_t ns = source.size(), nr = reference.size();
    std::vector<std::uint32_t> lut(levels);
    std::uint64_t cs = 0;
    for (std::uint32_t v = 0; v < levels; ++v) {
        cs += hs[v];
        std::uint64_t cr = 0;
        std::uint32_t u = 0;
        for (;; ++u) {
            cr += hr[u];
            if (cr * ns >= cs * nr) break;
        }
        lut[v] = nearest_at(u, reference_depth, source_depth);
    }
    return lut;
}

Image matched(const Image& image, const Image& reference, EqualizeSpace space,
              double strength = 1.0, EqualizeRequest* used = nullptr) {
    EqualizeRequest r;
    r.image = image.view();
    r.mode = EqualizeMode::Match;
    r.space = space;
    r.strength = strength;
    const MatchReference ref(std::make_shared<const Image>(reference));
    ref.apply(r);
    if (used != nullptr) *used = r;
    return equalize_reference(r);
}

// v + s (t - v), rounded half up, s = w / 65536 (equalize.hpp's 2).
std::uint32_t blended(std::uint32_t v, std::uint32_t t, std::int64_t w) {
    const std::int64_t d = static_cast<std::int64_t>(t) - static_cast<std::int64_t>(v);
    const std::int64_t num = d * w + 32768;
    const std::int64_t step = num >= 0 ? num / 65536 : -((-num + 65535) / 65536);
    return static_cast<std::uint32_t>(static_cast<std::int64_t>(v) + step);
}

}  // namespace

TEST(CodeValueAtDepth, IsTheNearestValueOfTheSameFractionOfFullScale) {
    for (int from = 1; from <= 16; ++from)
        for (int to = 1; to <= 16; ++to) {
            const std::uint32_t max = (1u << from) - 1u;
            const std::uint32_t step = from > 12 ? 37 : 1;
            for (std::uint32_t u = 0; u <= max; u += step)
                ASSERT_EQ(code_value_at_depth(u, from, to), nearest_at(u, from, to))
                    << u << " from " << from << " to " << to;
            EXPECT_EQ(code_value_at_depth(max, from, to), (1u << to) - 1u);
        }
    EXPECT_EQ(code_value_at_depth(255, 8, 10), 1023u);
    EXPECT_EQ(code_value_at_depth(65535, 16, 10), 1023u);
    EXPECT_EQ(code_value_at_depth(1, 8, 16), 257u);
    EXPECT_EQ(code_value_at_depth(700, 10, 10), 700u);
    EXPECT_THROW(code_value_at_depth(1024, 10, 8), UsageError);
}

TEST(HistogramAtDepth, MovesEachCountToItsValueAtTheOtherDepth) {
    ValueHistogram h(256, 0);
    h[0] = 3;
    h[1] = 5;
    h[255] = 7;
    const ValueHistogram deep = histogram_at_depth(h, 8, 16);
    ASSERT_EQ(deep.size(), 65536u);
    EXPECT_EQ(deep[0], 3u);
    EXPECT_EQ(deep[257], 5u);
    EXPECT_EQ(deep[65535], 7u);
    std::uint64_t total = 0;
    for (std::uint64_t n : deep) total += n;
    EXPECT_EQ(total, 15u);
    // Down: several values meet in one.
    const ValueHistogram shallow = histogram_at_depth(h, 8, 2);
    EXPECT_EQ(shallow, (ValueHistogram{8, 0, 0, 7}));
    EXPECT_THROW((void)histogram_at_depth(h, 10, 8), UsageError);
}

// Gray and Rgb targets, every pair of depths that clips and photos bring together.
TEST(MatchAcrossDepths, EqualsTheNormalizedCdfsOverEachSidesOwnCodeValues) {
    struct Pair {
        int image, reference;
    };
    for (const Pair p : {Pair{10, 8}, Pair{10, 16}, Pair{16, 10}, Pair{12, 10}, Pair{8, 12},
                         Pair{8, 16}, Pair{10, 10}}) {
        for (const int channels : {1, 3}) {
            const Image image = hs::test::gaussian(61, 37, channels, type_of(p.image), p.image,
                                                   std::ldexp(1.0, p.image) / 7, 11);
            // A reference of another size and shape, a gray one for the colour image too.
            const Image reference = hs::test::uniform(29, 43, channels == 3 ? 3 : 1,
                                                      type_of(p.reference), p.reference, 5);
            EqualizeRequest used;
            const Image out = matched(image, reference, EqualizeSpace::Rgb, 1.0, &used);
            const bool same = p.image == p.reference;
            EXPECT_EQ(used.reference.has_value(), same);
            EXPECT_EQ(used.reference_histograms.size(), same ? 0u : std::size_t(channels));
            ASSERT_EQ(out.bit_depth(), p.image);
            for (int k = 0; k < channels; ++k) {
                const std::vector<std::uint32_t> source = plane(image, k);
                const std::vector<std::uint32_t> lut =
                    expected_lut(source, p.image, plane(reference, k), p.reference);
                const std::vector<std::uint32_t> got = plane(out, k);
                for (std::size_t i = 0; i < source.size(); ++i)
                    ASSERT_EQ(got[i], lut[source[i]])
                        << p.image << "-bit image, " << p.reference << "-bit reference, plane " << k
                        << ", sample " << i;
            }
        }
    }
}

TEST(MatchAcrossDepths, GrayReferenceServesEveryColourPlaneAndStrengthBlends) {
    const Image image = hs::test::uniform(40, 30, 3, SampleType::U16, 10, 3);
    const Image gray = hs::test::gaussian(25, 25, 1, SampleType::U8, 8, 30.0, 4);
    const std::int64_t w = strength_weight(0.3);
    const Image out = matched(image, gray, EqualizeSpace::Rgb, 0.3);
    for (int k = 0; k < 3; ++k) {
        const std::vector<std::uint32_t> source = plane(image, k);
        const std::vector<std::uint32_t> lut = expected_lut(source, 10, plane(gray, 0), 8);
        const std::vector<std::uint32_t> got = plane(out, k);
        for (std::size_t i = 0; i < source.size(); ++i)
            ASSERT_EQ(got[i], blended(source[i], lut[source[i]], w)) << k << " " << i;
    }
}

// Luma space: the Y of the image at its depth matched to the Y of the reference at its own.
TEST(MatchAcrossDepths, LumaMatchesTheYOfEachAtItsOwnDepth) {
    const Image image = hs::test::gaussian(50, 20, 3, SampleType::U16, 12, 600.0, 8);
    const Image reference = hs::test::uniform(33, 21, 3, SampleType::U8, 8, 9);
    const Image out = matched(image, reference, EqualizeSpace::Luma);
    const std::vector<std::uint32_t> y = luma_plane(image);
    const std::vector<std::uint32_t> lut = expected_lut(y, 12, luma_plane(reference), 8);
    const ImageView in = image.view(), v = out.view();
    for (int row = 0; row < in.height; ++row)
        for (int x = 0; x < in.width; ++x) {
            const Triple ycc =
                rgb_to_ycrcb(in.sample(x, row, 0), in.sample(x, row, 1), in.sample(x, row, 2), 12);
            const Triple rgb = ycrcb_to_rgb(lut[y[static_cast<std::size_t>(row * in.width + x)]],
                                            ycc.b, ycc.c, 12);
            ASSERT_EQ(Triple({v.sample(x, row, 0), v.sample(x, row, 1), v.sample(x, row, 2)}), rgb)
                << x << "," << row;
        }
}

// A reference that is the image at another depth (its values at the reference's depth as the
// same fractions of full scale): matching gives each value back where no two of them met.
TEST(MatchAcrossDepths, TheSameImageAtAnotherDepthMapsBackToItself) {
    const Image ten = hs::test::ramp(64, 16, 1, SampleType::U16, 10);  // every 10-bit value
    const Image sixteen = make_image(64, 16, 1, SampleType::U16, 16, [&](int x, int y, int) {
        return code_value_at_depth(ten.view().sample(x, y, 0), 10, 16);
    });
    const Image out = matched(ten, sixteen, EqualizeSpace::Luma);
    EXPECT_EQ(plane(out, 0), plane(ten, 0));
}

TEST(MatchReference, RefusesASampleAboveItsDepthAndAnEmptyImage) {
    Image bad(4, 4, 1, SampleType::U16, 10);
    bad.set_sample(1, 2, 0, 1024);
    EXPECT_THROW(MatchReference(std::make_shared<const Image>(bad)), InputError);
    EXPECT_THROW(MatchReference(std::make_shared<const Image>()), UsageError);
}

TEST(MatchReference, RefusesAFloatImageWhoseSamplesAreNoCodeValues) {
    // Its value histograms would have 2^32 bins: refused before any is taken.
    const auto hdr = std::make_shared<const Image>(Image(3, 2, 3, SampleType::F32, 32));
    try {
        MatchReference{hdr};
        FAIL() << "a float reference was taken";
    } catch (const UsageError& e) {
        EXPECT_NE(std::string(e.what()).find("float"), std::string::npos) << e.what();
    }
}
