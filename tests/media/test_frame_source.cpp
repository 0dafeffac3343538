// media::FrameSource over raw frames (files, and standard input: live), as the CLI's streams and
// the desktop application's playback read them. Needs no OpenCV; a video's frames through it are
// checked in test_video.cpp.

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "histoscope/core/error.hpp"
#include "histoscope/media/frame_source.hpp"
#include "media_test_support.hpp"

using namespace hs;
using hs::test::message_of;
using hs::test::ScratchDir;
using hs::test::write_bytes;
using Status = media::FrameSource::Status;

namespace {

// `frames` frames of `frame_bytes` bytes, byte i of frame f being (f * 31 + i) mod 256, then
// `tail` bytes more (a frame cut short).
std::vector<std::uint8_t> frames_bytes(int frames, std::size_t frame_bytes, std::size_t tail = 0) {
    std::vector<std::uint8_t> out(static_cast<std::size_t>(frames) * frame_bytes + tail);
    for (std::size_t i = 0; i < out.size(); ++i)
        out[i] = static_cast<std::uint8_t>((i / frame_bytes) * 31 + i % frame_bytes);
    return out;
}

bool holds_frame(const ImageView& v, const std::vector<std::uint8_t>& bytes, int frame) {
    const std::size_t n = v.row_bytes() * static_cast<std::size_t>(v.height);
    return v.stride == v.row_bytes() &&
           std::memcmp(v.data, bytes.data() + static_cast<std::size_t>(frame) * n, n) == 0;
}

// Standard input of this test's process, read from `path` (each test runs in a process of its
// own).
void stdin_from(const std::string& path) {
    ASSERT_NE(std::freopen(path.c_str(), "rb", stdin), nullptr) << path;
}

const media::RawFormat kFormat{4, 2, 3, SampleType::U8, 8};  // 24 bytes a frame

}  // namespace

TEST(FrameSourceRaw, ReadsEveryFrameThenSaysTheCutOneAndEnds) {
    ScratchDir dir;
    const std::string path = dir.file("frames.raw");
    const auto bytes = frames_bytes(3, 24, 10);
    write_bytes(path, bytes);
    media::FrameSource source(path, kFormat, 30.0);
    EXPECT_EQ(source.format(), kFormat);
    EXPECT_EQ(source.video(), nullptr);
    EXPECT_EQ(source.frame_count(), 4);  // the cut one included, until it is read
    EXPECT_EQ(source.fps(), 30.0);
    EXPECT_TRUE(source.seekable());
    EXPECT_TRUE(source.ready());
    Image image;
    for (int f = 0; f < 3; ++f) {
        EXPECT_EQ(source.position(), f);
        ASSERT_EQ(source.read(image), Status::Ok) << source.failure();
        EXPECT_TRUE(holds_frame(image.view(), bytes, f)) << f;
        EXPECT_EQ(source.failure(), "");
        EXPECT_FALSE(source.corrupt());
    }
    EXPECT_EQ(source.read(image), Status::Failed);
    EXPECT_EQ(source.failure(), "frame 3 is truncated: the file ends after 10 of its 24 bytes");
    EXPECT_EQ(source.frame_count(), 3);
    EXPECT_EQ(source.read(image), Status::End);
    EXPECT_EQ(source.read(image), Status::End);
    EXPECT_EQ(source.position(), 4);
}

TEST(FrameSourceRaw, ReadIntoAndSeekGiveTheSameFrames) {
    ScratchDir dir;
    const std::string path = dir.file("frames.raw");
    const auto bytes = frames_bytes(5, 24);
    write_bytes(path, bytes);
    media::FrameSource source(path, kFormat);
    EXPECT_EQ(source.frame_count(), 5);
    EXPECT_EQ(source.fps(), 0.0);
    Image frame(4, 2, 3, SampleType::U8, 8);
    for (const std::int64_t index : {3, 0, 4, 1}) {
        source.seek(index);
        EXPECT_EQ(source.position(), index);
        ASSERT_EQ(source.read_into(frame.data()), Status::Ok) << index;
        EXPECT_TRUE(holds_frame(frame.view(), bytes, static_cast<int>(index))) << index;
    }
    source.seek(5);  // the end itself
    EXPECT_EQ(source.read_into(frame.data()), Status::End);
    for (const std::int64_t bad : {std::int64_t{6}, std::int64_t{-1}})
        EXPECT_EQ(
            message_of<InputError>([&] { source.seek(bad); }),
            "raw input '" + path + "' has no frame " + std::to_string(bad) + ": it holds 5 frames");
    // An image of another shape is given the frame's.
    Image other(9, 9, 1, SampleType::U16, 16);
    source.seek(2);
    ASSERT_EQ(source.read(other), Status::Ok);
    EXPECT_EQ(FrameFormat::of(other.view()), kFormat);
    EXPECT_TRUE(holds_frame(other.view(), bytes, 2));
}

TEST(FrameSourceRaw, AFileShorterThanOneFrameIsRefusedAtOnce) {
    ScratchDir dir;
    write_bytes(dir.file("short.raw"), std::vector<std::uint8_t>(5, 1));
    write_bytes(dir.file("empty.raw"), {});
    EXPECT_EQ(message_of<InputError>([&] { media::FrameSource(dir.file("short.raw"), kFormat); }),
              "raw input '" + dir.file("short.raw") +
                  "' has 5 bytes, shorter than one 4x2x3:u8 frame (24 bytes)");
    EXPECT_EQ(
        message_of<InputError>([&] { media::FrameSource(dir.file("empty.raw"), kFormat); }),
        "raw input '" + dir.file("empty.raw") + "' is empty (one 4x2x3:u8 frame is 24 bytes)");
    EXPECT_THROW(media::FrameSource(dir.file("missing.raw"), kFormat), InputError);
}

