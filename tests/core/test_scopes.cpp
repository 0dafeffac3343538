// Scopes and regions: the reference against straightforward loops written from the definitions
// in scopes.hpp, on odd shapes, strides, 16-bit samples at and above the declared depth, counts
// past 2^16 in one bin, grouped columns; the chroma formulas against YCrCb and real numbers.

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "histoscope/core/engine.hpp"
#include "histoscope/core/error.hpp"
#include "histoscope/core/scopes.hpp"
#include "scope_specs.hpp"
#include "synthetic.hpp"

using namespace hs;
using hs::test::vectorscope;
using hs::test::waveform;

namespace {

// The waveform of one channel, pixel by pixel, as the definition says.
ScopePlane naive_waveform(const ImageView& v, Channel c, int levels, int columns) {
    const int n = columns == 0 ? v.width : columns;
    ScopePlane p{std::string(channel_name(c)), n, levels,
                 std::vector<std::uint64_t>(static_cast<std::size_t>(n * levels))};
    for (int y = 0; y < v.height; ++y)
        for (int x = 0; x < v.width; ++x) {
            const std::uint64_t value = channel_value(v, c, x, y);
            if (value > v.max_value()) continue;  // outside, as in histograms
            const auto column = static_cast<std::int64_t>(x) * n / v.width;
            const auto level = static_cast<std::int64_t>(value) * levels >> v.bit_depth;
            ++p.counts[static_cast<std::size_t>(column * levels + level)];
        }
    return p;
}

std::int64_t floor_shift(std::int64_t x, int shift) {
    return x >= 0 ? x >> shift : -((-x + (std::int64_t{1} << shift) - 1) >> shift);
}

// Cb, Cr transcribed from the header's formulas in 64-bit arithmetic.
std::pair<std::int64_t, std::int64_t> naive_chroma(ChromaWeights w, std::int64_t r, std::int64_t g,
                                                   std::int64_t b, int depth) {
    const std::int64_t y = floor_shift(w.r2y * r + w.g2y * g + w.b2y * b + (1 << 13), 14);
    const std::int64_t half = std::int64_t{1} << (depth - 1 + 14);
    const std::int64_t top = (std::int64_t{1} << depth) - 1;
    const std::int64_t cb =
        std::clamp<std::int64_t>(floor_shift((b - y) * w.cb + half + (1 << 13), 14), 0, top);
    const std::int64_t cr =
        std::clamp<std::int64_t>(floor_shift((r - y) * w.cr + half + (1 << 13), 14), 0, top);
    return {cb, cr};
}

ScopePlane naive_vectorscope(const ImageView& v, ChromaMatrix m, int size) {
    ScopePlane p{"cb,cr", size, size,
                 std::vector<std::uint64_t>(static_cast<std::size_t>(size * size))};
    for (int y = 0; y < v.height; ++y)
        for (int x = 0; x < v.width; ++x) {
            const std::int64_t r = v.sample(x, y, 0), g = v.sample(x, y, 1), b = v.sample(x, y, 2);
            const std::int64_t top = v.max_value();
            if (r > top || g > top || b > top) continue;
            const auto [cb, cr] = naive_chroma(chroma_weights(m), r, g, b, v.bit_depth);
            const std::int64_t bx = cb * size >> v.bit_depth, by = cr * size >> v.bit_depth;
            ++p.counts[static_cast<std::size_t>(bx * size + by)];
        }
    return p;
}

std::uint64_t total(const ScopePlane& p) {
    std::uint64_t t = 0;
    for (auto c : p.counts) t += c;
    return t;
}

std::vector<Image> shapes() {
    std::vector<Image> v;
    v.push_back(hs::test::uniform(1, 1, 3, SampleType::U8, 8, 3));
    v.push_back(hs::test::uniform(257, 3, 3, SampleType::U8, 8, 4, 7));  // padded rows
    v.push_back(hs::test::uniform(131, 67, 4, SampleType::U8, 8, 5));
    v.push_back(hs::test::uniform(95, 41, 1, SampleType::U8, 8, 6, 2));
    v.push_back(hs::test::uniform(77, 33, 3, SampleType::U16, 16, 7, 6));
    v.push_back(hs::test::uniform(64, 50, 3, SampleType::U16, 12, 8));
    v.push_back(hs::test::gaussian(300, 200, 3, SampleType::U8, 8, 20.0));
    v.push_back(hs::test::ramp(1023, 7, 3, SampleType::U8, 8));
    v.push_back(hs::test::constant(129, 65, 3, SampleType::U8, 8, 255));
    v.push_back(hs::test::constant(65, 129, 3, SampleType::U16, 16, 0));
    return v;
}

}  // namespace

