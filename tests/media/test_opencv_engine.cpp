// The "opencv" engine (cv::calcHist) against hs::reference_histogram: equal counts on every
// sample photo and channel, exact counts beyond calcHist's float limit of 2^24, and the
// even-bin acceptance rule (see core/media/src/opencv_engine.cpp) checked exhaustively on
// ramps that hold every 8-bit and many 16-bit values.

#include <gtest/gtest.h>

#include <memory>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "histoscope/core/engine.hpp"
#include "histoscope/core/error.hpp"
#include "histoscope/media/media.hpp"
#include "synthetic.hpp"

using namespace hs;

namespace {

HistogramEngine& opencv_engine() {
    static const std::unique_ptr<EngineRegistry> registry = [] {
        auto r = std::make_unique<EngineRegistry>();
        media::register_engines(*r);
        return r;
    }();
    HistogramEngine* e = registry->find("opencv");
    if (e == nullptr) throw std::runtime_error("no opencv engine registered");
    return *e;
}

std::vector<ChannelHistogram> engine_counts(const ImageView& v, const std::vector<Channel>& c,
                                            const HistogramSpec& s) {
    return opencv_engine().compute(HistogramRequest{v, c, s}).channels;
}

std::string why_not(const ImageView& v, const std::vector<Channel>& c, const HistogramSpec& s) {
    return opencv_engine().unsupported_reason(HistogramRequest{v, c, s});
}

std::vector<Channel> every_channel(int n) {
    std::vector<Channel> c = all_channels(n);
    c.push_back(Channel::Luma601);
    if (n == 1) c.push_back(Channel::Luma709);  // the gray plane on one-channel images
    return c;
}

// Every value 0..255 (8-bit) once per row, `rows` rows.
Image ramp8(int rows) {
    return hs::test::make_image(256, rows, 1, SampleType::U8, 8,
                                [](int x, int, int) { return static_cast<std::uint32_t>(x); });
}

// What cv::calcHist alone returns for even bins (no tiling, no refusal).
std::vector<std::uint64_t> raw_calchist(const ImageView& v, int bins, float lo, float hi) {
    const cv::Mat m(v.height, v.width, v.type == SampleType::U8 ? CV_8UC1 : CV_16UC1,
                    const_cast<std::byte*>(v.data), v.stride);
    const float range[] = {lo, hi};
    const float* ranges[] = {range};
    cv::Mat hist;
    cv::calcHist(&m, 1, nullptr, cv::Mat(), hist, 1, &bins, ranges, true, false);
    std::vector<std::uint64_t> out;
    for (int b = 0; b < bins; ++b) out.push_back(static_cast<std::uint64_t>(hist.at<float>(b)));
    return out;
}

std::string param_name(const ::testing::TestParamInfo<std::string>& info) {
    std::string n = info.param;
    for (auto& ch : n)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
    return n;
}

}  // namespace

TEST(OpenCvEngine, IsRegisteredWithItsDescription) {
    EngineRegistry registry;
    media::register_engines(registry);
    ASSERT_EQ(registry.names(), std::vector<std::string>{"opencv"});
    HistogramEngine& e = *registry.find("opencv");
    EXPECT_EQ(e.description(), "OpenCV cv::calcHist (CPU)");
    EXPECT_TRUE(e.availability().available);
    EXPECT_EQ(e.capabilities().max_bins, 65536);
    EXPECT_TRUE(e.capabilities().luma);
    EXPECT_TRUE(e.capabilities().edges);
}

class OpenCvEngineOnPhoto : public ::testing::TestWithParam<std::string> {};

