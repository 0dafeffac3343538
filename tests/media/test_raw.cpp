// Raw frames and magic-byte probing: the part of hs::media that needs no OpenCV. Built and run
// with and without OpenCV; the last tests check what a build without it reports.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <utility>
#include <vector>

#include "histoscope/core/error.hpp"
#include "histoscope/media/media.hpp"
#include "media_test_support.hpp"

using namespace hs;
using hs::test::message_of;
using hs::test::ScratchDir;
using hs::test::write_bytes;

namespace {

bool contains(const std::string& haystack, const std::string& needle) {
    return haystack.find(needle) != std::string::npos;
}

}  // namespace

TEST(RawFormat, ParsesTheFourForms) {
    const media::RawFormat a = media::parse_raw_format("640x480x3:u8");
    EXPECT_EQ(a.width, 640);
    EXPECT_EQ(a.height, 480);
    EXPECT_EQ(a.channels, 3);
    EXPECT_EQ(a.type, SampleType::U8);
    EXPECT_EQ(a.bit_depth, 8);
    EXPECT_EQ(a.frame_bytes(), 921600u);

    const media::RawFormat b = media::parse_raw_format("1920x1080x1:u16");
    EXPECT_EQ(b.type, SampleType::U16);
    EXPECT_EQ(b.bit_depth, 16);
    EXPECT_EQ(b.frame_bytes(), 1920u * 1080u * 2u);

    const media::RawFormat c = media::parse_raw_format("16x8x4:u16:12");
    EXPECT_EQ(c.channels, 4);
    EXPECT_EQ(c.bit_depth, 12);
    EXPECT_EQ(c.frame_bytes(), 16u * 8u * 4u * 2u);

    const media::RawFormat d = media::parse_raw_format("7x5x3:f32");
    EXPECT_EQ(d.type, SampleType::F32);
    EXPECT_EQ(d.bit_depth, 32);
    EXPECT_EQ(d.frame_bytes(), 7u * 5u * 3u * 4u);
    EXPECT_EQ(media::parse_raw_format("7x5x3:f32:32"), d);

    EXPECT_EQ(media::parse_raw_format("1x1x1:u8:8").bit_depth, 8);
    EXPECT_EQ(media::parse_raw_format("65536x65536x4:u16:8").frame_bytes(),
              std::size_t{65536} * 65536 * 4 * 2);
}

TEST(RawFormat, ToStringRoundTrips) {
    for (const std::string text :
         {"640x480x3:u8", "1920x1080x1:u16", "16x8x4:u16:12", "1x1x1:u16:8", "3x2x4:f32"})
        EXPECT_EQ(media::to_string(media::parse_raw_format(text)), text);
    // The redundant depths are dropped.
    EXPECT_EQ(media::to_string(media::parse_raw_format("2x2x1:u8:8")), "2x2x1:u8");
    EXPECT_EQ(media::to_string(media::parse_raw_format("2x2x1:u16:16")), "2x2x1:u16");
}

TEST(RawFormat, MalformedTextIsAUsageErrorNamingTheExpectedForm) {
    for (const std::string text : {"",
                                   "640x480",
                                   "640x480x3",
                                   "640x480x3:",
                                   "640x480x3:u32",
                                   "640x480x3:f16",
                                   "640x480x3:f32:16",
                                   "640x480x3:f32:",
                                   "640x480x2:u8",
                                   "640x480x5:u8",
                                   "640x480x0:u8",
                                   "0x480x3:u8",
                                   "640x0x3:u8",
                                   "65537x1x1:u8",
                                   "1x65537x1:u8",
                                   "-1x2x3:u8",
                                   "+1x2x3:u8",
                                   " 1x2x3:u8",
                                   "1x2x3:u8 ",
                                   "axbxc:u8",
                                   "1x2x3:u16:7",
                                   "1x2x3:u16:17",
                                   "1x2x3:u8:12",
                                   "1x2x3:u8:",
                                   "1x2x3:u16:",
                                   "1x2x3:u16:12:1",
                                   "1x2x3x4:u8",
                                   "1X2X3:u8",
                                   "1x2x3:U8",
                                   "99999999999999999999x1x1:u8",
                                   "1.5x2x3:u8",
                                   "1x2x3u8",
                                   "1x2x3::u8"}) {
        const std::string m = message_of<UsageError>([&] { (void)media::parse_raw_format(text); });
        EXPECT_TRUE(contains(m, "WxHxC:u8")) << "'" << text << "': " << m;
        EXPECT_TRUE(contains(m, "'" + text + "'")) << "'" << text << "': " << m;
    }
}

