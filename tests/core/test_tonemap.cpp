// Tone mapping of float images (tonemap.hpp): the ceiling loop, the mapping's properties
// (monotone, the colour ratios kept, the brightest pixel white, the scene that fits the display
// mapped linearly), what has no luminance, and the whole against the same steps written again
// with numpy (tests/support/float_reference.py tonemap).

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <numeric>
#include <sstream>

#include "float_images.hpp"
#include "histoscope/core/error.hpp"
#include "histoscope/core/tonemap.hpp"
#include "run_command.hpp"
#include "synthetic.hpp"

using namespace hs;
using hs::test::float_image;

namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// sRGB decoding of a code value, for checking ratios in linear light.
double linear_of(std::uint32_t code, std::uint32_t max) {
    const double v = static_cast<double>(code) / max;
    return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
}

// A scene: luminance from 2^-12 to 2^12 across, hues down, a dark corner of zeros and NaN.
Image scene(int w, int h, int channels) {
    return float_image(w, h, channels, [&](int x, int y, int c) {
        if (x < 3 && y < 3) return c == 3 ? 0.5f : (x == 0 ? kNaN : 0.0f);
        if (c == 3) return static_cast<float>(y) / static_cast<float>(h);
        const double ev = -12.0 + 24.0 * x / (w - 1) + 0.3 * std::sin(y * 0.7);
        const double tint = 0.6 + 0.4 * std::cos(y * 0.37 + c * 2.1);
        return static_cast<float>(std::exp2(ev) * tint);
    });
}

void write_pfm(const std::string& path, const Image& img) {
    std::ofstream out(path, std::ios::binary);
    const ImageView v = img.view();
    out << (v.channels == 3 ? "PF" : "Pf") << "\n" << v.width << " " << v.height << "\n-1.0\n";
    for (int y = v.height - 1; y >= 0; --y)
        out.write(reinterpret_cast<const char*>(v.row(y)),
                  static_cast<std::streamsize>(v.row_bytes()));
}

}  // namespace

TEST(ToneMap, CeilingTrimsPeaksUntilTheToleranceHolds) {
    // A wide scene (8 decades over 100 bins, a display of 2): one bin holds most pixels.
    std::vector<std::uint64_t> counts(100, 100);
    counts[40] = 100000;
    const double width = 8.0 / 100.0;
    const CeilingResult r = histogram_ceiling(counts, width, 100.0);
    EXPECT_FALSE(r.linear);
    EXPECT_GT(r.iterations, 1);
    const double total = std::accumulate(r.counts.begin(), r.counts.end(), 0.0);
    const double ceiling = total * width / 2.0;
    const double counted = 100000.0 + 99 * 100.0;
    // Every bin at most the ceiling of the total before the last pass, which the last pass
    // moved by at most the tolerance.
    for (double f : r.counts) EXPECT_LE(f, ceiling * (1.0 + 0.025 * counted / total) + 1e-9);
    EXPECT_LT(r.counts[40], 100000.0);
    EXPECT_EQ(r.counts[0], 100.0);  // the bins below the ceiling are left alone
    // A flat histogram of an 8-decade scene needs no trimming at all.
    const CeilingResult flat = histogram_ceiling(std::vector<std::uint64_t>(100, 7), width, 100.0);
    EXPECT_FALSE(flat.linear);
    EXPECT_EQ(flat.iterations, 1);
    // A scene of half a decade, or two, on a display of two: linear.
    EXPECT_TRUE(histogram_ceiling(std::vector<std::uint64_t>(100, 7), 0.5 / 100, 100.0).linear);
    EXPECT_TRUE(histogram_ceiling(std::vector<std::uint64_t>(100, 7), 2.0 / 100, 100.0).linear);
    // Just wider, with most counts in a few bins: trimmed down below the tolerance, linear.
    std::vector<std::uint64_t> spiky(100, 0);
    spiky[10] = spiky[60] = 1000;
    EXPECT_TRUE(histogram_ceiling(spiky, 2.1 / 100, 100.0).linear);
    EXPECT_TRUE(histogram_ceiling(std::vector<std::uint64_t>(100, 7), 0.0, 100.0).linear);
}

TEST(ToneMap, MonotoneWhiteAtTheTopAndRatiosKept) {
    const Image img = scene(257, 9, 3);
    const ToneMapResult r = tone_map(img.view());
    ASSERT_EQ(r.image.type(), SampleType::U16);
    ASSERT_EQ(r.image.channels(), 3);
    EXPECT_FALSE(r.linear);
    EXPECT_EQ(r.black_pixels, 9u);  // the corner
    const ImageView out = r.image.view();
    for (int y = 3; y < img.height(); ++y) {
        double last = -1.0;
        for (int x = 3; x < img.width(); ++x) {
            // Display luminance grows with scene luminance along the row (the hue is the row's).
            const double ld = 0.2126 * linear_of(out.sample(x, y, 0), 65535) +
                              0.7152 * linear_of(out.sample(x, y, 1), 65535) +
                              0.0722 * linear_of(out.sample(x, y, 2), 65535);
            EXPECT_GE(ld, last - 1e-4) << x << "," << y;
            last = ld;
            // Ratios of the channels as in the scene, where no channel clipped or rounded to
            // a few codes.
            const double r0 = linear_of(out.sample(x, y, 0), 65535);
            const double g0 = linear_of(out.sample(x, y, 1), 65535);
            if (out.sample(x, y, 0) < 65535 && out.sample(x, y, 1) < 65535 && g0 > 1e-3) {
                EXPECT_NEAR(r0 / g0,
                            static_cast<double>(img.view().sample_f32(x, y, 0)) /
                                img.view().sample_f32(x, y, 1),
                            2e-3 * r0 / g0)
                    << x << "," << y;
            }
        }
    }
    for (int y = 0; y < 3; ++y)
        for (int x = 0; x < 3; ++x)
            for (int c = 0; c < 3; ++c) EXPECT_EQ(out.sample(x, y, c), 0u);
    // The brightest pixel reaches the display's maximum in its largest channel.
    std::uint32_t top = 0;
    for (int y = 0; y < img.height(); ++y)
        for (int c = 0; c < 3; ++c) top = std::max(top, out.sample(img.width() - 1, y, c));
    EXPECT_EQ(top, 65535u);
}

