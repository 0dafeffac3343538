// Float images: OpenEXR files written by OpenEXR's library, PFM and float TIFF files written by
// numpy and tifffile (tests/support/float_reference.py), read back sample for sample (bit
// patterns, NaN and infinities included), their histograms against numpy's, and every hostile
// file (cut, damaged, lying headers, what is not read) giving one InputError naming the file.

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>

#include "damaged_media.hpp"
#include "exr_writer.hpp"
#include "histoscope/core/error.hpp"
#include "histoscope/core/histogram.hpp"
#include "histoscope/media/media.hpp"
#include "media_test_support.hpp"
#include "run_command.hpp"
#include "tiff_writer.hpp"

using namespace hs;
using hs::test::message_of;
using hs::test::read_bytes;
using hs::test::ScratchDir;
using hs::test::write_bytes;
using hs::test::write_prefix;

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

bool contains(const std::string& haystack, const std::string& needle) {
    return haystack.find(needle) != std::string::npos;
}

std::string python(const std::string& args) {
    const hs::test::CommandResult r =
        hs::test::run_command(std::string(HS_TEST_PYTHON) + " " + HS_FLOAT_REFERENCE + " " + args);
    EXPECT_EQ(r.exit_code, 0) << args << ": " << r.err;
    return r.out;
}

// The image's samples as bit patterns, row by row.
std::vector<std::uint32_t> bits_of(const ImageView& v) {
    std::vector<std::uint32_t> out;
    for (int y = 0; y < v.height; ++y)
        for (int x = 0; x < v.width; ++x)
            for (int c = 0; c < v.channels; ++c)
                out.push_back(std::bit_cast<std::uint32_t>(v.sample_f32(x, y, c)));
    return out;
}

// What numpy/tifffile read from `path` ("values"): height, width, channels, then the bits.
struct PythonValues {
    int height = 0, width = 0, channels = 0;
    std::vector<std::uint32_t> bits;
};
PythonValues python_values(const std::string& path) {
    std::istringstream in(python("values " + path));
    PythonValues v;
    in >> v.height >> v.width >> v.channels;
    std::string word;
    while (in >> word) v.bits.push_back(static_cast<std::uint32_t>(std::stoul(word, nullptr, 16)));
    return v;
}

// The float image read from `path` equals numpy's reading sample for sample; a gray+alpha
// source (2 channels) is gray, gray, gray, alpha.
void expect_same_as_python(const std::string& path) {
    const media::LoadedImage img = media::read_image(path);
    const PythonValues p = python_values(path);
    const ImageView v = img.image.view();
    ASSERT_EQ(v.type, SampleType::F32);
    ASSERT_EQ(v.width, p.width);
    ASSERT_EQ(v.height, p.height);
    std::vector<std::uint32_t> expected = p.bits;
    if (p.channels == 2) {
        expected.clear();
        for (std::size_t i = 0; i < p.bits.size(); i += 2)
            expected.insert(expected.end(), {p.bits[i], p.bits[i], p.bits[i], p.bits[i + 1]});
    }
    ASSERT_EQ(v.channels, p.channels == 2 ? 4 : p.channels);
    EXPECT_EQ(bits_of(v), expected) << path;
}

// Our histograms of `path` against numpy's ("hist"), every channel, bins and the counts outside.
void expect_counts_as_numpy(const std::string& path, const FloatBins& bins,
                            const std::string& python_spec, const std::string& channels) {
    const media::LoadedImage img = media::read_image(path);
    const std::vector<Channel> list =
        parse_channel_list(channels, img.image.channels(), img.image.type());
    const auto ours = reference_histogram(img.image.view(), list, HistogramSpec::floating(bins));
    // {"channels": [{"name", "counts": [...], "below_range", "above_range", "non_finite"}]}:
    // read with a few finds rather than a JSON parser.
    const std::string json = python("hist " + path + " " + python_spec + " " + channels);
    std::size_t at = 0;
    for (const ChannelHistogram& h : ours) {
        at = json.find("\"counts\": [", at);
        ASSERT_NE(at, std::string::npos);
        at += 11;
        std::vector<std::uint64_t> counts;
        while (json[at] != ']') {
            std::size_t used = 0;
            counts.push_back(std::stoull(json.substr(at), &used));
            at += used;
            if (json[at] == ',') at += 2;
        }
        EXPECT_EQ(h.counts, counts) << path << " " << channel_name(h.channel);
        const auto field = [&](const std::string& name) {
            const std::size_t p = json.find("\"" + name + "\": ", at);
            return std::stoull(json.substr(p + name.size() + 4));
        };
        EXPECT_EQ(h.below_range, field("below_range")) << channel_name(h.channel);
        EXPECT_EQ(h.above_range, field("above_range")) << channel_name(h.channel);
        EXPECT_EQ(h.non_finite, field("non_finite")) << channel_name(h.channel);
    }
}