TEST(RawRead, ReadsFloatFramesAsStoredNonFiniteValuesIncluded) {
    ScratchDir dir;
    const auto format = media::parse_raw_format("3x2x1:f32");
    const std::vector<float> values{0.5f,
                                    -0.0f,
                                    std::numeric_limits<float>::infinity(),
                                    std::numeric_limits<float>::quiet_NaN(),
                                    1e-45f,
                                    3.0e38f};
    std::vector<std::uint8_t> bytes(values.size() * 4);
    for (std::size_t i = 0; i < values.size(); ++i) {
        std::uint32_t bits = 0;
        std::memcpy(&bits, &values[i], 4);
        for (int b = 0; b < 4; ++b)  // little-endian, whatever the host
            bytes[i * 4 + static_cast<std::size_t>(b)] = static_cast<std::uint8_t>(bits >> (8 * b));
    }
    write_bytes(dir.file("f.raw"), bytes);
    const media::RawFrames raw = media::read_raw(dir.file("f.raw"), format);
    ASSERT_EQ(raw.frames.size(), 1u);
    const ImageView v = raw.frames[0].view();
    EXPECT_EQ(v.type, SampleType::F32);
    for (int i = 0; i < 6; ++i) {
        const float got = v.sample_f32(i % 3, i / 3, 0);
        std::uint32_t a = 0, b = 0;
        std::memcpy(&a, &got, 4);
        std::memcpy(&b, &values[static_cast<std::size_t>(i)], 4);
        EXPECT_EQ(a, b) << i;  // bit for bit: -0 stays -0, the NaN its payload
    }
    EXPECT_EQ(media::non_finite_note(v),
              "1 sample is NaN and 1 sample is infinite: the histograms count them apart, as "
              "non-finite");
    Image finite(2, 1, 3, SampleType::F32, 32);
    EXPECT_EQ(media::non_finite_note(finite.view()), "");
    Image integer(2, 1, 3, SampleType::U16, 16);
    EXPECT_EQ(media::non_finite_note(integer.view()), "");
}

TEST(RawRead, ReadsEveryEightBitFrame) {
    ScratchDir dir;
    const auto format = media::parse_raw_format("4x3x3:u8");
    std::vector<std::uint8_t> bytes(format.frame_bytes() * 2);
    for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<std::uint8_t>(i % 251);
    write_bytes(dir.file("two.bin"), bytes);

    const media::RawFrames raw = media::read_raw(dir.file("two.bin"), format);
    EXPECT_EQ(media::to_string(raw.format), "4x3x3:u8");
    ASSERT_EQ(raw.frames.size(), 2u);
    for (std::size_t f = 0; f < 2; ++f) {
        const ImageView v = raw.frames[f].view();
        EXPECT_EQ(v.width, 4);
        EXPECT_EQ(v.height, 3);
        EXPECT_EQ(v.channels, 3);
        EXPECT_EQ(v.type, SampleType::U8);
        for (int y = 0; y < 3; ++y)
            for (int x = 0; x < 4; ++x)
                for (int c = 0; c < 3; ++c) {
                    const std::size_t i =
                        f * format.frame_bytes() + static_cast<std::size_t>((y * 4 + x) * 3 + c);
                    ASSERT_EQ(v.sample(x, y, c), i % 251) << f << " " << x << "," << y;
                }
    }
}

TEST(RawRead, SixteenBitSamplesAreLittleEndianAndKeepTheDeclaredDepth) {
    ScratchDir dir;
    write_bytes(dir.file("deep.bin"), {0x34, 0x02, 0xFF, 0x0F, 0x01, 0x00});
    const media::RawFrames raw =
        media::read_raw(dir.file("deep.bin"), media::parse_raw_format("3x1x1:u16:12"));
    ASSERT_EQ(raw.frames.size(), 1u);
    const ImageView v = raw.frames[0].view();
    EXPECT_EQ(v.type, SampleType::U16);
    EXPECT_EQ(v.bit_depth, 12);
    EXPECT_EQ(v.sample(0, 0, 0), 0x0234u);
    EXPECT_EQ(v.sample(1, 0, 0), 0x0FFFu);  // the largest 12-bit value
    EXPECT_EQ(v.sample(2, 0, 0), 1u);
}

