// Camera raw files: CameraRawReader (LibRaw) and probe() on DNGs written by numpy and tifffile
// (tests/support/make_dng.py), the mosaic's counts per CFA colour judged against numpy's counts
// of the same array; the metadata written; the demosaiced image against the scaling a flat field
// must get; hostile files (cut, damaged, declaring more than their data holds).

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <thread>

#include "camera_raw_dng.hpp"
#include "histoscope/core/error.hpp"
#include "histoscope/core/histogram.hpp"
#include "histoscope/media/media.hpp"
#include "media_test_support.hpp"

using namespace hs;
using hs::test::DngSpec;
using hs::test::DngTruth;
using hs::test::message_of;
using hs::test::ScratchDir;

namespace {

// Counts of the CFA view's channel of colour `name`, one bin per code value.
std::vector<std::uint64_t> colour_counts(const ImageView& mosaic, const std::string& name) {
    const auto* colour = std::find_if(std::begin(media::kCfaColours), std::end(media::kCfaColours),
                                      [&](const media::CfaColour& c) { return name == c.name; });
    const std::int64_t codes = std::int64_t{1} << mosaic.bit_depth;
    return reference_histogram(mosaic, {colour->channel},
                               HistogramSpec::even(static_cast<int>(codes), 0, codes))
        .front()
        .counts;
}

media::CameraRawReader open_raw(const std::string& path, const media::DecodeOptions& o = {}) {
    return media::CameraRawReader(media::Source(path, o), o);
}

// Every check of the CFA view of `spec` against numpy's counts.
void expect_mosaic_equals_numpy(const DngSpec& spec, int depth) {
    SCOPED_TRACE(spec.pattern + " " + std::to_string(spec.width) + "x" +
                 std::to_string(spec.height) + " white " + std::to_string(spec.white));
    ScratchDir dir;
    const std::string path = dir.file("shot.dng");
    ASSERT_EQ(hs::test::make_dng(spec, path), "");
    const DngTruth truth = hs::test::read_truth(path);
    ASSERT_EQ(truth.colours.size(), 4u);

    EXPECT_EQ(media::probe(path), media::MediaKind::CameraRaw);
    media::CameraRawReader raw = open_raw(path);
    const media::CameraRawInfo& info = raw.info();
    EXPECT_EQ(info.format, "DNG");
    EXPECT_EQ(info.cfa_pattern, truth.pattern);
    EXPECT_EQ(info.mosaic_problem, "");
    EXPECT_EQ(info.white, truth.white);
    EXPECT_EQ(info.sensor_depth, depth);
    EXPECT_EQ(info.visible.width, spec.width);
    EXPECT_EQ(info.visible.height, spec.height);
    EXPECT_EQ(info.raw_width, spec.width);
    EXPECT_EQ(info.raw_height, spec.height);

    const Image mosaic = raw.mosaic();
    const ImageView v = mosaic.view();
    EXPECT_EQ(v.width, spec.width / 2);
    EXPECT_EQ(v.height, spec.height / 2);
    EXPECT_EQ(v.channels, 4);
    EXPECT_EQ(v.type, SampleType::U16);
    EXPECT_EQ(v.bit_depth, depth);
    std::uint64_t left_out = 0;
    for (int i = 0; i < 4; ++i) {
        const std::string name = media::kCfaColours[i].name;
        SCOPED_TRACE(name);
        const hs::test::CfaTruth& t = truth.colours.at(name);
        const std::vector<std::uint64_t> counts = colour_counts(v, name);
        EXPECT_EQ(counts, t.histogram(depth));
        EXPECT_EQ(info.black[i], t.black);
        const media::LevelCounts levels = media::level_counts(counts, info.black[i], info.white);
        EXPECT_EQ(levels.at_or_below_black, t.at_or_below_black);
        EXPECT_EQ(levels.at_or_above_white, t.at_or_above_white);
        left_out += t.left_out;
    }
    EXPECT_EQ(static_cast<std::uint64_t>(info.left_out), left_out);
    const bool odd = spec.width % 2 != 0 || spec.height % 2 != 0;
    const std::vector<std::string> notes = raw.notes(media::CameraRawView::Cfa);
    const bool noted = std::any_of(notes.begin(), notes.end(), [&](const auto& n) {
        return n.find(std::to_string(left_out) + " photosites of no whole 2x2 quad") !=
               std::string::npos;
    });
    EXPECT_EQ(noted, odd);
}

}  // namespace

