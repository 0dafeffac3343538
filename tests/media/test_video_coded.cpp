// Video at its coded depth: VideoReader's Y', Cb, Cr planes and 16-bit R, G, B of deep clips,
// judged against the code values the clips were made from (tests/support/coded_video.hpp: raw
// planes encoded losslessly by the ffmpeg tool) and, for lossy ProRes, against the ffmpeg tool's
// own decode; frame counts of containers that store none; YCbCrToRgb against the real-valued
// formula.

#include <gtest/gtest.h>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <utility>

#include "coded_video.hpp"
#include "damaged_media.hpp"
#include "histoscope/core/error.hpp"
#include "histoscope/media/media.hpp"
#include "media_test_support.hpp"

using namespace hs;
using hs::test::CodedClip;
using hs::test::encode_clip;
using hs::test::message_of;
using hs::test::ScratchDir;

namespace {

constexpr const char* kLosslessHevc = "-c:v libx265 -x265-params lossless=1:log-level=error";

// The first plane sample that differs from the clip's frame `frame`, or "".
std::string plane_difference(const ImageView& plane, const CodedClip& clip, int p, int frame) {
    if (plane.width != clip.plane_width(p) || plane.height != clip.plane_height(p) ||
        plane.channels != 1 || plane.bit_depth != std::max(clip.depth, 8))
        return "plane " + std::to_string(p) + " is " + std::to_string(plane.width) + "x" +
               std::to_string(plane.height) + "/" + std::to_string(plane.bit_depth);
    for (int y = 0; y < plane.height; ++y)
        for (int x = 0; x < plane.width; ++x)
            if (plane.sample(x, y, 0) != clip.value(p, x, y, frame))
                return "plane " + std::to_string(p) + " (" + std::to_string(x) + "," +
                       std::to_string(y) + ") is " + std::to_string(plane.sample(x, y, 0)) +
                       ", coded " + std::to_string(clip.value(p, x, y, frame));
    return "";
}

std::string planes_difference(const media::VideoPlanes& planes, const CodedClip& clip, int frame) {
    const ImageView views[3] = {planes.y, planes.cb, planes.cr};
    for (int p = 0; p < 3; ++p)
        if (auto d = plane_difference(views[p], clip, p, frame); !d.empty()) return d;
    return "";
}

// The first pixel whose R, G, B is not YCbCrToRgb's of the clip's code values at it (each
// chroma sample serving the pixels it covers), or "".
std::string rgb_difference(const ImageView& rgb, const CodedClip& clip, int frame,
                           const media::YCbCrToRgb& t) {
    if (rgb.width != clip.width || rgb.height != clip.height ||
        rgb.channels != (clip.alpha ? 4 : 3) || rgb.type != SampleType::U16 ||
        rgb.bit_depth != clip.depth)
        return "the frame is " + FrameFormat::of(rgb).describe();
    for (int y = 0; y < clip.height; ++y)
        for (int x = 0; x < clip.width; ++x) {
            std::uint32_t want[3];
            t.convert(clip.value(0, x, y, frame),
                      clip.value(1, x >> clip.shift_x, y >> clip.shift_y, frame),
                      clip.value(2, x >> clip.shift_x, y >> clip.shift_y, frame), want);
            for (int c = 0; c < 3; ++c)
                if (rgb.sample(x, y, c) != want[c])
                    return "pixel (" + std::to_string(x) + "," + std::to_string(y) + ") channel " +
                           std::to_string(c) + " is " + std::to_string(rgb.sample(x, y, c)) +
                           ", not " + std::to_string(want[c]);
            if (clip.alpha && rgb.sample(x, y, 3) != clip.value(3, x, y, frame))
                return "pixel (" + std::to_string(x) + "," + std::to_string(y) + ") alpha is " +
                       std::to_string(rgb.sample(x, y, 3)) + ", coded " +
                       std::to_string(clip.value(3, x, y, frame));
        }
    return "";
}

// Reads every frame of `clip` from `video`, its planes too: each equals the clip's code values,
// and its R, G, B their conversion by `t`.
void expect_frames_exact(media::VideoReader& video, const CodedClip& clip,
                         const media::YCbCrToRgb& t) {
    video.set_planes(true);
    Image frame;
    for (int f = 0; f < clip.frames; ++f) {
        ASSERT_EQ(video.read_frame(frame), media::VideoReader::FrameStatus::Ok) << video.failure();
        EXPECT_EQ(planes_difference(video.planes(), clip, f), "") << f;
        EXPECT_EQ(rgb_difference(frame.view(), clip, f, t), "") << f;
    }
}

}  // namespace

TEST(VideoCoded, TenBitHevcInMatroskaGivesItsCodeValuesAndItsColours) {
    ScratchDir dir;
    const CodedClip clip;  // 96x64, 6 frames, yuv420p10le
    const std::string path = dir.file("clip.mkv");
    ASSERT_EQ(encode_clip(clip, path,
                          std::string(kLosslessHevc) +
                              " -color_range tv -colorspace bt709 -color_trc bt709 "
                              "-color_primaries bt709"),
              "");
    media::VideoReader video(path);
    // Matroska stores no frame count: the frames are counted, and nothing is cut.
    EXPECT_EQ(video.frame_count(), 6);
    EXPECT_TRUE(video.frames_counted());
    EXPECT_EQ(video.frames_in_file(), 6);
    EXPECT_EQ(video.missing_frames(), "");
    const media::VideoCoding& c = video.coding();
    EXPECT_EQ(c.pixel_format, "yuv420p10le");
    EXPECT_EQ(c.bit_depth, 10);
    EXPECT_EQ(c.family, "ycbcr");
    EXPECT_EQ(c.chroma, "4:2:0");
    EXPECT_EQ(c.matrix, "bt709");
    EXPECT_FALSE(c.matrix_assumed);
    EXPECT_FALSE(c.full_range);
    EXPECT_FALSE(c.range_assumed);
    EXPECT_EQ(c.transfer, "bt709");
    EXPECT_EQ(c.primaries, "bt709");
    EXPECT_EQ(video.frame_format(), (FrameFormat{96, 64, 3, SampleType::U16, 10}));

    const media::YCbCrToRgb t = media::YCbCrToRgb::make("bt709", false, 10);
    video.set_planes(true);
    Image frame;
    for (int f = 0; f < clip.frames; ++f) {
        ASSERT_EQ(video.position(), f);
        ASSERT_EQ(video.read_frame(frame), media::VideoReader::FrameStatus::Ok) << video.failure();
        EXPECT_EQ(planes_difference(video.planes(), clip, f), "") << "frame " << f;
        EXPECT_EQ(rgb_difference(frame.view(), clip, f, t), "") << "frame " << f;
    }
    EXPECT_EQ(video.read_frame(frame), media::VideoReader::FrameStatus::End);

    // Straight into a stream's buffer: the same samples.
    media::VideoReader again(path);
    std::vector<std::byte> packed(again.frame_format().frame_bytes());
    ASSERT_EQ(again.read_frame_into(packed.data()), media::VideoReader::FrameStatus::Ok);
    EXPECT_EQ(rgb_difference(again.frame_format().view(packed.data()), clip, 0, t), "");
}

TEST(VideoCoded, SeekingACountedClipLandsOnTheFrameAsked) {
    ScratchDir dir;
    CodedClip clip;
    clip.frames = 10;
    const std::string path = dir.file("clip.mkv");
    // Key frames every 4 frames, B-frames between: seeks decode from a key frame onwards.
    ASSERT_EQ(encode_clip(clip, path, std::string(kLosslessHevc) + ":keyint=4:min-keyint=4"), "");
    media::VideoReader video(path);
    ASSERT_EQ(video.frame_count(), 10);
    video.set_rgb(false);
    video.set_planes(true);
    Image unused;
    for (const int target : {7, 2, 9, 0, 5, 4, 8}) {
        video.seek(target);
        ASSERT_EQ(video.read_frame(unused), media::VideoReader::FrameStatus::Ok) << target;
        EXPECT_EQ(planes_difference(video.planes(), clip, target), "") << "seek " << target;
        EXPECT_TRUE(unused.empty()) << "no R, G, B asked for";
    }
    EXPECT_EQ(message_of<InputError>([&] { video.seek(10); }),
              "cannot seek '" + path + "' to frame 10: it has 10 frames (0..9)");
}

