// The equalization reference judged against OpenCV 4.6: cv::equalizeHist (bit-exact on every
// gray photo, every colour channel and the Y of every colour photo), cv::cvtColor RGB <-> YCrCb
// (bit-exact on all 2^24 8-bit triples, on 2^20 random 16-bit triples and on every photo) and
// cv::createCLAHE (8-bit and 16-bit, tile grids that do and do not divide the image).
// Photos are decoded here with cv::imread directly, independently of hs::media.

#include <gtest/gtest.h>

#include <iostream>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <random>

#include "histoscope/core/equalize.hpp"
#include "synthetic.hpp"

using namespace hs;

namespace {

cv::Mat load_rgb(const std::string& name) {
    cv::Mat m = cv::imread(hs::test::sample(name), cv::IMREAD_UNCHANGED);
    if (m.empty()) throw std::runtime_error("cannot decode " + name);
    if (m.channels() == 3) cv::cvtColor(m, m, cv::COLOR_BGR2RGB);
    if (m.channels() == 4) cv::cvtColor(m, m, cv::COLOR_BGRA2RGBA);
    return m;
}

// Colour version of a photo: gray photos become R = G = B.
cv::Mat load_colour(const std::string& name) {
    cv::Mat m = load_rgb(name);
    if (m.channels() == 1) cv::cvtColor(m, m, cv::COLOR_GRAY2RGB);
    return m;
}

ImageView view_of(const cv::Mat& m) {
    const bool deep = m.depth() == CV_16U;
    return ImageView{
        reinterpret_cast<const std::byte*>(m.data), m.cols,        m.rows,   m.channels(),
        deep ? SampleType::U16 : SampleType::U8,    deep ? 16 : 8, m.step[0]};
}

cv::Mat mat_of(const Image& img) {
    const int depth = img.type() == SampleType::U8 ? CV_8U : CV_16U;
    return cv::Mat(img.height(), img.width(), CV_MAKETYPE(depth, img.channels()),
                   const_cast<std::byte*>(img.view().data), img.stride())
        .clone();
}

cv::Mat mat_of(const Plane& p, int depth) {
    cv::Mat m(p.height, p.width, depth == 8 ? CV_8UC1 : CV_16UC1);
    for (int y = 0; y < p.height; ++y)
        for (int x = 0; x < p.width; ++x) {
            if (depth == 8)
                m.at<std::uint8_t>(y, x) = static_cast<std::uint8_t>(p.at(x, y));
            else
                m.at<std::uint16_t>(y, x) = p.at(x, y);
        }
    return m;
}

Image run(const cv::Mat& m, EqualizeMode mode, EqualizeSpace space, double clip = 2.0, int tx = 8,
          int ty = 8) {
    EqualizeRequest r;
    r.image = view_of(m);
    r.mode = mode;
    r.space = space;
    r.clip = clip;
    r.tiles_x = tx;
    r.tiles_y = ty;
    return equalize_reference(r);
}

double max_diff(const cv::Mat& a, const cv::Mat& b) {
    EXPECT_EQ(a.size(), b.size());
    EXPECT_EQ(a.type(), b.type());
    return a.size() == b.size() && a.type() == b.type() ? cv::norm(a, b, cv::NORM_INF) : 1e9;
}

std::size_t count_diff(const cv::Mat& a, const cv::Mat& b) {
    cv::Mat d;
    cv::absdiff(a.reshape(1), b.reshape(1), d);
    return static_cast<std::size_t>(cv::countNonZero(d));
}

cv::Mat channel(const cv::Mat& m, int c) {
    cv::Mat p;
    cv::extractChannel(m, p, c);
    return p;
}

cv::Mat opencv_clahe(const cv::Mat& plane, double clip, int tx, int ty) {
    cv::Mat out;
    cv::createCLAHE(clip, cv::Size(tx, ty))->apply(plane, out);
    return out;
}

// OpenCV's usual recipe for colour: equalize (or CLAHE) the Y of YCrCb and convert back.
template <typename F>
cv::Mat opencv_on_luma(const cv::Mat& rgb, F&& equalize_y) {
    cv::Mat ycc;
    cv::cvtColor(rgb, ycc, cv::COLOR_RGB2YCrCb);
    std::vector<cv::Mat> planes;
    cv::split(ycc, planes);
    planes[0] = equalize_y(planes[0]);
    cv::merge(planes, ycc);
    cv::Mat out;
    cv::cvtColor(ycc, out, cv::COLOR_YCrCb2RGB);
    return out;
}

struct Grid {
    double clip;
    int tx, ty;
};
// 3x5, 7x7 divide none of the photos; 8x5 and 5x8 divide one side of some (OpenCV then pads
// both sides, one by a whole tile).
const std::vector<Grid> kGrids{{2.0, 8, 8}, {4.0, 8, 8}, {2.0, 3, 5}, {4.0, 3, 5},
                               {2.0, 7, 7}, {2.0, 8, 5}, {3.0, 5, 8}, {40.0, 1, 1}};

std::string grid_name(const Grid& g) {
    return "clip " + std::to_string(g.clip).substr(0, 4) + " tiles " + std::to_string(g.tx) + "x" +
           std::to_string(g.ty);
}

// Max |ours - OpenCV| of CLAHE on `plane` (gray image), printed for the record.
double clahe_max_diff(const std::string& what, const cv::Mat& plane, const Grid& g) {
    const cv::Mat ours =
        mat_of(run(plane, EqualizeMode::Clahe, EqualizeSpace::Luma, g.clip, g.tx, g.ty));
    const cv::Mat theirs = opencv_clahe(plane, g.clip, g.tx, g.ty);
    const double d = max_diff(ours, theirs);
    std::cout << "[clahe] " << what << " " << plane.cols << "x" << plane.rows << " " << grid_name(g)
              << ": max diff " << d << ", " << count_diff(ours, theirs) << " pixels differ\n";
    return d;
}

}  // namespace