TEST(CameraRaw, TwelveBitRggbOfOddSizeCountsEqualNumpys) {
    DngSpec spec;
    spec.width = 65;
    spec.height = 47;
    expect_mosaic_equals_numpy(spec, 12);
}

TEST(CameraRaw, FourteenBitPatternsWithABlackLevelPerColourCountEqualNumpys) {
    for (const std::string pattern : {"BGGR", "GRBG", "GBRG"}) {
        DngSpec spec;
        spec.width = 40;
        spec.height = 30;
        spec.pattern = pattern;
        spec.black = "512,520,530,540";
        spec.white = 16383;
        spec.seed = 7;
        expect_mosaic_equals_numpy(spec, 14);
    }
}

// (LibRaw reads no image smaller than 22x22.)
TEST(CameraRaw, TenBitOddHeightOnly) {
    DngSpec spec;
    spec.width = 24;
    spec.height = 23;
    spec.pattern = "GBRG";
    spec.black = "64";
    spec.white = 1023;
    expect_mosaic_equals_numpy(spec, 10);
}

TEST(CameraRaw, PhotositesAboveTheWhiteLevelWidenTheDepthSaidInANote) {
    // White 4095 (12 bits), values up to 4195: every photosite must fit, so 13 bits.
    DngSpec spec;
    spec.width = 30;
    spec.height = 24;
    spec.above = 100;
    expect_mosaic_equals_numpy(spec, 13);
    ScratchDir dir;
    const std::string path = dir.file("hot.dng");
    ASSERT_EQ(hs::test::make_dng(spec, path), "");
    media::CameraRawReader raw = open_raw(path);
    const std::vector<std::string> notes = raw.notes(media::CameraRawView::Cfa);
    ASSERT_FALSE(notes.empty());
    EXPECT_NE(notes.front().find("photosites reach 4195, above the white level 4095: "
                                 "counted over 13 bits"),
              std::string::npos)
        << notes.front();
    // The mosaic's depth says nothing of the demosaiced image: its view is not told it.
    EXPECT_EQ(raw.notes(media::CameraRawView::Rgb), std::vector<std::string>{});
}

TEST(CameraRaw, MetadataAsWritten) {
    ScratchDir dir;
    const std::string path = dir.file("meta.dng");
    DngSpec spec;
    spec.make = "Acme";
    spec.model = "Sensor 9";
    spec.iso = 3200;
    spec.exposure = "1/8000";
    spec.fnumber = "2.8";
    spec.focal = "85";
    spec.datetime = "2023:12:31 23:59:58";
    ASSERT_EQ(hs::test::make_dng(spec, path), "");
    media::CameraRawReader raw = open_raw(path);
    const media::CameraRawInfo& info = raw.info();
    EXPECT_EQ(info.make, "Acme");
    EXPECT_EQ(info.model, "Sensor 9");
    EXPECT_EQ(info.iso, 3200.0);
    EXPECT_EQ(info.exposure_s, 0.000125);
    EXPECT_EQ(info.aperture, 2.8);
    EXPECT_EQ(info.focal_length_mm, 85.0);
    EXPECT_EQ(info.date, "2023-12-31 23:59:58");
    EXPECT_EQ(info.demosaiced_width, spec.width);
    EXPECT_EQ(info.demosaiced_height, spec.height);
    EXPECT_EQ(info.demosaiced_channels, 3);
}