TEST(VideoCoded, TwelveBitFullRangeFfv1AndItsBt2020Colours) {
    ScratchDir dir;
    CodedClip clip;
    clip.depth = 12;
    clip.shift_x = clip.shift_y = 0;
    clip.frames = 3;
    clip.pix_fmt = "yuv444p12le";
    const std::string path = dir.file("clip.mkv");
    ASSERT_EQ(encode_clip(clip, path,
                          "-c:v ffv1 -level 3 -color_range pc -colorspace bt2020nc "
                          "-color_primaries bt2020 -color_trc smpte2084"),
              "");
    media::VideoReader video(path);
    const media::VideoCoding& c = video.coding();
    EXPECT_EQ(c.chroma, "4:4:4");
    EXPECT_EQ(c.matrix, "bt2020nc");
    EXPECT_TRUE(c.full_range);
    EXPECT_EQ(c.transfer, "smpte2084");
    EXPECT_EQ(c.primaries, "bt2020");
    const media::YCbCrToRgb t = media::YCbCrToRgb::make("bt2020nc", true, 12);
    expect_frames_exact(video, clip, t);
}

TEST(VideoCoded, SixteenBit422AndUnspecifiedColoursAreAssumed) {
    ScratchDir dir;
    CodedClip clip;
    clip.depth = 16;
    clip.shift_y = 0;
    clip.frames = 2;
    clip.pix_fmt = "yuv422p16le";
    const std::string path = dir.file("clip.mkv");
    ASSERT_EQ(encode_clip(clip, path, "-c:v ffv1 -level 3"), "");
    media::VideoReader video(path);
    const media::VideoCoding& c = video.coding();
    EXPECT_EQ(c.chroma, "4:2:2");
    // 64 lines: the Rec.601 guess; limited range, as Y'CbCr without a word is taken.
    EXPECT_EQ(c.matrix, "smpte170m");
    EXPECT_TRUE(c.matrix_assumed);
    EXPECT_FALSE(c.full_range);
    EXPECT_TRUE(c.range_assumed);
    const media::YCbCrToRgb t = media::YCbCrToRgb::make("smpte170m", false, 16);
    expect_frames_exact(video, clip, t);
}

// 8-bit streams keep their conversion (OpenCV's, frame for frame) and give their planes too.
TEST(VideoCoded, EightBitMatroskaKeepsOpenCVsColoursAndGivesItsPlanes) {
    ScratchDir dir;
    CodedClip clip;
    clip.depth = 8;
    clip.frames = 4;
    clip.pix_fmt = "yuv420p";
    const std::string path = dir.file("clip.mkv");
    ASSERT_EQ(encode_clip(clip, path, "-c:v ffv1 -color_range pc"), "");
    media::VideoReader video(path);
    EXPECT_TRUE(video.coding().full_range);
    EXPECT_FALSE(video.coding().range_assumed);
    EXPECT_EQ(video.frame_format(), (FrameFormat{96, 64, 3, SampleType::U8, 8}));
    EXPECT_EQ(video.frame_count(), 4);
    cv::VideoCapture cap(path, cv::CAP_FFMPEG);
    video.set_planes(true);
    Image frame;
    for (int f = 0; f < clip.frames; ++f) {
        ASSERT_EQ(video.read_frame(frame), media::VideoReader::FrameStatus::Ok) << video.failure();
        EXPECT_EQ(planes_difference(video.planes(), clip, f), "") << f;
        cv::Mat bgr, rgb;
        ASSERT_TRUE(cap.read(bgr)) << f;
        cv::cvtColor(bgr, rgb, cv::COLOR_BGR2RGB);
        const ImageView v = frame.view();
        const cv::Mat ours(v.height, v.width, CV_8UC3, const_cast<std::byte*>(v.data), v.stride);
        EXPECT_EQ(cv::norm(ours, rgb, cv::NORM_INF), 0.0) << "frame " << f;
    }
}

// ProRes is lossy: its planes are judged against the ffmpeg tool's decode of the same file.
TEST(VideoCoded, ProRes4444TwelveBitPlanesEqualTheFfmpegToolsDecode) {
    ScratchDir dir;
    CodedClip clip;
    clip.width = 64;
    clip.height = 48;
    clip.depth = 12;
    clip.shift_x = clip.shift_y = 0;
    clip.alpha = true;
    clip.frames = 3;
    clip.pix_fmt = "yuva444p12le";
    const std::string path = dir.file("clip.mov");
    ASSERT_EQ(encode_clip(clip, path, "-c:v prores_ks -profile:v 4444"), "");
    const std::vector<std::uint8_t> decoded = hs::test::ffmpeg_decode(path, "yuva444p12le");
    const std::size_t plane_bytes = std::size_t{64} * 48 * 2;
    ASSERT_EQ(decoded.size(), plane_bytes * 4 * 3);

    media::VideoReader video(path);
    EXPECT_EQ(video.frame_count(), 3);
    EXPECT_FALSE(video.frames_counted());
    EXPECT_EQ(video.coding().pixel_format, "yuva444p12le");
    EXPECT_TRUE(video.coding().alpha);
    video.set_planes(true);
    Image frame;
    for (int f = 0; f < 3; ++f) {
        ASSERT_EQ(video.read_frame(frame), media::VideoReader::FrameStatus::Ok) << video.failure();
        const media::VideoPlanes planes = video.planes();
        const ImageView views[3] = {planes.y, planes.cb, planes.cr};
        for (int p = 0; p < 3; ++p) {
            const std::uint8_t* want =
                decoded.data() +
                (static_cast<std::size_t>(f) * 4 + static_cast<std::size_t>(p)) * plane_bytes;
            bool same = true;
            for (int y = 0; y < 48 && same; ++y)
                same = std::memcmp(views[p].row(y), want + static_cast<std::size_t>(y) * 128,
                                   128) == 0;
            EXPECT_TRUE(same) << "frame " << f << " plane " << p;
        }
        // The frame's fourth channel is the decoded alpha plane, sample for sample.
        ASSERT_EQ(FrameFormat::of(frame.view()), (FrameFormat{64, 48, 4, SampleType::U16, 12}));
        const std::uint8_t* alpha =
            decoded.data() + (static_cast<std::size_t>(f) * 4 + 3) * plane_bytes;
        bool same = true;
        for (int y = 0; y < 48; ++y)
            for (int x = 0; x < 64; ++x) {
                const std::size_t i =
                    (static_cast<std::size_t>(y) * 64 + static_cast<std::size_t>(x)) * 2;
                same = same && frame.view().sample(x, y, 3) ==
                                   static_cast<std::uint32_t>(alpha[i] | alpha[i + 1] << 8);
            }
        EXPECT_TRUE(same) << "frame " << f << " alpha";
    }
}