TEST_P(OpenCvEngineOnPhoto, EqualsTheReferenceOnEveryChannel) {
    const Image img = media::read_image(hs::test::sample(GetParam())).image;
    const ImageView v = img.view();
    const std::vector<Channel> channels = every_channel(v.channels);
    std::vector<HistogramSpec> specs{HistogramSpec::full_range(v, 256)};
    if (v.type == SampleType::U16) {
        specs.push_back(HistogramSpec::full_range(v, 65536));
        specs.push_back(HistogramSpec::even(1000, 0, 65536));
        specs.push_back(HistogramSpec::even(1024, 16384, 32768));
    } else {
        specs.push_back(HistogramSpec::even(64, 128, 256));
        specs.push_back(HistogramSpec::even(10, 0, 100));  // accepted by rule (B)
        specs.push_back(HistogramSpec::with_edges({0, 1, 7.5, 8, 64, 100.25, 200, 254, 255}));
    }
    for (const HistogramSpec& s : specs) {
        ASSERT_EQ(why_not(v, channels, s), "") << s.describe();
        const auto result = opencv_engine().compute(HistogramRequest{v, channels, s});
        EXPECT_EQ(result.channels, reference_histogram(v, channels, s))
            << GetParam() << " " << s.describe();
        ASSERT_FALSE(result.stages.empty());
        EXPECT_EQ(result.stages.back().name, "histogram");
    }
}

INSTANTIATE_TEST_SUITE_P(Photos8, OpenCvEngineOnPhoto, ::testing::ValuesIn(hs::test::kPhotos8),
                         param_name);
INSTANTIATE_TEST_SUITE_P(Photos16, OpenCvEngineOnPhoto, ::testing::ValuesIn(hs::test::kPhotos16),
                         param_name);

// Every (bins, lower, upper) below on a ramp holding each 8-bit value three times: the engine
// must equal the reference wherever it accepts, including the many requests where calcHist's
// uniform mode differs (those go to calcHist as integer-threshold edges), and on 8-bit images
// it may refuse only when there are more bins than values in the range.
TEST(OpenCvEngine, EvenBinsAreExactOnEvery8BitValue) {
    const Image img = ramp8(3);
    const ImageView v = img.view();
    int accepted = 0, refused = 0, uniform_differs = 0;
    auto check = [&](int bins, int lo, int hi) {
        const HistogramSpec s = HistogramSpec::even(bins, lo, hi);
        const auto reference = reference_histogram(v, {Channel::Gray}, s);
        if (raw_calchist(v, bins, static_cast<float>(lo), static_cast<float>(hi)) !=
            reference.front().counts)
            ++uniform_differs;
        const std::string why = why_not(v, {Channel::Gray}, s);
        if (why.empty()) {
            ++accepted;
            ASSERT_EQ(engine_counts(v, {Channel::Gray}, s), reference) << s.describe();
        } else {
            ++refused;
            ASSERT_GT(bins, hi - lo) << s.describe() << ": " << why;
            ASSERT_NE(why.find("exactly"), std::string::npos) << why;
        }
    };
    for (int hi = 1; hi <= 256; ++hi)
        for (int bins = 1; bins <= 256; ++bins) check(bins, 0, hi);
    for (int lo : {1, 3, 17, 100, -7})
        for (int hi = lo + 1; hi <= 300; hi += 3)
            for (int bins = 1; bins <= 40; ++bins) check(bins, lo, hi);
    RecordProperty("accepted", accepted);
    RecordProperty("refused", refused);
    RecordProperty("calchist_uniform_differs", uniform_differs);
    EXPECT_GT(accepted, 60000);
    EXPECT_GT(uniform_differs, 2000);
}

TEST(OpenCvEngine, EvenBinRuleIsExactOn16BitValues) {
    const Image img = hs::test::make_image(65536, 1, 1, SampleType::U16, 16, [](int x, int, int) {
        return static_cast<std::uint32_t>(x);
    });
    const ImageView v = img.view();
    int accepted = 0, refused = 0;
    for (int bins : {1, 2, 3, 5, 7, 10, 12, 100, 256, 1000, 1024, 4095, 4096, 65535, 65536})
        for (const auto& [lo, hi] :
             std::vector<std::pair<std::int64_t, std::int64_t>>{{0, 65536},
                                                                {0, 60000},
                                                                {0, 4096},
                                                                {1, 65536},
                                                                {100, 4195},
                                                                {0, 12285},
                                                                {32768, 65536},
                                                                {0, 98},
                                                                {-1000, 70000},
                                                                {0, 1 << 20},
                                                                {-65536, 65536}}) {
            const HistogramSpec s = HistogramSpec::even(bins, lo, hi);
            if (why_not(v, {Channel::Gray}, s).empty()) {
                ++accepted;
                ASSERT_EQ(engine_counts(v, {Channel::Gray}, s),
                          reference_histogram(v, {Channel::Gray}, s))
                    << s.describe();
            } else {
                ++refused;
            }
        }
    RecordProperty("accepted", accepted);
    RecordProperty("refused", refused);
    EXPECT_GT(accepted, 50);
    EXPECT_GT(refused, 20);
}

