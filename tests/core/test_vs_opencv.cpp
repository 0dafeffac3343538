// The CPU reference judged against OpenCV: cv::calcHist for histograms (uniform and
// non-uniform bins, with masks for regions, 2-D for the vectorscope), cv::cvtColor for Rec.601
// luma and YCrCb, cv::meanStdDev / cv::minMaxLoc for stats.
// Photos are decoded here with cv::imread directly, independently of hs::media.

#include <gtest/gtest.h>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "histoscope/core/histogram.hpp"
#include "histoscope/core/scopes.hpp"
#include "histoscope/core/stats.hpp"
#include "synthetic.hpp"

using namespace hs;

namespace {

struct Photo {
    cv::Mat rgb;  // RGB(A) or gray, as decoded
    ImageView view() const {
        return ImageView{reinterpret_cast<const std::byte*>(rgb.data),
                         rgb.cols,
                         rgb.rows,
                         rgb.channels(),
                         rgb.depth() == CV_8U ? SampleType::U8 : SampleType::U16,
                         rgb.depth() == CV_8U ? 8 : 16,
                         rgb.step[0]};
    }
};

Photo load(const std::string& name) {
    cv::Mat m = cv::imread(hs::test::sample(name), cv::IMREAD_UNCHANGED);
    if (m.empty()) throw std::runtime_error("cannot decode " + name);
    if (m.channels() == 3) cv::cvtColor(m, m, cv::COLOR_BGR2RGB);
    if (m.channels() == 4) cv::cvtColor(m, m, cv::COLOR_BGRA2RGBA);
    return Photo{m};
}

std::vector<std::uint64_t> to_counts(const cv::Mat& hist) {
    std::vector<std::uint64_t> out;
    for (int i = 0; i < hist.rows; ++i) {
        const float f = hist.at<float>(i);
        EXPECT_LT(f, 16777216.0f) << "calcHist float counts are exact only below 2^24";
        out.push_back(static_cast<std::uint64_t>(f));
    }
    return out;
}

std::vector<std::uint64_t> opencv_even(const cv::Mat& plane, int bins, float lo, float hi) {
    cv::Mat hist;
    const float range[] = {lo, hi};
    const float* ranges[] = {range};
    cv::calcHist(&plane, 1, nullptr, cv::Mat(), hist, 1, &bins, ranges, true, false);
    return to_counts(hist);
}

std::vector<std::uint64_t> opencv_edges(const cv::Mat& plane, const std::vector<float>& edges) {
    cv::Mat hist;
    const int bins = static_cast<int>(edges.size()) - 1;
    const float* ranges[] = {edges.data()};
    cv::calcHist(&plane, 1, nullptr, cv::Mat(), hist, 1, &bins, ranges, false, false);
    return to_counts(hist);
}

cv::Mat plane_of(const cv::Mat& m, Channel c) {
    if (m.channels() == 1) return m;
    if (is_luma(c)) {
        cv::Mat gray;
        cv::cvtColor(m, gray, m.channels() == 4 ? cv::COLOR_RGBA2GRAY : cv::COLOR_RGB2GRAY);
        return gray;
    }
    cv::Mat p;
    cv::extractChannel(m, p, channel_offset(c, m.channels()));
    return p;
}

std::vector<Channel> channels_with_luma(int n) {
    auto c = all_channels(n);
    if (n > 1) c.push_back(Channel::Luma601);  // OpenCV's RGB2GRAY is Rec.601
    return c;
}

std::vector<std::uint64_t> ours(const ImageView& v, Channel c, const HistogramSpec& s) {
    return reference_histogram(v, {c}, s).front().counts;
}

}  // namespace

class PhotoVsOpenCV : public ::testing::TestWithParam<std::string> {};