float exr_value(int x, int y, int c) {
    // Every kind of half: ordinary values over many stops, 0, -0, negatives, the largest half,
    // subnormal halves, infinities, NaN.
    const int k = (x * 7 + y * 13 + c * 5) % 23;
    switch (k) {
        case 0:
            return 0.0f;
        case 1:
            return -0.0f;
        case 2:
            return -0.75f;
        case 3:
            return 65504.0f;
        case 4:
            return std::ldexp(1.0f, -24);  // the smallest subnormal half
        case 5:
            return kInf;
        case 6:
            return -kInf;
        case 7:
            return std::numeric_limits<float>::quiet_NaN();
        default:
            return std::ldexp(1.0f + static_cast<float>(k) / 32.0f, (x + 3 * y + c) % 30 - 15);
    }
}

void expect_exr_read(const ImageView& v, const std::vector<float>& expected, int file_channels,
                     bool gray_alpha = false) {
    ASSERT_EQ(v.type, SampleType::F32);
    std::size_t i = 0;
    for (int y = 0; y < v.height; ++y)
        for (int x = 0; x < v.width; ++x) {
            std::vector<float> px(
                expected.begin() + static_cast<std::ptrdiff_t>(i),
                expected.begin() +
                    static_cast<std::ptrdiff_t>(i + static_cast<std::size_t>(file_channels)));
            i += static_cast<std::size_t>(file_channels);
            if (gray_alpha) px = {px[0], px[0], px[0], px[1]};
            ASSERT_EQ(static_cast<int>(px.size()), v.channels);
            for (int c = 0; c < v.channels; ++c)
                ASSERT_EQ(std::bit_cast<std::uint32_t>(v.sample_f32(x, y, c)),
                          std::bit_cast<std::uint32_t>(px[static_cast<std::size_t>(c)]))
                    << x << "," << y << "," << c;
        }
}

}  // namespace

// --- OpenEXR

TEST(FloatImages, OpenExrChannelsTypesLayoutsAndCompressions) {
    ScratchDir dir;
    struct Case {
        std::vector<std::string> channels;
        Imf::PixelType type;
        Imf::Compression compression;
        bool tiled;
        int expect_channels;
    };
    const std::vector<Case> cases{
        {{"R", "G", "B"}, Imf::HALF, Imf::ZIP_COMPRESSION, false, 3},
        {{"R", "G", "B", "A"}, Imf::HALF, Imf::PIZ_COMPRESSION, false, 4},
        {{"R", "G", "B"}, Imf::FLOAT, Imf::NO_COMPRESSION, false, 3},
        {{"R", "G", "B", "A"}, Imf::FLOAT, Imf::ZIPS_COMPRESSION, true, 4},
        {{"Y"}, Imf::HALF, Imf::RLE_COMPRESSION, false, 1},
        {{"Y"}, Imf::FLOAT, Imf::ZIP_COMPRESSION, true, 1},
        {{"Y", "A"}, Imf::HALF, Imf::ZIP_COMPRESSION, false, 4},
        {{"Z"}, Imf::FLOAT, Imf::NO_COMPRESSION, false, 1},
    };
    int n = 0;
    for (const Case& c : cases) {
        hs::test::ExrSpec spec;
        spec.width = 37;
        spec.height = 21;
        spec.channels = c.channels;
        spec.type = c.type;
        spec.compression = c.compression;
        spec.tiled = c.tiled;
        const std::string path = dir.file("case" + std::to_string(n++) + ".exr");
        const bool gray_alpha = c.channels == std::vector<std::string>{"Y", "A"};
        const std::vector<float> expected = hs::test::write_exr(path, spec, exr_value);
        const media::LoadedImage img = media::read_image(path);
        EXPECT_EQ(img.format, "OpenEXR");
        ASSERT_EQ(img.image.channels(), c.expect_channels) << path;
        expect_exr_read(img.image.view(), expected, static_cast<int>(c.channels.size()),
                        gray_alpha);
        bool noted = false;
        for (const auto& note : img.notes) noted = noted || contains(note, "NaN");
        EXPECT_TRUE(noted) << "the non-finite samples are noted";
    }
}