TEST(Scopes, WaveformsEqualTheDefinitionOnEveryShape) {
    for (const Image& img : shapes()) {
        const ImageView v = img.view();
        std::vector<Channel> channels = all_channels(v.channels);
        if (v.channels > 1) channels.insert(channels.end(), {Channel::Luma601, Channel::Luma709});
        for (Channel c : channels)
            for (const auto& [levels, columns] :
                 std::vector<std::pair<int, int>>{{256, 0},
                                                  {1, 0},
                                                  {7, 1},
                                                  {1024, (v.width + 1) / 2},
                                                  {4096, 0},
                                                  {33, v.width}}) {
                const auto planes = reference_scope(v, waveform(c, levels, columns));
                ASSERT_EQ(planes.size(), 1u);
                ASSERT_EQ(planes[0], naive_waveform(v, c, levels, columns))
                    << v.width << "x" << v.height << "x" << v.channels << " " << channel_name(c)
                    << " L=" << levels << " N=" << columns;
            }
    }
}

TEST(Scopes, ParadeIsTheThreeWaveforms) {
    for (const Image& img : shapes()) {
        const ImageView v = img.view();
        if (v.channels < 3) continue;
        ScopeSpec s = waveform(Channel::R, 512, v.width > 2 ? v.width - 1 : 0);
        s.kind = ScopeKind::Parade;
        const auto planes = reference_scope(v, s);
        ASSERT_EQ(planes.size(), 3u);
        const std::array rgb{Channel::R, Channel::G, Channel::B};
        for (std::size_t i = 0; i < 3; ++i)
            EXPECT_EQ(planes[i], naive_waveform(v, rgb[i], 512, s.columns));
    }
}

TEST(Scopes, VectorscopesEqualTheDefinitionOnEveryShape) {
    for (const Image& img : shapes()) {
        const ImageView v = img.view();
        if (v.channels < 3) continue;
        for (ChromaMatrix m : {ChromaMatrix::Rec601, ChromaMatrix::Rec709})
            for (int size : {256, 1, 17, 1024}) {
                const auto planes = reference_scope(v, vectorscope(size, m));
                ASSERT_EQ(planes.size(), 1u);
                ASSERT_EQ(planes[0], naive_vectorscope(v, m, size))
                    << v.width << "x" << v.height << "x" << v.channels << " size=" << size;
                EXPECT_EQ(total(planes[0]), v.pixel_count());
            }
    }
}

TEST(Scopes, SamplesAboveTheDeclaredDepthAreNotCounted) {
    // 10-bit samples with values at 1023 (the top level) and 1024, 65535 (outside).
    Image img(4, 3, 3, SampleType::U16, 10);
    for (int y = 0; y < 3; ++y)
        for (int x = 0; x < 4; ++x)
            for (int c = 0; c < 3; ++c)
                img.set_sample(x, y, c, x == 0 ? 1023u : x == 1 ? 1024u : x == 2 ? 65535u : 0u);
    const ImageView v = img.view();
    const auto wave = reference_scope(v, waveform(Channel::R, 256)).front();
    EXPECT_EQ(wave.at(0, 255), 3u);
    EXPECT_EQ(wave.at(1, 255) + wave.at(2, 255), 0u);
    EXPECT_EQ(total(wave), 6u);
    EXPECT_EQ(wave, naive_waveform(v, Channel::R, 256, 0));
    const auto luma = reference_scope(v, waveform(Channel::Luma601, 64)).front();
    EXPECT_EQ(luma, naive_waveform(v, Channel::Luma601, 64, 0));
    const auto scope = reference_scope(v, vectorscope(64)).front();
    EXPECT_EQ(total(scope), 6u);
    EXPECT_EQ(scope, naive_vectorscope(v, ChromaMatrix::Rec601, 64));
}