TEST_P(PhotoVsOpenCV, EveryBinCountFrom1To256) {
    const Photo p = load(GetParam());
    ASSERT_EQ(p.rgb.depth(), CV_8U);
    for (Channel c : channels_with_luma(p.rgb.channels())) {
        const cv::Mat plane = plane_of(p.rgb, c);
        for (int bins = 1; bins <= 256; ++bins)
            ASSERT_EQ(ours(p.view(), c, HistogramSpec::even(bins, 0, 256)),
                      opencv_even(plane, bins, 0, 256))
                << GetParam() << " " << channel_name(c) << " bins=" << bins;
    }
}

TEST_P(PhotoVsOpenCV, RangesAndUnevenEdges) {
    const Photo p = load(GetParam());
    for (Channel c : channels_with_luma(p.rgb.channels())) {
        const cv::Mat plane = plane_of(p.rgb, c);
        // Ranges whose bin width is a power of two keep OpenCV's floating-point bin
        // arithmetic exact; the value equal to the upper bound is excluded by both.
        for (const auto& [bins, lo, hi] : std::vector<std::tuple<int, int, int>>{
                 {128, 0, 128}, {64, 128, 256}, {255, 0, 255}, {16, 32, 160}, {1, 100, 101}})
            EXPECT_EQ(ours(p.view(), c, HistogramSpec::even(bins, lo, hi)),
                      opencv_even(plane, bins, static_cast<float>(lo), static_cast<float>(hi)))
                << GetParam() << " " << channel_name(c) << " [" << lo << "," << hi << ")";
        const std::vector<float> edges{0, 1, 7.5f, 8, 64, 100.25f, 200, 254, 255};
        EXPECT_EQ(ours(p.view(), c, HistogramSpec::with_edges({edges.begin(), edges.end()})),
                  opencv_edges(plane, edges))
            << GetParam() << " " << channel_name(c);
    }
}

TEST_P(PhotoVsOpenCV, StatsMatchMeanStdDevAndMinMax) {
    const Photo p = load(GetParam());
    for (Channel c : channels_with_luma(p.rgb.channels())) {
        const cv::Mat plane = plane_of(p.rgb, c);
        cv::Scalar mean, stddev;
        cv::meanStdDev(plane, mean, stddev);
        double mn = 0, mx = 0;
        cv::minMaxLoc(plane, &mn, &mx);
        const Stats s = compute_stats(p.view(), c, HistogramSpec::even(256, 0, 256));
        EXPECT_NEAR(s.mean, mean[0], 1e-6) << GetParam() << " " << channel_name(c);
        EXPECT_NEAR(s.stddev, stddev[0], 1e-6) << GetParam() << " " << channel_name(c);
        EXPECT_EQ(s.min, static_cast<std::uint32_t>(mn));
        EXPECT_EQ(s.max, static_cast<std::uint32_t>(mx));
        EXPECT_EQ(s.count, static_cast<std::uint64_t>(plane.total()));
    }
}

INSTANTIATE_TEST_SUITE_P(Photos8, PhotoVsOpenCV, ::testing::ValuesIn(hs::test::kPhotos8),
                         hs::test::ParamName());

class DeepPhotoVsOpenCV : public ::testing::TestWithParam<std::string> {};

TEST_P(DeepPhotoVsOpenCV, SixteenBitUpTo65536Bins) {
    const Photo p = load(GetParam());
    ASSERT_EQ(p.rgb.depth(), CV_16U);
    for (int bins : {1, 2, 256, 1000, 1024, 4096, 65536})
        EXPECT_EQ(ours(p.view(), Channel::Gray, HistogramSpec::even(bins, 0, 65536)),
                  opencv_even(p.rgb, bins, 0, 65536))
            << GetParam() << " bins=" << bins;
    EXPECT_EQ(ours(p.view(), Channel::Gray, HistogramSpec::even(1024, 16384, 32768)),
              opencv_even(p.rgb, 1024, 16384, 32768));
    const std::vector<float> edges{0, 1, 255.5f, 4096, 30000, 40000.75f, 65535};
    EXPECT_EQ(
        ours(p.view(), Channel::Gray, HistogramSpec::with_edges({edges.begin(), edges.end()})),
        opencv_edges(p.rgb, edges));
}

