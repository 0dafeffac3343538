// Video: hs::media::VideoReader and probe() judged against cv::VideoCapture called directly.

#include <gtest/gtest.h>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>

#include <cstring>
#include <random>

#include "damaged_media.hpp"
#include "histoscope/core/error.hpp"
#include "histoscope/media/frame_source.hpp"
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

// --- streams that go on past bad frames (read_frame) and the writer

TEST(VideoStream, ReadFrameDeliversEveryFrameOfAGoodClip) {
    const std::string path = sample("tree.avi");
    const std::vector<cv::Mat> expected = opencv_frames(path, 1000);
    media::VideoReader video(path);
    Image frame;
    for (std::size_t i = 0; i < expected.size(); ++i) {
        ASSERT_EQ(video.read_frame(frame), media::VideoReader::FrameStatus::Ok) << i;
        EXPECT_TRUE(identical(as_mat(frame.view()), expected[i])) << i;
        EXPECT_EQ(video.position(), static_cast<std::int64_t>(i) + 1);
    }
    EXPECT_EQ(video.read_frame(frame), media::VideoReader::FrameStatus::End);
    EXPECT_EQ(video.read_frame(frame), media::VideoReader::FrameStatus::End);
}

// The frame source the CLI's streams and the desktop application's playback read a video from:
// the reader's frames, as it delivers them, by read() and read_into() alike, and its seeks.
TEST(VideoStream, AFrameSourceDeliversTheReadersFrames) {
    const std::string path = sample("tree.avi");
    const std::vector<cv::Mat> expected = opencv_frames(path, 1000);
    ASSERT_EQ(expected.size(), 68u);
    auto reader = std::make_unique<media::VideoReader>(path);
    const FrameFormat format = reader->frame_format();
    const double fps = reader->fps();
    ASSERT_NE(reader->read(), std::nullopt);  // a reader that delivered a frame already
    media::FrameSource source(std::move(reader));
    EXPECT_EQ(source.format(), format);
    EXPECT_EQ(source.frame_count(), 68);
    EXPECT_EQ(source.fps(), fps);
    EXPECT_TRUE(source.seekable());
    ASSERT_NE(source.video(), nullptr);
    EXPECT_EQ(source.position(), 1);
    Image frame;
    std::vector<std::byte> packed(format.frame_bytes());
    for (std::size_t i = 1; i < expected.size(); ++i) {
        if (i % 2 == 0) {
            ASSERT_EQ(source.read(frame), media::FrameSource::Status::Ok) << i;
        } else {
            ASSERT_EQ(source.read_into(packed.data()), media::FrameSource::Status::Ok) << i;
            frame =
                Image(format.width, format.height, format.channels, format.type, format.bit_depth);
            std::memcpy(frame.data(), packed.data(), packed.size());
        }
        EXPECT_TRUE(identical(as_mat(frame.view()), expected[i])) << i;
        EXPECT_EQ(source.failure(), "");
    }
    EXPECT_EQ(source.read(frame), media::FrameSource::Status::End);
    source.seek(40);
    ASSERT_EQ(source.read(frame), media::FrameSource::Status::Ok);
    EXPECT_TRUE(identical(as_mat(frame.view()), expected[40]));
    EXPECT_THROW(source.seek(68), InputError);
}

// Every frame of a clean decode, by number.
std::vector<Image> clean_frames(const std::string& path) {
    media::VideoReader video(path);
    std::vector<Image> frames;
    while (auto f = video.read()) frames.push_back(std::move(*f));
    return frames;
}

bool same_pixels(const Image& a, const Image& b) {
    const ImageView va = a.view(), vb = b.view();
    return va.width == vb.width && va.height == vb.height && va.stride == vb.stride &&
           std::memcmp(va.data, vb.data, va.stride * static_cast<std::size_t>(va.height)) == 0;
}