// Deep alpha planes (FFV1, lossless) come as the frames' fourth channel, exactly as coded, beside
// the Y'CbCr conversion or the R'G'B' planes.
TEST(VideoCoded, DeepAlphaIsTheFourthChannelAsCoded) {
    ScratchDir dir;
    // A 4:4:4 clip with alpha of `depth` bits in `pix_fmt`, in FFV1 (lossless).
    const auto alpha_clip = [&](int depth, const std::string& pix_fmt, const std::string& extra) {
        CodedClip clip;
        clip.depth = depth;
        clip.shift_x = clip.shift_y = 0;
        clip.alpha = true;
        clip.frames = 2;
        clip.pix_fmt = pix_fmt;
        const std::string path = dir.file(pix_fmt + ".mkv");
        EXPECT_EQ(encode_clip(clip, path, "-c:v ffv1 -level 3" + extra), "");
        return std::pair{clip, path};
    };
    {
        const auto [clip, path] = alpha_clip(10, "yuva444p10le", " -colorspace bt709");
        media::VideoReader video(path);
        EXPECT_TRUE(video.coding().alpha);
        EXPECT_TRUE(video.coding().alpha_read);
        EXPECT_EQ(video.frame_format(), (FrameFormat{96, 64, 4, SampleType::U16, 10}));
        expect_frames_exact(video, clip, media::YCbCrToRgb::make("bt709", false, 10));
    }
    {
        const auto [clip, path] = alpha_clip(12, "gbrap12le", "");  // planes G, B, R, A
        media::VideoReader video(path);
        EXPECT_EQ(video.frame_format(), (FrameFormat{96, 64, 4, SampleType::U16, 12}));
        Image frame;
        for (int f = 0; f < 2; ++f) {
            ASSERT_EQ(video.read_frame(frame), media::VideoReader::FrameStatus::Ok);
            bool same = true;
            for (int y = 0; y < 64; ++y)
                for (int x = 0; x < 96; ++x)
                    for (int c = 0; c < 4; ++c)
                        same = same && frame.view().sample(x, y, c) ==
                                           clip.value(c == 3 ? 3 : (c + 2) % 3, x, y, f);
            EXPECT_TRUE(same) << f;
        }
    }
    {
        // 8-bit alpha is left out, as OpenCV leaves it: R, G, B as before.
        const auto [clip, path] = alpha_clip(8, "yuva444p", "");
        media::VideoReader video(path);
        EXPECT_TRUE(video.coding().alpha);
        EXPECT_FALSE(video.coding().alpha_read);
        EXPECT_EQ(video.frame_format(), (FrameFormat{96, 64, 3, SampleType::U8, 8}));
    }
}

// Deep frames written to Matroska are FFV1, lossless: gray, R, G, B and R, G, B, A of any depth
// read back sample for sample (at FFV1's depth at least theirs), odd sizes whole; other
// containers and 8-bit frames other than R, G, B are refused.
TEST(VideoCoded, DeepFramesWrittenToMatroskaReadBackExactly) {
    ScratchDir dir;
    const struct {
        FrameFormat format;
        const char* pixels;
        int depth_back;
    } cases[] = {{{96, 64, 3, SampleType::U16, 10}, "gbrp10le", 10},
                 {{95, 63, 4, SampleType::U16, 12}, "gbrap12le", 12},
                 {{33, 17, 1, SampleType::U16, 16}, "gray16le", 16},
                 {{40, 30, 3, SampleType::U16, 11}, "gbrp12le", 12}};
    for (const auto& c : cases) {
        const std::string path = dir.file("deep_" + std::string(c.pixels) + ".mkv");
        std::vector<Image> frames;
        for (int f = 0; f < 3; ++f) {
            Image img(c.format, nullptr);
            const std::uint32_t max = img.view().max_value();
            for (int y = 0; y < img.height(); ++y)
                for (int x = 0; x < img.width(); ++x)
                    for (int ch = 0; ch < img.channels(); ++ch)
                        img.set_sample(x, y, ch,
                                       (static_cast<std::uint32_t>(x * 7919 + y * 104729 +
                                                                   ch * 1299709 + f * 15485863) *
                                        2654435761u) %
                                           (max + 1));
            img.set_sample(0, 0, 0, max);  // both ends of the range
            img.set_sample(1, 0, 0, 0);
            frames.push_back(std::move(img));
        }
        {
            media::VideoWriter writer(path, c.format, 24.0);
            for (const Image& f : frames) writer.write(f.view());
            writer.close();
        }
        media::VideoReader video(path);
        EXPECT_EQ(video.coding().pixel_format, c.pixels);
        FrameFormat back = c.format;
        back.bit_depth = c.depth_back;
        ASSERT_EQ(video.frame_format(), back) << c.pixels;
        Image frame;
        for (std::size_t f = 0; f < frames.size(); ++f) {
            ASSERT_EQ(video.read_frame(frame), media::VideoReader::FrameStatus::Ok)
                << video.failure();
            const ImageView a = frame.view(), b = frames[f].view();
            bool same = true;
            for (int y = 0; y < a.height; ++y)
                same = same && std::memcmp(a.row(y), b.row(y), a.row_bytes()) == 0;
            EXPECT_TRUE(same) << c.pixels << " frame " << f;
        }
        EXPECT_EQ(video.read_frame(frame), media::VideoReader::FrameStatus::End);
    }
    const FrameFormat deep{16, 16, 3, SampleType::U16, 10};
    EXPECT_THROW(media::VideoWriter(dir.file("deep.mp4"), deep, 24.0), InputError);
    EXPECT_THROW(media::VideoWriter(dir.file("deep.avi"), deep, 24.0), InputError);
    EXPECT_THROW(media::VideoWriter(dir.file("rgba8.mkv"), FrameFormat{16, 16, 4}, 24.0),
                 InputError);
    // A frame of another format than the writer's is refused, and nothing is left behind.
    {
        media::VideoWriter writer(dir.file("mismatch.mkv"), deep, 24.0);
        EXPECT_THROW(writer.write(Image(16, 16, 3, SampleType::U16, 12).view()), InputError);
    }
    EXPECT_FALSE(std::filesystem::exists(dir.file("mismatch.mkv")));
}

TEST(VideoCoded, DeepGrayAndRgbStreamsKeepTheirSamples) {
    ScratchDir dir;
    {
        // Gray: plane 0 of a clip alone (raw() would write three planes).
        CodedClip gray;
        gray.depth = 12;
        const std::string path = dir.file("gray.mkv");
        std::vector<std::uint8_t> bytes;
        for (int f = 0; f < 2; ++f)
            for (int y = 0; y < 64; ++y)
                for (int x = 0; x < 96; ++x) {
                    const std::uint32_t v = gray.value(0, x, y, f);
                    bytes.push_back(static_cast<std::uint8_t>(v & 0xFF));
                    bytes.push_back(static_cast<std::uint8_t>(v >> 8));
                }
        hs::test::write_bytes(path + ".raw", bytes);
        const auto r = hs::test::run_command(
            "ffmpeg -nostdin -loglevel error -y -f rawvideo -pix_fmt gray12le -s 96x64 -r 24 -i " +
            hs::test::shell_quote(path + ".raw") + " -c:v ffv1 -level 3 " +
            hs::test::shell_quote(path));
        ASSERT_EQ(r.exit_code, 0) << r.err;
        media::VideoReader video(path);
        EXPECT_EQ(video.coding().family, "gray");
        EXPECT_EQ(video.frame_format(), (FrameFormat{96, 64, 1, SampleType::U16, 12}));
        EXPECT_THROW(video.set_planes(true), InputError);
        Image frame;
        for (int f = 0; f < 2; ++f) {
            ASSERT_EQ(video.read_frame(frame), media::VideoReader::FrameStatus::Ok);
            EXPECT_EQ(plane_difference(frame.view(), gray, 0, f), "") << f;
        }
    }
    {
        CodedClip clip;  // gbrp10le: planes G, B, R
        clip.shift_x = clip.shift_y = 0;
        clip.frames = 2;
        clip.pix_fmt = "gbrp10le";
        const std::string path = dir.file("rgb.mkv");
        ASSERT_EQ(encode_clip(clip, path, "-c:v ffv1 -level 3"), "");
        media::VideoReader video(path);
        EXPECT_EQ(video.coding().family, "rgb");
        EXPECT_EQ(video.frame_format(), (FrameFormat{96, 64, 3, SampleType::U16, 10}));
        Image frame;
        for (int f = 0; f < 2; ++f) {
            ASSERT_EQ(video.read_frame(frame), media::VideoReader::FrameStatus::Ok);
            bool same = true;
            for (int y = 0; y < 64; ++y)
                for (int x = 0; x < 96; ++x)
                    same = same && frame.view().sample(x, y, 0) == clip.value(2, x, y, f) &&
                           frame.view().sample(x, y, 1) == clip.value(0, x, y, f) &&
                           frame.view().sample(x, y, 2) == clip.value(1, x, y, f);
            EXPECT_TRUE(same) << f;
        }
    }
}