TEST(RawRead, SamplesAboveTheDeclaredDepthAreRefused) {
    ScratchDir dir;
    write_bytes(dir.file("deep.bin"), {0x34, 0x02, 0x00, 0x10, 0x01, 0x00});  // 0x1000 = 4096
    const auto format = media::parse_raw_format("3x1x1:u16:12");
    const std::string m =
        message_of<InputError>([&] { (void)media::read_raw(dir.file("deep.bin"), format); });
    EXPECT_EQ(m,
              "sample value 4096 (sample 1 of the frame) exceeds the 12-bit depth of raw format "
              "3x1x1:u16:12 (is the format right?)");
    EXPECT_THROW((void)media::read_raw_frame(dir.file("deep.bin"), format, 0), InputError);
    // At 16 bits every value is a sample.
    EXPECT_NO_THROW(
        (void)media::read_raw(dir.file("deep.bin"), media::parse_raw_format("3x1x1:u16")));
}

TEST(RawRead, AnInputShorterThanOneFrameIsAnInputError) {
    ScratchDir dir;
    const std::string path = dir.file("x.bin");
    write_bytes(path, std::vector<std::uint8_t>(1000, 7));
    const std::string m = message_of<InputError>(
        [&] { (void)media::read_raw(path, media::parse_raw_format("640x480x3:u8")); });
    EXPECT_EQ(m, "raw input '" + path +
                     "' has 1000 bytes, shorter than one 640x480x3:u8 frame (921600 bytes)");
}

// Whole frames and the start of another: the whole frames are read, by every reader, and the
// one cut short is said (a note), refused when asked for, and named beyond it.
TEST(RawRead, TheWholeFramesBeforeAFrameCutShortAreRead) {
    ScratchDir dir;
    const std::string path = dir.file("cut.bin");
    const auto format = media::parse_raw_format("3x2x1:u16");  // 12-byte frames
    std::vector<std::uint8_t> bytes(2 * 12 + 5);
    for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<std::uint8_t>(i);
    write_bytes(path, bytes);
    const std::string note = "raw input '" + path +
                             "' holds 2 whole frames; frame 2 is truncated: the file ends after "
                             "5 of its 12 bytes";

    const media::RawFrames all = media::read_raw(path, format);
    ASSERT_EQ(all.frames.size(), 2u);
    EXPECT_EQ(all.extra_bytes, 5u);
    EXPECT_EQ(all.truncated, note);
    EXPECT_EQ(all.frames[1].view().sample(0, 0, 0), 12u + 13u * 256u);

    const media::RawFrame one = media::read_raw_frame(path, format, 1);
    EXPECT_EQ(one.frames, 2);
    EXPECT_EQ(one.extra_bytes, 5u);
    EXPECT_EQ(one.truncated, note);
    EXPECT_EQ(one.image.view().sample(2, 1, 0), 22u + 23u * 256u);
    EXPECT_EQ(
        message_of<InputError>([&] { (void)media::read_raw_frame(path, format, 2); }),
        "raw input '" + path + "': frame 2 is truncated: the file ends after 5 of its 12 bytes");
    EXPECT_EQ(message_of<InputError>([&] { (void)media::read_raw_frame(path, format, 3); }),
              "raw input '" + path +
                  "' has no frame 3: it holds 2 whole frames (0..1) and a truncated frame 2");

    // A whole number of frames says nothing.
    write_bytes(path, std::vector<std::uint8_t>(24, 1));
    EXPECT_EQ(media::read_raw_frame(path, format, 0).truncated, "");
    EXPECT_EQ(media::read_raw(path, format).truncated, "");
}