TEST(Scopes, CountsPastSixteenBitsInOneBin) {
    // One column 70000 rows tall of one value: 70000 in a single waveform bin, and a 300x300
    // gray-ish colour image: 90000 in one vectorscope bin.
    const Image tall = hs::test::constant(1, 70000, 3, SampleType::U8, 8, 200);
    const auto wave = reference_scope(tall.view(), waveform(Channel::G, 256)).front();
    EXPECT_EQ(wave.at(0, 200), 70000u);
    const Image square = hs::test::constant(300, 300, 3, SampleType::U16, 16, 40000);
    const auto scope = reference_scope(square.view(), vectorscope(256)).front();
    const auto [cb, cr] = naive_chroma(kChroma601, 40000, 40000, 40000, 16);
    EXPECT_EQ(scope.at(static_cast<int>(cb * 256 >> 16), static_cast<int>(cr * 256 >> 16)), 90000u);
}

TEST(Scopes, ChromaOf601IsTheCbCrOfYCrCb) {
    for (std::uint32_t r = 0; r < 256; ++r)
        for (std::uint32_t g = 0; g < 256; ++g)
            for (std::uint32_t b = 0; b < 256; ++b) {
                const Chroma c = chroma(kChroma601, r, g, b, 8);
                const Triple ycc = rgb_to_ycrcb(r, g, b, 8);
                ASSERT_EQ(c.cb, ycc.c) << r << "," << g << "," << b;
                ASSERT_EQ(c.cr, ycc.b) << r << "," << g << "," << b;
            }
    std::mt19937 rng(9);
    std::uniform_int_distribution<std::uint32_t> deep(0, 65535);
    for (int i = 0; i < 100000; ++i) {
        const std::uint32_t r = deep(rng), g = deep(rng), b = deep(rng);
        const Chroma c = chroma(kChroma601, r, g, b, 16);
        const Triple ycc = rgb_to_ycrcb(r, g, b, 16);
        ASSERT_EQ(c.cb, ycc.c);
        ASSERT_EQ(c.cr, ycc.b);
    }
}

TEST(Scopes, ChromaOf709IsWithinOneOfTheRealFormula) {
    std::mt19937 rng(10);
    for (int depth : {8, 10, 16}) {
        std::uniform_int_distribution<std::uint32_t> dist(0, (1u << depth) - 1);
        const double half = std::ldexp(1.0, depth - 1), top = std::ldexp(1.0, depth) - 1;
        // Rounding Y and the result (within 1), and the weights rounded to 2^-14: Y off by up
        // to 3e-5 of the range, the Cb weight by 6e-5 of it.
        const double tolerance = 1.0 + 5e-5 * top;
        for (int i = 0; i < 100000; ++i) {
            const std::uint32_t r = dist(rng), g = dist(rng), b = dist(rng);
            const double y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
            const double cb = std::clamp((b - y) / (2 * (1 - 0.0722)) + half, 0.0, top);
            const double cr = std::clamp((r - y) / (2 * (1 - 0.2126)) + half, 0.0, top);
            const Chroma c = chroma(kChroma709, r, g, b, depth);
            ASSERT_NEAR(c.cb, cb, tolerance) << r << "," << g << "," << b;
            ASSERT_NEAR(c.cr, cr, tolerance) << r << "," << g << "," << b;
        }
    }
    // Neutral grey sits on the centre; pure blue and red at the edges.
    EXPECT_EQ(chroma(kChroma709, 128, 128, 128, 8).cb, 128u);
    EXPECT_EQ(chroma(kChroma709, 0, 0, 255, 8).cb, 255u);
    EXPECT_EQ(chroma(kChroma709, 255, 0, 0, 8).cr, 255u);
}

TEST(Scopes, BadSpecsAreRefusedWithAReason) {
    const Image rgb = hs::test::uniform(10, 10, 3, SampleType::U8, 8);
    const Image gray = hs::test::uniform(10, 10, 1, SampleType::U8, 8);
    EXPECT_THROW(reference_scope(gray.view(), vectorscope(256)), UsageError);
    ScopeSpec parade = waveform(Channel::R);
    parade.kind = ScopeKind::Parade;
    EXPECT_THROW(reference_scope(gray.view(), parade), UsageError);
    EXPECT_THROW(reference_scope(rgb.view(), waveform(Channel::Gray)), UsageError);
    EXPECT_THROW(reference_scope(rgb.view(), waveform(Channel::A)), UsageError);
    EXPECT_THROW(reference_scope(rgb.view(), waveform(Channel::Joint)), UsageError);
    EXPECT_THROW(reference_scope(rgb.view(), waveform(Channel::R, 0)), UsageError);
    EXPECT_THROW(reference_scope(rgb.view(), waveform(Channel::R, 4097)), UsageError);
    EXPECT_THROW(reference_scope(rgb.view(), waveform(Channel::R, 256, 11)), UsageError);
    EXPECT_THROW(reference_scope(rgb.view(), waveform(Channel::R, 256, -1)), UsageError);
    EXPECT_THROW(reference_scope(rgb.view(), vectorscope(0)), UsageError);
    EXPECT_THROW(reference_scope(rgb.view(), vectorscope(1025)), UsageError);
    EXPECT_NO_THROW(reference_scope(gray.view(), waveform(Channel::Gray)));
    EXPECT_NO_THROW(reference_scope(gray.view(), waveform(Channel::Luma601)));
}