TEST(CameraRaw, DemosaicedFlatFieldsScaleFromBlackToWhite) {
    // Every photosite at one value: LibRaw's linear output is (v - black) / (white - black) of
    // 65535 in every channel (the DNG's camera is sRGB under D65 and its white neutral: the
    // colour matrix's rows sum to one), rounded, and a value at the white level is white. The
    // white level is the file's: 3800 and 4094, above 75 % of 4095, are not stretched to 65535
    // as LibRaw's default (the brightest photosite taken for white) would.
    for (const int value : {256 + 1000, 256 + 2500, 3800, 4094, 4095}) {
        SCOPED_TRACE(value);
        ScratchDir dir;
        const std::string path = dir.file("flat.dng");
        DngSpec spec;
        spec.width = 32;
        spec.height = 24;
        spec.black = "256";
        spec.extra = "--flat " + std::to_string(value);
        ASSERT_EQ(hs::test::make_dng(spec, path), "");
        media::CameraRawReader raw = open_raw(path);
        const Image rgb = raw.demosaiced();
        const ImageView v = rgb.view();
        ASSERT_EQ(v.width, 32);
        ASSERT_EQ(v.height, 24);
        ASSERT_EQ(v.channels, 3);
        EXPECT_EQ(v.type, SampleType::U16);
        EXPECT_EQ(v.bit_depth, 16);
        const double expected =
            std::min(65535.0, std::round((value - 256) * 65535.0 / (4095 - 256)));
        for (int c = 0; c < 3; ++c) {
            std::uint32_t lo = 65535, hi = 0;
            for (int y = 0; y < v.height; ++y)
                for (int x = 0; x < v.width; ++x) {
                    lo = std::min(lo, v.sample(x, y, c));
                    hi = std::max(hi, v.sample(x, y, c));
                }
            // The colour matrix's rows sum to one within a float's precision.
            EXPECT_EQ(hi, lo) << "channel " << c;
            EXPECT_NEAR(lo, expected, 1.0) << "channel " << c;
        }
    }
}

// Photosites at or above the white level are white: 65535 in every channel of the demosaic,
// exactly, whichever colour the white balance multiplies least (its scale takes the white level
// to 65535, the others' past it) and wherever the colours lie in the pattern. LibRaw's loops
// truncated 65534.996 to 65534.
TEST(CameraRaw, ClippedPhotositesAreExactlyWhiteInEveryChannel) {
    struct Case {
        std::string pattern, neutral;
        int value, white;
    };
    const Case cases[] = {
        {"RGGB", "1,1,1", 4095, 4095},     {"BGGR", "1,1,1", 4095, 4095},
        {"GRBG", "1,1,1", 4095, 4095},     {"GBRG", "1,1,1", 4095, 4095},
        {"RGGB", "1,0.5,0.5", 4095, 4095},  // red multiplied least
        {"RGGB", "0.5,1,0.5", 4095, 4095},  // green
        {"RGGB", "0.5,0.5,1", 4095, 4095},  // blue
        {"GBRG", "0.5,0.5,1", 4000, 3900},  // above the white level
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.pattern + " neutral " + c.neutral + " at " + std::to_string(c.value));
        ScratchDir dir;
        const std::string path = dir.file("clipped.dng");
        DngSpec spec;
        spec.width = 32;
        spec.height = 24;
        spec.pattern = c.pattern;
        spec.neutral = c.neutral;
        spec.white = c.white;
        spec.extra = "--flat " + std::to_string(c.value);
        ASSERT_EQ(hs::test::make_dng(spec, path), "");
        const Image rgb = open_raw(path).demosaiced();
        const ImageView v = rgb.view();
        ASSERT_EQ(v.channels, 3);
        for (const Channel ch : {Channel::R, Channel::G, Channel::B}) {
            const auto counts =
                reference_histogram(v, {ch}, HistogramSpec::even(65536, 0, 65536)).front().counts;
            EXPECT_EQ(counts[65535], static_cast<std::uint64_t>(v.pixel_count()))
                << channel_name(ch) << ": " << counts[65535] << " of " << v.pixel_count()
                << " at 65535, " << counts[65534] << " at 65534";
        }
    }
}