TEST(OpenCvEngine, InexactUniformRangesAreRefusedOn16BitAndRebinnedOn8Bit) {
    // 2 bins over [0, 98): a = fl(2/98) is rounded down, so calcHist puts v = 49 into bin 0.
    const Image img8 = ramp8(1);
    const HistogramSpec s8 = HistogramSpec::even(2, 0, 98);
    EXPECT_EQ(raw_calchist(img8.view(), 2, 0, 98), (std::vector<std::uint64_t>{50, 48}));
    EXPECT_EQ(reference_histogram(img8.view(), {Channel::Gray}, s8).front().counts,
              (std::vector<std::uint64_t>{49, 49}));
    // 8-bit: served exactly through integer-threshold edges.
    EXPECT_EQ(why_not(img8.view(), {Channel::Gray}, s8), "");
    EXPECT_EQ(engine_counts(img8.view(), {Channel::Gray}, s8).front().counts,
              (std::vector<std::uint64_t>{49, 49}));

    // 16-bit: refused.
    const Image ramp16 =
        hs::test::make_image(12285, 1, 1, SampleType::U16, 16,
                             [](int x, int, int) { return static_cast<std::uint32_t>(x); });
    const ImageView v16 = ramp16.view();
    const std::string why = why_not(v16, {Channel::Gray}, s8);
    EXPECT_NE(why.find("engine 'opencv' cannot bin [0, 98) into 2 even bins exactly"),
              std::string::npos)
        << why;
    EXPECT_THROW((void)engine_counts(v16, {Channel::Gray}, s8), UnsupportedError);
    const HistogramSpec s16 = HistogramSpec::even(7, 0, 12285);
    EXPECT_NE(raw_calchist(v16, 7, 0, 12285),
              reference_histogram(v16, {Channel::Gray}, s16).front().counts);
    EXPECT_FALSE(why_not(v16, {Channel::Gray}, s16).empty());
    EXPECT_THROW((void)engine_counts(v16, {Channel::Gray}, s16), UnsupportedError);

    // Bounds that are not floats, on either depth.
    const HistogramSpec far = HistogramSpec::even(256, 0, (1 << 24) + 1);
    EXPECT_NE(why_not(v16, {Channel::Gray}, far).find("exact floats"), std::string::npos);
    EXPECT_NE(why_not(img8.view(), {Channel::Gray}, far).find("exact floats"), std::string::npos);
}

TEST(OpenCvEngine, LumaIsRec601OnlyOnColourImages) {
    const Image rgb = media::read_image(hs::test::sample("chelsea.png")).image;
    const HistogramSpec s = HistogramSpec::even(256, 0, 256);
    EXPECT_EQ(engine_counts(rgb.view(), {Channel::Luma601}, s),
              reference_histogram(rgb.view(), {Channel::Luma601}, s));
    const std::string why = why_not(rgb.view(), {Channel::R, Channel::Luma709}, s);
    EXPECT_NE(why.find("Rec.709"), std::string::npos) << why;
    EXPECT_THROW((void)engine_counts(rgb.view(), {Channel::Luma709}, s), UnsupportedError);

    const Image rgba = hs::test::uniform(123, 45, 4, SampleType::U16, 16, 9);
    EXPECT_EQ(engine_counts(rgba.view(), {Channel::Luma601, Channel::A},
                            HistogramSpec::even(4096, 0, 65536)),
              reference_histogram(rgba.view(), {Channel::Luma601, Channel::A},
                                  HistogramSpec::even(4096, 0, 65536)));

    const Image gray = media::read_image(hs::test::sample("camera.png")).image;
    EXPECT_EQ(why_not(gray.view(), {Channel::Luma709}, s), "");
    EXPECT_EQ(engine_counts(gray.view(), {Channel::Luma709}, s).front().counts,
              reference_histogram(gray.view(), {Channel::Gray}, s).front().counts);
}