TEST(FloatImages, OpenExrDataWindowOffsetsAreTheImage) {
    ScratchDir dir;
    for (const auto& [x0, y0] : std::vector<std::pair<int, int>>{{5, 3}, {-7, -2}, {-100, 40}}) {
        hs::test::ExrSpec spec;
        spec.width = 11;
        spec.height = 9;
        spec.x0 = x0;
        spec.y0 = y0;
        spec.display_x0 = 0;
        spec.display_y0 = 0;
        spec.display_width = 64;
        spec.display_height = 48;
        spec.type = Imf::FLOAT;
        const std::string path = dir.file("window.exr");
        const auto expected = hs::test::write_exr(path, spec, [](int x, int y, int c) {
            return static_cast<float>(x + 100 * y + 10000 * c);
        });
        const media::LoadedImage img = media::read_image(path);
        ASSERT_EQ(img.image.width(), 11);
        ASSERT_EQ(img.image.height(), 9);
        expect_exr_read(img.image.view(), expected, 3);
        EXPECT_EQ(img.image.view().sample_f32(0, 0, 0), 0.0f);
        EXPECT_EQ(img.image.view().sample_f32(10, 8, 2), 10.0f + 800.0f + 20000.0f);
        bool noted = false;
        for (const auto& note : img.notes)
            noted =
                noted || contains(note, "data window 11x9 at (" + std::to_string(x0) + ", " +
                                            std::to_string(y0) + ") of the display window 64x48");
        EXPECT_TRUE(noted) << x0 << "," << y0;
    }
}

TEST(FloatImages, OpenExrWhatIsNotReadIsSaid) {
    ScratchDir dir;
    hs::test::ExrSpec spec;
    spec.channels = {"Y", "RY", "BY"};
    hs::test::write_exr(dir.file("yc.exr"), spec, exr_value);
    EXPECT_TRUE(
        contains(message_of<InputError>([&] { (void)media::read_image(dir.file("yc.exr")); }),
                 "luminance/chroma"));
    spec.channels = {"Z", "N"};
    hs::test::write_exr(dir.file("zn.exr"), spec, exr_value);
    EXPECT_EQ(message_of<InputError>([&] { (void)media::read_image(dir.file("zn.exr")); }),
              "'" + dir.file("zn.exr") +
                  "': OpenEXR image has neither R, G, B nor Y channels (it has N, Z)");
    spec.channels = {"R", "G", "B", "Z", "diffuse.R"};
    hs::test::write_exr(dir.file("extra.exr"), spec, exr_value);
    const media::LoadedImage extra = media::read_image(dir.file("extra.exr"));
    EXPECT_EQ(extra.image.channels(), 3);
    bool noted = false;
    for (const auto& note : extra.notes)
        noted = noted || note == "OpenEXR channels not read: Z, diffuse.R";
    EXPECT_TRUE(noted);
    spec.channels = {"R", "G", "B"};
    spec.type = Imf::UINT;
    hs::test::write_exr(dir.file("uint.exr"), spec, [](int, int, int) { return 3.0f; });
    EXPECT_TRUE(
        contains(message_of<InputError>([&] { (void)media::read_image(dir.file("uint.exr")); }),
                 "32-bit unsigned integers"));
}