// ---------------------------------------------------------------- global equalization

class EqualizePhoto : public ::testing::TestWithParam<std::string> {};

TEST_P(EqualizePhoto, GlobalIsBitExactWithEqualizeHist) {
    const cv::Mat m = load_rgb(GetParam());
    ASSERT_EQ(m.depth(), CV_8U);
    if (m.channels() == 1) {
        cv::Mat expected;
        cv::equalizeHist(m, expected);
        EXPECT_EQ(max_diff(mat_of(run(m, EqualizeMode::Global, EqualizeSpace::Luma)), expected), 0);
        return;
    }
    const cv::Mat ours_rgb = mat_of(run(m, EqualizeMode::Global, EqualizeSpace::Rgb));
    for (int c = 0; c < 3; ++c) {
        cv::Mat expected;
        cv::equalizeHist(channel(m, c), expected);
        EXPECT_EQ(max_diff(channel(ours_rgb, c), expected), 0) << GetParam() << " channel " << c;
    }
    const cv::Mat expected_luma = opencv_on_luma(m, [](const cv::Mat& y) {
        cv::Mat e;
        cv::equalizeHist(y, e);
        return e;
    });
    EXPECT_EQ(max_diff(mat_of(run(m, EqualizeMode::Global, EqualizeSpace::Luma)), expected_luma), 0)
        << GetParam();
}

TEST_P(EqualizePhoto, YCrCbPlanesAndRoundTripMatchCvtColor) {
    const cv::Mat m = load_colour(GetParam());
    cv::Mat ycc, back;
    cv::cvtColor(m, ycc, cv::COLOR_RGB2YCrCb);
    cv::cvtColor(ycc, back, cv::COLOR_YCrCb2RGB);
    const WorkingPlanes work = split_planes(view_of(m), EqualizeSpace::Luma);
    ASSERT_EQ(work.planes.size(), 3u);
    for (int c = 0; c < 3; ++c)
        EXPECT_EQ(max_diff(mat_of(work.planes[static_cast<std::size_t>(c)], 8), channel(ycc, c)), 0)
            << GetParam() << " plane " << c;
    EXPECT_EQ(max_diff(mat_of(compose_image(view_of(m), work, EqualizeSpace::Luma)), back), 0);
}

