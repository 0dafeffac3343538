// The display reference (histoscope/core/display.hpp) against straightforward loops written from
// its definitions: reduction by whole factors (odd sizes, blocks cut at the edges, 8 and 16
// bits, alpha), the display range mapping and the stretched range (percentiles, the 256-value
// minimum width), clipping masks per channel, and images whose samples live in other memory.

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "histoscope/core/display.hpp"
#include "histoscope/core/error.hpp"
#include "histoscope/core/stats.hpp"
#include "synthetic.hpp"

using namespace hs;

namespace {

// Rounded mean of channel c over the block of output pixel (ox, oy).
std::uint32_t block_mean(const ImageView& v, int f, int ox, int oy, int c) {
    std::uint64_t sum = 0, n = 0;
    for (int y = oy * f; y < std::min(v.height, oy * f + f); ++y)
        for (int x = ox * f; x < std::min(v.width, ox * f + f); ++x) {
            sum += v.sample(x, y, c);
            ++n;
        }
    return static_cast<std::uint32_t>((sum + n / 2) / n);
}

std::uint32_t shown(std::uint32_t v, std::uint32_t max, DisplayRange r, bool alpha) {
    v = std::min(v, max);
    if (alpha) return (v * 255 + max / 2) / max;
    const std::uint32_t span = std::max<std::uint32_t>(r.hi - r.lo, 1);
    return ((std::clamp(v, r.lo, r.hi) - r.lo) * 255 + span / 2) / span;
}

void expect_picture(const ImageView& v, int f, DisplayRange r) {
    const Image p = display_picture(v, f, r);
    ASSERT_EQ(p.width(), (v.width + f - 1) / f);
    ASSERT_EQ(p.height(), (v.height + f - 1) / f);
    ASSERT_EQ(p.channels(), v.channels);
    ASSERT_EQ(p.type(), SampleType::U8);
    const Image d = downscale(v, f);
    for (int y = 0; y < p.height(); ++y)
        for (int x = 0; x < p.width(); ++x)
            for (int c = 0; c < v.channels; ++c) {
                const std::uint32_t mean = block_mean(v, f, x, y, c);
                ASSERT_EQ(d.view().sample(x, y, c), mean) << x << "," << y << "," << c;
                ASSERT_EQ(p.view().sample(x, y, c), shown(mean, v.max_value(), r, c == 3))
                    << "factor " << f << " at " << x << "," << y << "," << c;
            }
}

std::uint8_t mask_at(const ImageView& v, int f, int ox, int oy, unsigned channels) {
    if (v.channels == 1) channels &= 1u;
    bool high = false, low = false;
    for (int y = oy * f; y < std::min(v.height, oy * f + f); ++y)
        for (int x = ox * f; x < std::min(v.width, ox * f + f); ++x)
            for (int c = 0; c < std::min(v.channels, 3); ++c) {
                if (!(channels & (1u << c))) continue;
                high |= v.sample(x, y, c) == v.max_value();
                low |= v.sample(x, y, c) == 0;
            }
    return high ? kClippedHigh : (low ? kClippedLow : 0);
}

}  // namespace

TEST(Display, PicturesAreReducedMeansOverTheRange) {
    for (const auto& [w, h] :
         {std::pair{1, 1}, std::pair{7, 3}, std::pair{17, 5}, std::pair{64, 33}})
        for (const int channels : {1, 3, 4})
            for (const int f : {1, 2, 3, 5, 8}) {
                const Image u8 = test::uniform(w, h, channels, SampleType::U8, 8, 3, 5);
                expect_picture(u8.view(), f, full_display_range(u8.view()));
                expect_picture(u8.view(), f, {30, 200});
                const Image u16 = test::uniform(w, h, channels, SampleType::U16, 12, 4);
                expect_picture(u16.view(), f, full_display_range(u16.view()));
                expect_picture(u16.view(), f, {1000, 1300});
                expect_picture(u16.view(), f, {77, 77});  // span 0: a step at lo
            }
}

TEST(Display, SamplesAboveTheDeclaredDepthShowAsItsLargestValue) {
    Image img(3, 1, 1, SampleType::U16, 10);
    img.set_sample(0, 0, 0, 1023);
    img.set_sample(1, 0, 0, 4000);  // above 10 bits
    img.set_sample(2, 0, 0, 0);
    const Image p = display_picture(img.view(), 1, {0, 1023});
    EXPECT_EQ(p.view().sample(0, 0, 0), 255u);
    EXPECT_EQ(p.view().sample(1, 0, 0), 255u);
    EXPECT_EQ(p.view().sample(2, 0, 0), 0u);
}