TEST(FloatImages, OpenExrCutDamagedAndLying) {
    ScratchDir dir;
    hs::test::ExrSpec spec;
    spec.width = 300;
    spec.height = 200;
    spec.channels = {"R", "G", "B", "A"};
    const std::string good = dir.file("good.exr");
    hs::test::write_exr(good, spec, exr_value);
    const std::vector<std::uint8_t> bytes = read_bytes(good);
    // Cut anywhere: in the magic, the header, the offset table, the pixel data.
    for (const std::size_t cut :
         {std::size_t{3}, std::size_t{40}, std::size_t{300}, bytes.size() / 2, bytes.size() - 1}) {
        const std::string path = dir.file("cut.exr");
        write_prefix(good, path, cut);
        const std::string message = message_of<InputError>([&] { (void)media::read_image(path); });
        EXPECT_TRUE(contains(message, "'" + path + "'")) << message;
        EXPECT_TRUE(contains(message, "truncated or corrupt") ||
                    contains(message, "could not be decoded as OpenEXR") ||
                    contains(message, "not an image format"))
            << cut << ": " << message;
    }
    // Damaged in the middle of the compressed pixels.
    const std::string damaged = dir.file("damaged.exr");
    hs::test::write_damaged_copy(good, damaged, 2000);
    const std::string m = message_of<InputError>([&] { (void)media::read_image(damaged); });
    EXPECT_TRUE(contains(m, "could not be decoded as OpenEXR") ||
                contains(m, "truncated or corrupt"))
        << m;
    // A data window of 2^30 x 2^30 pixels in a file of a few kilobytes: refused before the
    // library allocates anything.
    std::vector<std::uint8_t> huge = bytes;
    const std::string key = "dataWindow";
    const auto at = std::search(huge.begin(), huge.end(), key.begin(), key.end()) - huge.begin();
    const std::size_t value =
        static_cast<std::size_t>(at) + key.size() + 1 + 6 + 4;  // "box2i\0", size
    const std::int32_t big = (1 << 30) - 1;
    std::memcpy(huge.data() + value + 8, &big, 4);
    std::memcpy(huge.data() + value + 12, &big, 4);
    write_bytes(dir.file("huge.exr"), huge);
    const std::string h =
        message_of<InputError>([&] { (void)media::read_image(dir.file("huge.exr")); });
    EXPECT_TRUE(contains(h, "declares 1073741824x1073741824 pixels, more than the limit")) << h;
    media::DecodeOptions small;
    small.max_pixels = 1000;
    EXPECT_TRUE(contains(message_of<InputError>([&] { (void)media::read_image(good, small); }),
                         "declares 300x200 pixels, more than the limit of 1000"));
}

// --- PFM

TEST(FloatImages, PfmBothKindsBothByteOrdersBottomToTop) {
    ScratchDir dir;
    int n = 0;
    for (const int channels : {3, 1})
        for (const char* order : {"little", "big"})
            for (const auto& [w, h] :
                 std::vector<std::pair<int, int>>{{1, 1}, {37, 23}, {256, 3}}) {
                const std::string path = dir.file("p" + std::to_string(n++) + ".pfm");
                python("write-pfm " + path + " " + std::to_string(w) + " " + std::to_string(h) +
                       " " + std::to_string(channels) + " " + order + " " + std::to_string(n));
                expect_same_as_python(path);
                EXPECT_EQ(media::read_image(path).format, "PFM");
            }
    // Rows are stored from the bottom up: a 1x2 file holding 1 then 2 is 2 above 1.
    const std::string tiny = dir.file("rows.pfm");
    std::vector<std::uint8_t> bytes{'P', 'f', '\n', '1', ' ', '2', '\n', '-', '1', '.', '0', '\n'};
    for (float f : {1.0f, 2.0f}) {
        std::uint8_t b[4];
        std::memcpy(b, &f, 4);
        bytes.insert(bytes.end(), b, b + 4);
    }
    write_bytes(tiny, bytes);
    const media::LoadedImage img = media::read_image(tiny);
    EXPECT_EQ(img.image.view().sample_f32(0, 0, 0), 2.0f);
    EXPECT_EQ(img.image.view().sample_f32(0, 1, 0), 1.0f);
}