TEST(RawRead, FrameCountOfASizeIsTheCheckEveryReaderMakes) {
    const auto format = media::parse_raw_format("2x2x1:u16:12");  // 8-byte frames
    const auto count = [&](std::uint64_t bytes) {
        const media::RawFrameCount c = media::raw_frame_count(bytes, format, "the file");
        return std::pair{c.frames, c.extra_bytes};
    };
    EXPECT_EQ(count(8), (std::pair<std::int64_t, std::uint64_t>{1, 0}));
    EXPECT_EQ(count(24), (std::pair<std::int64_t, std::uint64_t>{3, 0}));
    EXPECT_EQ(count(25), (std::pair<std::int64_t, std::uint64_t>{3, 1}));
    EXPECT_EQ(count(31), (std::pair<std::int64_t, std::uint64_t>{3, 7}));
    EXPECT_EQ(message_of<InputError>([&] { media::raw_frame_count(7, format, "the file"); }),
              "the file has 7 bytes, shorter than one 2x2x1:u16:12 frame (8 bytes)");
    EXPECT_EQ(message_of<InputError>([&] { media::raw_frame_count(0, format, "the file"); }),
              "the file is empty (one 2x2x1:u16:12 frame is 8 bytes)");
    EXPECT_THROW(media::raw_frame_count(8, media::RawFormat{0, 0, 1}, "x"), UsageError);
    EXPECT_EQ(media::truncated_raw_frame(3, 1, format, "input"),
              "frame 3 is truncated: the input ends after 1 of its 8 bytes");
}

TEST(RawRead, EmptyAndMissingFilesAreInputErrors) {
    ScratchDir dir;
    const std::string empty = dir.file("empty.bin");
    write_bytes(empty, {});
    const auto format = media::parse_raw_format("2x2x1:u8");
    const std::string m = message_of<InputError>([&] { (void)media::read_raw(empty, format); });
    EXPECT_TRUE(contains(m, "'" + empty + "'")) << m;
    EXPECT_TRUE(contains(m, "empty")) << m;

    const std::string missing = dir.file("missing.bin");
    const std::string n = message_of<InputError>([&] { (void)media::read_raw(missing, format); });
    EXPECT_EQ(n, "cannot read '" + missing + "': No such file or directory");

    const std::string d =
        message_of<InputError>([&] { (void)media::read_raw(dir.path().string(), format); });
    EXPECT_TRUE(contains(d, "cannot read '" + dir.path().string() + "'")) << d;
}

TEST(RawRead, DashReadsStandardInput) {
    ScratchDir dir;
    write_bytes(dir.file("in.bin"), {1, 2, 3, 4, 5, 6, 7, 8});
    ASSERT_NE(std::freopen(dir.file("in.bin").c_str(), "rb", stdin), nullptr);
    const media::RawFrames raw = media::read_raw("-", media::parse_raw_format("2x2x1:u8"));
    ASSERT_EQ(raw.frames.size(), 2u);
    EXPECT_EQ(raw.frames[1].view().sample(1, 1, 0), 8u);

    write_bytes(dir.file("none.bin"), {});
    ASSERT_NE(std::freopen(dir.file("none.bin").c_str(), "rb", stdin), nullptr);
    const std::string m = message_of<InputError>(
        [&] { (void)media::read_raw("-", media::parse_raw_format("2x2x1:u8")); });
    EXPECT_TRUE(contains(m, "standard input")) << m;
    EXPECT_TRUE(contains(m, "empty")) << m;
    ASSERT_NE(std::freopen("/dev/null", "rb", stdin), nullptr);
}

TEST(RawStream, ReadsFramesOneAtATimeAndReportsATruncatedLastFrame) {
    ScratchDir dir;
    const std::string path = dir.file("stream.bin");
    const auto format = media::parse_raw_format("3x2x1:u16");
    std::vector<std::uint8_t> bytes(format.frame_bytes() * 2 + 5);
    for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<std::uint8_t>(i * 3);
    write_bytes(path, bytes);
    media::RawStreamReader reader(path, format);
    std::vector<std::byte> frame(format.frame_bytes());
    for (int pass = 0; pass < 2; ++pass) {
        for (int f = 0; f < 2; ++f) {
            ASSERT_EQ(reader.read_into(frame.data()), format.frame_bytes());
            const std::size_t at = static_cast<std::size_t>(f) * format.frame_bytes();
            // Little-endian samples in host order.
            const auto* samples = reinterpret_cast<const std::uint16_t*>(frame.data());
            EXPECT_EQ(samples[1], static_cast<std::uint16_t>(bytes[at + 2] | (bytes[at + 3] << 8)));
        }
        EXPECT_EQ(reader.read_into(frame.data()), 5u);  // the truncated third frame
        EXPECT_EQ(reader.read_into(frame.data()), 0u);  // then the end
        ASSERT_TRUE(reader.rewind());
    }
}