TEST(FrameSourceRaw, SamplesAboveTheDeclaredDepthFailThatFrameOnly) {
    ScratchDir dir;
    const std::string path = dir.file("deep.raw");
    const media::RawFormat format = media::parse_raw_format("2x1x1:u16:12");  // 4 bytes a frame
    // Frames 0 and 2 hold 4095 and 1; frame 1 holds 5000 (0x1388), above 12 bits.
    write_bytes(path, {0xFF, 0x0F, 0x01, 0x00, 0x88, 0x13, 0x00, 0x00, 0x01, 0x00, 0x02, 0x00});
    media::FrameSource source(path, format);
    Image image;
    ASSERT_EQ(source.read(image), Status::Ok);
    EXPECT_EQ(image.view().sample(0, 0, 0), 4095u);
    EXPECT_EQ(source.read(image), Status::Failed);
    EXPECT_EQ(source.failure().rfind("frame 1: sample value 5000 ", 0), 0u) << source.failure();
    ASSERT_EQ(source.read(image), Status::Ok) << source.failure();
    EXPECT_EQ(image.view().sample(1, 0, 0), 2u);
    EXPECT_EQ(source.read(image), Status::End);
}

TEST(FrameSourceLive, StandardInputIsCountedOnceItEndsAndCannotSeek) {
    ScratchDir dir;
    const std::string path = dir.file("in.raw");
    const auto bytes = frames_bytes(3, 24, 7);
    write_bytes(path, bytes);
    stdin_from(path);
    media::FrameSource source("-", kFormat, 0.0);
    EXPECT_FALSE(source.seekable());
    EXPECT_EQ(source.frame_count(), 0);  // unknown until it ends
    EXPECT_EQ(message_of<InputError>([&] { source.seek(1); }),
              "standard input cannot seek: its frames come once, in order");
    source.read_ahead();
    EXPECT_TRUE(source.ready());
    Image image;
    for (int f = 0; f < 3; ++f) {
        ASSERT_EQ(source.read(image), Status::Ok) << f << ": " << source.failure();
        EXPECT_TRUE(holds_frame(image.view(), bytes, f)) << f;
    }
    EXPECT_EQ(source.frame_count(), 0);
    EXPECT_EQ(source.read(image), Status::Failed);
    EXPECT_EQ(source.failure(), "frame 3 is truncated: the input ends after 7 of its 24 bytes");
    EXPECT_EQ(source.read(image), Status::End);
    EXPECT_EQ(source.frame_count(), 3);
}

TEST(FrameSourceLive, AnEmptyOrShortStandardInputIsSaidBeforeAFrameIsMade) {
    ScratchDir dir;
    write_bytes(dir.file("empty.raw"), {});
    write_bytes(dir.file("short.raw"), std::vector<std::uint8_t>(5000, 3));
    // A frame of 3 GB is never allocated for inputs that hold nothing or 5000 bytes.
    const media::RawFormat huge = media::parse_raw_format("32768x32768x3:u8");
    stdin_from(dir.file("empty.raw"));
    {
        media::FrameSource source("-", huge);
        EXPECT_EQ(message_of<InputError>([&] { source.read_ahead(); }),
                  "raw input on standard input is empty");
    }
    {
        media::FrameSource source("-", huge);
        Image image;
        EXPECT_EQ(source.read(image), Status::End);
        EXPECT_TRUE(image.empty());
        EXPECT_EQ(source.frame_count(), 0);
    }
    stdin_from(dir.file("short.raw"));
    {
        media::FrameSource source("-", huge);
        EXPECT_EQ(message_of<InputError>([&] { source.read_ahead(); }),
                  "raw input on standard input ends after 5000 bytes, inside its first "
                  "32768x32768x3:u8 frame (3221225472 bytes)");
    }
    stdin_from(dir.file("short.raw"));
    {
        media::FrameSource source("-", huge);
        Image image;
        EXPECT_EQ(source.read(image), Status::Failed);
        EXPECT_NE(source.failure().find("ends after 5000 bytes"), std::string::npos);
        EXPECT_TRUE(image.empty());
        EXPECT_EQ(source.read(image), Status::End);
    }
}

// A limited range's span at each depth, 16 and 235 scaled by 2^(depth-8): the samples strictly
// below black and strictly above white, of a plane of either sample type.
TEST(LumaExcursions, CountTheSamplesOutsideTheSpanAtEachDepth) {
    for (const int depth : {8, 10, 12, 16}) {
        const std::uint32_t black = 16u << (depth - 8), white = 235u << (depth - 8);
        const std::uint32_t top = (1u << depth) - 1u;
        const std::vector<std::uint32_t> values{
            0,         black - 1, black,     black + 1, 128u << (depth - 8),
            white - 1, white,     white + 1, top,       top};
        Image plane(5, 2, 1, depth > 8 ? SampleType::U16 : SampleType::U8, depth);
        for (int i = 0; i < 10; ++i)
            plane.set_sample(i % 5, i / 5, 0, values[static_cast<std::size_t>(i)]);
        const media::LumaExcursions e = media::luma_excursions(plane.view(), depth);
        EXPECT_EQ(e.black, black) << depth;
        EXPECT_EQ(e.white, white) << depth;
        EXPECT_EQ(e.below, 2u) << depth;  // 0 and black - 1
        EXPECT_EQ(e.above, 3u) << depth;  // white + 1 and the top twice
        EXPECT_EQ(e.samples, 10u) << depth;
    }
}