TEST(FloatImages, PfmHostileHeadersAndRasters) {
    ScratchDir dir;
    const auto pfm = [&](const std::string& header, std::size_t floats) {
        std::vector<std::uint8_t> b(header.begin(), header.end());
        b.resize(b.size() + 4 * floats, 0);
        const std::string path = dir.file("bad.pfm");
        write_bytes(path, b);
        return message_of<InputError>([&] { (void)media::read_image(path); });
    };
    const std::string name = "'" + dir.file("bad.pfm") + "'";
    EXPECT_EQ(pfm("PF\n2 2\n-1.0\n", 11),
              name +
                  " is truncated or corrupt (PFM raster of 2x2x3 floats needs 48 bytes, more "
                  "than the 44 the file has)");
    EXPECT_EQ(pfm("PF\n2 2\n-1.0\n", 13),
              name +
                  " is truncated or corrupt (PFM file has 4 bytes after the raster its header "
                  "declares (a wrong size?))");
    EXPECT_TRUE(contains(pfm("Pf\n0 2\n-1.0\n", 4), "PFM header has no valid size ('0 2')"));
    EXPECT_TRUE(contains(pfm("Pf\n-2 2\n-1.0\n", 4), "PFM header has no valid size"));
    EXPECT_TRUE(contains(pfm("Pf\n2 x\n-1.0\n", 4), "PFM header has no valid size"));
    EXPECT_TRUE(contains(pfm("Pf\n2 2\n0\n", 4), "PFM header has no valid scale ('0'"));
    EXPECT_TRUE(contains(pfm("Pf\n2 2\nnan\n", 4), "no valid scale"));
    EXPECT_TRUE(contains(pfm("Pf\n2 2\n-1.0x\n", 4), "no valid scale"));
    EXPECT_TRUE(contains(pfm("Pf\n2 2", 0), "truncated or corrupt (PFM header is incomplete)"));
    EXPECT_TRUE(contains(pfm("Pf\n99999 99999\n-1\n", 4),
                         "declares 99999x99999 pixels, more than the limit"));
    EXPECT_TRUE(contains(pfm("Pf\n2 123456789012\n-1\n", 4), "no valid size"));
    // Non-finite samples are data: read, and said.
    const std::string path = dir.file("nan.pfm");
    std::vector<std::uint8_t> b{'P', 'f', '\n', '3', ' ', '1', '\n', '-', '1', '\n'};
    for (float f : {std::numeric_limits<float>::quiet_NaN(), kInf, 1.0f}) {
        std::uint8_t x[4];
        std::memcpy(x, &f, 4);
        b.insert(b.end(), x, x + 4);
    }
    write_bytes(path, b);
    const media::LoadedImage img = media::read_image(path);
    EXPECT_TRUE(std::isnan(img.image.view().sample_f32(0, 0, 0)));
    EXPECT_EQ(img.image.view().sample_f32(1, 0, 0), kInf);
    ASSERT_FALSE(img.notes.empty());
    EXPECT_EQ(img.notes.back(),
              "1 sample is NaN and 1 sample is infinite: the histograms count them apart, as "
              "non-finite");
}

// --- float TIFF

TEST(FloatImages, FloatTiffEveryLayoutLibtiffReads) {
    ScratchDir dir;
    int n = 0;
    for (const int channels : {1, 2, 3, 4})
        for (const std::string options :
             {"", "zlib", "tiled zlib", "tiled", "planar", "planar zlib"}) {
            if (channels < 3 && options.rfind("planar", 0) == 0) continue;
            const std::string path = dir.file("t" + std::to_string(n++) + ".tif");
            python("write-tiff " + path + " 45 29 " + std::to_string(channels) + " " +
                   std::to_string(n) + " " + options);
            SCOPED_TRACE(options + " " + std::to_string(channels));
            expect_same_as_python(path);
        }
}