INSTANTIATE_TEST_SUITE_P(Photos16, DeepPhotoVsOpenCV, ::testing::ValuesIn(hs::test::kPhotos16),
                         hs::test::ParamName());

TEST(SyntheticVsOpenCV, Luma601Equals16BitCvtColor) {
    const Image img = hs::test::uniform(333, 111, 3, SampleType::U16, 16, 21);
    const ImageView v = img.view();
    const cv::Mat m(v.height, v.width, CV_16UC3, const_cast<std::byte*>(v.data), v.stride);
    cv::Mat gray;
    cv::cvtColor(m, gray, cv::COLOR_RGB2GRAY);
    const auto values = channel_values(v, Channel::Luma601);
    for (int y = 0, i = 0; y < gray.rows; ++y)
        for (int x = 0; x < gray.cols; ++x, ++i)
            ASSERT_EQ(values[static_cast<std::size_t>(i)], gray.at<std::uint16_t>(y, x))
                << x << "," << y;
}

TEST(SyntheticVsOpenCV, DegenerateRampAndStridedImages) {
    const std::vector<Image> images = [] {
        std::vector<Image> v;
        v.push_back(hs::test::constant(300, 300, 1, SampleType::U8, 8, 0));
        v.push_back(hs::test::constant(300, 300, 3, SampleType::U8, 8, 255));
        v.push_back(hs::test::ramp(1023, 77, 3, SampleType::U8, 8));
        v.push_back(hs::test::uniform(1, 1, 1, SampleType::U8, 8));
        v.push_back(hs::test::uniform(257, 3, 4, SampleType::U8, 8, 4, 7));
        v.push_back(hs::test::gaussian(129, 65, 1, SampleType::U16, 16, 300.0));
        v.push_back(hs::test::ramp(4099, 17, 1, SampleType::U16, 16));
        return v;
    }();
    for (const Image& img : images) {
        const ImageView v = img.view();
        const int type = CV_MAKETYPE(v.type == SampleType::U8 ? CV_8U : CV_16U, v.channels);
        const cv::Mat m(v.height, v.width, type, const_cast<std::byte*>(v.data), v.stride);
        const float top = v.type == SampleType::U8 ? 256.0f : 65536.0f;
        for (Channel c : all_channels(v.channels))
            for (int bins : {1, 7, 64, 256})
                EXPECT_EQ(ours(v, c, HistogramSpec::even(bins, 0, static_cast<std::int64_t>(top))),
                          opencv_even(plane_of(m, c), bins, 0, top))
                    << v.width << "x" << v.height << "x" << v.channels << " bins=" << bins;
    }
}

// Regions and scopes against cv::calcHist: a region's histogram equals calcHist with a mask of
// the rectangle over the whole photo; a waveform column equals calcHist of that column; the
// Rec.601 vectorscope equals the 2-D calcHist of (Cb, Cr) of cv::cvtColor's YCrCb.
TEST_P(PhotoVsOpenCV, RegionsEqualCalcHistWithAMask) {
    const Photo p = load(GetParam());
    const ImageView v = p.view();
    const std::vector<Region> regions{{0, 0, v.width, v.height},
                                      {v.width / 3, v.height / 4, v.width / 2, v.height / 3},
                                      {v.width - 1, v.height - 1, 1, 1},
                                      {1, 2, 3, v.height - 2}};
    for (const Region& r : regions) {
        cv::Mat mask = cv::Mat::zeros(p.rgb.rows, p.rgb.cols, CV_8U);
        mask(cv::Rect(r.x, r.y, r.width, r.height)).setTo(255);
        for (Channel c : channels_with_luma(p.rgb.channels())) {
            const cv::Mat plane = plane_of(p.rgb, c);
            cv::Mat hist;
            const int bins = 256;
            const float range[] = {0, 256};
            const float* ranges[] = {range};
            cv::calcHist(&plane, 1, nullptr, mask, hist, 1, &bins, ranges, true, false);
            EXPECT_EQ(ours(crop(v, r), c, HistogramSpec::even(256, 0, 256)), to_counts(hist))
                << GetParam() << " " << channel_name(c) << " region " << r.describe();
        }
    }
}