TEST_P(EqualizePhoto, ClaheMatchesOpenCV) {
    const cv::Mat m = load_rgb(GetParam());
    const bool colour = m.channels() > 1;
    cv::Mat y = m;
    if (colour) {
        cv::Mat ycc;
        cv::cvtColor(m, ycc, cv::COLOR_RGB2YCrCb);
        y = channel(ycc, 0);
    }
    for (const Grid& g : kGrids) {
        EXPECT_EQ(clahe_max_diff(GetParam() + (colour ? " Y" : ""), y, g), 0) << grid_name(g);
        if (colour) {
            EXPECT_EQ(clahe_max_diff(GetParam() + " G", channel(m, 1), g), 0) << grid_name(g);
        }
    }
}

TEST_P(EqualizePhoto, ClaheOnLumaAndPerChannelMatchesOpenCVRecipes) {
    const cv::Mat m = load_colour(GetParam());
    const Grid g{3.0, 6, 4};
    const cv::Mat expected_luma =
        opencv_on_luma(m, [&](const cv::Mat& y) { return opencv_clahe(y, g.clip, g.tx, g.ty); });
    EXPECT_EQ(max_diff(mat_of(run(m, EqualizeMode::Clahe, EqualizeSpace::Luma, g.clip, g.tx, g.ty)),
                       expected_luma),
              0);
    const cv::Mat ours =
        mat_of(run(m, EqualizeMode::Clahe, EqualizeSpace::Rgb, g.clip, g.tx, g.ty));
    for (int c = 0; c < 3; ++c)
        EXPECT_EQ(max_diff(channel(ours, c), opencv_clahe(channel(m, c), g.clip, g.tx, g.ty)), 0)
            << "channel " << c;
}

INSTANTIATE_TEST_SUITE_P(Photos8, EqualizePhoto, ::testing::ValuesIn(hs::test::kPhotos8),
                         hs::test::ParamName());

class EqualizeDeepPhoto : public ::testing::TestWithParam<std::string> {};

TEST_P(EqualizeDeepPhoto, Clahe16BitMatchesOpenCV) {
    const cv::Mat m = load_rgb(GetParam());
    ASSERT_EQ(m.depth(), CV_16U);
    ASSERT_EQ(m.channels(), 1);
    for (const Grid& g : {Grid{2.0, 8, 8}, Grid{4.0, 3, 5}, Grid{2.0, 7, 7}})
        EXPECT_EQ(clahe_max_diff(GetParam(), m, g), 0) << grid_name(g);
}

INSTANTIATE_TEST_SUITE_P(Photos16, EqualizeDeepPhoto, ::testing::ValuesIn(hs::test::kPhotos16),
                         hs::test::ParamName());

// ---------------------------------------------------------------- synthetic images

struct Case {
    std::string name;
    Image image;
};

TEST(EqualizeSynthetic, GlobalMatchesEqualizeHistOnOddSizesAndDegenerateImages) {
    using hs::test::make_image;
    const std::vector<Case> cases{
        {"1x1", hs::test::constant(1, 1, 1, SampleType::U8, 8, 77)},
        {"constant", hs::test::constant(31, 17, 1, SampleType::U8, 8, 200)},
        {"zeros", hs::test::constant(5, 3, 1, SampleType::U8, 8, 0)},
        {"two-valued", make_image(13, 7, 1, SampleType::U8, 8,
                                  [](int x, int y, int) { return (x + y) % 3 == 0 ? 40u : 41u; })},
        {"0 and 255",
         make_image(9, 9, 1, SampleType::U8, 8, [](int x, int, int) { return x < 2 ? 0u : 255u; })},
        {"gauss", hs::test::gaussian(333, 221, 1, SampleType::U8, 8, 9.0)},
        {"uniform", hs::test::uniform(1001, 3, 1, SampleType::U8, 8)},
        {"ramp", hs::test::ramp(1, 999, 1, SampleType::U8, 8)}};
    for (const Case& c : cases) {
        const cv::Mat m = mat_of(c.image);
        cv::Mat expected;
        cv::equalizeHist(m, expected);
        EXPECT_EQ(max_diff(mat_of(run(m, EqualizeMode::Global, EqualizeSpace::Luma)), expected), 0)
            << c.name;
    }
}