TEST(ToneMap, ASceneThatFitsTheDisplayIsMappedLinearly) {
    // Half a decade of gray: linear, the brightest pixel white, the others in proportion.
    const Image img = float_image(64, 2, 1, [](int x, int, int) {
        return static_cast<float>(std::pow(10.0, -0.5 + 0.5 * x / 63.0));
    });
    ToneMapSpec spec;
    spec.output_depth = 8;
    const ToneMapResult r = tone_map(img.view(), spec);
    EXPECT_TRUE(r.linear);
    ASSERT_EQ(r.image.type(), SampleType::U8);
    for (int x = 0; x < 64; ++x) {
        const double expected = std::floor(
            srgb_encode(img.view().sample_f32(x, 0, 0) / img.view().sample_f32(63, 0, 0)) * 255 +
            0.5);
        EXPECT_EQ(r.image.view().sample(x, 1, 0), static_cast<std::uint32_t>(expected)) << x;
    }
}

TEST(ToneMap, AlphaIsKeptAndNothingMakesUpLight) {
    const Image img = scene(40, 20, 4);
    const ToneMapResult r = tone_map(img.view());
    for (int y = 0; y < 20; ++y)
        for (int x = 0; x < 40; ++x) {
            const float a = img.view().sample_f32(x, y, 3);
            EXPECT_EQ(r.image.view().sample(x, y, 3),
                      static_cast<std::uint32_t>(std::lround(static_cast<double>(a) * 65535)));
        }
    // Only NaN, zero or negative luminance: every pixel black, every one counted.
    const Image none = float_image(5, 5, 3, [](int x, int, int) { return x == 0 ? kNaN : -1.0f; });
    const ToneMapResult n = tone_map(none.view());
    EXPECT_EQ(n.black_pixels, 25u);
    for (int y = 0; y < 5; ++y)
        for (int x = 0; x < 5; ++x) EXPECT_EQ(n.image.view().sample(x, y, 1), 0u);
    // One luminance everywhere: linear, white.
    const Image flat = float_image(3, 3, 1, [](int, int, int) { return 0.25f; });
    const ToneMapResult f = tone_map(flat.view());
    EXPECT_TRUE(f.linear);
    EXPECT_EQ(f.image.view().sample(1, 1, 0), 65535u);
}

TEST(ToneMap, RefusesWhatItDoesNotMap) {
    EXPECT_THROW((void)tone_map(hs::test::constant(4, 4, 3, SampleType::U16, 16, 9).view()),
                 UsageError);
    const Image img = scene(8, 8, 3);
    for (ToneMapSpec bad : {ToneMapSpec{1, 100, 16}, ToneMapSpec{100, 1, 16},
                            ToneMapSpec{100, 100, 12}, ToneMapSpec{100, 1e7, 8}})
        EXPECT_THROW((void)tone_map(img.view(), bad), UsageError);
}

TEST(ToneMap, EqualsTheSameStepsWrittenWithNumpy) {
    const auto dir = hs::test::temp_dir("tonemap");
    struct Case {
        Image image;
        ToneMapSpec spec;
    };
    std::vector<Case> cases;
    cases.push_back({scene(301, 37, 3), {}});
    cases.push_back({scene(64, 31, 1), ToneMapSpec{50, 30, 8}});
    cases.push_back({hs::test::hostile_float_image(120, 40, 3, 5), ToneMapSpec{100, 100, 16}});
    cases.push_back({float_image(50, 10, 3,
                                 [](int x, int, int c) {
                                     return static_cast<float>((1.0 + c) *
                                                               std::pow(10.0, x / 49.0 * 0.4));
                                 }),
                     {}});  // a narrow scene: linear
    int n = 0;
    for (const Case& k : cases) {
        const std::string path = (dir / ("s" + std::to_string(n++) + ".pfm")).string();
        write_pfm(path, k.image);
        const ToneMapResult ours = tone_map(k.image.view(), k.spec);
        const hs::test::CommandResult py = hs::test::run_command(
            std::string(HS_TEST_PYTHON) + " " + HS_FLOAT_REFERENCE + " tonemap " + path + " " +
            std::to_string(k.spec.bins) + " " + std::to_string(k.spec.display_contrast) + " " +
            std::to_string(k.spec.output_depth));
        ASSERT_EQ(py.exit_code, 0) << py.err;
        std::istringstream in(py.out);
        int h = 0, w = 0, c = 0, linear = 0;
        in >> h >> w >> c >> linear;
        ASSERT_EQ(h, k.image.height());
        ASSERT_EQ(w, k.image.width());
        EXPECT_EQ(linear != 0, ours.linear) << path;
        int worst = 0;
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                for (int ch = 0; ch < c; ++ch) {
                    long expected = 0;
                    in >> expected;
                    worst = std::max(
                        worst,
                        static_cast<int>(std::labs(
                            static_cast<long>(ours.image.view().sample(x, y, ch)) - expected)));
                }
        // The same formulas in double precision, summed in another order: at most one code
        // value apart (a rounding that falls the other way).
        EXPECT_LE(worst, 1) << path;
    }
    std::filesystem::remove_all(dir);
}