TEST(CameraRaw, ALinearDngHasNoMosaicButADemosaicedImage) {
    ScratchDir dir;
    const std::string path = dir.file("linear.dng");
    DngSpec spec;
    spec.linear = true;
    spec.width = 30;
    spec.height = 24;
    ASSERT_EQ(hs::test::make_dng(spec, path), "");
    media::CameraRawReader raw = open_raw(path);
    EXPECT_EQ(raw.info().cfa_pattern, "");
    EXPECT_NE(raw.info().mosaic_problem.find("no colour mosaic"), std::string::npos);
    EXPECT_NE(message_of<InputError>([&] {
                  (void)raw.mosaic();
              }).find("has no 2x2 Bayer mosaic to count: it holds no colour mosaic"),
              std::string::npos);
    const Image rgb = raw.demosaiced();
    EXPECT_EQ(rgb.width(), 30);
    EXPECT_EQ(rgb.height(), 24);
    EXPECT_EQ(rgb.channels(), 3);
}

// LibRaw reads any CFA as 8 rows by 2 columns of planes it names R, G, B, G: a white or cyan
// photosite came out as a green, a 4x4 pattern as a 2x2 one, reordered planes under the wrong
// names, and a 2x2 pattern whose greens share a column as a mosaic. Each has no mosaic to
// count, and still its demosaiced image.
TEST(CameraRaw, ACfaOtherThanA2x2BayerOfRgbHasNoMosaicButADemosaicedImage) {
    struct Case {
        std::string pattern, planes, why;
    };
    const Case cases[] = {
        {"RGGW", "", "its colour pattern RGGW has white photosites"},
        {"CYGM", "", "its colour pattern CYGM has cyan photosites"},
        {"RGBG", "", "its colour pattern RGBG is none of RGGB, BGGR, GRBG and GBRG"},
        // Every row R, G, G, B: stripes, which LibRaw's 8x2 reading takes for RGGB.
        {"RGGBRGGBRGGBRGGB", "", "its colour pattern repeats every 4x4 photosites"},
        {"RGGB", "BGR", "LibRaw reads its colour pattern as BGGR where the file declares RGGB"},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.pattern + " " + c.planes);
        ScratchDir dir;
        const std::string path = dir.file("cfa.dng");
        DngSpec spec;
        spec.width = 48;
        spec.height = 36;
        spec.pattern = c.pattern;
        spec.planes = c.planes;
        ASSERT_EQ(hs::test::make_dng(spec, path), "");
        media::CameraRawReader raw = open_raw(path);
        EXPECT_EQ(raw.info().cfa_pattern, "");
        EXPECT_NE(raw.info().mosaic_problem.find(c.why), std::string::npos)
            << raw.info().mosaic_problem;
        EXPECT_NE(message_of<InputError>([&] {
                      (void)raw.mosaic();
                  }).find("has no 2x2 Bayer mosaic to count: " + c.why),
                  std::string::npos);
        const Image rgb = raw.demosaiced();
        EXPECT_EQ(rgb.width(), 48);
        EXPECT_EQ(rgb.height(), 36);
        EXPECT_EQ(rgb.channels(), 3);
    }
    // The 2x2 Bayer patterns themselves are mosaics, also inside masked borders of odd widths
    // (the pattern's phase counted from the ActiveArea's top left, as LibRaw counts it), where
    // planes in another order are still told.
    for (const std::string pattern : {"RGGB", "BGGR", "GRBG", "GBRG"}) {
        ScratchDir dir;
        const std::string path = dir.file("bayer.dng");
        DngSpec spec;
        spec.pattern = pattern;
        ASSERT_EQ(hs::test::make_dng(spec, path), "");
        EXPECT_EQ(open_raw(path).info().cfa_pattern, pattern);
        if (pattern != "RGGB" && pattern != "GBRG") continue;
        for (const std::string area : {"1,1,47,63", "3,2,45,62"}) {
            SCOPED_TRACE(pattern + " inside " + area);
            spec.extra = "--active-area " + area;
            spec.planes = "";
            ASSERT_EQ(hs::test::make_dng(spec, path), "");
            media::CameraRawReader raw = open_raw(path);
            EXPECT_EQ(raw.info().mosaic_problem, "");
            EXPECT_EQ(raw.info().cfa_pattern.size(), 4u);
            EXPECT_GT(raw.mosaic().width(), 0);
            spec.planes = "BGR";
            ASSERT_EQ(hs::test::make_dng(spec, path), "");
            EXPECT_NE(open_raw(path).info().mosaic_problem.find("LibRaw reads its colour pattern"),
                      std::string::npos);
        }
    }
}

