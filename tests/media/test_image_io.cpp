// Photos: hs::media::read_image / write_image judged against OpenCV called directly, and every
// kind of bad input (missing, empty, noise, truncated, corrupt, unsupported) giving one
// InputError that names the file.

#include <gtest/gtest.h>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <png.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <csetjmp>
#include <cstdio>
#include <random>
#include <string>

#include <jpeglib.h>

#include "histoscope/core/error.hpp"
#include "histoscope/media/media.hpp"
#include "media_test_support.hpp"
#include "synthetic.hpp"

using namespace hs;
using hs::test::message_of;
using hs::test::read_bytes;
using hs::test::sample;
using hs::test::ScratchDir;
using hs::test::write_bytes;
using hs::test::write_prefix;

namespace {

bool contains(const std::string& haystack, const std::string& needle) {
    return haystack.find(needle) != std::string::npos;
}

cv::Mat as_mat(const ImageView& v) {
    const int depth = v.type == SampleType::U8 ? CV_8U : CV_16U;
    return cv::Mat(v.height, v.width, CV_MAKETYPE(depth, v.channels),
                   const_cast<std::byte*>(v.data), v.stride);
}

// cv::imread in RGB(A) order: what read_image must return.
cv::Mat opencv_rgb(const std::string& path) {
    cv::Mat m = cv::imread(path, cv::IMREAD_UNCHANGED);
    if (m.channels() == 3) cv::cvtColor(m, m, cv::COLOR_BGR2RGB);
    if (m.channels() == 4) cv::cvtColor(m, m, cv::COLOR_BGRA2RGBA);
    return m;
}

bool identical(const cv::Mat& a, const cv::Mat& b) {
    return a.type() == b.type() && a.size() == b.size() && cv::norm(a, b, cv::NORM_INF) == 0.0;
}

std::uint32_t max_sample(const ImageView& v) {
    std::uint32_t m = 0;
    for (int y = 0; y < v.height; ++y)
        for (int x = 0; x < v.width; ++x)
            for (int c = 0; c < v.channels; ++c) m = std::max(m, v.sample(x, y, c));
    return m;
}

std::string truncated_message(const std::string& path, const std::string& reason) {
    return "'" + path + "' is truncated or corrupt (" + reason + ")";
}

std::string param_name(const ::testing::TestParamInfo<std::string>& info) {
    std::string n = info.param;
    for (auto& ch : n)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
    return n;
}

// --- a minimal PNG writer (stored deflate blocks), for colour types OpenCV cannot write.
std::uint32_t crc32(const std::uint8_t* p, std::size_t n, std::uint32_t crc = 0) {
    crc = ~crc;
    for (std::size_t i = 0; i < n; ++i) {
        crc ^= p[i];
        for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

void put32(std::vector<std::uint8_t>& out, std::uint32_t v) {
    for (int s = 24; s >= 0; s -= 8) out.push_back(static_cast<std::uint8_t>(v >> s));
}

void chunk(std::vector<std::uint8_t>& png, const char* type,
           const std::vector<std::uint8_t>& data) {
    put32(png, static_cast<std::uint32_t>(data.size()));
    const std::size_t start = png.size();
    png.insert(png.end(), type, type + 4);
    png.insert(png.end(), data.begin(), data.end());
    put32(png, crc32(png.data() + start, png.size() - start));
}

struct Chunk {
    std::string type;
    std::vector<std::uint8_t> data;
};

// `rows` are the unfiltered scanlines; each gets filter type 0. `before_idat`: chunks between
// IHDR and IDAT (sBIT, ...).
std::vector<std::uint8_t> make_png(int w, int h, int bit_depth, int colour_type,
                                   const std::vector<std::vector<std::uint8_t>>& rows,
                                   const std::vector<Chunk>& before_idat = {}) {
    std::vector<std::uint8_t> raw;
    for (const auto& r : rows) {
        raw.push_back(0);
        raw.insert(raw.end(), r.begin(), r.end());
    }
    std::vector<std::uint8_t> z{0x78, 0x01, 0x01};  // zlib header, one final stored block
    z.push_back(static_cast<std::uint8_t>(raw.size() & 0xFF));
    z.push_back(static_cast<std::uint8_t>(raw.size() >> 8));
    z.push_back(static_cast<std::uint8_t>(~raw.size() & 0xFF));
    z.push_back(static_cast<std::uint8_t>((~raw.size() >> 8) & 0xFF));
    z.insert(z.end(), raw.begin(), raw.end());
    std::uint32_t a = 1, b = 0;
    for (std::uint8_t byte : raw) {
        a = (a + byte) % 65521;
        b = (b + a) % 65521;
    }
    put32(z, b << 16 | a);

    std::vector<std::uint8_t> png{0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A};
    std::vector<std::uint8_t> ihdr;
    put32(ihdr, static_cast<std::uint32_t>(w));
    put32(ihdr, static_cast<std::uint32_t>(h));
    ihdr.insert(ihdr.end(), {static_cast<std::uint8_t>(bit_depth),
                             static_cast<std::uint8_t>(colour_type), 0, 0, 0});
    chunk(png, "IHDR", ihdr);
    for (const Chunk& c : before_idat) chunk(png, c.type.c_str(), c.data);
    chunk(png, "IDAT", z);
    chunk(png, "IEND", {});
    return png;
}

// The chunks of a PNG file in order, each checked against its CRC (false in `crc_ok` when one
// is wrong).
std::vector<Chunk> png_chunks(const std::vector<std::uint8_t>& file, bool& crc_ok) {
    static const std::vector<std::uint8_t> kSignature{0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A};
    crc_ok = file.size() >= 8 && std::equal(kSignature.begin(), kSignature.end(), file.begin());
    std::vector<Chunk> out;
    const auto be32 = [&](std::size_t at) {
        return std::uint32_t{file[at]} << 24 | std::uint32_t{file[at + 1]} << 16 |
               std::uint32_t{file[at + 2]} << 8 | std::uint32_t{file[at + 3]};
    };
    for (std::size_t at = 8; crc_ok && at + 12 <= file.size();) {
        const std::uint32_t length = be32(at);
        if (at + 12 + length > file.size()) {
            crc_ok = false;
            break;
        }
        crc_ok = crc32(file.data() + at + 4, 4 + length) == be32(at + 8 + length);
        out.push_back(
            {std::string(reinterpret_cast<const char*>(file.data() + at + 4), 4),
             std::vector<std::uint8_t>(file.begin() + static_cast<long>(at + 8),
                                       file.begin() + static_cast<long>(at + 8 + length))});
        at += 12 + length;
    }
    return out;
}

// How a sample v of depth d is stored in 16 bits: its bits repeated, v << (16 - d) | v >> (2d -
// 16).
std::uint32_t replicated(std::uint32_t v, int d) {
    return (v << (16 - d)) | (v >> (2 * d - 16));
}

const std::vector<std::uint8_t> kTinyGif{
    'G',  'I',  'F',  '8',  '9',  'a',  0x01, 0x00, 0x01, 0x00, 0x80, 0x00, 0x00, 0xFF, 0xFF,
    0xFF, 0x00, 0x00, 0x00, 0x21, 0xF9, 0x04, 0x01, 0x00, 0x00, 0x00, 0x00, 0x2C, 0x00, 0x00,
    0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x02, 0x02, 0x44, 0x01, 0x00, 0x3B};

}  // namespace

// --- the bundled photos

class SamplePhoto : public ::testing::TestWithParam<std::string> {};

TEST_P(SamplePhoto, DecodesLikeOpenCVInRGBOrder) {
    const std::string path = sample(GetParam());
    const media::LoadedImage loaded = media::read_image(path);
    const cv::Mat expected = opencv_rgb(path);
    ASSERT_FALSE(expected.empty());
    const ImageView v = loaded.image.view();
    EXPECT_EQ(v.width, expected.cols);
    EXPECT_EQ(v.height, expected.rows);
    EXPECT_EQ(v.channels, expected.channels());
    EXPECT_EQ(v.type, expected.depth() == CV_8U ? SampleType::U8 : SampleType::U16);
    EXPECT_EQ(v.bit_depth, expected.depth() == CV_8U ? 8 : 16);
    EXPECT_TRUE(identical(as_mat(v), expected)) << GetParam();
    EXPECT_TRUE(loaded.notes.empty());
    const std::string ext = std::filesystem::path(path).extension().string();
    EXPECT_EQ(loaded.format, ext == ".jpg" ? "JPEG" : ext == ".png" ? "PNG" : "TIFF");
}

INSTANTIATE_TEST_SUITE_P(Photos8, SamplePhoto, ::testing::ValuesIn(hs::test::kPhotos8), param_name);
INSTANTIATE_TEST_SUITE_P(Photos16, SamplePhoto, ::testing::ValuesIn(hs::test::kPhotos16),
                         param_name);

TEST(ReadImage, SampleLayoutsAreAsExpected) {
    struct Expect {
        const char* name;
        int width, height, channels;
        SampleType type;
    };
    for (const Expect& e : {Expect{"fruits.jpg", 512, 480, 3, SampleType::U8},
                            Expect{"baboon.jpg", 512, 512, 3, SampleType::U8},
                            Expect{"camera.png", 512, 512, 1, SampleType::U8},
                            Expect{"moon.png", 512, 512, 1, SampleType::U8},
                            Expect{"chelsea.png", 451, 300, 3, SampleType::U8},
                            Expect{"fruits_4k.jpg", 3840, 2160, 3, SampleType::U8},
                            Expect{"chessboard_GRAY_U16.tif", 200, 200, 1, SampleType::U16},
                            Expect{"moon_4k_16bit.png", 3840, 2160, 1, SampleType::U16}}) {
        const Image img = media::read_image(sample(e.name)).image;
        const ImageView v = img.view();
        EXPECT_EQ(v.width, e.width) << e.name;
        EXPECT_EQ(v.height, e.height) << e.name;
        EXPECT_EQ(v.channels, e.channels) << e.name;
        EXPECT_EQ(v.type, e.type) << e.name;
    }
}

TEST(ReadImage, SixteenBitPhotosKeepTheirValues) {
    const Image moon = media::read_image(sample("moon_4k_16bit.png")).image;
    EXPECT_EQ(moon.type(), SampleType::U16);
    EXPECT_EQ(moon.bit_depth(), 16);
    EXPECT_GT(max_sample(moon.view()), 255u);

    // chessboard_GRAY_U16.tif stores 16-bit samples whose values happen to be 0..255: it must
    // stay 16-bit, with the samples of its single uncompressed little-endian strip (200x200 at
    // offset 110, per its directory), read here straight from the file.
    const Image board = media::read_image(sample("chessboard_GRAY_U16.tif")).image;
    const ImageView v = board.view();
    ASSERT_EQ(v.type, SampleType::U16);
    EXPECT_EQ(v.bit_depth, 16);
    const std::vector<std::uint8_t> file = read_bytes(sample("chessboard_GRAY_U16.tif"));
    ASSERT_EQ(file.size(), 110u + 200u * 200u * 2u);
    for (int y = 0; y < 200; ++y)
        for (int x = 0; x < 200; ++x) {
            const std::size_t at = 110 + 2 * static_cast<std::size_t>(y * 200 + x);
            ASSERT_EQ(v.sample(x, y, 0), static_cast<std::uint32_t>(file[at] | file[at + 1] << 8))
                << x << "," << y;
        }
}

// --- bad input: one InputError naming the file

TEST(ReadImage, MissingEmptyAndNoiseFiles) {
    ScratchDir dir;
    const std::string missing = dir.file("missing.png");
    EXPECT_EQ(message_of<InputError>([&] { (void)media::read_image(missing); }),
              "cannot read '" + missing + "': No such file or directory");

    const std::string empty = dir.file("empty.jpg");
    write_bytes(empty, {});
    EXPECT_EQ(message_of<InputError>([&] { (void)media::read_image(empty); }),
              "'" + empty + "' is empty");

    const std::string noise = dir.file("noise.png");
    std::mt19937 rng(7);
    std::vector<std::uint8_t> bytes(4096);
    for (auto& b : bytes) b = static_cast<std::uint8_t>(rng());
    bytes[0] = 0x12;  // not a JPEG/PNG/... signature by accident
    write_bytes(noise, bytes);
    EXPECT_EQ(message_of<InputError>([&] { (void)media::read_image(noise); }),
              "'" + noise + "' is not an image format this build can read");

    EXPECT_TRUE(
        contains(message_of<InputError>([&] { (void)media::read_image(dir.path().string()); }),
                 "cannot read '" + dir.path().string() + "'"));
}

TEST(ReadImage, GifIsRefusedWithAReason) {
    ScratchDir dir;
    const std::string gif = dir.file("tiny.gif");
    write_bytes(gif, kTinyGif);
    EXPECT_EQ(
        message_of<InputError>([&] { (void)media::read_image(gif); }),
        "'" + gif + "': GIF images are not supported by this build (OpenCV has no GIF decoder)");
    EXPECT_EQ(media::probe(gif), media::MediaKind::Image);  // so that read_image explains
}

TEST(ReadImage, TruncatedJpegIsReportedNotDecodedPartially) {
    ScratchDir dir;
    const std::string source = sample("fruits.jpg");
    const std::size_t size = read_bytes(source).size();
    // What OpenCV alone does: it returns a partly grey image for a cut JPEG.
    std::vector<std::uint8_t> half = read_bytes(source);
    half.resize(size / 2);
    EXPECT_FALSE(cv::imdecode(half, cv::IMREAD_UNCHANGED).empty());

    for (const std::size_t keep :
         {size / 2, size * 99 / 100, size - 2, size - 1, std::size_t{600}}) {
        const std::string cut = dir.file("cut_" + std::to_string(keep) + ".jpg");
        write_prefix(source, cut, keep);
        EXPECT_EQ(message_of<InputError>([&] { (void)media::read_image(cut); }),
                  truncated_message(cut, "JPEG stream ends before its EOI marker"))
            << keep;
    }
}

TEST(ReadImage, ProgressiveAndRestartJpegsAreWalkedCompletely) {
    ScratchDir dir;
    const cv::Mat bgr = cv::imread(sample("baboon.jpg"));
    const std::vector<std::pair<std::string, std::vector<int>>> variants{
        {"progressive.jpg", {cv::IMWRITE_JPEG_PROGRESSIVE, 1}},
        {"restart.jpg", {cv::IMWRITE_JPEG_RST_INTERVAL, 3}},
        {"both.jpg", {cv::IMWRITE_JPEG_PROGRESSIVE, 1, cv::IMWRITE_JPEG_RST_INTERVAL, 1}},
        {"gray.jpg", {}}};
    for (const auto& [name, params] : variants) {
        const std::string path = dir.file(name);
        cv::Mat image = bgr;
        if (name == "gray.jpg") cv::cvtColor(bgr, image, cv::COLOR_BGR2GRAY);
        ASSERT_TRUE(cv::imwrite(path, image, params));
        const media::LoadedImage loaded = media::read_image(path);
        EXPECT_TRUE(identical(as_mat(loaded.image.view()), opencv_rgb(path))) << name;

        const std::size_t size = read_bytes(path).size();
        for (const std::size_t keep : {size * 6 / 10, size - 2}) {
            const std::string cut = dir.file("cut_" + name);
            write_prefix(path, cut, keep);
            EXPECT_EQ(message_of<InputError>([&] { (void)media::read_image(cut); }),
                      truncated_message(cut, "JPEG stream ends before its EOI marker"))
                << name << " " << keep;
        }
    }
}

TEST(ReadImage, BytesAfterTheJpegEoiAreIgnored) {
    ScratchDir dir;
    std::vector<std::uint8_t> bytes = read_bytes(sample("fruits.jpg"));
    bytes.insert(bytes.end(), {0x00, 0x12, 0xFF, 0xD8, 0x42});
    const std::string path = dir.file("trailing.jpg");
    write_bytes(path, bytes);
    EXPECT_TRUE(
        identical(as_mat(media::read_image(path).image.view()), opencv_rgb(sample("fruits.jpg"))));
}

// Corrupt bytes in the middle of a JPEG. What is asserted:
//  - bytes that form a marker that cannot occur in scan data (every one of the random
//    overwrites below contains one) give the "truncated or corrupt" InputError;
//  - zeroed bytes form no marker, so the structure is complete, but libjpeg loses its place in
//    the Huffman-coded data and warns: that warning makes the file corrupt too, and
//    allow_corrupt returns libjpeg's image (full size, partly invented) marked as such;
//  - a segment length that runs past the end of the file is reported as truncation;
//  - in no case does anything crash or return an image of another size.
TEST(ReadImage, CorruptJpegBytes) {
    ScratchDir dir;
    const std::vector<std::uint8_t> original = read_bytes(sample("fruits.jpg"));
    const std::size_t mid = original.size() / 2;

    for (unsigned seed = 1; seed <= 8; ++seed) {
        std::vector<std::uint8_t> bytes = original;
        std::mt19937 rng(seed);
        for (std::size_t i = mid; i < mid + 2000; ++i) bytes[i] = static_cast<std::uint8_t>(rng());
        const std::string path = dir.file("random_" + std::to_string(seed) + ".jpg");
        write_bytes(path, bytes);
        const std::string m = message_of<InputError>([&] { (void)media::read_image(path); });
        EXPECT_TRUE(contains(m, "'" + path + "' is truncated or corrupt (JPEG")) << m;
    }

    std::vector<std::uint8_t> zeroed = original;
    std::fill(zeroed.begin() + static_cast<std::ptrdiff_t>(mid),
              zeroed.begin() + static_cast<std::ptrdiff_t>(mid + 2000), std::uint8_t{0});
    const std::string zero_path = dir.file("zeroed.jpg");
    write_bytes(zero_path, zeroed);
    EXPECT_EQ(message_of<InputError>([&] { (void)media::read_image(zero_path); }),
              "'" + zero_path + "' is corrupt (Corrupt JPEG data: premature end of data segment)");
    media::DecodeOptions tolerant;
    tolerant.allow_corrupt = true;
    const media::LoadedImage partial = media::read_image(zero_path, tolerant);
    EXPECT_TRUE(partial.corrupt);
    ASSERT_EQ(partial.notes.size(), 1u);
    EXPECT_EQ(partial.notes[0],
              "corrupt JPEG data (Corrupt JPEG data: premature end of data segment): the image "
              "is partial");
    const ImageView z = partial.image.view();
    EXPECT_EQ(z.width, 512);
    EXPECT_EQ(z.height, 480);
    EXPECT_EQ(z.channels, 3);

    // The first segment after SOI (APP0 or DQT) of a small JPEG gets a length reaching past
    // the end.
    std::vector<std::uint8_t> long_segment = read_bytes(sample("HappyFish.jpg"));
    ASSERT_LT(long_segment.size(), 65535u);
    long_segment[4] = 0xFF;
    long_segment[5] = 0xFF;
    const std::string long_path = dir.file("long_segment.jpg");
    write_bytes(long_path, long_segment);
    EXPECT_EQ(message_of<InputError>([&] { (void)media::read_image(long_path); }),
              truncated_message(long_path, "JPEG stream ends before its EOI marker"));

    std::vector<std::uint8_t> bad_length = original;
    bad_length[4] = 0x00;
    bad_length[5] = 0x01;
    const std::string bad_path = dir.file("bad_length.jpg");
    write_bytes(bad_path, bad_length);
    EXPECT_TRUE(contains(message_of<InputError>([&] { (void)media::read_image(bad_path); }),
                         "'" + bad_path + "' is truncated or corrupt (JPEG segment at offset 2"));
}

TEST(ReadImage, TruncatedPngIsReported) {
    ScratchDir dir;
    for (const std::string name : {"chelsea.png", "camera.png", "moon_4k_16bit.png"}) {
        const std::string source = sample(name);
        const std::size_t size = read_bytes(source).size();
        for (const std::size_t keep : {size / 2, size * 9 / 10, size - 1, std::size_t{20}}) {
            const std::string cut = dir.file("cut_" + std::to_string(keep) + "_" + name);
            write_prefix(source, cut, keep);
            EXPECT_EQ(message_of<InputError>([&] { (void)media::read_image(cut); }),
                      truncated_message(cut, "PNG stream ends before its IEND chunk"))
                << name << " " << keep;
        }
    }
}

// A PNG starts with its IHDR chunk: another chunk first is named, not called a header cut short.
TEST(ReadImage, APngWithoutIhdrFirstSaysSo) {
    ScratchDir dir;
    std::vector<std::uint8_t> bytes = read_bytes(sample("camera.png"));
    ASSERT_TRUE(std::equal(bytes.begin() + 12, bytes.begin() + 16, "IHDR"));
    std::copy_n("XXXX", 4, bytes.begin() + 12);
    const std::string path = dir.file("no_ihdr.png");
    write_bytes(path, bytes);
    EXPECT_EQ(
        message_of<InputError>([&] { (void)media::read_image(path); }),
        truncated_message(path, "PNG starts with a chunk 'XXXX' where its IHDR header must be"));
    std::fill_n(bytes.begin() + 12, 4, std::uint8_t{0});
    write_bytes(path, bytes);
    media::DecodeOptions allow;
    allow.allow_corrupt = true;
    EXPECT_EQ(message_of<InputError>([&] { (void)media::read_image(path, allow); }),
              truncated_message(
                  path, "PNG starts with a chunk 0x00000000 where its IHDR header must be"));
    // Cut inside its IHDR, it is incomplete.
    write_prefix(sample("camera.png"), path, 20);
    EXPECT_EQ(message_of<InputError>([&] { (void)media::read_image(path); }),
              truncated_message(path, "PNG stream ends before its IEND chunk"));
}

TEST(ReadImage, CorruptPngDataIsAnInputError) {
    ScratchDir dir;
    std::vector<std::uint8_t> bytes = read_bytes(sample("camera.png"));
    // Flip bytes inside the first IDAT chunk: the deflate data breaks (libpng's message).
    const auto idat =
        std::search(bytes.begin(), bytes.end(), std::begin("IDAT"), std::begin("IDAT") + 4);
    ASSERT_NE(idat, bytes.end());
    for (int i = 20; i < 40; ++i) idat[i] = static_cast<std::uint8_t>(idat[i] ^ 0x5A);
    const std::string path = dir.file("bad_crc.png");
    write_bytes(path, bytes);
    EXPECT_EQ(message_of<InputError>([&] { (void)media::read_image(path); }),
              "'" + path + "' could not be decoded as PNG (IDAT: invalid bit length repeat)");
}

TEST(ReadImage, TruncatedTiffIsReported) {
    ScratchDir dir;
    const std::string lzw = dir.file("fruits.tif");  // OpenCV writes LZW-compressed strips
    ASSERT_TRUE(cv::imwrite(lzw, cv::imread(sample("fruits.jpg"))));
    ASSERT_TRUE(identical(as_mat(media::read_image(lzw).image.view()), opencv_rgb(lzw)));
    for (const std::string& source : {sample("chessboard_GRAY_U16.tif"), lzw}) {
        const std::size_t size = read_bytes(source).size();
        for (const std::size_t keep : {size / 2, size * 9 / 10, size - 1, std::size_t{6}}) {
            const std::string cut = dir.file("cut_" + std::to_string(keep) + ".tif");
            write_prefix(source, cut, keep);
            const std::string m = message_of<InputError>([&] { (void)media::read_image(cut); });
            EXPECT_TRUE(contains(m, "'" + cut + "' is truncated or corrupt (")) << m;
            EXPECT_TRUE(contains(m, "TIFF")) << m;
        }
    }
}

TEST(ReadImage, MultiPageTiffGivesPageOneAndANote) {
    ScratchDir dir;
    const cv::Mat fruits = cv::imread(sample("fruits.jpg"));
    cv::Mat flipped, dark;
    cv::flip(fruits, flipped, 0);
    dark = fruits / 4;
    const std::string path = dir.file("three.tif");
    ASSERT_TRUE(cv::imwritemulti(path, std::vector<cv::Mat>{fruits, flipped, dark}));

    const media::LoadedImage loaded = media::read_image(path);
    EXPECT_EQ(loaded.format, "TIFF");
    ASSERT_EQ(loaded.notes.size(), 1u);
    EXPECT_EQ(loaded.notes[0], "multi-page TIFF: using page 1 of 3");
    cv::Mat rgb;
    cv::cvtColor(fruits, rgb, cv::COLOR_BGR2RGB);
    EXPECT_TRUE(identical(as_mat(loaded.image.view()), rgb));

    // Cut inside page 2: page 1 is intact, but the file is damaged and says so.
    const std::string cut = dir.file("cut.tif");
    write_prefix(path, cut, read_bytes(path).size() / 2);
    const std::string m = message_of<InputError>([&] { (void)media::read_image(cut); });
    EXPECT_TRUE(contains(m, "'" + cut + "' is truncated or corrupt (TIFF")) << m;
}

TEST(ReadImage, TiffDirectoryLoopIsCorruptNotAHang) {
    ScratchDir dir;
    const std::string path = dir.file("one.tif");
    ASSERT_TRUE(cv::imwrite(path, cv::Mat(4, 4, CV_8UC1, cv::Scalar(9))));
    std::vector<std::uint8_t> bytes = read_bytes(path);
    ASSERT_EQ(bytes[0], 'I');  // little-endian classic TIFF
    auto byte = [&](std::size_t at) { return static_cast<std::uint32_t>(bytes[at]); };
    const std::uint32_t ifd = byte(4) | byte(5) << 8 | byte(6) << 16 | byte(7) << 24;
    const std::uint32_t entries = byte(ifd) | byte(ifd + 1) << 8;
    const std::size_t next = ifd + 2 + 12 * entries;
    for (int i = 0; i < 4; ++i)
        bytes[next + static_cast<std::size_t>(i)] = bytes[4 + static_cast<std::size_t>(i)];
    const std::string looped = dir.file("looped.tif");
    write_bytes(looped, bytes);
    const std::string m = message_of<InputError>([&] { (void)media::read_image(looped); });
    EXPECT_TRUE(contains(m, "'" + looped + "' is truncated or corrupt (TIFF directory chain loops"))
        << m;
}

TEST(ReadImage, OtherFormatsAndTheirTruncation) {
    ScratchDir dir;
    const cv::Mat bgr = cv::imread(sample("chelsea.png"));
    cv::Mat gray;
    cv::cvtColor(bgr, gray, cv::COLOR_BGR2GRAY);
    struct Case {
        std::string name;
        cv::Mat image;
        std::vector<int> params;
        std::string format;
        std::string truncation;  // the expected reason
    };
    const std::vector<Case> cases{
        {"a.bmp", bgr, {}, "BMP", "BMP pixel data needs"},
        {"g.bmp", gray, {}, "BMP", "BMP pixel data needs"},
        {"a.webp", bgr, {cv::IMWRITE_WEBP_QUALITY, 101}, "WebP", "WebP RIFF header declares"},
        {"a.ppm", bgr, {}, "PNM", "PNM raster ends before its 405900 samples"},
        {"a.pgm", gray, {}, "PNM", "PNM raster ends before its 135300 samples"},
    };
    for (const Case& c : cases) {
        const std::string path = dir.file(c.name);
        ASSERT_TRUE(cv::imwrite(path, c.image, c.params)) << c.name;
        const media::LoadedImage loaded = media::read_image(path);
        EXPECT_EQ(loaded.format, c.format) << c.name;
        EXPECT_TRUE(identical(as_mat(loaded.image.view()), opencv_rgb(path))) << c.name;

        const std::string cut = dir.file("cut_" + c.name);
        const std::size_t size = read_bytes(path).size();
        for (const std::size_t keep : {size / 2, size * 9 / 10}) {
            write_prefix(path, cut, keep);
            const std::string m = message_of<InputError>([&] { (void)media::read_image(cut); });
            EXPECT_TRUE(contains(m, "'" + cut + "' is truncated or corrupt (" + c.truncation)) << m;
        }
    }
}

// --- libjpeg and libpng decode as OpenCV does: every PNG colour type and depth, interlaced,
// with and without transparency, and CMYK JPEG.

namespace {

struct PngSpec {
    std::string name;
    int color_type, bit_depth;
    bool interlaced = false;
    bool transparency = false;  // a tRNS chunk
};

// Writes a 13x7 PNG of `spec` with libpng, samples from a fixed pattern.
void write_png(const std::string& path, const PngSpec& spec) {
    constexpr int w = 13, h = 7;
    FILE* f = std::fopen(path.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
    png_infop info = png_create_info_struct(png);
    png_init_io(png, f);
    png_set_IHDR(png, info, w, h, spec.bit_depth, spec.color_type,
                 spec.interlaced ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    const int levels = 1 << spec.bit_depth;
    if (spec.color_type == PNG_COLOR_TYPE_PALETTE) {
        std::vector<png_color> palette(static_cast<std::size_t>(levels));
        for (int i = 0; i < levels; ++i)
            palette[static_cast<std::size_t>(i)] = {static_cast<png_byte>(i * 37),
                                                    static_cast<png_byte>(255 - i * 11),
                                                    static_cast<png_byte>(i * 5)};
        png_set_PLTE(png, info, palette.data(), levels);
    }
    std::vector<png_byte> alpha(static_cast<std::size_t>(levels), 255);
    png_color_16 key{};
    if (spec.transparency) {
        alpha[1] = 0;
        alpha[2] = 128;
        key.gray = 1;
        key.red = 1;
        key.green = 2;
        key.blue = 3;
        png_set_tRNS(png, info, alpha.data(),
                     spec.color_type == PNG_COLOR_TYPE_PALETTE ? std::min(levels, 4) : 0, &key);
    }
    png_write_info(png, info);
    const int channels = png_get_channels(png, info);
    const int bits = channels * spec.bit_depth;
    std::vector<png_byte> row(static_cast<std::size_t>((w * bits + 7) / 8));
    const int passes = png_set_interlace_handling(png);
    for (int pass = 0; pass < passes; ++pass)
        for (int y = 0; y < h; ++y) {
            std::fill(row.begin(), row.end(), png_byte{0});
            for (int x = 0; x < w; ++x)
                for (int c = 0; c < channels; ++c) {
                    const unsigned v =
                        static_cast<unsigned>((x * 7 + y * 13 + c * 29 + x * y) % levels);
                    const int bit = (x * channels + c) * spec.bit_depth;
                    if (spec.bit_depth == 16) {
                        const unsigned wide = v * 2654435761u % 65536u;
                        row[static_cast<std::size_t>(bit / 8)] = static_cast<png_byte>(wide >> 8);
                        row[static_cast<std::size_t>(bit / 8 + 1)] = static_cast<png_byte>(wide);
                    } else {
                        row[static_cast<std::size_t>(bit / 8)] |=
                            static_cast<png_byte>(v << (8 - spec.bit_depth - bit % 8));
                    }
                }
            png_write_row(png, row.data());
        }
    png_write_end(png, nullptr);
    png_destroy_write_struct(&png, &info);
    std::fclose(f);
}

}  // namespace

TEST(ReadImage, EveryPngKindDecodesAsOpenCV) {
    ScratchDir dir;
    const std::vector<PngSpec> specs{
        {"gray1", PNG_COLOR_TYPE_GRAY, 1},
        {"gray2", PNG_COLOR_TYPE_GRAY, 2},
        {"gray4_interlaced", PNG_COLOR_TYPE_GRAY, 4, true},
        {"gray8_trns", PNG_COLOR_TYPE_GRAY, 8, false, true},
        {"gray16", PNG_COLOR_TYPE_GRAY, 16},
        {"gray_alpha8", PNG_COLOR_TYPE_GRAY_ALPHA, 8},
        {"gray_alpha16_interlaced", PNG_COLOR_TYPE_GRAY_ALPHA, 16, true},
        {"rgb8", PNG_COLOR_TYPE_RGB, 8},
        {"rgb8_trns", PNG_COLOR_TYPE_RGB, 8, false, true},
        {"rgb16_interlaced", PNG_COLOR_TYPE_RGB, 16, true},
        {"rgba8", PNG_COLOR_TYPE_RGB_ALPHA, 8},
        {"rgba16", PNG_COLOR_TYPE_RGB_ALPHA, 16},
        {"palette1", PNG_COLOR_TYPE_PALETTE, 1},
        {"palette4_trns", PNG_COLOR_TYPE_PALETTE, 4, false, true},
        {"palette8_interlaced", PNG_COLOR_TYPE_PALETTE, 8, true},
    };
    for (const PngSpec& spec : specs) {
        const std::string path = dir.file(spec.name + ".png");
        write_png(path, spec);
        const cv::Mat expected = opencv_rgb(path);
        ASSERT_FALSE(expected.empty()) << spec.name;
        const media::LoadedImage loaded = media::read_image(path);
        EXPECT_EQ(loaded.image.channels(), expected.channels()) << spec.name;
        EXPECT_TRUE(identical(as_mat(loaded.image.view()), expected)) << spec.name;
        // Only gray+alpha is not what it was stored as (GrayAlphaPngBecomesRGBAAndSaysSo).
        EXPECT_EQ(loaded.notes.size(), spec.color_type == PNG_COLOR_TYPE_GRAY_ALPHA ? 1u : 0u)
            << spec.name;
    }
}

TEST(ReadImage, CmykJpegDecodesAsOpenCV) {
    ScratchDir dir;
    const std::string path = dir.file("cmyk.jpg");
    {
        constexpr int w = 37, h = 21;
        FILE* f = std::fopen(path.c_str(), "wb");
        ASSERT_NE(f, nullptr);
        jpeg_compress_struct info{};
        jpeg_error_mgr errors{};
        info.err = jpeg_std_error(&errors);
        jpeg_create_compress(&info);
        jpeg_stdio_dest(&info, f);
        info.image_width = w;
        info.image_height = h;
        info.input_components = 4;
        info.in_color_space = JCS_CMYK;
        jpeg_set_defaults(&info);
        jpeg_set_quality(&info, 90, TRUE);
        jpeg_start_compress(&info, TRUE);
        std::vector<JSAMPLE> row(w * 4);
        for (int y = 0; y < h; ++y) {
            for (int i = 0; i < w * 4; ++i)
                row[static_cast<std::size_t>(i)] = static_cast<JSAMPLE>((i * 11 + y * 29) % 256);
            JSAMPROW rows[] = {row.data()};
            jpeg_write_scanlines(&info, rows, 1);
        }
        jpeg_finish_compress(&info);
        jpeg_destroy_compress(&info);
        std::fclose(f);
    }
    const cv::Mat expected = opencv_rgb(path);
    ASSERT_EQ(expected.channels(), 3);
    EXPECT_TRUE(identical(as_mat(media::read_image(path).image.view()), expected));
}

// Images are gray, RGB or RGBA (hs::Image): gray+alpha is read as RGBA, the gray copied into
// R, G and B, and a note says so.
TEST(ReadImage, GrayAlphaPngBecomesRGBAAndSaysSo) {
    ScratchDir dir;
    std::vector<std::vector<std::uint8_t>> rows8, rows16;
    for (int y = 0; y < 2; ++y) {
        std::vector<std::uint8_t> r8, r16;
        for (int x = 0; x < 3; ++x) {
            const auto g = static_cast<std::uint8_t>(x * 40 + y * 7);
            const auto a = static_cast<std::uint8_t>(255 - x * 30);
            r8.insert(r8.end(), {g, a});
            r16.insert(r16.end(), {g, 0x5A, a, 0x01});  // big-endian 16-bit gray, alpha
        }
        rows8.push_back(r8);
        rows16.push_back(r16);
    }
    const std::string p8 = dir.file("ga8.png"), p16 = dir.file("ga16.png");
    write_bytes(p8, make_png(3, 2, 8, 4, rows8));
    write_bytes(p16, make_png(3, 2, 16, 4, rows16));

    // Said, in the notes every command and the desktop application show.
    for (const std::string& path : {p8, p16}) {
        const std::vector<std::string> notes = media::read_image(path).notes;
        ASSERT_EQ(notes.size(), 1u) << path;
        EXPECT_EQ(notes[0],
                  "gray+alpha PNG: read as RGBA, its gray in each of R, G and B (and in luma)");
    }
    const Image i8 = media::read_image(p8).image;
    const ImageView v8 = i8.view();
    ASSERT_EQ(v8.channels, 4);
    ASSERT_EQ(v8.type, SampleType::U8);
    const Image i16 = media::read_image(p16).image;
    const ImageView v16 = i16.view();
    ASSERT_EQ(v16.channels, 4);
    ASSERT_EQ(v16.type, SampleType::U16);
    for (int y = 0; y < 2; ++y)
        for (int x = 0; x < 3; ++x) {
            const auto g = static_cast<std::uint32_t>(x * 40 + y * 7);
            const auto a = static_cast<std::uint32_t>(255 - x * 30);
            for (int c = 0; c < 3; ++c) {
                EXPECT_EQ(v8.sample(x, y, c), g);
                EXPECT_EQ(v16.sample(x, y, c), g << 8 | 0x5A);
            }
            EXPECT_EQ(v8.sample(x, y, 3), a);
            EXPECT_EQ(v16.sample(x, y, 3), a << 8 | 0x01);
        }
}

TEST(ReadImage, FloatTiffFromOpenCvIsReadExactly) {
    // OpenCV writes float TIFF as LogLuv unless told otherwise: a lossy encoding, refused. Told
    // to leave it uncompressed, it writes IEEE floats, read by libtiff (test_float_images.cpp)
    // as OpenCV reads them back, in RGB order.
    ScratchDir dir;
    const std::string logluv = dir.file("logluv.tif");
    ASSERT_TRUE(cv::imwrite(logluv, cv::Mat(8, 8, CV_32FC3, cv::Scalar(0.5, 1, 2))));
    EXPECT_EQ(message_of<InputError>([&] { (void)media::read_image(logluv); }),
              "'" + logluv +
                  "': TIFF of LogLuv (SGILOG) samples, a lossy HDR encoding, is not read; a "
                  "float TIFF holds IEEE floats (SampleFormat 3)");
    const std::string path = dir.file("float.tif");
    cv::Mat m(9, 13, CV_32FC3);
    for (int y = 0; y < m.rows; ++y)
        for (int x = 0; x < m.cols; ++x)
            m.at<cv::Vec3f>(y, x) = cv::Vec3f(static_cast<float>(x) * 0.1f, -static_cast<float>(y),
                                              std::ldexp(1.0f, x - y));
    ASSERT_TRUE(cv::imwrite(path, m, {cv::IMWRITE_TIFF_COMPRESSION, 1}));
    const media::LoadedImage img = media::read_image(path);
    ASSERT_EQ(img.image.type(), SampleType::F32);
    const cv::Mat back = opencv_rgb(path);
    ASSERT_EQ(back.type(), CV_32FC3);
    for (int y = 0; y < m.rows; ++y)
        for (int x = 0; x < m.cols; ++x)
            for (int c = 0; c < 3; ++c)
                EXPECT_EQ(img.image.view().sample_f32(x, y, c), back.at<cv::Vec3f>(y, x)[c]);
}

// A TIFF of one strip of 2x2 samples of `bits` bits and SampleFormat `format`, little-endian.
std::vector<std::uint8_t> tiny_tiff(int bits, int format) {
    std::vector<std::uint8_t> f{'I', 'I', 42, 0, 8, 0, 0, 0};
    const auto put = [&](std::uint32_t v, int bytes) {
        for (int i = 0; i < bytes; ++i) f.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
    };
    const std::uint32_t data = 8 + 2 + 10 * 12 + 4;
    const std::uint32_t bytes = 4 * static_cast<std::uint32_t>(bits) / 8;
    const std::vector<std::pair<int, std::uint32_t>> tags{
        {256, 2},
        {257, 2},
        {258, static_cast<std::uint32_t>(bits)},
        {259, 1},
        {262, 1},
        {273, data},
        {277, 1},
        {278, 2},
        {279, bytes},
        {339, static_cast<std::uint32_t>(format)}};
    put(static_cast<std::uint32_t>(tags.size()), 2);
    for (const auto& [tag, value] : tags) {
        put(static_cast<std::uint32_t>(tag), 2);
        put(4, 2);  // LONG
        put(1, 4);
        put(value, 4);
    }
    put(0, 4);  // no next directory
    for (std::uint32_t i = 0; i < bytes; ++i) f.push_back(static_cast<std::uint8_t>(i * 37));
    return f;
}

// Samples other than 8- and 16-bit unsigned ones and floats are refused in one line of ours,
// whichever of them OpenCV reads (signed) or asserts on in its own words (32-bit unsigned).
TEST(ReadImage, TiffSampleTypesOtherThanUnsignedAreNamed) {
    ScratchDir dir;
    const auto message = [&](const std::string& name, int bits, int format) {
        const std::string path = dir.file(name);
        write_bytes(path, tiny_tiff(bits, format));
        return message_of<InputError>([&] { (void)media::read_image(path); });
    };
    const std::string only =
        ": only 8-bit and 16-bit unsigned samples and 32-bit floats (OpenEXR, PFM, float TIFF) "
        "can be read";
    EXPECT_EQ(
        message("u32.tif", 32, 1),
        "'" + dir.file("u32.tif") + "' has an unsupported sample type (32-bit unsigned)" + only);
    EXPECT_EQ(
        message("s16.tif", 16, 2),
        "'" + dir.file("s16.tif") + "' has an unsupported sample type (16-bit signed)" + only);
    // Floats go to the float TIFF reader, which names the widths it reads.
    EXPECT_NE(message("f64.tif", 64, 3)
                  .find("TIFF of 64-bit float samples; only 16-bit and "
                        "32-bit floats are read"),
              std::string::npos)
        << message("f64.tif", 64, 3);
    // The same layout of unsigned samples reads.
    const std::string u16 = dir.file("u16.tif");
    write_bytes(u16, tiny_tiff(16, 1));
    const media::LoadedImage ok = media::read_image(u16);
    EXPECT_EQ(ok.image.type(), SampleType::U16);
    EXPECT_EQ(ok.image.view().sample(1, 0, 0), 111u << 8 | 74u);  // bytes 2 and 3: 74, 111
}

// --- write_image

TEST(WriteImage, RoundTripsExactly) {
    ScratchDir dir;
    struct Case {
        std::string name;
        Image image;
    };
    std::vector<Case> cases;
    cases.push_back({"rgb8.png", hs::test::uniform(67, 45, 3, SampleType::U8, 8, 3)});
    cases.push_back({"rgba8.png", hs::test::uniform(64, 33, 4, SampleType::U8, 8, 4)});
    cases.push_back({"gray16.png", hs::test::uniform(61, 29, 1, SampleType::U16, 16, 5)});
    cases.push_back({"rgb16.tif", hs::test::uniform(41, 23, 3, SampleType::U16, 16, 6)});
    cases.push_back({"rgba16.tiff", hs::test::uniform(17, 9, 4, SampleType::U16, 16, 7)});
    cases.push_back({"gray8.bmp", hs::test::uniform(19, 7, 1, SampleType::U8, 8, 8)});
    cases.push_back({"rgb8.ppm", hs::test::uniform(19, 7, 3, SampleType::U8, 8, 9)});
    cases.push_back({"gray16.pgm", hs::test::uniform(19, 7, 1, SampleType::U16, 16, 10)});
    cases.push_back({"padded_rgb8.PNG", hs::test::uniform(31, 11, 3, SampleType::U8, 8, 11, 13)});
    for (const Case& c : cases) {
        const std::string path = dir.file(c.name);
        media::write_image(path, c.image.view());
        const media::LoadedImage back = media::read_image(path);
        EXPECT_TRUE(test::same_samples(back.image.view(), c.image.view())) << c.name;
    }
}

TEST(WriteImage, StoresRGBInTheFileFormatsOrder) {
    ScratchDir dir;
    const Image img = hs::test::make_image(4, 2, 3, SampleType::U8, 8, [](int, int, int c) {
        return std::array<std::uint32_t, 3>{200, 10, 50}[static_cast<std::size_t>(c)];
    });
    const std::string path = dir.file("order.png");
    media::write_image(path, img.view());
    const cv::Mat bgr = cv::imread(path, cv::IMREAD_UNCHANGED);
    ASSERT_EQ(bgr.type(), CV_8UC3);
    EXPECT_EQ(bgr.at<cv::Vec3b>(1, 3), cv::Vec3b(50, 10, 200));
}

TEST(WriteImage, FailuresNameThePath) {
    ScratchDir dir;
    const Image rgb = hs::test::uniform(8, 8, 3, SampleType::U8, 8);
    const Image rgba = hs::test::uniform(8, 8, 4, SampleType::U8, 8);
    const Image deep = hs::test::uniform(8, 8, 1, SampleType::U16, 16);

    const std::string unknown = dir.file("out.xyz");
    EXPECT_TRUE(contains(message_of<UsageError>([&] { media::write_image(unknown, rgb.view()); }),
                         "'" + unknown + "': cannot write '.xyz' files"));
    const std::string bare = dir.file("noextension");
    EXPECT_TRUE(contains(message_of<UsageError>([&] { media::write_image(bare, rgb.view()); }),
                         "'" + bare + "'"));
    const std::string nowhere = dir.file("no/such/dir/out.png");
    EXPECT_EQ(message_of<InputError>([&] { media::write_image(nowhere, rgb.view()); }),
              "cannot write '" + nowhere + "': No such file or directory");
    const std::string jpeg = dir.file("deep.jpg");
    EXPECT_EQ(message_of<UsageError>([&] { media::write_image(jpeg, deep.view()); }),
              "'" + jpeg + "': JPEG cannot store 16-bit samples (use .png or .tif)");
    EXPECT_EQ(message_of<UsageError>([&] { media::write_image(jpeg, rgba.view()); }),
              "'" + jpeg + "': JPEG cannot store an alpha channel (use .png or .tif)");
    const std::string ppm = dir.file("gray.ppm");
    EXPECT_TRUE(contains(message_of<UsageError>([&] { media::write_image(ppm, deep.view()); }),
                         "'" + ppm + "': PPM cannot store a 1-channel image"));
    EXPECT_FALSE(std::filesystem::exists(jpeg));
}

// Deep samples (8 to 15 bits in 16-bit ones) go out as their bit replications, so that other
// viewers show them at their brightness: OpenCV reads the files' samples back as the
// replications, each within one of the value of the same fraction of full scale and holding the
// sample in its top bits. PNG records the depth in sBIT and reads back at it; TIFF and PNM keep
// no depth and read back as the 16-bit replications.
TEST(WriteImage, DeepSamplesAreStoredAsTheirBitReplications) {
    ScratchDir dir;
    for (const int depth : {8, 9, 10, 12, 14, 15}) {
        for (const int channels : {1, 3, 4}) {
            const std::uint32_t max = (1u << depth) - 1u;
            // Every sample from 0 to max at least once, then random ones.
            std::mt19937 rng(static_cast<unsigned>(depth * 10 + channels));
            std::uniform_int_distribution<std::uint32_t> any(0, max);
            std::uint32_t next = 0;
            const Image image = hs::test::make_image(
                67, 71, channels, SampleType::U16, depth,
                [&](int, int, int) { return next <= max ? next++ : any(rng); });
            for (const std::string ext : {".png", ".tif", channels == 1 ? ".pgm" : ".ppm"}) {
                if (channels == 4 && ext == ".ppm") continue;
                const std::string name =
                    std::to_string(depth) + "bit_" + std::to_string(channels) + "ch" + ext;
                const std::string path = dir.file(name);
                media::write_image(path, image.view());
                const cv::Mat stored = opencv_rgb(path);
                ASSERT_EQ(stored.type(), CV_MAKETYPE(CV_16U, channels)) << name;
                bool replications = true;
                for (int y = 0; y < image.height() && replications; ++y)
                    for (int x = 0; x < image.width() && replications; ++x)
                        for (int c = 0; c < channels; ++c) {
                            const std::uint32_t v = image.view().sample(x, y, c);
                            const std::uint32_t got =
                                stored.ptr<std::uint16_t>(y)[x * channels + c];
                            const double scaled = static_cast<double>(v) * 65535.0 / max;
                            if (got != replicated(v, depth) || got >> (16 - depth) != v ||
                                std::abs(static_cast<double>(got) - scaled) >= 1.0) {
                                ADD_FAILURE() << name << ": " << v << " stored as " << got;
                                replications = false;
                                break;
                            }
                        }
                const media::LoadedImage back = media::read_image(path);
                EXPECT_TRUE(back.notes.empty()) << name;
                if (ext == ".png") {
                    bool crc_ok = false;
                    const std::vector<Chunk> chunks = png_chunks(read_bytes(path), crc_ok);
                    EXPECT_TRUE(crc_ok) << name;
                    ASSERT_GE(chunks.size(), 3u) << name;
                    EXPECT_EQ(chunks[0].type, "IHDR");
                    EXPECT_EQ(chunks[1].type, "sBIT") << name;
                    EXPECT_EQ(chunks[1].data,
                              std::vector<std::uint8_t>(static_cast<std::size_t>(channels),
                                                        static_cast<std::uint8_t>(depth)))
                        << name;
                    EXPECT_EQ(back.image.bit_depth(), depth) << name;
                    EXPECT_TRUE(test::same_samples(back.image.view(), image.view())) << name;
                } else {
                    EXPECT_EQ(back.image.bit_depth(), 16) << name;
                    EXPECT_TRUE(identical(as_mat(back.image.view()), stored)) << name;
                }
            }
        }
    }
}

TEST(WriteImage, SixteenBitSamplesAreWrittenAsTheyAreWithoutSbit) {
    ScratchDir dir;
    const Image image = hs::test::uniform(23, 9, 3, SampleType::U16, 16, 3);
    const std::string path = dir.file("deep16.png");
    media::write_image(path, image.view());
    bool crc_ok = false;
    for (const Chunk& c : png_chunks(read_bytes(path), crc_ok)) EXPECT_NE(c.type, "sBIT");
    EXPECT_TRUE(crc_ok);
    EXPECT_TRUE(identical(opencv_rgb(path), as_mat(image.view())));
}

TEST(WriteImage, ASampleAboveTheDeclaredDepthIsRefusedAndNothingWritten) {
    ScratchDir dir;
    Image image(4, 3, 1, SampleType::U16, 10);
    image.set_sample(2, 1, 0, 1024);
    for (const char* name : {"over.png", "over.tif"}) {
        const std::string path = dir.file(name);
        EXPECT_EQ(message_of<InputError>([&] { media::write_image(path, image.view()); }),
                  "cannot write '" + path +
                      "': sample value 1024 in row 1 exceeds the image's declared 10-bit depth");
        EXPECT_FALSE(std::filesystem::exists(path));
    }
}

// A PNM stores its samples unscaled, from 0 to its maxval: a maxval of 2^d - 1 is depth d, and
// another maxval the fewest bits that hold it, with a note that the values above it never occur.
TEST(ReadImage, PnmSamplesHaveTheDepthOfTheirMaxval) {
    ScratchDir dir;
    const auto text = [](const std::string& s) {
        return std::vector<std::uint8_t>(s.begin(), s.end());
    };
    struct Case {
        std::string name;
        std::vector<std::uint8_t> bytes;
        int channels;
        SampleType type;
        int depth;
        std::vector<std::uint32_t> samples;
        std::string note;
    };
    const std::vector<Case> cases{
        {"ten.pgm",
         text(std::string("P5\n2 1\n1023\n\x03\xff\x00\x07", 16)),
         1,
         SampleType::U16,
         10,
         {1023, 7},
         ""},
        {"twelve.pgm", text("P2\n2 1\n4095\n4095 9\n"), 1, SampleType::U16, 12, {4095, 9}, ""},
        {"nine.pam",
         text("P7\nWIDTH 1\nHEIGHT 1\nDEPTH 1\nMAXVAL 511\nTUPLTYPE GRAYSCALE\nENDHDR\n\x01\xff"),
         1,
         SampleType::U16,
         9,
         {511},
         ""},
        {"fifteen.ppm",
         text("P3\n1 1\n32767\n1 32767 0\n"),
         3,
         SampleType::U16,
         15,
         {1, 32767, 0},
         ""},
        {"sixteen.pgm", text("P2\n1 1\n65535\n1023\n"), 1, SampleType::U16, 16, {1023}, ""},
        {"eight.pgm", text("P2\n1 1\n255\n100\n"), 1, SampleType::U8, 8, {100}, ""},
        {"thousand.ppm",
         text("P3\n1 1\n1000\n1000 0 999\n"),
         3,
         SampleType::U16,
         10,
         {1000, 0, 999},
         "run from 0 to its maxval 1000, unscaled: they are counted over the 10 "
         "bits that hold it (1001 to 1023 do not occur)"},
        // Below 255, ASCII and binary alike (OpenCV scaled ASCII samples to 0..255).
        {"hundred.pgm",
         text("P2\n3 1\n100\n100 1 50\n"),
         1,
         SampleType::U8,
         8,
         {100, 1, 50},
         "maxval 100, unscaled: they are counted over the 8 bits that hold it (101 to 255"},
        {"hundred_binary.pgm",
         text("P5\n3 1\n100\n\x64\x01\x32"),
         1,
         SampleType::U8,
         8,
         {100, 1, 50},
         "maxval 100, unscaled"},
        {"gray_alpha.pam",
         text("P7\nWIDTH 1\nHEIGHT 1\nDEPTH 2\nMAXVAL 1023\nTUPLTYPE GRAYSCALE_ALPHA\n"
              "ENDHDR\n\x03\xfe\x02\x01"),
         4,
         SampleType::U16,
         10,
         {1022, 1022, 1022, 513},
         ""},
    };
    for (const Case& c : cases) {
        const std::string path = dir.file(c.name);
        write_bytes(path, c.bytes);
        const media::LoadedImage got = media::read_image(path);
        EXPECT_EQ(got.format, c.name.ends_with(".pam") ? "PAM" : "PNM") << c.name;
        EXPECT_EQ(got.image.type(), c.type) << c.name;
        EXPECT_EQ(got.image.bit_depth(), c.depth) << c.name;
        ASSERT_EQ(got.image.channels(), c.channels) << c.name;
        for (int k = 0; k < static_cast<int>(c.samples.size()); ++k)
            EXPECT_EQ(got.image.view().sample(k / c.channels, 0, k % c.channels),
                      c.samples[static_cast<std::size_t>(k)])
                << c.name << " " << k;
        if (c.note.empty()) {
            EXPECT_TRUE(got.notes.empty()) << c.name;
        } else {
            ASSERT_EQ(got.notes.size(), 1u) << c.name;
            EXPECT_TRUE(contains(got.notes[0], c.note)) << got.notes[0];
        }
    }
}

// A 16-bit PNG is read at the depth its sBIT chunk records when every sample is that depth's
// replication; any other 16-bit PNG stays 16-bit (with a note when sBIT says otherwise).
TEST(ReadImage, PngSbitGivesTheDepthWhenTheSamplesAreItsReplications) {
    ScratchDir dir;
    // 3 x 2 RGB at 12 bits: 0, the largest value and some between.
    const std::vector<std::uint32_t> values{0,   4095, 1,   2048, 1234, 4000, 7,  3071, 2047,
                                            100, 4094, 555, 9,    10,   11,   12, 13,   14};
    const auto rows_of = [&](const std::vector<std::uint32_t>& stored) {
        std::vector<std::vector<std::uint8_t>> rows(2);
        for (std::size_t i = 0; i < stored.size(); ++i) {
            auto& row = rows[i / 9];
            row.push_back(static_cast<std::uint8_t>(stored[i] >> 8));
            row.push_back(static_cast<std::uint8_t>(stored[i] & 0xFFu));
        }
        return rows;
    };
    std::vector<std::uint32_t> stored;
    for (std::uint32_t v : values) stored.push_back(replicated(v, 12));
    const std::vector<std::uint8_t> sbit12{12, 12, 12};

    const std::string twelve = dir.file("twelve.png");
    write_bytes(twelve, make_png(3, 2, 16, 2, rows_of(stored), {{"sBIT", sbit12}}));
    const media::LoadedImage back = media::read_image(twelve);
    EXPECT_EQ(back.image.bit_depth(), 12);
    EXPECT_EQ(back.image.type(), SampleType::U16);
    EXPECT_TRUE(back.notes.empty());
    for (std::size_t i = 0; i < values.size(); ++i)
        EXPECT_EQ(back.image.view().sample(static_cast<int>(i / 3 % 3), static_cast<int>(i / 9),
                                           static_cast<int>(i % 3)),
                  values[i])
            << i;

    // The same samples without sBIT: 16-bit data.
    const std::string plain = dir.file("plain.png");
    write_bytes(plain, make_png(3, 2, 16, 2, rows_of(stored)));
    EXPECT_EQ(media::read_image(plain).image.bit_depth(), 16);
    EXPECT_TRUE(identical(as_mat(media::read_image(plain).image.view()), opencv_rgb(plain)));

    // One sample that is no replication: 16-bit, and a note says why sBIT was not followed.
    std::vector<std::uint32_t> odd = stored;
    odd[4] ^= 1u;
    const std::string other = dir.file("other.png");
    write_bytes(other, make_png(3, 2, 16, 2, rows_of(odd), {{"sBIT", sbit12}}));
    const media::LoadedImage kept = media::read_image(other);
    EXPECT_EQ(kept.image.bit_depth(), 16);
    EXPECT_TRUE(identical(as_mat(kept.image.view()), opencv_rgb(other)));
    ASSERT_EQ(kept.notes.size(), 1u);
    EXPECT_TRUE(contains(kept.notes[0], "sBIT chunk says 12 significant bits")) << kept.notes[0];

    // Channels of different depths: 16-bit, and a note says why (the samples are 12-bit
    // replications, which a 12-bit sBIT would have read at 12 bits).
    const std::string mixed = dir.file("mixed.png");
    write_bytes(mixed, make_png(3, 2, 16, 2, rows_of(stored), {{"sBIT", {12, 12, 10}}}));
    const media::LoadedImage sixteen = media::read_image(mixed);
    EXPECT_EQ(sixteen.image.bit_depth(), 16);
    EXPECT_TRUE(identical(as_mat(sixteen.image.view()), opencv_rgb(mixed)));
    ASSERT_EQ(sixteen.notes.size(), 1u);
    EXPECT_EQ(sixteen.notes[0],
              "the PNG's sBIT chunk gives its channels different significant bits (r 12, g 12, "
              "b 10), and an image has one depth: its samples are read as 16-bit samples");
    // A depth below 8 bits: 16-bit, noted.
    const std::string four = dir.file("four.png");
    write_bytes(four, make_png(3, 2, 16, 2, rows_of(stored), {{"sBIT", {4, 4, 4}}}));
    const media::LoadedImage below = media::read_image(four);
    EXPECT_EQ(below.image.bit_depth(), 16);
    ASSERT_EQ(below.notes.size(), 1u);
    EXPECT_TRUE(contains(below.notes[0], "says 4 significant bits, and a depth is 8 to 16"));

    // An 8-bit PNG's sBIT changes nothing.
    const std::string eight = dir.file("eight.png");
    write_bytes(eight, make_png(2, 1, 8, 0, {{0x10, 0x20}}, {{"sBIT", {4}}}));
    const media::LoadedImage small = media::read_image(eight);
    EXPECT_EQ(small.image.type(), SampleType::U8);
    EXPECT_EQ(small.image.view().sample(1, 0, 0), 0x20u);
}