TEST(RawStream, SeeksToAFrame) {
    ScratchDir dir;
    const std::string path = dir.file("three.bin");
    write_bytes(path, {0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23});
    media::RawStreamReader reader(path, media::parse_raw_format("2x2x1:u8"));
    std::vector<std::byte> frame(4);
    ASSERT_TRUE(reader.seek(2));
    ASSERT_EQ(reader.read_into(frame.data()), 4u);
    EXPECT_EQ(frame[0], std::byte{20});
    EXPECT_EQ(reader.read_into(frame.data()), 0u);  // the end
    ASSERT_TRUE(reader.seek(1));                    // after the end too
    ASSERT_EQ(reader.read_into(frame.data()), 4u);
    EXPECT_EQ(frame[3], std::byte{13});
    ASSERT_TRUE(reader.seek(3));  // past the last frame: the end
    EXPECT_EQ(reader.read_into(frame.data()), 0u);
    EXPECT_FALSE(reader.seek(-1));
}

// Frames of 16 MiB and more are read from a file in parts by several threads: the same bytes,
// the position after each frame, a frame cut short at the end, seeking in between.
TEST(RawStream, LargeFramesReadInPartsAreTheFilesBytes) {
    ScratchDir dir;
    const std::string path = dir.file("large.bin");
    const auto format = media::parse_raw_format("2048x2049x4:u8");  // 16 MiB and 8 KiB
    const std::size_t frame = format.frame_bytes();
    const std::size_t cut = frame / 3 + 7;
    std::vector<std::uint8_t> bytes(2 * frame + cut);
    for (std::size_t i = 0; i < bytes.size(); ++i)
        bytes[i] = static_cast<std::uint8_t>((i * 2654435761u) >> 13);
    write_bytes(path, bytes);
    media::RawStreamReader reader(path, format);
    std::vector<std::byte> got(frame);
    const auto same = [&](std::size_t at, std::size_t n) {
        return std::memcmp(got.data(), bytes.data() + at, n) == 0;
    };
    ASSERT_EQ(reader.read_into(got.data()), frame);
    EXPECT_TRUE(same(0, frame));
    ASSERT_EQ(reader.read_into(got.data()), frame);
    EXPECT_TRUE(same(frame, frame));
    ASSERT_EQ(reader.read_into(got.data()), cut);  // the file ends inside the third
    EXPECT_TRUE(same(2 * frame, cut));
    EXPECT_EQ(reader.read_into(got.data()), 0u);
    ASSERT_TRUE(reader.seek(1));
    ASSERT_EQ(reader.read_into(got.data()), frame);
    EXPECT_TRUE(same(frame, frame));
    ASSERT_TRUE(reader.rewind());
    ASSERT_EQ(reader.read_some(got.data(), 10), 10u);  // small reads go on where it is
    EXPECT_TRUE(same(0, 10));
}

TEST(RawStream, MissingFilesAndEmptyFramesAreRefused) {
    ScratchDir dir;
    const std::string missing = dir.file("missing.bin");
    EXPECT_EQ(message_of<InputError>(
                  [&] { media::RawStreamReader r(missing, media::parse_raw_format("2x2x1:u8")); }),
              "cannot read '" + missing + "': No such file or directory");
    media::RawFormat empty;
    EXPECT_THROW(media::RawStreamReader(dir.file("x"), empty), UsageError);
}

TEST(RawStream, StandardInputCannotRewind) {
    ScratchDir dir;
    write_bytes(dir.file("in.bin"), {1, 2, 3, 4});
    ASSERT_NE(std::freopen(dir.file("in.bin").c_str(), "rb", stdin), nullptr);
    media::RawStreamReader reader("-", media::parse_raw_format("2x2x1:u8"));
    std::vector<std::byte> frame(4);
    EXPECT_EQ(reader.read_into(frame.data()), 4u);
    EXPECT_EQ(reader.read_into(frame.data()), 0u);
    EXPECT_FALSE(reader.rewind());
    EXPECT_FALSE(reader.seek(0));
    ASSERT_NE(std::freopen("/dev/null", "rb", stdin), nullptr);
}