// Damage in the middle of each bundled clip: every frame number is reported exactly once, in
// order; the damage costs frames; and every frame delivered as good is bit for bit the frame
// of the same number in the undamaged clip (frames decoded from damaged data, or from
// references that are, are failed, or delivered marked corrupt with allow_corrupt).
TEST(VideoStream, ADamagedClipGoesOnPastItsBadFramesAndNumbersStayRight) {
    ScratchDir dir;
    for (const std::string name : {"starry_pan_4k.mp4", "Megamind.avi", "tree.avi"}) {
        const std::vector<Image> clean = clean_frames(sample(name));
        const std::string damaged = dir.file("damaged_" + name);
        hs::test::write_damaged_copy(sample(name), damaged, 60000);
        for (const bool tolerant : {false, true}) {
            media::DecodeOptions options;
            options.allow_corrupt = tolerant;
            media::VideoReader video(damaged, options);
            ASSERT_EQ(video.frame_count(), static_cast<std::int64_t>(clean.size())) << name;
            Image frame;
            int ok = 0, failed = 0, corrupt = 0;
            for (std::int64_t n = 0;; ++n) {
                ASSERT_EQ(video.position(), n) << name;
                const auto status = video.read_frame(frame);
                if (status == media::VideoReader::FrameStatus::End) break;
                ASSERT_LT(n, static_cast<std::int64_t>(clean.size())) << name;
                if (status == media::VideoReader::FrameStatus::Failed) {
                    ++failed;
                    EXPECT_NE(video.failure().find("frame " + std::to_string(n) + " of '"),
                              std::string::npos)
                        << video.failure();
                    continue;
                }
                if (video.corrupt()) {
                    EXPECT_TRUE(tolerant);
                    ++corrupt;
                    continue;
                }
                ++ok;
                EXPECT_TRUE(same_pixels(frame, clean[static_cast<std::size_t>(n)]))
                    << name << ": frame " << n << " delivered as good differs from the clean one";
            }
            EXPECT_EQ(ok + failed + corrupt, static_cast<int>(clean.size())) << name;
            EXPECT_GE(failed + corrupt, 1) << name;
            EXPECT_GE(ok, 1) << name;
            if (tolerant) {
                EXPECT_GE(corrupt, 1) << name;
            }
        }
    }
}

TEST(VideoStream, WrittenClipsReadBackWithTheirSizeRateAndFrames) {
    ScratchDir dir;
    std::vector<Image> frames;
    for (int i = 0; i < 12; ++i)
        frames.push_back(
            hs::test::make_image(64, 48, 3, SampleType::U8, 8, [&](int x, int y, int c) {
                return static_cast<std::uint32_t>((x * 4 + y * 2 + c * 60 + i * 10) % 256);
            }));
    for (const std::string name : {"out.avi", "out.mp4", "out.mkv"}) {
        const std::string path = dir.file(name);
        EXPECT_TRUE(media::is_video_path(path));
        {
            media::VideoWriter writer(path, 64, 48, 12.5);
            for (const Image& f : frames) writer.write(f.view());
            writer.close();
        }
        media::VideoReader back(path);
        EXPECT_EQ(back.width(), 64) << name;
        EXPECT_EQ(back.height(), 48) << name;
        EXPECT_NEAR(back.fps(), 12.5, 0.01) << name;
        int n = 0;
        Image frame;
        while (back.read_frame(frame) == media::VideoReader::FrameStatus::Ok) {
            // Lossy codecs: close to what was written, on average within a few levels.
            const double diff =
                cv::norm(as_mat(frame.view()), as_mat(frames[static_cast<std::size_t>(n)].view()),
                         cv::NORM_L1) /
                (64.0 * 48.0 * 3.0);
            EXPECT_LT(diff, 8.0) << name << " frame " << n;
            ++n;
        }
        EXPECT_EQ(n, 12) << name;
    }
}

TEST(VideoStream, TheWriterRefusesWhatItCannotWrite) {
    ScratchDir dir;
    EXPECT_FALSE(media::is_video_path(dir.file("out.png")));
    EXPECT_THROW(media::VideoWriter(dir.file("out.png"), 8, 8, 25), InputError);
    EXPECT_THROW(media::VideoWriter(dir.file("no/such/dir/out.avi"), 8, 8, 25), InputError);
    media::VideoWriter writer(dir.file("out.avi"), 8, 8, 25);
    const Image gray = hs::test::uniform(8, 8, 1, SampleType::U8, 8);
    const Image bigger = hs::test::uniform(9, 8, 3, SampleType::U8, 8);
    const Image deep = hs::test::uniform(8, 8, 3, SampleType::U16, 16);
    for (const Image* bad : {&gray, &bigger, &deep})
        EXPECT_THROW(writer.write(bad->view()), InputError);
    writer.write(hs::test::uniform(8, 8, 3, SampleType::U8, 8).view());
}