// A Matroska file cut short demuxes cleanly up to the cut: the duration its header declares
// says how many frames it was to hold; the frames it still holds are exact.
TEST(VideoCoded, ACutMatroskaClipSaysSoAndItsFramesStayExact) {
    ScratchDir dir;
    const CodedClip clip;
    const std::string whole = dir.file("clip.mkv"), cut = dir.file("cut.mkv");
    ASSERT_EQ(encode_clip(clip, whole, std::string(kLosslessHevc) + ":keyint=1"), "");
    hs::test::write_prefix(whole, cut, hs::test::read_bytes(whole).size() / 2);
    media::VideoReader video(cut);
    EXPECT_TRUE(video.frames_counted());
    EXPECT_EQ(video.frame_count(), 6) << "0.25 s at 24 fps";
    EXPECT_LT(video.frames_in_file(), 6);
    EXPECT_GE(video.frames_in_file(), 1);
    EXPECT_NE(video.missing_frames().find("before the 0.250 s its container declares"),
              std::string::npos)
        << video.missing_frames();
    video.set_planes(true);
    Image frame;
    int ok = 0;
    for (int f = 0;; ++f) {
        const auto status = video.read_frame(frame);
        if (status == media::VideoReader::FrameStatus::End) break;
        ASSERT_LT(f, 6);
        if (status == media::VideoReader::FrameStatus::Failed) continue;
        ++ok;
        EXPECT_EQ(planes_difference(video.planes(), clip, f), "") << f;
    }
    EXPECT_GE(ok, 1);
    EXPECT_LE(ok, video.frames_in_file());
}

// A file cut short: every frame its container declares (a count, an index or a duration) is
// reported in its place, read or failed, the frames past the cut failed with the reason, and
// then the end; the frames the file still holds whole are exact.
TEST(VideoCoded, EveryFrameACutFileDeclaresIsReportedInItsPlace) {
    ScratchDir dir;
    CodedClip clip;
    clip.frames = 12;
    const struct {
        const char* name;
        std::string codec;
    } files[] = {
        {"counted.mkv", std::string(kLosslessHevc) + ":keyint=4:min-keyint=4:bframes=2"},
        {"indexed.mp4",
         std::string(kLosslessHevc) + ":keyint=4:min-keyint=4:bframes=2" + " -movflags +faststart"},
        {"ffv1.mov", "-c:v ffv1 -level 3 -movflags +faststart"},
    };
    for (const auto& file : files) {
        const std::string whole = dir.file(file.name),
                          cut = dir.file(std::string("cut_") + file.name);
        ASSERT_EQ(encode_clip(clip, whole, file.codec), "") << file.name;
        hs::test::write_prefix(whole, cut, hs::test::read_bytes(whole).size() * 6 / 10);
        for (const int threads : {1, 3}) {
            media::DecodeOptions options;
            options.decoder_threads = threads;
            media::VideoReader video(cut, options);
            ASSERT_EQ(video.frame_count(), 12) << file.name;
            const std::int64_t in_file = video.frames_in_file();
            ASSERT_LT(in_file, 12) << file.name;
            video.set_planes(true);
            Image frame;
            int ok = 0, last_ok = -1;
            for (int f = 0; f < 12; ++f) {
                ASSERT_EQ(video.position(), f) << file.name;
                const auto status = video.read_frame(frame);
                ASSERT_NE(status, media::VideoReader::FrameStatus::End) << file.name << " " << f;
                if (status == media::VideoReader::FrameStatus::Ok) {
                    ++ok;
                    last_ok = f;
                    EXPECT_EQ(planes_difference(video.planes(), clip, f), "") << file.name << f;
                    continue;
                }
                EXPECT_NE(video.failure().find("frame " + std::to_string(f) + " of "),
                          std::string::npos)
                    << video.failure();
                if (f > last_ok + 3) {  // past what the decoder still held
                    EXPECT_NE(video.failure().find("its data is missing: the file ends before "
                                                   "it (12 frames declared, " +
                                                   std::to_string(in_file) + " in the file)"),
                              std::string::npos)
                        << file.name << ": " << video.failure();
                }
            }
            EXPECT_EQ(video.read_frame(frame), media::VideoReader::FrameStatus::End) << file.name;
            EXPECT_GE(ok, in_file - 3) << file.name;
            EXPECT_LE(ok, in_file) << file.name;
        }
    }
}

namespace {

// What a reader made of every frame of a clip: status, reason, planes.
struct Decoded {
    std::vector<std::string> rows;  // "ok|failed|corrupt: reason", per number
    std::vector<std::string> planes;
};

// The samples of Y', Cb and Cr, plane after plane, row after row.
std::string planes_bytes(const media::VideoPlanes& p) {
    std::string bytes;
    for (const ImageView& v : {p.y, p.cb, p.cr})
        for (int y = 0; y < v.height; ++y)
            bytes.append(reinterpret_cast<const char*>(v.row(y)), v.row_bytes());
    return bytes;
}

Decoded decode_all(const std::string& path, int threads, bool tolerant) {
    media::DecodeOptions options;
    options.allow_corrupt = tolerant;
    options.decoder_threads = threads;
    media::VideoReader video(path, options);
    video.set_rgb(false);
    video.set_planes(true);
    Decoded out;
    Image unused;
    for (;;) {
        const auto status = video.read_frame(unused);
        if (status == media::VideoReader::FrameStatus::End) break;
        if (status == media::VideoReader::FrameStatus::Failed) {
            out.rows.push_back("failed: " + video.failure());
            out.planes.emplace_back();
            continue;
        }
        out.rows.push_back(video.corrupt() ? "corrupt: " + video.failure() : "ok");
        out.planes.push_back(planes_bytes(video.planes()));
    }
    return out;
}

// Frame `frame` of `clip` as decode_all() keeps planes (little-endian 16-bit samples).
std::string coded_bytes(const CodedClip& clip, int frame) {
    std::string out;
    for (int p = 0; p < 3; ++p)
        for (int y = 0; y < clip.plane_height(p); ++y)
            for (int x = 0; x < clip.plane_width(p); ++x) {
                const std::uint32_t v = clip.value(p, x, y, frame);
                out += static_cast<char>(v & 0xFFu);
                out += static_cast<char>(v >> 8);
            }
    return out;
}

}  // namespace

// Damage in 10-bit HEVC clips decoded on frame threads is reported as one thread reports it
// (the reports of each packet filed under it by its tag): the same frames failed or corrupt,
// for the same reasons, and the same pixels delivered. Every frame before the damage is the
// frame coded under its number. (HEVC's decoder passes some garbage without a word, as
// Cinepak's does, so frames after the damage are judged against one thread only.)
TEST(VideoCoded, DamagedHevcOnFrameThreadsIsReportedAsOnOneThread) {
    ScratchDir dir;
    CodedClip clip;
    clip.frames = 24;
    const std::string whole = dir.file("clip.mkv");
    ASSERT_EQ(encode_clip(clip, whole, std::string(kLosslessHevc) + ":keyint=6:min-keyint=6"), "");
    const std::vector<std::uint8_t> bytes = hs::test::read_bytes(whole);
    int reported = 0;
    for (const double at : {0.25, 0.5, 0.8})
        for (const std::size_t span : {std::size_t{40}, std::size_t{3000}}) {
            const std::string damaged = dir.file("damaged.mkv");
            std::vector<std::uint8_t> copy = bytes;
            const auto start = static_cast<std::size_t>(static_cast<double>(copy.size()) * at);
            for (std::size_t i = start; i < start + span; ++i)
                copy[i] = static_cast<std::uint8_t>((i * 7) & 0xFF);
            hs::test::write_bytes(damaged, copy);
            for (const bool tolerant : {false, true}) {
                const Decoded one = decode_all(damaged, 1, tolerant);
                for (const int threads : {2, 4}) {
                    const Decoded many = decode_all(damaged, threads, tolerant);
                    ASSERT_EQ(many.rows, one.rows) << at << " " << span << " " << threads;
                    EXPECT_TRUE(many.planes == one.planes) << at << " " << span << " " << threads;
                }
                ASSERT_LE(one.rows.size(), 24u);
                for (const std::string& row : one.rows) reported += row != "ok";
                // Frames of the GOPs before the damaged bytes: exact.
                const auto clean = static_cast<std::size_t>(24.0 * at) / 6 * 6 - 6;
                for (std::size_t f = 0; f < std::min(clean, one.rows.size()); ++f) {
                    ASSERT_EQ(one.rows[f], "ok") << at << " " << span << " frame " << f;
                    EXPECT_TRUE(one.planes[f] == coded_bytes(clip, static_cast<int>(f))) << f;
                }
            }
        }
    EXPECT_GE(reported, 1) << "some damage is reported";
}