TEST_P(PhotoVsOpenCV, WaveformColumnsEqualCalcHistOfTheColumn) {
    const Photo p = load(GetParam());
    const ImageView v = p.view();
    ScopeSpec spec;
    spec.channel = p.rgb.channels() == 1 ? Channel::Gray : Channel::Luma601;
    spec.levels = 64;
    const ScopePlane wave = reference_scope(v, spec).front();
    const cv::Mat plane = plane_of(p.rgb, spec.channel);
    for (int x : {0, 1, v.width / 2, v.width - 1}) {
        const std::vector<std::uint64_t> column(
            wave.counts.begin() + static_cast<std::ptrdiff_t>(x) * 64,
            wave.counts.begin() + static_cast<std::ptrdiff_t>(x + 1) * 64);
        EXPECT_EQ(column, opencv_even(plane.col(x).clone(), 64, 0, 256))
            << GetParam() << " x=" << x;
    }
}

TEST_P(PhotoVsOpenCV, Vectorscope601EqualsCalcHistOfCbCr) {
    const Photo p = load(GetParam());
    if (p.rgb.channels() < 3) GTEST_SKIP() << "a gray photo has no vectorscope";
    cv::Mat rgb = p.rgb, ycrcb;
    if (rgb.channels() == 4) cv::cvtColor(rgb, rgb, cv::COLOR_RGBA2RGB);
    cv::cvtColor(rgb, ycrcb, cv::COLOR_RGB2YCrCb);
    for (int size : {256, 64}) {
        ScopeSpec spec;
        spec.kind = ScopeKind::Vectorscope;
        spec.size = size;
        const ScopePlane scope = reference_scope(p.view(), spec).front();
        // calcHist's first dimension is the first channel listed: Cb (2), then Cr (1), so
        // hist(cb, cr) is scope.at(cb, cr).
        const int channels[] = {2, 1};
        const int sizes[] = {size, size};
        const float range[] = {0, 256};
        const float* ranges[] = {range, range};
        cv::Mat hist;
        cv::calcHist(&ycrcb, 1, channels, cv::Mat(), hist, 2, sizes, ranges, true, false);
        for (int cb = 0; cb < size; ++cb)
            for (int cr = 0; cr < size; ++cr)
                ASSERT_EQ(scope.at(cb, cr), static_cast<std::uint64_t>(hist.at<float>(cb, cr)))
                    << GetParam() << " size " << size << " at " << cb << "," << cr;
    }
}

TEST(SyntheticVsOpenCV, Vectorscope601EqualsCalcHistOfCbCrAt16Bits) {
    const Image img = hs::test::uniform(211, 97, 3, SampleType::U16, 16, 23);
    const ImageView v = img.view();
    const cv::Mat m(v.height, v.width, CV_16UC3, const_cast<std::byte*>(v.data), v.stride);
    cv::Mat ycrcb;
    cv::cvtColor(m, ycrcb, cv::COLOR_RGB2YCrCb);
    ScopeSpec spec;
    spec.kind = ScopeKind::Vectorscope;
    spec.size = 1024;
    const ScopePlane scope = reference_scope(v, spec).front();
    const int channels[] = {2, 1};
    const int sizes[] = {1024, 1024};
    const float range[] = {0, 65536};
    const float* ranges[] = {range, range};
    cv::Mat hist;
    cv::calcHist(&ycrcb, 1, channels, cv::Mat(), hist, 2, sizes, ranges, true, false);
    for (int cb = 0; cb < 1024; ++cb)
        for (int cr = 0; cr < 1024; ++cr)
            ASSERT_EQ(scope.at(cb, cr), static_cast<std::uint64_t>(hist.at<float>(cb, cr)))
                << cb << "," << cr;
}