TEST(CameraRaw, FromAStreamInputAsFromItsFile) {
    ScratchDir dir;
    const std::string path = dir.file("piped.dng");
    DngSpec spec;
    spec.width = 33;
    spec.height = 25;
    ASSERT_EQ(hs::test::make_dng(spec, path), "");
    // A FIFO is a stream input: read whole into memory, then opened by LibRaw from there.
    const std::string fifo = dir.file("fifo");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    std::thread writer([&] {
        std::ofstream out(fifo, std::ios::binary);
        const auto bytes = hs::test::read_bytes(path);
        out.write(reinterpret_cast<const char*>(bytes.data()),
                  static_cast<std::streamsize>(bytes.size()));
    });
    const media::Source source(fifo);
    writer.join();
    ASSERT_NE(source.bytes(), nullptr);
    EXPECT_EQ(media::probe(source), media::MediaKind::CameraRaw);
    media::CameraRawReader piped(source);
    media::CameraRawReader file = open_raw(path);
    EXPECT_TRUE(hs::test::same_samples(piped.mosaic().view(), file.mosaic().view()));
    EXPECT_EQ(piped.info().cfa_pattern, "RGGB");
}

TEST(CameraRaw, ProbeTellsRawFilesByContentThenByExtension) {
    ScratchDir dir;
    const std::string dng = dir.file("no_extension");
    ASSERT_EQ(hs::test::make_dng(DngSpec{}, dng), "");
    EXPECT_EQ(media::probe(dng), media::MediaKind::CameraRaw);  // DNGVersion in a TIFF
    // Signatures of their own, whatever the name.
    hs::test::write_bytes(dir.file("rw2"), {'I', 'I', 'U', 0, 8, 0, 0, 0, 0, 0, 0, 0});
    EXPECT_EQ(media::probe(dir.file("rw2")), media::MediaKind::CameraRaw);
    // A photo named as a raw file is the photo; a TIFF named so is taken as one.
    const std::string jpeg = std::string(HS_SAMPLES_DIR) + "/fruits.jpg";
    std::filesystem::copy_file(jpeg, dir.file("photo.nef"));
    EXPECT_EQ(media::probe(dir.file("photo.nef")), media::MediaKind::Image);
    const std::string tiff = dir.file("plain.tif");
    const std::string nef = dir.file("plain.NEF");
    Image gray(8, 8, 1, SampleType::U8);
    media::write_image(tiff, gray.view());
    std::filesystem::copy_file(tiff, nef);
    EXPECT_EQ(media::probe(tiff), media::MediaKind::Image);
    EXPECT_EQ(media::probe(nef), media::MediaKind::CameraRaw);
    EXPECT_NE(message_of<InputError>([&] {
                  (void)open_raw(nef);
              }).find("is not a camera raw file LibRaw reads"),
              std::string::npos);
    // The extensions File > Open offers.
    const auto& ext = media::camera_raw_extensions();
    for (const char* e : {".dng", ".cr2", ".cr3", ".nef", ".arw", ".raf", ".orf", ".rw2"})
        EXPECT_NE(std::find(ext.begin(), ext.end(), e), ext.end()) << e;
    EXPECT_EQ(std::find(ext.begin(), ext.end(), ".raw"), ext.end());
}