namespace {

// Frame N of `path`, read in order or sought (in the order `targets` lists), is the N-th frame
// the ffmpeg tool decodes (as its select filter numbers them): their planes, sample for sample.
void expect_frames_as_ffmpeg_numbers_them(const std::string& path, const std::string& pix_fmt,
                                          int frames, const std::vector<int>& targets) {
    const std::vector<std::uint8_t> decoded = hs::test::ffmpeg_decode(path, pix_fmt);
    ASSERT_FALSE(decoded.empty());
    const std::size_t bytes = decoded.size() / static_cast<std::size_t>(frames);
    ASSERT_EQ(bytes * static_cast<std::size_t>(frames), decoded.size());
    const auto ffmpeg_frame = [&](int f) {
        return std::string(
            reinterpret_cast<const char*>(decoded.data()) + bytes * static_cast<std::size_t>(f),
            bytes);
    };
    const Decoded in_order = decode_all(path, 1, false);
    ASSERT_EQ(in_order.rows.size(), static_cast<std::size_t>(frames)) << path;
    for (int f = 0; f < frames; ++f) {
        EXPECT_EQ(in_order.rows[static_cast<std::size_t>(f)], "ok") << path << " " << f;
        EXPECT_TRUE(in_order.planes[static_cast<std::size_t>(f)] == ffmpeg_frame(f))
            << path << " frame " << f;
    }
    media::VideoReader video(path);
    ASSERT_EQ(video.frame_count(), frames);
    video.set_rgb(false);
    video.set_planes(true);
    Image unused;
    for (const int target : targets) {
        video.seek(target);
        ASSERT_EQ(video.read_frame(unused), media::VideoReader::FrameStatus::Ok)
            << path << " seek " << target << ": " << video.failure();
        EXPECT_TRUE(planes_bytes(video.planes()) == ffmpeg_frame(target))
            << path << " seek " << target;
    }
}

}  // namespace

// B-frames and open GOPs in MP4, whose index holds decoding times: every key frame after the
// first is decoded before frames it is shown after (leading pictures), and frames are numbered
// in presentation order, read in order or sought.
TEST(VideoCoded, BFramesOfAnMp4AreNumberedInPresentationOrderReadOrSought) {
    ScratchDir dir;
    // 10-bit HEVC remuxed from Matroska, as users do: the MP4's clock of 16000 ticks a second
    // does not divide the frame period at 24 fps, so that presentation and decoding times
    // fall a tick or two apart.
    CodedClip clip;
    clip.frames = 24;
    const std::string mkv = dir.file("clip.mkv"), mp4 = dir.file("clip.mp4");
    ASSERT_EQ(encode_clip(clip, mkv,
                          std::string(kLosslessHevc) +
                              ":keyint=8:min-keyint=8:bframes=3:b-adapt=0:open-gop=1"),
              "");
    const auto remux = hs::test::run_command("ffmpeg -nostdin -loglevel error -y -i " +
                                             hs::test::shell_quote(mkv) + " -c copy " +
                                             hs::test::shell_quote(mp4));
    ASSERT_EQ(remux.exit_code, 0) << remux.err;
    expect_frames_as_ffmpeg_numbers_them(mp4, "yuv420p10le", 24,
                                         {6, 7, 14, 2, 23, 15, 0, 22, 8, 21, 13});
    const Decoded in_order = decode_all(mp4, 1, false);
    for (int f = 0; f < 24; ++f)
        EXPECT_TRUE(in_order.planes[static_cast<std::size_t>(f)] == coded_bytes(clip, f)) << f;

    // H.264 with open GOPs: a seek to a leading picture lands on the key frame it is shown
    // before, whose leading pictures lack their references when decoding starts there.
    CodedClip eight;
    eight.depth = 8;
    eight.frames = 30;
    eight.pix_fmt = "yuv420p";
    const std::string h264 = dir.file("h264.mp4");
    ASSERT_EQ(encode_clip(eight, h264,
                          "-c:v libx264 -qp 0 -x264-params "
                          "keyint=10:min-keyint=10:bframes=3:b-adapt=0:open-gop=1:log-level=error"),
              "");
    expect_frames_as_ffmpeg_numbers_them(h264, "yuv420p", 30, {9, 19, 18, 29, 3, 17, 8, 28, 0});
}

namespace {

// A 10-bit HEVC clip with B-frames in Matroska whose frames after the 8th come twice as far
// apart (24 fps, then 12): a variable frame rate, as a camera that slows down records it.
std::string encode_variable_rate(const CodedClip& clip, const std::string& mkv) {
    return encode_clip(clip, mkv,
                       "-vf \"setpts=(N+max(N-8\\,0))/24/TB\" -vsync vfr " +
                           std::string(kLosslessHevc) + ":keyint=12:min-keyint=12:bframes=3");
}

}  // namespace

// The same clip remuxed to MP4, as users do: an MP4's index holds decoding times, and a
// B-frame's presentation time is its decoding time plus an offset of its own, which differs
// from frame to frame where the rate changes. Every frame is there, whole, numbered in
// presentation order as ffmpeg numbers them, read in order or sought.
TEST(VideoCoded, AVariableRateMp4WithBFramesHasEveryFrameInPresentationOrder) {
    ScratchDir dir;
    CodedClip clip;
    clip.frames = 24;
    const std::string mkv = dir.file("vfr.mkv"), mp4 = dir.file("vfr.mp4");
    ASSERT_EQ(encode_variable_rate(clip, mkv), "");
    const auto remux = hs::test::run_command("ffmpeg -nostdin -loglevel error -y -i " +
                                             hs::test::shell_quote(mkv) + " -c copy " +
                                             hs::test::shell_quote(mp4));
    ASSERT_EQ(remux.exit_code, 0) << remux.err;
    const Decoded decoded = decode_all(mp4, 1, false);
    ASSERT_EQ(decoded.rows.size(), 24u);
    for (int f = 0; f < 24; ++f) {
        EXPECT_EQ(decoded.rows[static_cast<std::size_t>(f)], "ok") << f;
        EXPECT_TRUE(decoded.planes[static_cast<std::size_t>(f)] == coded_bytes(clip, f)) << f;
    }
    media::VideoReader video(mp4);
    EXPECT_EQ(video.frame_count(), 24);
    video.set_rgb(false);
    video.set_planes(true);
    Image unused;
    for (const int target : {9, 8, 20, 7, 23, 0, 15}) {
        video.seek(target);
        ASSERT_EQ(video.read_frame(unused), media::VideoReader::FrameStatus::Ok)
            << "seek " << target << ": " << video.failure();
        EXPECT_TRUE(planes_bytes(video.planes()) == coded_bytes(clip, target)) << target;
    }
}

