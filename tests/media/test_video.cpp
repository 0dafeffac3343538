// Video: hs::media::VideoReader and probe() judged against cv::VideoCapture called directly.

#include <gtest/gtest.h>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>

#include <random>

#include "histoscope/core/error.hpp"
#include "histoscope/media/media.hpp"
#include "media_test_support.hpp"
#include "synthetic.hpp"

using namespace hs;
using hs::test::message_of;
using hs::test::sample;
using hs::test::ScratchDir;
using hs::test::write_bytes;

namespace {

cv::Mat as_mat(const ImageView& v) {
    return cv::Mat(v.height, v.width, CV_8UC(v.channels), const_cast<std::byte*>(v.data), v.stride);
}

bool identical(const cv::Mat& a, const cv::Mat& b) {
    return a.type() == b.type() && a.size() == b.size() && cv::norm(a, b, cv::NORM_INF) == 0.0;
}

// Frames 0..n-1 read sequentially by OpenCV itself, in RGB order.
std::vector<cv::Mat> opencv_frames(const std::string& path, int n) {
    cv::VideoCapture cap(path, cv::CAP_FFMPEG);
    std::vector<cv::Mat> out;
    cv::Mat bgr;
    while (static_cast<int>(out.size()) < n && cap.read(bgr)) {
        cv::Mat rgb;
        cv::cvtColor(bgr, rgb, cv::COLOR_BGR2RGB);
        out.push_back(rgb);
    }
    return out;
}

}  // namespace

TEST(Video, TreeAviReportsItsRealFrameCount) {
    media::VideoReader video(sample("tree.avi"));
    // The AVI header says 444 frames, 376 of them empty "dropped" chunks; 68 carry data.
    EXPECT_EQ(video.frame_count(), 68);
    EXPECT_NEAR(video.fps(), 15.0, 0.01);
    EXPECT_EQ(video.codec(), "cvid");
    EXPECT_EQ(video.width(), 320);
    EXPECT_EQ(video.height(), 240);
}

TEST(Video, ReadsEveryFrameInRGBThenEnds) {
    const std::string path = sample("tree.avi");
    const std::vector<cv::Mat> expected = opencv_frames(path, 1000);
    ASSERT_EQ(expected.size(), 68u);
    media::VideoReader video(path);
    for (std::size_t i = 0; i < expected.size(); ++i) {
        const std::optional<Image> frame = video.read();
        ASSERT_TRUE(frame.has_value()) << i;
        const ImageView v = frame->view();
        ASSERT_EQ(v.channels, 3);
        ASSERT_EQ(v.type, SampleType::U8);
        ASSERT_TRUE(identical(as_mat(v), expected[i])) << "frame " << i;
    }
    EXPECT_FALSE(video.read().has_value());
    EXPECT_FALSE(video.read().has_value());
}

TEST(Video, SeekLandsOnTheSameFrameAsSequentialReading) {
    const std::string path = sample("tree.avi");
    const std::vector<cv::Mat> expected = opencv_frames(path, 68);
    ASSERT_EQ(expected.size(), 68u);
    media::VideoReader video(path);
    for (const std::int64_t target : {10, 40, 3, 67, 0, 31}) {
        video.seek(target);
        const auto frame = video.read();
        ASSERT_TRUE(frame.has_value()) << target;
        EXPECT_TRUE(identical(as_mat(frame->view()), expected[static_cast<std::size_t>(target)]))
            << "seek " << target;
    }
    video.seek(67);
    ASSERT_TRUE(video.read().has_value());
    EXPECT_FALSE(video.read().has_value());
    video.seek(1);  // after the end
    const auto again = video.read();
    ASSERT_TRUE(again.has_value());
    EXPECT_TRUE(identical(as_mat(again->view()), expected[1]));
}

TEST(Video, SeekOutOfRangeIsAnInputError) {
    const std::string path = sample("tree.avi");
    media::VideoReader video(path);
    for (const std::int64_t bad : {std::int64_t{68}, std::int64_t{444}, std::int64_t{-1}}) {
        const std::string m = message_of<InputError>([&] { video.seek(bad); });
        EXPECT_EQ(m, "cannot seek '" + path + "' to frame " + std::to_string(bad) +
                         ": it has 68 frames (0..67)");
    }
}

TEST(Video, OtherSamplesReportTheirStreams) {
    {
        const std::string path = sample("Megamind.avi");
        media::VideoReader video(path);
        EXPECT_EQ(video.frame_count(), 270);
        EXPECT_EQ(video.codec(), "XVID");
        EXPECT_EQ(video.width(), 720);
        EXPECT_EQ(video.height(), 528);
        EXPECT_NEAR(video.fps(), 23.976, 0.01);
        std::int64_t n = 0;
        while (video.read()) ++n;
        EXPECT_EQ(n, 270);
    }
    {
        const std::string path = sample("starry_pan_4k.mp4");
        media::VideoReader video(path);
        EXPECT_EQ(video.frame_count(), 48);
        EXPECT_EQ(video.codec(), "avc1");
        EXPECT_EQ(video.width(), 3840);
        EXPECT_EQ(video.height(), 2160);
        EXPECT_NEAR(video.fps(), 24.0, 0.01);
        const auto first = video.read();
        ASSERT_TRUE(first.has_value());
        EXPECT_EQ(first->width(), 3840);
        EXPECT_EQ(first->height(), 2160);
        video.seek(47);
        EXPECT_TRUE(video.read().has_value());
        EXPECT_FALSE(video.read().has_value());
    }
}

TEST(Video, FilesThatAreNoVideoAreInputErrors) {
    ScratchDir dir;
    const std::string noise = dir.file("noise.avi");
    std::mt19937 rng(3);
    std::vector<std::uint8_t> bytes(5000);
    for (auto& b : bytes) b = static_cast<std::uint8_t>(rng());
    write_bytes(noise, bytes);
    EXPECT_EQ(message_of<InputError>([&] { media::VideoReader v(noise); }),
              "cannot open '" + noise + "' as a video");

    const std::string missing = dir.file("missing.mp4");
    EXPECT_EQ(message_of<InputError>([&] { media::VideoReader v(missing); }),
              "cannot read '" + missing + "': No such file or directory");
    const std::string empty = dir.file("empty.mp4");
    write_bytes(empty, {});
    EXPECT_EQ(message_of<InputError>([&] { media::VideoReader v(empty); }),
              "'" + empty + "' is empty");
}

TEST(Probe, TellsPhotosFromVideos) {
    for (const auto& name : hs::test::kPhotos8)
        EXPECT_EQ(media::probe(sample(name)), media::MediaKind::Image) << name;
    for (const auto& name : hs::test::kPhotos16)
        EXPECT_EQ(media::probe(sample(name)), media::MediaKind::Image) << name;
    for (const std::string name : {"tree.avi", "Megamind.avi", "starry_pan_4k.mp4"})
        EXPECT_EQ(media::probe(sample(name)), media::MediaKind::Video) << name;

    ScratchDir dir;
    const std::string noise = dir.file("noise.dat");
    std::mt19937 rng(11);
    std::vector<std::uint8_t> bytes(3000);
    for (auto& b : bytes) b = static_cast<std::uint8_t>(rng());
    bytes[0] = 0x13;
    write_bytes(noise, bytes);
    EXPECT_EQ(message_of<InputError>([&] { (void)media::probe(noise); }),
              "'" + noise + "' is not an image or video this build can read");
    EXPECT_TRUE(media::have_opencv());
}