TEST(FloatImages, FloatTiffByLibtiffLzwPredictorAndHalf) {
    ScratchDir dir;
    struct Case {
        int bits;
        std::uint16_t compression, predictor;
    };
    int n = 0;
    for (const Case& k :
         {Case{32, COMPRESSION_LZW, 1}, Case{32, COMPRESSION_ADOBE_DEFLATE, 3},
          Case{32, COMPRESSION_LZW, 3}, Case{16, COMPRESSION_NONE, 1},
          Case{16, COMPRESSION_ADOBE_DEFLATE, 3}, Case{32, COMPRESSION_PACKBITS, 1}})
        for (const int channels : {1, 2, 3, 4}) {
            hs::test::FloatTiffSpec spec;
            spec.width = 41;
            spec.height = 19;
            spec.channels = channels;
            spec.bits = k.bits;
            spec.compression = k.compression;
            spec.predictor = k.predictor;
            const std::string path = dir.file("l" + std::to_string(n++) + ".tif");
            const std::vector<float> expected = hs::test::write_float_tiff(path, spec, exr_value);
            const media::LoadedImage img = media::read_image(path);
            SCOPED_TRACE(path);
            expect_exr_read(img.image.view(), expected, channels, channels == 2);
            if (k.bits == 16) {
                ASSERT_FALSE(img.notes.empty());
                EXPECT_EQ(img.notes.front(),
                          "TIFF of 16-bit (half) floats, widened exactly to 32 bits");
            }
        }
}

TEST(FloatImages, FloatTiffCutAndDamaged) {
    ScratchDir dir;
    const std::string good = dir.file("good.tif");
    python("write-tiff " + good + " 200 100 3 5 zlib");
    const std::size_t size = read_bytes(good).size();
    for (const std::size_t cut : {std::size_t{10}, size / 2, size - 10}) {
        const std::string path = dir.file("cut.tif");
        write_prefix(good, path, cut);
        const std::string m = message_of<InputError>([&] { (void)media::read_image(path); });
        EXPECT_TRUE(contains(m, "truncated or corrupt") || contains(m, "could not be decoded"))
            << cut << ": " << m;
    }
    const std::string damaged = dir.file("damaged.tif");
    hs::test::write_damaged_copy(good, damaged, 4000);
    const std::string m = message_of<InputError>([&] { (void)media::read_image(damaged); });
    EXPECT_TRUE(contains(m, "could not be decoded as TIFF") ||
                contains(m, "is corrupt (the deflate data"))
        << m;
    // 64-bit floats are not narrowed behind anyone's back.
    const std::string wide = dir.file("f64.tif");
    hs::test::run_command(std::string(HS_TEST_PYTHON) +
                          " -c \"import numpy, tifffile; tifffile.imwrite('" + wide +
                          "', numpy.ones((4, 4), numpy.float64))\"");
    EXPECT_TRUE(contains(message_of<InputError>([&] { (void)media::read_image(wide); }),
                         "TIFF of 64-bit float samples; only 16-bit and 32-bit floats are read"));
}

// --- counts against numpy

TEST(FloatImages, HistogramsOfRealFilesEqualNumpys) {
    ScratchDir dir;
    const std::string pfm = dir.file("a.pfm"), tif = dir.file("b.tif"), gray = dir.file("c.pfm");
    python("write-pfm " + pfm + " 123 77 3 big 21");
    python("write-tiff " + tif + " 64 50 4 22 zlib");
    python("write-pfm " + gray + " 99 31 1 little 23");
    for (const std::string& path : {pfm, tif}) {
        expect_counts_as_numpy(path, FloatBins::default_stops(), "stops -16 16 1/8",
                               "luma709,r,g,b");
        expect_counts_as_numpy(path, FloatBins::stops({-3, 1}, {5, 1}, {1, 3}), "stops -3 5 1/3",
                               "luma709,g");
        expect_counts_as_numpy(path, FloatBins::linear({0, 1}, {1, 1}, 256), "linear 0 1 256",
                               "r,g,b,luma709");
        expect_counts_as_numpy(path, FloatBins::linear({-2, 1}, {1, 10}, 7), "linear -2 1/10 7",
                               "b");
    }
    expect_counts_as_numpy(tif, FloatBins::default_stops(), "stops -16 16 1/8", "a");
    expect_counts_as_numpy(gray, FloatBins::default_stops(), "stops -16 16 1/8", "gray");
}