TEST(Probe, MagicBytesMakeAnImageInEveryBuild) {
    ScratchDir dir;
    const std::vector<std::pair<std::string, std::vector<std::uint8_t>>> files{
        {"a.png", {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13}},
        {"a.jpg", {0xFF, 0xD8, 0xFF, 0xE0, 0, 16}},
        {"a.tif", {'I', 'I', 42, 0, 8, 0, 0, 0}},
        {"b.tif", {'M', 'M', 0, 42, 0, 0, 0, 8}},
        {"a.gif", {'G', 'I', 'F', '8', '9', 'a', 1, 0, 1, 0}},
        {"a.webp", {'R', 'I', 'F', 'F', 4, 0, 0, 0, 'W', 'E', 'B', 'P'}},
        {"a.bmp", {'B', 'M', 0, 0, 0, 0, 0, 0, 0, 0, 54, 0, 0, 0, 40, 0, 0, 0}},
        {"a.pgm", {'P', '5', '\n', '1', ' ', '1', '\n', '2', '5', '5', '\n', 0}},
        {"named_like_a_video.avi", {0xFF, 0xD8, 0xFF, 0xDB}},
    };
    for (const auto& [name, bytes] : files) {
        write_bytes(dir.file(name), bytes);
        EXPECT_EQ(media::probe(dir.file(name)), media::MediaKind::Image) << name;
    }
}

TEST(Probe, MissingAndEmptyFilesAreInputErrorsNamingTheFile) {
    ScratchDir dir;
    const std::string missing = dir.file("nothing.png");
    EXPECT_EQ(message_of<InputError>([&] { (void)media::probe(missing); }),
              "cannot read '" + missing + "': No such file or directory");
    const std::string empty = dir.file("empty.png");
    write_bytes(empty, {});
    EXPECT_EQ(message_of<InputError>([&] { (void)media::probe(empty); }),
              "'" + empty + "' is empty");
}

TEST(WithoutOpenCV, EverythingButRawSaysSo) {
    if (media::have_opencv()) GTEST_SKIP() << "built with OpenCV: see test_media";
    ScratchDir dir;
    const std::string photo = dir.file("p.png");
    write_bytes(photo, {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A});
    const std::string noise = dir.file("noise.dat");
    write_bytes(noise, {1, 2, 3, 4, 5, 6, 7, 8, 9});
    // Named as raw frames, the same bytes are raw frames, as with OpenCV.
    const std::string frames = dir.file("noise.bin");
    write_bytes(frames, {1, 2, 3, 4, 5, 6, 7, 8, 9});
    EXPECT_EQ(media::probe(frames), media::MediaKind::Raw);
    const std::string expected = ": this build has no OpenCV: only --raw input is available";

    EXPECT_EQ(message_of<InputError>([&] { (void)media::read_image(photo); }),
              "'" + photo + "'" + expected);
    EXPECT_EQ(message_of<InputError>([&] { media::VideoReader v(noise); }),
              "'" + noise + "'" + expected);
    EXPECT_EQ(message_of<InputError>([&] { (void)media::probe(noise); }),
              "'" + noise + "'" + expected);
    const Image img(2, 2, 1, SampleType::U8);
    const std::string out = dir.file("out.png");
    EXPECT_EQ(message_of<InputError>([&] { media::write_image(out, img.view()); }),
              "'" + out + "'" + expected);
    EngineRegistry registry;
    media::register_engines(registry);
    EXPECT_TRUE(registry.engines().empty());
    // A camera raw file is told by its signature and refused by name (LibRaw comes with OpenCV).
    const std::string raw = dir.file("shot.rw2");
    write_bytes(raw, {'I', 'I', 'U', 0, 8, 0, 0, 0});
    EXPECT_EQ(media::probe(raw), media::MediaKind::CameraRaw);
    EXPECT_EQ(message_of<InputError>([&] { media::CameraRawReader r{media::Source(raw)}; }),
              "'" + raw +
                  "' is a camera raw file: this build has no LibRaw (nor OpenCV): only --raw "
                  "input is available");
}
