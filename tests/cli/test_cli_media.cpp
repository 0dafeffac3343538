// histoscope-cli end to end on the bundled photos and video: counts against cv::calcHist,
// truncated and unsupported files.

#include <gtest/gtest.h>

#include <fstream>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>

#include "cli_helpers.hpp"
#include "synthetic.hpp"

using namespace hs::test;

namespace {

std::vector<std::uint64_t> calc_hist(const cv::Mat& plane, int bins, float hi) {
    cv::Mat hist;
    const float range[] = {0, hi};
    const float* ranges[] = {range};
    cv::calcHist(&plane, 1, nullptr, cv::Mat(), hist, 1, &bins, ranges, true, false);
    std::vector<std::uint64_t> out;
    for (int i = 0; i < bins; ++i) out.push_back(static_cast<std::uint64_t>(hist.at<float>(i)));
    return out;
}

void copy_prefix(const std::string& from, const std::filesystem::path& to, double fraction) {
    const std::string bytes = slurp(from);
    std::ofstream(to, std::ios::binary)
        << bytes.substr(0, static_cast<std::size_t>(static_cast<double>(bytes.size()) * fraction));
}

}  // namespace

class CliPhoto : public ::testing::TestWithParam<std::string> {};

TEST_P(CliPhoto, JsonCountsEqualOpenCVForEveryChannel) {
    const std::string path = sample(GetParam());
    const cv::Mat bgr = cv::imread(path, cv::IMREAD_UNCHANGED);
    ASSERT_FALSE(bgr.empty());
    const bool deep = bgr.depth() == CV_16U;
    const int bins = deep ? 65536 : 256;
    const auto r = run_cli("hist '" + path + "' --format json --bins " + std::to_string(bins));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto j = parse_json(r.out);
    EXPECT_EQ(j.at("width").get<std::int64_t>(), bgr.cols);
    EXPECT_EQ(j.at("height").get<std::int64_t>(), bgr.rows);
    EXPECT_EQ(j.at("depth").get<std::int64_t>(), deep ? 16 : 8);
    std::vector<cv::Mat> planes;
    cv::split(bgr, planes);
    const auto& channels = j.at("channels");
    ASSERT_EQ(channels.size(), planes.size());
    // JSON lists r, g, b(, a); OpenCV's planes are b, g, r(, a).
    const std::vector<int> order =
        planes.size() == 1 ? std::vector<int>{0} : std::vector<int>{2, 1, 0, 3};
    for (std::size_t k = 0; k < channels.size(); ++k)
        EXPECT_EQ(counts_of(channels[k]), calc_hist(planes[static_cast<std::size_t>(order[k])],
                                                    bins, deep ? 65536.0f : 256.0f))
            << GetParam() << " channel " << channels[k].at("name").get<std::string>();
}

INSTANTIATE_TEST_SUITE_P(Samples, CliPhoto,
                         ::testing::Values("fruits.jpg", "baboon.jpg", "starry_night.jpg",
                                           "HappyFish.jpg", "camera.png", "moon.png", "chelsea.png",
                                           "fruits_4k.jpg", "chessboard_GRAY_U16.tif",
                                           "moon_4k_16bit.png"),
                         hs::test::ParamName());

TEST(CliMedia, TruncatedJpegIsReportedNotHistogrammed) {
    const auto dir = temp_dir("trunc");
    for (double f : {0.5, 0.9, 0.999}) {
        const auto p = dir / ("cut" + std::to_string(f) + ".jpg");
        copy_prefix(sample("fruits.jpg"), p, f);
        const auto r = run_cli("hist '" + p.string() + "' --format json");
        EXPECT_EQ(r.exit_code, 3) << f << " " << r.err;
        EXPECT_TRUE(one_error_line(r.err)) << r.err;
        EXPECT_NE(r.err.find("truncated"), std::string::npos) << r.err;
        EXPECT_EQ(r.out, "");
    }
}

TEST(CliMedia, GifAndCorruptFilesExitThree) {
    const auto dir = temp_dir("gif");
    // A valid 1x1 GIF89a.
    const unsigned char gif[] = {0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 0x01, 0x00, 0x01, 0x00, 0x80,
                                 0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0x21, 0xf9, 0x04,
                                 0x01, 0x00, 0x00, 0x00, 0x00, 0x2c, 0x00, 0x00, 0x00, 0x00, 0x01,
                                 0x00, 0x01, 0x00, 0x00, 0x02, 0x02, 0x44, 0x01, 0x00, 0x3b};
    std::ofstream(dir / "tiny.gif", std::ios::binary)
        .write(reinterpret_cast<const char*>(gif), sizeof gif);
    std::ofstream(dir / "noise.png", std::ios::binary) << "\x89PNG\r\n\x1a\n garbage garbage";
    std::ofstream(dir / "empty.jpg", std::ios::binary);
    copy_prefix(sample("camera.png"), dir / "cut.png", 0.6);
    for (const auto& name : {"tiny.gif", "noise.png", "empty.jpg", "cut.png", "missing.png"}) {
        const auto r = run_cli("hist '" + (dir / name).string() + "'");
        EXPECT_EQ(r.exit_code, 3) << name << " " << r.err;
        EXPECT_TRUE(one_error_line(r.err)) << name << ": " << r.err;
        EXPECT_NE(r.err.find(name), std::string::npos) << r.err;
    }
    const auto gif_result = run_cli("hist '" + (dir / "tiny.gif").string() + "'");
    EXPECT_NE(gif_result.err.find("GIF"), std::string::npos) << gif_result.err;
}

TEST(CliMedia, InfoOnPhotoAndVideo) {
    const auto photo = run_cli("info '" + sample("moon_4k_16bit.png") + "' --format json");
    ASSERT_EQ(photo.exit_code, 0) << photo.err;
    const auto p = parse_json(photo.out);
    EXPECT_EQ(p.at("width").get<std::int64_t>(), 3840);
    EXPECT_EQ(p.at("height").get<std::int64_t>(), 2160);
    EXPECT_EQ(p.at("depth").get<std::int64_t>(), 16);
    EXPECT_EQ(p.at("channels").get<std::int64_t>(), 1);

    const auto video = run_cli("info '" + sample("tree.avi") + "' --format json");
    ASSERT_EQ(video.exit_code, 0) << video.err;
    const auto v = parse_json(video.out);
    EXPECT_EQ(v.at("kind").get<std::string>(), "video");
    EXPECT_EQ(v.at("frames").get<std::int64_t>(), 68);
    EXPECT_NEAR(v.at("fps").get<double>(), 15.0, 0.01);
    EXPECT_EQ(v.at("width").get<std::int64_t>(), 320);
}

TEST(CliMedia, VideoFrameHistogramEqualsOpenCV) {
    cv::VideoCapture cap(sample("tree.avi"));
    ASSERT_TRUE(cap.isOpened());
    cap.set(cv::CAP_PROP_POS_FRAMES, 10);
    cv::Mat bgr;
    ASSERT_TRUE(cap.read(bgr));
    std::vector<cv::Mat> planes;
    cv::split(bgr, planes);
    const auto r =
        run_cli("hist '" + sample("tree.avi") + "' --frame 10 --channels g --format json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(counts_of(parse_json(r.out).at("channels")[0]), calc_hist(planes[1], 256, 256.0f));
}