// A clip's rate is its nominal one where every frame's time lies on its grid: a clip of one rate
// remuxed to MP4 (whose 16000 ticks a second round the times, so that FFmpeg's average over its
// frames is not 24) and a variable rate whose frames are whole periods apart are at 24 fps. Times
// that fit no rate give their average.
TEST(VideoCoded, TheFrameRateIsTheNominalOneWhereEveryFrameLiesOnItsGrid) {
    ScratchDir dir;
    CodedClip clip;
    clip.frames = 24;
    const std::string mkv = dir.file("clip.mkv"), mp4 = dir.file("clip.mp4"),
                      vfr = dir.file("vfr.mkv"), vfr_mp4 = dir.file("vfr.mp4"),
                      spaced = dir.file("spaced.mkv");
    ASSERT_EQ(encode_clip(clip, mkv, std::string(kLosslessHevc) + ":bframes=3"), "");
    ASSERT_EQ(encode_variable_rate(clip, vfr), "");
    const auto copy = [](const std::string& from, const std::string& to,
                         const std::string& options) {
        return hs::test::run_command("ffmpeg -nostdin -loglevel error -y -i " +
                                     hs::test::shell_quote(from) + " -c copy " + options + " " +
                                     hs::test::shell_quote(to))
            .exit_code;
    };
    ASSERT_EQ(copy(mkv, mp4, ""), 0);
    ASSERT_EQ(copy(vfr, vfr_mp4, ""), 0);
    // Every 57 ms: no rate of whole milliseconds (the Matroska clock) holds those times.
    CodedClip intra = clip;
    const std::string intra_mkv = dir.file("intra.mkv");
    ASSERT_EQ(encode_clip(intra, intra_mkv, std::string(kLosslessHevc) + ":bframes=0"), "");
    ASSERT_EQ(copy(intra_mkv, spaced, "-bsf:v setts=ts=N*57"), 0);

    const auto average = hs::test::run_command(
        "ffprobe -v error -select_streams v -show_entries stream=avg_frame_rate -of csv=p=0 " +
        hs::test::shell_quote(mp4));
    ASSERT_NE(average.out, "24/1\n") << "FFmpeg's average is the nominal rate: nothing to test";
    for (const std::string& path : {mkv, mp4, vfr, vfr_mp4}) {
        const media::VideoReader video(path);
        EXPECT_EQ(video.fps(), 24.0) << path;
        EXPECT_TRUE(video.fps_nominal()) << path;
    }
    const media::VideoReader video(spaced);
    EXPECT_FALSE(video.fps_nominal());
    EXPECT_NEAR(video.fps(), 1000.0 / 57.0, 1e-9);
}

// A clip whose first group of pictures is damaged (its key frame garbled) has a first frame that
// can be read all the same: the first of the next group, under its own number, with the reasons
// of the frames before it, each naming its frame. A clip of which no frame decodes has none, and
// says so.
TEST(VideoCoded, TheFirstGoodFrameOfAClipWhoseFirstGroupIsDamaged) {
    ScratchDir dir;
    CodedClip clip;
    clip.frames = 24;
    const std::string whole = dir.file("clip.mkv"), damaged = dir.file("damaged.mkv"),
                      single = dir.file("single.mkv"), lost = dir.file("lost.mkv");
    ASSERT_EQ(
        encode_clip(clip, whole, std::string(kLosslessHevc) + ":keyint=12:min-keyint=12:bframes=0"),
        "");
    const auto garble_first = [](const std::string& from, const std::string& to) {
        const std::vector<hs::test::PacketSpan> packets = hs::test::video_packets(from);
        ASSERT_FALSE(packets.empty());
        ASSERT_GT(packets[0].size, 1500u);
        std::string bytes = hs::test::slurp(from);
        bytes.replace(packets[0].pos + 300, 1000, 1000, '\xff');
        std::ofstream(to, std::ios::binary) << bytes;
    };
    garble_first(whole, damaged);

    media::VideoReader video(damaged);
    video.set_rgb(false);
    video.set_planes(true);
    Image frame;
    std::vector<std::string> failed{"left from before"};
    ASSERT_EQ(video.read_first_good(frame, failed), media::VideoReader::FrameStatus::Ok)
        << video.failure();
    ASSERT_EQ(failed.size(), 12u);
    for (std::size_t f = 0; f < failed.size(); ++f)
        EXPECT_EQ(failed[f].rfind("frame " + std::to_string(f) + " of ", 0), 0u) << failed[f];
    EXPECT_EQ(video.position(), 13);
    EXPECT_TRUE(planes_bytes(video.planes()) == coded_bytes(clip, 12));

    // One frame, damaged: its own reason; several, none of which decodes: how many.
    CodedClip one = clip;
    one.frames = 1;
    ASSERT_EQ(encode_clip(one, dir.file("one.mkv"), kLosslessHevc), "");
    garble_first(dir.file("one.mkv"), single);
    CodedClip gop = clip;
    gop.frames = 6;
    ASSERT_EQ(encode_clip(gop, dir.file("gop.mkv"), std::string(kLosslessHevc) + ":bframes=0"), "");
    garble_first(dir.file("gop.mkv"), lost);
    {
        media::VideoReader none(single);
        EXPECT_EQ(none.read_first_good(frame, failed), media::VideoReader::FrameStatus::End);
        ASSERT_EQ(failed.size(), 1u);
        EXPECT_EQ(none.failure(), failed.front());
    }
    media::VideoReader none(lost);
    EXPECT_EQ(none.read_first_good(frame, failed), media::VideoReader::FrameStatus::End);
    ASSERT_EQ(failed.size(), 6u);
    EXPECT_EQ(none.failure(), "'" + lost + "' holds no frame that decodes: " + failed.front() +
                                  ", and the 5 after it fail too");
}

// Matroska stores no frame count: its frames are counted and numbered from a pass over its
// packets, and a hole between their timestamps is a lost frame only where the file says so. A
// variable frame rate leaves holes on the grid of its nominal rate: no frame is lost there.
// Packets the demuxer lost to damage, where it reported the damage, are frames failed in their
// place, and so are those before the first packet it found, back to the start its declared
// duration gives: the frames after them keep their numbers.
TEST(VideoCoded, AHoleInMatroskaTimestampsIsALostFrameOnlyWhereTheFileIsDamaged) {
    ScratchDir dir;
    CodedClip clip;
    clip.frames = 24;
    const std::string vfr = dir.file("vfr.mkv");
    ASSERT_EQ(encode_variable_rate(clip, vfr), "");
    {
        media::VideoReader video(vfr);
        EXPECT_EQ(video.frame_count(), 24);
        EXPECT_EQ(video.frames_in_file(), 24);
        EXPECT_EQ(video.missing_frames(), "");
        const Decoded decoded = decode_all(vfr, 1, false);
        ASSERT_EQ(decoded.rows.size(), 24u);
        for (int f = 0; f < 24; ++f) {
            EXPECT_EQ(decoded.rows[static_cast<std::size_t>(f)], "ok") << f;
            EXPECT_TRUE(decoded.planes[static_cast<std::size_t>(f)] == coded_bytes(clip, f)) << f;
        }
    }

    // One frame rate, a cluster every 200 ms (5 frames), damage at a packet's block header: the
    // demuxer reports it and goes on at the next cluster.
    const std::string whole = dir.file("clip.mkv");
    ASSERT_EQ(encode_clip(clip, whole,
                          std::string(kLosslessHevc) +
                              ":keyint=6:min-keyint=6:bframes=2 -cluster_time_limit 200"),
              "");
    const std::vector<hs::test::PacketSpan> packets = hs::test::video_packets(whole);
    ASSERT_EQ(packets.size(), 24u);
    struct Case {
        std::size_t packet;       // in file order, whose block header is overwritten
        std::string said;         // in missing_frames()
        int first_lost, ok_from;  // the first frame lost, and a frame from which all are whole
    };
    for (const Case& c : {Case{8, "the packets of", 1, 18}, Case{0, "its first", 0, 6}}) {
        // From the block's ID (0xA3, then its size in 3 bytes: ffprobe's position is that of
        // the block's track number, before its time and flags) into its data.
        const std::size_t from = packets[c.packet].pos - 4;
        std::vector<std::uint8_t> bytes = hs::test::read_bytes(whole);
        ASSERT_EQ(bytes.at(from), 0xA3) << c.packet;
        for (std::size_t i = from; i < packets[c.packet].pos + 36; ++i) bytes.at(i) = 0;
        const std::string damaged = dir.file("damaged.mkv");
        hs::test::write_bytes(damaged, bytes);
        media::VideoReader video(damaged);
        EXPECT_EQ(video.frame_count(), 24) << c.packet;
        EXPECT_LT(video.frames_in_file(), 24) << c.packet;
        EXPECT_NE(video.missing_frames().find(c.said), std::string::npos)
            << c.packet << ": " << video.missing_frames();
        const Decoded decoded = decode_all(damaged, 1, false);
        ASSERT_EQ(decoded.rows.size(), 24u) << c.packet;
        int missing = 0;
        for (int f = 0; f < 24; ++f) {
            const std::string& row = decoded.rows[static_cast<std::size_t>(f)];
            if (row == "ok") {
                EXPECT_TRUE(decoded.planes[static_cast<std::size_t>(f)] == coded_bytes(clip, f))
                    << c.packet << ": frame " << f << " is not the frame coded under its number ";
                continue;
            }
            EXPECT_GE(f, c.first_lost) << c.packet << ": " << row;
            EXPECT_LT(f, c.ok_from) << c.packet << ": " << row;
            missing += row.find("its data is missing from the file") != std::string::npos;
        }
        EXPECT_GE(missing, 1) << c.packet;
        if (c.first_lost == 0) {
            EXPECT_NE(decoded.rows[0].find("its data is missing from the file"), std::string::npos)
                << decoded.rows[0];
        }
    }
}