TEST(EqualizeSynthetic, ClaheMatchesOpenCVOn8And16BitOddSizes) {
    const std::vector<Case> cases{
        {"gauss8", hs::test::gaussian(37, 23, 1, SampleType::U8, 8, 20.0)},
        {"uniform8", hs::test::uniform(640, 479, 1, SampleType::U8, 8)},
        {"ramp8", hs::test::ramp(9, 300, 1, SampleType::U8, 8)},
        {"constant8", hs::test::constant(50, 50, 1, SampleType::U8, 8, 90)},
        {"gauss16", hs::test::gaussian(301, 203, 1, SampleType::U16, 16, 3000.0)},
        {"uniform16", hs::test::uniform(128, 96, 1, SampleType::U16, 16)},
        {"ramp16", hs::test::ramp(999, 17, 1, SampleType::U16, 16)}};
    for (const Case& c : cases) {
        const cv::Mat m = mat_of(c.image);
        for (const Grid& g : {Grid{2.0, 8, 8}, Grid{4.0, 3, 5}, Grid{2.0, 7, 7}, Grid{0.5, 2, 1},
                              Grid{100.0, 5, 5}})
            EXPECT_EQ(clahe_max_diff(c.name, m, g), 0) << c.name << " " << grid_name(g);
    }
}

// ---------------------------------------------------------------- YCrCb, exhaustively

TEST(YCrCb, AllEightBitTriplesMatchCvtColorBothWays) {
    cv::Mat all(4096, 4096, CV_8UC3);
    for (int i = 0; i < (1 << 24); ++i) {
        auto& px = all.at<cv::Vec3b>(i >> 12, i & 4095);
        px = cv::Vec3b(static_cast<std::uint8_t>(i >> 16), static_cast<std::uint8_t>(i >> 8),
                       static_cast<std::uint8_t>(i));
    }
    cv::Mat ycc, rgb;
    cv::cvtColor(all, ycc, cv::COLOR_RGB2YCrCb);
    cv::cvtColor(all, rgb, cv::COLOR_YCrCb2RGB);  // every triple read as Y, Cr, Cb
    std::size_t forward = 0, backward = 0;
    for (int i = 0; i < (1 << 24); ++i) {
        const auto& in = all.at<cv::Vec3b>(i >> 12, i & 4095);
        const auto& f = ycc.at<cv::Vec3b>(i >> 12, i & 4095);
        const auto& b = rgb.at<cv::Vec3b>(i >> 12, i & 4095);
        forward += rgb_to_ycrcb(in[0], in[1], in[2], 8) != Triple{f[0], f[1], f[2]};
        backward += ycrcb_to_rgb(in[0], in[1], in[2], 8) != Triple{b[0], b[1], b[2]};
    }
    EXPECT_EQ(forward, 0u);
    EXPECT_EQ(backward, 0u);
}

TEST(YCrCb, RandomSixteenBitTriplesMatchCvtColorBothWays) {
    cv::Mat all(1024, 1024, CV_16UC3);
    std::mt19937 rng(7);
    std::uniform_int_distribution<int> any(0, 65535);
    const int edges[] = {0, 1, 32767, 32768, 65534, 65535};
    for (int i = 0; i < (1 << 20); ++i) {
        auto& px = all.at<cv::Vec3w>(i >> 10, i & 1023);
        for (int c = 0; c < 3; ++c)
            px[c] = static_cast<std::uint16_t>(i < 216 ? edges[(i / (c == 0   ? 1
                                                                     : c == 1 ? 6
                                                                              : 36)) %
                                                               6]
                                                       : any(rng));
    }
    cv::Mat ycc, rgb;
    cv::cvtColor(all, ycc, cv::COLOR_RGB2YCrCb);
    cv::cvtColor(all, rgb, cv::COLOR_YCrCb2RGB);
    std::size_t forward = 0, backward = 0;
    for (int i = 0; i < (1 << 20); ++i) {
        const auto& in = all.at<cv::Vec3w>(i >> 10, i & 1023);
        const auto& f = ycc.at<cv::Vec3w>(i >> 10, i & 1023);
        const auto& b = rgb.at<cv::Vec3w>(i >> 10, i & 1023);
        forward += rgb_to_ycrcb(in[0], in[1], in[2], 16) != Triple{f[0], f[1], f[2]};
        backward += ycrcb_to_rgb(in[0], in[1], in[2], 16) != Triple{b[0], b[1], b[2]};
    }
    EXPECT_EQ(forward, 0u);
    EXPECT_EQ(backward, 0u);
}