// .raw and .bin name raw frames, which carry no header, unless their first bytes are a camera
// raw file's (a DNG, a Panasonic .RAW) or a photo's: the one rule of both applications.
TEST(CameraRaw, RawAndBinFilesAreRawFramesUnlessTheirBytesSayOtherwise) {
    ScratchDir dir;
    std::vector<std::uint8_t> noise(3000);
    for (std::size_t i = 0; i < noise.size(); ++i) noise[i] = static_cast<std::uint8_t>(i * 7 + 3);
    for (const std::string name : {"frames.raw", "frames.bin", "FRAMES.RAW"}) {
        SCOPED_TRACE(name);
        const std::string path = dir.file(name);
        hs::test::write_bytes(path, noise);
        EXPECT_TRUE(media::raw_frames_name(path));
        EXPECT_EQ(media::probe(path), media::MediaKind::Raw);
        EXPECT_TRUE(media::holds_raw_frames(path));
    }
    const std::string dng = dir.file("shot.raw");
    ASSERT_EQ(hs::test::make_dng(DngSpec{}, dng), "");
    EXPECT_EQ(media::probe(dng), media::MediaKind::CameraRaw);
    EXPECT_FALSE(media::holds_raw_frames(dng));
    EXPECT_EQ(open_raw(dng).info().format, "DNG");
    const std::string panasonic = dir.file("P1000001.RAW");
    hs::test::write_bytes(panasonic, {'I', 'I', 'U', 0, 8, 0, 0, 0});
    EXPECT_EQ(media::probe(panasonic), media::MediaKind::CameraRaw);
    EXPECT_FALSE(media::holds_raw_frames(panasonic));
    const std::string photo = dir.file("photo.bin");
    std::filesystem::copy_file(std::string(HS_SAMPLES_DIR) + "/fruits.jpg", photo);
    EXPECT_EQ(media::probe(photo), media::MediaKind::Image);
    EXPECT_FALSE(media::holds_raw_frames(photo));
    // Other names, a file that is not there.
    const std::string dat = dir.file("frames.dat");
    hs::test::write_bytes(dat, noise);
    EXPECT_FALSE(media::raw_frames_name(dat));
    EXPECT_FALSE(media::holds_raw_frames(dat));
    EXPECT_FALSE(media::holds_raw_frames(dir.file("missing.raw")));
    // A FIFO is judged by its name: nothing is read from it (no writer is waited for).
    const std::string fifo = dir.file("live.raw");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    EXPECT_TRUE(media::holds_raw_frames(fifo));
    // The message both applications give without a format.
    EXPECT_EQ(message_of<UsageError>([&] { media::raw_format_needed("'x.raw'"); }),
              "'x.raw' holds raw frames, which carry no header: give their format with --raw "
              "WxHxC:u8|u16[:DEPTH]|f32");
}

TEST(CameraRaw, CutFilesAreRefused) {
    ScratchDir dir;
    const std::string path = dir.file("whole.dng");
    DngSpec spec;
    spec.width = 128;
    spec.height = 96;
    ASSERT_EQ(hs::test::make_dng(spec, path), "");
    const std::size_t size = hs::test::read_bytes(path).size();
    // In the header, in the first directory, in the photosites, one byte short.
    for (const std::size_t keep : {std::size_t{6}, std::size_t{100}, size / 2, size - 200}) {
        SCOPED_TRACE(keep);
        const std::string cut = dir.file("cut.dng");
        hs::test::write_prefix(path, cut, keep);
        const std::string message = message_of<InputError>([&] { (void)open_raw(cut).mosaic(); });
        EXPECT_NE(message.find("'" + cut + "'"), std::string::npos) << message;
        EXPECT_TRUE(message.find("truncated or corrupt") != std::string::npos ||
                    message.find("cannot hold") != std::string::npos ||
                    message.find("not a camera raw file") != std::string::npos)
            << message;
    }
}