// Damage that the decoders refuse, that they report through helpers of their own, and a file cut
// short, decoded on frame threads: the same frames failed or corrupt for the same reasons, the
// same pixels, as on one thread, run after run. (The reports of packets decoded after a frame
// arrive while it waits, or not, as the threads go; an error a decoder returns on frame threads
// is the oldest packet's in flight.)
TEST(VideoCoded, DamageOnFrameThreadsIsReportedAsOnOneThreadWhateverTheTiming) {
    ScratchDir dir;
    CodedClip clip;
    clip.frames = 24;
    const std::string mkv = dir.file("hevc.mkv"), hevc = dir.file("hevc.mp4"),
                      front = dir.file("front.mp4");
    ASSERT_EQ(
        encode_clip(clip, mkv,
                    std::string(kLosslessHevc) + ":keyint=8:min-keyint=8:bframes=3:b-adapt=0"),
        "");
    for (const auto& [mp4, flags] :
         {std::pair{hevc, ""}, std::pair{front, " -movflags +faststart"}})
        ASSERT_EQ(hs::test::run_command("ffmpeg -nostdin -loglevel error -y -i " +
                                        hs::test::shell_quote(mkv) + " -c copy" + flags + " " +
                                        hs::test::shell_quote(mp4))
                      .exit_code,
                  0);
    CodedClip prores_clip;
    prores_clip.frames = 12;
    prores_clip.pix_fmt = "yuv422p10le";
    prores_clip.shift_y = 0;
    const std::string prores = dir.file("prores.mov");
    ASSERT_EQ(encode_clip(prores_clip, prores, "-c:v prores_ks -profile:v 3"), "");
    const std::string ffv1 = dir.file("ffv1.mkv");
    ASSERT_EQ(encode_clip(clip, ffv1, "-c:v ffv1 -level 3 -slices 4 -slicecrc 1 -g 6"), "");

    // Copies of `from` with the bytes at each (offset, bytes) replaced.
    const auto damaged =
        [&](const std::string& from, const std::string& name,
            const std::vector<std::pair<std::size_t, std::vector<std::uint8_t>>>& patches) {
            std::vector<std::uint8_t> bytes = hs::test::read_bytes(from);
            for (const auto& [at, with] : patches)
                for (std::size_t i = 0; i < with.size(); ++i) bytes.at(at + i) = with[i];
            const std::string path = dir.file(name);
            hs::test::write_bytes(path, bytes);
            return path;
        };
    const std::vector<hs::test::PacketSpan> h = hs::test::video_packets(hevc);
    const std::vector<hs::test::PacketSpan> p = hs::test::video_packets(prores);
    const std::vector<hs::test::PacketSpan> f = hs::test::video_packets(ffv1);
    ASSERT_EQ(h.size(), 24u);
    ASSERT_EQ(p.size(), 12u);
    ASSERT_EQ(f.size(), 24u);
    const std::vector<std::uint8_t> huge{0x7F, 0xFF, 0xFF, 0xF0}, garbage(200, 0xA5);
    struct Case {
        std::string path, words;  // a report that must be among the rows
    };
    const std::vector<Case> cases{
        // HEVC packets whose first NAL unit's length runs past their end: refused.
        {damaged(hevc, "nal.mp4", {{h[5].pos, huge}, {h[13].pos, huge}}), "Invalid NAL unit size"},
        // ProRes frames 256 times too large, which libavutil's size check refuses ("Picture
        // size ... is invalid", through a context of its own), the next one garbage.
        {damaged(prores, "size.mov",
                 {{p[4].pos + 16, {0xFF, 0xFF, 0xFF, 0xFF}},
                  {p[5].pos + 200, garbage},
                  {p[9].pos + 16, {0xFF, 0xFF, 0xFF, 0xFF}}}),
         "Picture size"},
        // FFV1 frames whose slices fail their checksums, several in one frame, and frames
        // after them that carry on from their state until a key frame.
        {damaged(ffv1, "slices.mkv",
                 {{f[6].pos + f[6].size / 4, garbage},
                  {f[6].pos + f[6].size * 3 / 4, garbage},
                  {f[15].pos + f[15].size / 2, garbage}}),
         "slice CRC mismatch"},
        // The HEVC clip in MP4 (its index in front) cut inside its 11th packet in decoding
        // order, a B-frame's.
        {dir.file("cut.mp4"), "could not be decoded"},
    };
    const std::vector<hs::test::PacketSpan> m = hs::test::video_packets(front);
    ASSERT_EQ(m.size(), 24u);
    hs::test::write_prefix(front, cases.back().path, m[10].pos + m[10].size / 2);
    for (const Case& c : cases)
        for (const bool tolerant : {false, true}) {
            const Decoded one = decode_all(c.path, 1, tolerant);
            std::string all;
            for (const std::string& row : one.rows) all += row + "\n";
            EXPECT_NE(all.find(c.words), std::string::npos) << c.path << "\n" << all;
            EXPECT_NE(all.find("ok"), std::string::npos) << c.path << "\n" << all;
            for (int run = 0; run < 3; ++run)
                for (const int threads : {2, 3, 4}) {
                    const Decoded many = decode_all(c.path, threads, tolerant);
                    ASSERT_EQ(many.rows, one.rows) << c.path << " on " << threads << " threads";
                    // The pixels of frames delivered whole; those of corrupt ones are what the
                    // decoder made up in place of what is missing, on its threads.
                    for (std::size_t n = 0; n < one.rows.size(); ++n)
                        if (one.rows[n] == "ok") {
                            EXPECT_TRUE(many.planes[n] == one.planes[n])
                                << c.path << " on " << threads << " threads, frame " << n;
                        }
                }
        }
}