TEST(OpenCvEngine, ExplicitEdgesMustBeExactFloats) {
    const Image img8 = hs::test::uniform(301, 17, 3, SampleType::U8, 8, 5);
    const Image img16 = hs::test::gaussian(257, 33, 1, SampleType::U16, 16, 9000.0);
    for (const std::vector<double>& edges :
         std::vector<std::vector<double>>{{0, 1, 7.5, 8, 64, 100.25, 200, 254, 255},
                                          {-5.5, 3, 300},
                                          {-1e9, 0.5, 1.5, 2.5, 1e9},
                                          {10, 20},
                                          {0, 255.5, 4096, 30000, 40000.75, 65535, 65536}}) {
        const HistogramSpec s = HistogramSpec::with_edges(edges);
        for (const Image* img : {&img8, &img16}) {
            const auto channels = all_channels(img->channels());
            ASSERT_EQ(why_not(img->view(), channels, s), "") << s.describe();
            EXPECT_EQ(engine_counts(img->view(), channels, s),
                      reference_histogram(img->view(), channels, s))
                << s.describe();
        }
    }
    const std::string not_float =
        why_not(img8.view(), {Channel::R}, HistogramSpec::with_edges({0, 0.1, 10}));
    EXPECT_NE(not_float.find("edge 1 (0.10000000000000001)"), std::string::npos) << not_float;
    EXPECT_NE(not_float.find("not exactly a float"), std::string::npos) << not_float;
    const std::string too_far =
        why_not(img8.view(), {Channel::R}, HistogramSpec::with_edges({0, 100, 3e9}));
    EXPECT_NE(too_far.find("+-2^31"), std::string::npos) << too_far;
}

TEST(OpenCvEngine, RespectsStrideAndSaturation) {
    for (const Image& img : {hs::test::uniform(257, 31, 4, SampleType::U8, 8, 4, 7),
                             hs::test::uniform(129, 17, 3, SampleType::U16, 12, 5, 6)}) {
        const ImageView v = img.view();
        ASSERT_GT(v.stride, v.row_bytes());
        const auto channels = every_channel(v.channels);
        HistogramSpec s = HistogramSpec::full_range(v, 256);
        EXPECT_EQ(engine_counts(v, channels, s), reference_histogram(v, channels, s));
        s.saturate = 20;
        EXPECT_EQ(engine_counts(v, channels, s), reference_histogram(v, channels, s));
    }
}

// calcHist's float counts stop being exact at 2^24; the engine tiles the image so they stay
// exact at any size.
TEST(OpenCvEngine, CountsStayExactBeyondTwoToThe24Pixels) {
    const Image gray = hs::test::constant(5000, 4000, 1, SampleType::U8, 8, 7);
    const auto h = engine_counts(gray.view(), {Channel::Gray}, HistogramSpec::even(256, 0, 256));
    EXPECT_EQ(h.front().counts[7], 20000000u);
    EXPECT_EQ(h.front().total(), 20000000u);

    const Image deep = hs::test::constant(5000, 4000, 1, SampleType::U16, 16, 54321);
    const auto d =
        engine_counts(deep.view(), {Channel::Gray}, HistogramSpec::even(65536, 0, 65536));
    EXPECT_EQ(d.front().counts[54321], 20000000u);

    const Image colour = hs::test::constant(4100, 4100, 3, SampleType::U8, 8, 200);
    const auto c = engine_counts(colour.view(), {Channel::G, Channel::Luma601},
                                 HistogramSpec::even(256, 0, 256));
    EXPECT_EQ(c[0].counts[200], 4100u * 4100u);
    EXPECT_EQ(c[1].counts[200], 4100u * 4100u);

    // A single row longer than 2^24 pixels is split into column tiles.
    const std::size_t width = (std::size_t{1} << 24) + 12345;
    std::vector<std::byte> row(width, std::byte{9});
    const ImageView wide{row.data(), static_cast<int>(width), 1, 1, SampleType::U8, 8, width};
    const auto w = engine_counts(wide, {Channel::Gray}, HistogramSpec::even(16, 0, 256));
    EXPECT_EQ(w.front().counts[0], width);
    EXPECT_EQ(w.front().total(), width);
}