TEST(Display, StretchedRangeIsThePercentilesOfTheColourSamples) {
    // 8-bit: always the full range.
    const Image u8 = test::gaussian(40, 30, 3, SampleType::U8, 8, 5.0);
    EXPECT_EQ(stretched_display_range(u8.view()), (DisplayRange{0, 255}));
    for (const int channels : {1, 3, 4}) {
        const Image deep = test::gaussian(97, 41, channels, SampleType::U16, 16, 3000.0, 7);
        const ImageView v = deep.view();
        std::vector<std::uint64_t> counts(65536, 0);
        std::uint64_t total = 0;
        for (int y = 0; y < v.height; ++y)
            for (int x = 0; x < v.width; ++x)
                for (int c = 0; c < std::min(channels, 3); ++c, ++total)
                    ++counts[v.sample(x, y, c)];
        const DisplayRange want{percentile(counts, total, 0.1), percentile(counts, total, 99.9)};
        ASSERT_GE(want.hi - want.lo, 255u);
        EXPECT_EQ(stretched_display_range(v), want) << channels << " channels";
        EXPECT_EQ(stretched_display_range(counts, 65535), want);
    }
    // Narrower than 256 values: widened upwards, then held at the top.
    std::vector<std::uint64_t> narrow(4096, 0);
    narrow[100] = narrow[110] = 50;
    EXPECT_EQ(stretched_display_range(narrow, 4095), (DisplayRange{100, 355}));
    std::vector<std::uint64_t> top(4096, 0);
    top[4090] = 9;
    EXPECT_EQ(stretched_display_range(top, 4095), (DisplayRange{3840, 4095}));
    std::vector<std::uint64_t> bottom(4096, 0);
    bottom[3] = 9;
    EXPECT_EQ(stretched_display_range(bottom, 4095), (DisplayRange{3, 258}));
    EXPECT_EQ(stretched_display_range(std::vector<std::uint64_t>(4096, 0), 4095),
              (DisplayRange{0, 4095}));
    DisplaySpec spec;
    spec.stretch = false;
    const Image deep = test::gaussian(9, 9, 1, SampleType::U16, 16, 30.0);
    EXPECT_EQ(display_range(deep.view(), spec), (DisplayRange{0, 65535}));
}

TEST(Display, ClippingMasksMarkEitherEndPerChannel) {
    for (const int channels : {1, 3, 4})
        for (const int f : {1, 2, 3})
            for (const unsigned counted : {1u, 2u, 4u, 5u, 7u}) {
                // Few values so that 0 and the largest value are frequent.
                const Image img =
                    test::make_image(23, 11, channels, SampleType::U16, 9, [](int x, int y, int c) {
                        return static_cast<std::uint32_t>(((x * 7 + y * 3 + c) % 5) * 511 / 4);
                    });
                const Image m = clipping_mask(img.view(), f, counted);
                ASSERT_EQ(m.channels(), 1);
                for (int y = 0; y < m.height(); ++y)
                    for (int x = 0; x < m.width(); ++x)
                        ASSERT_EQ(m.view().sample(x, y, 0), mask_at(img.view(), f, x, y, counted))
                            << channels << " channels, factor " << f << ", channels " << counted;
            }
    const Image img = test::constant(5, 5, 3, SampleType::U8, 8, 255);
    const Image none = clipping_mask(img.view(), 2, 0);
    for (int y = 0; y < none.height(); ++y)
        for (int x = 0; x < none.width(); ++x) EXPECT_EQ(none.view().sample(x, y, 0), 0u);
}

TEST(Display, LargeFramesSplitOverThreadsGiveTheSameBytes) {
    // Large enough for several threads: compared with a one-row-at-a-time reduction.
    const Image big = test::uniform(2001, 1203, 3, SampleType::U8, 8, 11);
    const Image p = display_picture(big.view(), 3, {0, 255});
    for (int y = 0; y < p.height(); y += 97)
        for (int x = 0; x < p.width(); x += 13)
            for (int c = 0; c < 3; ++c)
                ASSERT_EQ(p.view().sample(x, y, c), block_mean(big.view(), 3, x, y, c));
}

TEST(Display, BadFactorsAndRangesAreRefused) {
    const Image img = test::uniform(8, 8, 3, SampleType::U8, 8);
    EXPECT_THROW(display_picture(img.view(), 0, {0, 255}), UsageError);
    EXPECT_THROW(downscale(img.view(), -1), UsageError);
    EXPECT_THROW(display_picture(img.view(), 1, {10, 300}), UsageError);
}

// An image in memory from elsewhere (as a GPU stream's pinned frames): zeroed, counted back,
// and deep-copied into ordinary memory.
TEST(Display, ImagesInOtherMemory) {
    struct Counting final : HostMemory {
        int live = 0;
        std::byte* allocate(std::size_t bytes) override {
            ++live;
            return new std::byte[bytes];
        }
        void release(std::byte* data, std::size_t) noexcept override {
            --live;
            delete[] data;
        }
        std::string_view name() const override { return "counting"; }
    };
    auto memory = std::make_shared<Counting>();
    {
        Image img(FrameFormat{5, 3, 3, SampleType::U16, 12}, memory);
        EXPECT_EQ(memory->live, 1);
        EXPECT_EQ(img.memory(), memory.get());
        EXPECT_EQ(img.view().stride, 30u);
        for (int y = 0; y < 3; ++y)
            for (int x = 0; x < 5; ++x) EXPECT_EQ(img.view().sample(x, y, 2), 0u);
        img.set_sample(4, 2, 1, 4095);
        const Image copy = img;
        EXPECT_EQ(copy.memory(), nullptr);
        EXPECT_EQ(copy.view().sample(4, 2, 1), 4095u);
        Image moved = std::move(img);
        EXPECT_EQ(memory->live, 1);
    }
    EXPECT_EQ(memory->live, 0);
}