// HEVC's decoded picture hash, which a frame fails when its samples are not the ones coded: the
// decoder prints the reason in parts (the words, then each byte of both MD5 sums, then the end of
// the line), and the frame's reason is the whole line, on one thread as on frame threads.
TEST(VideoCoded, APictureHashFailureIsReportedWithBothSums) {
    ScratchDir dir;
    CodedClip clip;
    clip.frames = 6;
    const std::string whole = dir.file("clip.mkv");
    ASSERT_EQ(encode_clip(clip, whole,
                          std::string(kLosslessHevc) + ":hash=1:keyint=6:min-keyint=6:bframes=0"),
              "");
    // The MD5 sum of each frame's Y' plane (little-endian samples, as the picture hash takes
    // them), from the ffmpeg tool.
    const auto sums =
        hs::test::run_command("ffmpeg -nostdin -loglevel error -i " + hs::test::shell_quote(whole) +
                              " -vf extractplanes=y -f framemd5 -");
    ASSERT_EQ(sums.exit_code, 0) << sums.err;
    std::vector<std::string> md5;
    std::istringstream lines(sums.out);
    for (std::string line; std::getline(lines, line);)
        if (!line.empty() && line[0] != '#') md5.push_back(line.substr(line.rfind(' ') + 1));
    ASSERT_EQ(md5.size(), 6u);
    // Frame 3's sum in the file (the hash SEI of its picture), its first byte changed: the
    // frame is the one coded, its hash no longer.
    std::vector<std::uint8_t> bytes = hs::test::read_bytes(whole);
    std::vector<std::uint8_t> digest;
    for (std::size_t i = 0; i < 32; i += 2)
        digest.push_back(static_cast<std::uint8_t>(std::stoi(md5[3].substr(i, 2), nullptr, 16)));
    const auto at = std::search(bytes.begin(), bytes.end(), digest.begin(), digest.end());
    ASSERT_NE(at, bytes.end()) << "frame 3's Y' sum is not in the file";
    *at ^= 0x5A;
    std::string stored = md5[3];
    const char hex[] = "0123456789abcdef";
    stored[0] = hex[*at >> 4];
    stored[1] = hex[*at & 0xF];
    const std::string damaged = dir.file("hash.mkv");
    hs::test::write_bytes(damaged, bytes);
    const std::string reason =
        "frame 3 of '" + damaged +
        "' is corrupt (the decoder reported: mismatching checksum of plane 0 - " + md5[3] +
        " != " + stored + ")";
    for (const int threads : {1, 2}) {
        const Decoded decoded = decode_all(damaged, threads, false);
        ASSERT_EQ(decoded.rows.size(), 6u);
        for (int f = 0; f < 3; ++f) EXPECT_EQ(decoded.rows[static_cast<std::size_t>(f)], "ok") << f;
        EXPECT_EQ(decoded.rows[3], "failed: " + reason) << threads << " threads";
    }
}

// A 10-bit HEVC clip whose only key frame is damaged: no frame of it decodes whole, so that it
// is no video to read, unless damaged frames are kept (allow_corrupt); then probing it with
// those options finds a video, whose frames decoded from the damaged data are delivered marked
// and whose others are failed, each in its place.
TEST(VideoCoded, AClipWhoseOnlyKeyFrameIsDamagedIsReadWithAllowCorrupt) {
    ScratchDir dir;
    CodedClip clip;
    clip.frames = 12;
    const std::string whole = dir.file("clip.mkv"), path = dir.file("damaged.mkv");
    // Lossy: HEVC's decoder reads garbage in lossless data without a word; bits all set run its
    // arithmetic decoder past its limits.
    ASSERT_EQ(encode_clip(clip, whole, "-c:v libx265 -x265-params bframes=3:log-level=error"), "");
    const std::vector<hs::test::PacketSpan> packets = hs::test::video_packets(whole);
    ASSERT_EQ(packets.size(), 12u);
    ASSERT_GT(packets[0].size, 1500u);
    std::vector<std::uint8_t> bytes = hs::test::read_bytes(whole);
    for (std::size_t i = 0; i < 1000; ++i) bytes.at(packets[0].pos + 300 + i) = 0xFF;
    hs::test::write_bytes(path, bytes);

    EXPECT_EQ(message_of<InputError>([&] { (void)media::probe(path); }),
              "'" + path + "' holds no frame that decodes");
    media::DecodeOptions tolerant;
    tolerant.allow_corrupt = true;
    EXPECT_EQ(media::probe(media::Source(path, tolerant), tolerant), media::MediaKind::Video);
    const Decoded kept = decode_all(path, 1, true);
    ASSERT_EQ(kept.rows.size(), 12u);
    int corrupt = 0;
    for (std::size_t f = 0; f < kept.rows.size(); ++f) {
        const std::string& row = kept.rows[f];
        const std::string named = "frame " + std::to_string(f) + " of '" + path + "'";
        EXPECT_TRUE(row.rfind("corrupt: " + named + " is corrupt (", 0) == 0 ||
                    row.rfind("failed: " + named + " could not be decoded (", 0) == 0)
            << row;
        corrupt += row.rfind("corrupt: ", 0) == 0;
    }
    EXPECT_GE(corrupt, 1);
}

TEST(VideoCoded, AMatroskaFileWithABadHeaderIsAnInputError) {
    ScratchDir dir;
    const CodedClip clip;
    const std::string whole = dir.file("clip.mkv"), bad = dir.file("bad.mkv");
    ASSERT_EQ(encode_clip(clip, whole, kLosslessHevc), "");
    std::vector<std::uint8_t> bytes = hs::test::read_bytes(whole);
    for (std::size_t i = 4; i < 40; ++i) bytes[i] = 0xFF;  // the EBML header's elements
    hs::test::write_bytes(bad, bytes);
    EXPECT_THROW(media::VideoReader v(bad), InputError);
}

// The integer formula against the real-valued one it rounds: never more than one code value
// apart, and exact where the real values are whole (black, white, grey, the primaries' ends).
TEST(YCbCrToRgb, FollowsTheRealValuedFormulaWithinOneCodeValue) {
    struct Matrix {
        const char* name;
        double kr, kb;
    };
    for (const Matrix m : {Matrix{"bt709", 0.2126, 0.0722}, Matrix{"smpte170m", 0.299, 0.114},
                           Matrix{"bt2020nc", 0.2627, 0.0593}})
        for (const int depth : {8, 10, 12, 16})
            for (const bool full : {false, true}) {
                const media::YCbCrToRgb t = media::YCbCrToRgb::make(m.name, full, depth);
                const double max = std::ldexp(1.0, depth) - 1, unit = std::ldexp(1.0, depth - 8);
                const double y0 = full ? 0 : 16 * unit, sy = full ? max : 219 * unit,
                             sc = full ? max : 224 * unit, c0 = std::ldexp(1.0, depth - 1);
                const double kg = 1 - m.kr - m.kb;
                const std::uint32_t step = std::max(1u, static_cast<std::uint32_t>(max) / 37);
                for (std::uint32_t Y = 0; Y <= max; Y += step)
                    for (std::uint32_t Cb = 0; Cb <= max; Cb += step)
                        for (std::uint32_t Cr = 0; Cr <= max; Cr += step) {
                            const double ey = (Y - y0) / sy, eb = (Cb - c0) / sc,
                                         er = (Cr - c0) / sc;
                            const double r = ey + 2 * (1 - m.kr) * er;
                            const double b = ey + 2 * (1 - m.kb) * eb;
                            const double g = (ey - m.kr * r - m.kb * b) / kg;
                            std::uint32_t got[3];
                            t.convert(Y, Cb, Cr, got);
                            const double want[3] = {r, g, b};
                            for (int c = 0; c < 3; ++c) {
                                const double v = std::clamp(want[c] * max, 0.0, max);
                                ASSERT_LE(std::abs(got[c] - v), 1.0)
                                    << m.name << " " << depth << (full ? " full" : " limited")
                                    << " Y'CbCr " << Y << "," << Cb << "," << Cr << " c" << c;
                            }
                        }
                // Nominal black and white, and grey: every channel equal, exact.
                const auto y_of = [&](double e) {
                    return static_cast<std::uint32_t>(std::lround(y0 + e * sy));
                };
                const auto c = static_cast<std::uint32_t>(c0);
                std::uint32_t black[3], white[3];
                t.convert(y_of(0), c, c, black);
                t.convert(y_of(1), c, c, white);
                for (int k = 0; k < 3; ++k) {
                    EXPECT_EQ(black[k], 0u) << m.name << depth;
                    EXPECT_EQ(white[k], static_cast<std::uint32_t>(max)) << m.name << depth;
                }
            }
    EXPECT_THROW(media::YCbCrToRgb::make("ycgco", false, 10), InputError);
}