TEST(Scopes, TheCpuEngineIsRegisteredAndComputesTheReference) {
    EngineRegistry registry;
    register_core_engines(registry);
    ScopeEngine* cpu = registry.find_scope_engine("cpu");
    ASSERT_NE(cpu, nullptr);
    const Image img = hs::test::uniform(333, 111, 3, SampleType::U8, 8, 12);
    const ScopeRequest request{img.view(), vectorscope(256)};
    EXPECT_EQ(cpu->compute(request).planes, reference_scope(img.view(), request.spec));
    BenchOptions options;
    options.warmup_runs = 0;
    options.timed_runs = 2;
    const ScopeBenchTiming timing = cpu->benchmark(request, options);
    EXPECT_EQ(timing.scope_ms.size(), 2u);
    EXPECT_EQ(timing.last, reference_scope(img.view(), request.spec));
    EXPECT_THROW(cpu->compute({img.view(), vectorscope(0)}), UsageError);
}

TEST(Regions, ParseAcceptsFourWholeNumbersAndRefusesTheRest) {
    EXPECT_EQ(parse_region("0,0,1,1"), (Region{0, 0, 1, 1}));
    EXPECT_EQ(parse_region("10,20,300,400"), (Region{10, 20, 300, 400}));
    for (const char* bad : {"", "1,2,3", "1,2,3,4,5", "a,b,c,d", "-1,0,5,5", "0,0,0,5", "0,0,5,-2",
                            "1.5,0,2,2", "0,0,99999999999,1", " 1,2,3,4", "1,2,3,4\n"})
        EXPECT_THROW(parse_region(bad), UsageError) << bad;
    EXPECT_EQ(parse_region("1,2,3,4").describe(), "1,2,3,4");
}

TEST(Regions, ACropIsAViewOfThePixelsInside) {
    const Image img = hs::test::uniform(50, 40, 3, SampleType::U16, 12, 13, 10);
    const ImageView v = img.view();
    const ImageView c = crop(v, {7, 5, 13, 11});
    EXPECT_EQ(c.width, 13);
    EXPECT_EQ(c.height, 11);
    EXPECT_EQ(c.stride, v.stride);
    for (int y = 0; y < c.height; ++y)
        for (int x = 0; x < c.width; ++x)
            for (int s = 0; s < 3; ++s) ASSERT_EQ(c.sample(x, y, s), v.sample(x + 7, y + 5, s));
    EXPECT_EQ(crop(v, {0, 0, 50, 40}).data, v.data);
    EXPECT_NO_THROW(crop(v, {49, 39, 1, 1}));
    for (const Region r : {Region{49, 39, 2, 1}, Region{0, 0, 51, 40}, Region{-1, 0, 5, 5},
                           Region{0, 0, 0, 1}, Region{0, 40, 1, 1}})
        EXPECT_THROW(crop(v, r), UsageError) << r.describe();
    // A histogram of the crop equals one of the pixels inside, copied out.
    Image copy(13, 11, 3, SampleType::U16, 12);
    for (int y = 0; y < 11; ++y)
        for (int x = 0; x < 13; ++x)
            for (int s = 0; s < 3; ++s) copy.set_sample(x, y, s, v.sample(x + 7, y + 5, s));
    const auto spec = HistogramSpec::full_range(c, 64);
    EXPECT_EQ(reference_histogram(c, all_channels(3), spec),
              reference_histogram(copy.view(), all_channels(3), spec));
    EXPECT_EQ(reference_scope(c, vectorscope(32)), reference_scope(copy.view(), vectorscope(32)));
}