// Files named as camera raw that are not one say so; LibRaw's "Input/output error" (its reading
// ran past a few bytes) named them cut short. A few bytes laid out as TIFF are a cut TIFF.
TEST(CameraRaw, TinyFilesNamedAsCameraRawSayWhatTheyAre) {
    ScratchDir dir;
    const std::pair<std::vector<std::uint8_t>, std::string> cases[] = {
        {{'a', 'b', 'c'},
         "is not a camera raw file LibRaw reads (nothing but its name says it is one)"},
        {std::vector<std::uint8_t>(100, 0), "is not a camera raw file LibRaw reads"},
        {{'h', 'e', 'l', 'l', 'o', ' ', 't', 'e', 'x', 't', '\n'}, "is not a camera raw file"},
        {{}, "is empty"},
        {{'I', 'I', '*', 0, 8, 0, 0, 0},
         "is truncated or corrupt (TIFF directory of page 1 lies past the end of the file)"},
        {{'M', 'M', 0, '*'}, "is truncated or corrupt (TIFF header is incomplete)"},
    };
    for (const std::string name : {"tiny.dng", "tiny.nef", "tiny.cr2"})
        for (const auto& [bytes, why] : cases) {
            SCOPED_TRACE(name + ": " + why);
            const std::string path = dir.file(name);
            hs::test::write_bytes(path, bytes);
            if (!bytes.empty()) {
                EXPECT_EQ(media::probe(path), media::MediaKind::CameraRaw);
            }
            EXPECT_NE(
                message_of<InputError>([&] { (void)open_raw(path); }).find("'" + path + "' " + why),
                std::string::npos);
        }
}

TEST(CameraRaw, ADamagedHeaderIsRefused) {
    ScratchDir dir;
    const std::string path = dir.file("damaged.dng");
    // The first directory's entries overwritten: the sizes, the strips, the CFA tags.
    DngSpec spec;
    spec.extra = "--damage 10:200";
    ASSERT_EQ(hs::test::make_dng(spec, path), "");
    const std::string message = message_of<InputError>([&] { (void)open_raw(path).mosaic(); });
    EXPECT_NE(message.find("'" + path + "'"), std::string::npos) << message;
}

// A black level at or above the white level leaves no value for a photosite between them (the
// demosaic's scaling would divide by their difference): the file is refused, whichever colour's
// level it is.
TEST(CameraRaw, ABlackLevelNotBelowTheWhiteLevelIsRefused) {
    // The levels of the 2x2 positions, and the highest of them.
    const std::pair<std::string, std::string> cases[] = {
        {"4095", "4095"}, {"5000", "5000"}, {"100,100,4095,100", "4095"}};
    for (const auto& [black, highest] : cases) {
        SCOPED_TRACE(black);
        ScratchDir dir;
        const std::string path = dir.file("levels.dng");
        DngSpec spec;
        spec.black = black;
        ASSERT_EQ(hs::test::make_dng(spec, path), "");
        EXPECT_NE(message_of<InputError>([&] { (void)open_raw(path); })
                      .find("'" + path + "' is corrupt (its black level " + highest +
                            " is not below its white level 4095)"),
                  std::string::npos);
    }
    // One below is a level.
    ScratchDir dir;
    const std::string path = dir.file("levels.dng");
    DngSpec spec;
    spec.black = "4094";
    ASSERT_EQ(hs::test::make_dng(spec, path), "");
    EXPECT_EQ(open_raw(path).info().black[0], 4094u);
}

// LibRaw reads a WhiteLevel of 0 as 65535, the 16 bits' top.
TEST(CameraRaw, AWhiteLevelOfZeroIsRefused) {
    ScratchDir dir;
    const std::string path = dir.file("white.dng");
    DngSpec spec;
    spec.black = "0";
    spec.white = 0;
    ASSERT_EQ(hs::test::make_dng(spec, path), "");
    EXPECT_NE(message_of<InputError>([&] {
                  (void)open_raw(path);
              }).find("'" + path + "' is corrupt (its WhiteLevel is 0"),
              std::string::npos);
}

// An uncompressed DNG of 64x48 photosites (3 strips of 16 rows) whose header declares another
// size. Larger: photosites LibRaw would read as zeros, refused even with allow_corrupt. A row
// of another width: the photosites would be sheared, refused. Fewer rows: those declared are
// read as they were written, and a note says what is not.
TEST(CameraRaw, ADngDeclaringASizeOtherThanItsDataIsRefusedOrNoted) {
    media::DecodeOptions lenient;
    lenient.allow_corrupt = true;
    const std::pair<std::string, std::string> refused[] = {
        {"64x50",
         "declares 64x50 photosites, which its strips' 6144 bytes cannot hold: "
         "uncompressed at 16 bits, they take 6400 bytes"},
        {"65x48", "declares 65x48 photosites, which its strips' 6144 bytes cannot hold"},
        {"63x48",
         "declares 63x48 photosites, but its strips are not cut at their rows "
         "(uncompressed at 16 bits, 6144 bytes where they take 6048)"},
        {"32x24", "declares 32x24 photosites, but its strips are not cut at their rows"},
    };
    for (const auto& [declared, why] : refused) {
        SCOPED_TRACE(declared);
        ScratchDir dir;
        const std::string path = dir.file("sized.dng");
        DngSpec spec;
        spec.extra = "--declare " + declared;
        ASSERT_EQ(hs::test::make_dng(spec, path), "");
        for (const media::DecodeOptions& o : {media::DecodeOptions{}, lenient})
            EXPECT_NE(message_of<InputError>([&] {
                          (void)open_raw(path, o);
                      }).find("'" + path + "' is corrupt (its header " + why),
                      std::string::npos);
    }
    ScratchDir dir;
    const std::string path = dir.file("short.dng");
    DngSpec spec;
    spec.extra = "--declare 64x40";
    ASSERT_EQ(hs::test::make_dng(spec, path), "");
    media::CameraRawReader raw = open_raw(path);
    EXPECT_EQ(raw.info().visible.height, 40);
    EXPECT_EQ(raw.mosaic().height(), 20);
    // The file's note, of either view.
    EXPECT_EQ(raw.notes(media::CameraRawView::Rgb), raw.notes(media::CameraRawView::Cfa));
    ASSERT_EQ(raw.notes(media::CameraRawView::Cfa).size(), 1u);
    EXPECT_EQ(raw.notes(media::CameraRawView::Cfa).front(),
              "1024 bytes of its strips lie past the 64x40 photosites its header declares: they "
              "are not read");
}

TEST(CameraRaw, AHugeDeclaredSizeIsRefusedBeforeAnythingIsAllocated) {
    ScratchDir dir;
    const std::string path = dir.file("huge.dng");
    DngSpec spec;
    spec.extra = "--declare 30000x30000";  // 9e8 photosites, under the 2^30 limit, in 7 KB
    ASSERT_EQ(hs::test::make_dng(spec, path), "");
    EXPECT_NE(message_of<InputError>([&] {
                  (void)open_raw(path);
              }).find("declares 30000x30000 photosites, which"),
              std::string::npos);
    // Over --max-pixels: refused as a photo's header is.
    media::DecodeOptions small;
    small.max_pixels = 1000;
    const std::string ok = dir.file("ok.dng");
    ASSERT_EQ(hs::test::make_dng(DngSpec{}, ok), "");
    EXPECT_NE(message_of<InputError>([&] { (void)open_raw(ok, small); })
                  .find("its camera raw header declares 64x48 pixels, more than the limit of "
                        "1000 pixels"),
              std::string::npos);
}
